"""The rating update's cost per finished rated game: milliseconds and SQL queries.

For each format (2-, 3- and 4-player rated tables) the script plays ``--games`` rated games
(after ``--warmup`` unmeasured ones, so most players already have a rating row, as on a live
server) between players drawn from a pool of ``--pool`` players per seat, each game created,
joined and dealt through the services and ended by a concession (a random seat), which applies
the ratings in its transaction as the final move and the timer's abandonment do (the same
``competition.services.ratings.ratings_apply``). Measured around that call, in the concession's
transaction: its wall time (median and 95th percentile, ms), this process's CPU time (median,
ms: the part a busy machine does not inflate with waiting) and its queries
(``django.test.utils.CaptureQueriesContext``); and, for context, the whole concession of a rated
game against a casual one (median ms).

    python -m bench.ratings [--games 200] [--warmup 20] [--pool 4] [--seed 1]

With ``DATABASE_URL`` set to PostgreSQL (``postgres://user@host:5432/anyname``), a fresh
database is created on that server for the run and dropped after; without it, a temporary
SQLite file (in /dev/shm when there is one). Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from bench.scratch import django_setup, scratch_database

PRESET_OF_PLAYERS = {2: "two_player", 3: "three_player", 4: "classic"}


@dataclass
class Measured:
    """The rating update's calls seen during a run (``rating_update_watch``)."""

    seconds: list[float] = field(default_factory=list)  # wall
    cpu: list[float] = field(default_factory=list)  # this process's CPU
    queries: list[int] = field(default_factory=list)


@contextmanager
def rating_update_watch() -> Iterator[Measured]:
    """Time every rating update a concession makes, with its queries: the reference to
    ``ratings_apply`` of competition's subscriber to a game's end is wrapped for the block."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from competition import subscriptions as table  # calls ratings_apply at a game's end

    measured = Measured()
    original: Callable[..., Any] = table.ratings_apply

    def watched(*args: Any, **kwargs: Any) -> Any:
        with CaptureQueriesContext(connection) as queries:
            started, cpu = time.perf_counter(), time.process_time()
            out = original(*args, **kwargs)
            measured.seconds.append(time.perf_counter() - started)
            measured.cpu.append(time.process_time() - cpu)
        measured.queries.append(len(queries.captured_queries))
        return out

    table.ratings_apply = watched
    try:
        yield measured
    finally:
        table.ratings_apply = original


def game_concede_timed(players: list[Any], rated: bool, rng: random.Random) -> float:
    """One table of ``players`` (seat i: player i) dealt through the services and conceded by
    a random seat; the concession's wall seconds."""
    from games.services.lobby import game_create, game_join, game_start
    from games.services.table import game_concede

    preset = PRESET_OF_PLAYERS[len(players)]
    game = game_create(creator=players[0], preset=preset, seat=0, rated=rated)
    for seat, player in enumerate(players[1:], start=1):
        game_join(player=player, game_id=game.pk, seat=seat)
    game_start(game_id=game.pk, player=players[0])
    started = time.perf_counter()
    game_concede(game_id=game.pk, player=rng.choice(players))
    return time.perf_counter() - started


def ms(seconds: float) -> str:
    return f"{seconds * 1000:6.2f}"


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def format_run(size: int, games: int, warmup: int, pool: int, rng: random.Random) -> None:
    from accounts.services.players import player_create

    people = [player_create(display_name=f"R{size}-{i}")[0] for i in range(size * pool)]
    for _ in range(warmup):  # most players get their rating row first
        game_concede_timed(rng.sample(people, size), True, rng)
    with rating_update_watch() as measured:
        rated = [game_concede_timed(rng.sample(people, size), True, rng) for _ in range(games)]
    casual = [game_concede_timed(rng.sample(people, size), False, rng) for _ in range(games)]
    queries = sorted(set(measured.queries))
    print(
        f"{size} players      {ms(statistics.median(measured.seconds))} "
        f"{ms(p95(measured.seconds))} {ms(statistics.median(measured.cpu))}"
        f" {'/'.join(str(q) for q in queries):>7}       {ms(statistics.median(rated))} "
        f"{ms(statistics.median(casual))}",
        flush=True,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=200, help="measured games per format (200)")
    parser.add_argument("--warmup", type=int, default=20, help="unmeasured games first (20)")
    parser.add_argument("--pool", type=int, default=4, help="players per seat in the pool (4)")
    parser.add_argument("--seed", type=int, default=1, help="seeds the seating and concessions")
    args = parser.parse_args()
    if args.games < 1 or args.pool < 1 or args.warmup < 0:
        parser.error("--games and --pool at least 1, --warmup at least 0")
    rng = random.Random(args.seed)
    with scratch_database("ratings") as url:
        django_setup(url, "ratings")
        from django.db import connection

        print(
            f"rating update per finished rated game ({connection.vendor}): {args.games} games "
            f"per format after {args.warmup} unmeasured, a pool of {args.pool} players per "
            "seat; each game ended by a concession"
        )
        print(
            "\n           update ms: wall median   p95    CPU  queries  concession ms: rated casual"
        )
        for size in (2, 3, 4):
            format_run(size, args.games, args.warmup, args.pool, rng)
        connection.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
