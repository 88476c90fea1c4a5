"""The quick-play pairing run on a full queue: 10,000 waiting players, one run.

Fills the queues with ``--players`` players across the four presets, rated and casual, with
ratings spread like a real population (mu ~ N(25, 5): about ±200 shown points) and join times
spread over the last ``--spread`` seconds (a third of the casual ones accept bots after 10 to
120 s), then runs ONE pairing run (``competition.services.matchmaking.pairing_run``) and prints its
CPU seconds (``time.process_time``: this process only, the database server's work is not in
it), wall seconds, the queries it ran, how many players it paired into how many matches. The
match tables are not part of the run (``deal=False``): ``--tables`` of them are dealt afterwards
one by one (``match_table_create``: create, seat, deal, start), each timed (ms) with its
queries.

    python -m bench.pairing [--players 10000] [--tables 40] [--spread 180] [--seed 1]

With ``DATABASE_URL`` set to PostgreSQL (``postgres://user@host:5432/anyname``), a fresh
database is created on that server for the run and dropped after; without it, a temporary
SQLite file. Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import statistics
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any, TypeVar

from bench.scratch import django_setup, scratch_database

T = TypeVar("T")

PRESETS = ("classic", "hoyle", "two_player", "three_player")


@contextmanager
def counted() -> Iterator[list[str]]:
    """The SQL statements run inside the block (their first word)."""
    from django.db import connection

    statements: list[str] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        statements.append(sql.split(" ", 1)[0])
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        yield statements


def timed(fn: Callable[[], T]) -> tuple[T, float, float, list[str]]:
    """``fn()``, its CPU and wall seconds and its statements."""
    with counted() as statements:
        cpu, wall = time.process_time(), time.perf_counter()
        out = fn()
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return out, cpu, wall, statements


def queues_fill(players: int, spread: float, rng: random.Random) -> Any:
    """``players`` users, players and queue entries in bulk; the run's ``now``."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from accounts.models import Player
    from competition.models import QueueEntry, rating_format_of
    from games.engine import PRESETS as ENGINE_PRESETS
    from games.models import BotLevel

    now = timezone.now()
    user_model = get_user_model()
    tag = uuid.uuid4().hex[:6]
    users = user_model.objects.bulk_create(
        [user_model(username=f"q{tag}{i}") for i in range(players)], batch_size=2000
    )
    people = Player.objects.bulk_create(
        [Player(user=u, display_name=f"Q{i}") for i, u in enumerate(users)], batch_size=2000
    )
    entries = []
    for player in people:
        preset = rng.choice(PRESETS)
        rated = rng.random() < 0.5
        bots = None if rated or rng.random() > 1 / 3 else rng.randint(10, 120)
        entries.append(
            QueueEntry(
                player=player,
                preset=preset,
                format=rating_format_of(ENGINE_PRESETS[preset].players),
                rated=rated,
                bots_after_seconds=bots,
                bot_level=rng.choice(BotLevel.values),
                rating=rng.gauss(25.0, 5.0),
                joined_at=now - timedelta(seconds=rng.uniform(0, spread)),
            )
        )
    QueueEntry.objects.bulk_create(entries, batch_size=2000)
    return now


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--tables", type=int, default=40, help="tables dealt and timed after")
    parser.add_argument("--spread", type=float, default=180.0, help="join times, seconds back")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)

    with scratch_database("pairing") as url:
        django_setup(url, "pairing")
        from django.db import connection

        from competition.models import QueueEntry
        from competition.services.matchmaking import match_table_create, pairing_run

        print(f"database: {connection.vendor}; python {sys.version.split()[0]}")
        started = time.perf_counter()
        now = queues_fill(args.players, args.spread, rng)
        print(f"queued {args.players} players in {time.perf_counter() - started:.1f} s")

        result, cpu, wall, statements = timed(lambda: pairing_run(now=now, deal=False))
        kinds = Counter(
            ("rated" if m.rated else "casual", m.preset, "bots" if m.bots else "people")
            for m in result.matches
        )
        print(
            f"\npairing run: {cpu:.3f} s CPU, {wall:.3f} s wall, {len(statements)} queries "
            f"({', '.join(f'{n} {k}' for k, n in sorted(Counter(statements).items()))})"
        )
        print(
            f"  read {result.waiting} waiting; paired {result.paired} players into "
            f"{len(result.matches)} matches; "
            f"{QueueEntry.objects.filter(match__isnull=True).count()} still waiting"
        )
        for (rated, preset, seats), n in sorted(kinds.items()):
            print(f"  {n:5d} {rated:6s} {preset:12s} {seats}")

        sample = rng.sample(result.matches, min(args.tables, len(result.matches)))
        ms: list[float] = []
        queries: list[int] = []
        for made in sample:
            _, _, table_wall, table_statements = timed(
                functools.partial(match_table_create, made.match)
            )
            ms.append(table_wall * 1000)
            queries.append(len(table_statements))
        if ms:
            print(
                f"\ntables dealt after the run ({len(ms)} of {len(result.matches)}, one by one): "
                f"p50 {statistics.median(ms):.1f} ms, max {max(ms):.1f} ms, "
                f"mean {statistics.fmean(ms):.1f} ms; queries per table: mean "
                f"{statistics.fmean(queries):.1f}, max {max(queries)}"
            )
        print(f"\nload average: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores)")


if __name__ == "__main__":
    main()
