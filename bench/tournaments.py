"""Tournaments at scale, through the services on PostgreSQL with a real Celery worker.

1. A 10,000-player Swiss (two-player tables): round 1, then rounds 2 to ``--rounds`` after
   results drawn at random, each paired by the service (``round_pair``: read the entries, the
   pairing by maximum-weight matching, write 5,000 tables and the ``round_paired`` fact). Prints
   per round the CPU of the pairing itself (``swiss_pair``) and of the whole service call
   (``time.process_time``: this process, not the database server's work) and its wall time.
2. ``--tables`` tables of a round dealt by ONE Celery worker (solo pool: one process) from
   the moment their messages are sent (as the round's commit sends them: 20 tables a message)
   until the last game is dealt: wall seconds, tables per second, the worker's CPU seconds.
3. One result in the 10,000-player event: the standings rows it writes (the two entries and
   their opponents) and its time, against rebuilding the whole standings from the log.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/x python -m bench.tournaments \
        [--players 10000] [--rounds 5] [--tables 1000] [--seed 1]

A fresh database on that server (dropped after) and an empty Redis database index
(``BENCH_REDIS``). Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from bench.harness import REDIS_BASE, cpu_seconds, redis_free_db
from bench.scratch import scratch_database

ROOT = Path(__file__).resolve().parent.parent


def setup(url: str, broker: str) -> None:
    """Django on ``url`` with ``broker``: tasks are sent to it, not run here."""
    os.environ.update(
        {
            "DATABASE_URL": url,
            "DJANGO_SETTINGS_MODULE": "canasta_service.settings",
            "DATABASE_CONN_MAX_AGE": "0",
            "DEBUG": "0",
            "LOG_LEVEL": "WARNING",
            "MATCHMAKING_IN_PROCESS": "0",
            "CELERY_BROKER_URL": broker,
            "REDIS_URL": broker,
        }
    )
    os.environ.setdefault("SECRET_KEY", "bench-tournaments-only")
    for name in ("CACHE_URL", "DATABASE_POOL_SIZE"):
        os.environ.pop(name, None)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", interactive=False, verbosity=0)


def field(players: int) -> tuple[Any, Any, list[Any]]:
    """The organiser, a Swiss event in entry, and ``players`` entrants (written in bulk, with
    their ``registered`` facts, as one registration each would leave them)."""
    from django.contrib.auth import get_user_model

    from accounts.models import Player
    from accounts.services.players import player_create
    from competition.models import TournamentEntry, TournamentFact
    from competition.services.tournaments import TournamentSetup, entry_open, tournament_create

    org = player_create(display_name="Organiser")[0]
    t = tournament_create(
        organiser=org,
        setup=TournamentSetup(
            name="Bench Swiss", format="swiss", preset="two_player", rounds=9, turn_seconds=600
        ),
    )
    entry_open(tournament_id=t.pk, organiser=org)
    tag = uuid.uuid4().hex[:6]
    user_model = get_user_model()
    users = user_model.objects.bulk_create(
        [user_model(username=f"t{tag}{i}") for i in range(players)], batch_size=2000
    )
    people = Player.objects.bulk_create(
        [Player(user=u, display_name=f"T{i}") for i, u in enumerate(users)], batch_size=2000
    )
    rng = random.Random(7)
    entries = TournamentEntry.objects.bulk_create(
        [
            TournamentEntry(
                tournament=t, player=p, name=p.display_name, rating=rng.gauss(1000, 200)
            )
            for p in people
        ],
        batch_size=2000,
    )
    t.refresh_from_db()
    version = t.version
    TournamentFact.objects.bulk_create(
        [
            TournamentFact(
                tournament=t,
                seq=version + n,
                type="registered",
                payload={
                    "entry": e.pk,
                    "players": [e.player_id],
                    "bot_level": None,
                    "name": e.name,
                    "rating": e.rating,
                },
            )
            for n, e in enumerate(entries, start=1)
        ],
        batch_size=2000,
    )
    t.version = version + len(entries)
    t.save(update_fields=["version"])
    return org, t, entries


def results_draw(t: Any, round_no: int, rng: random.Random) -> None:
    """Every table of ``round_no`` finished with a random result, written as the services
    write results (facts, standings rows), without playing the games."""
    from django.db import transaction

    from competition.models import TableStatus, TournamentTable
    from competition.services import tournament_rounds
    from competition.services.tournament_log import tournament_lock

    tables = list(TournamentTable.objects.filter(tournament=t, round=round_no))
    with transaction.atomic():
        locked = tournament_lock(t.pk)
        for table in tables:
            a, b = rng.randint(0, 3000), rng.randint(0, 3000)
            table.status = TableStatus.FINISHED
            table.scores = [a, b]
            table.winner_side = None if a == b else (0 if a > b else 1)
            table.save(update_fields=["status", "scores", "winner_side"])
            tournament_rounds.swiss_result(locked, table)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    if not os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://")):
        os.environ["DATABASE_URL"] = (
            os.environ.get("BENCH_PGURL", "postgres://postgres@127.0.0.1:5432") + "/bench"
        )
    broker = f"{REDIS_BASE}/{redis_free_db()}"
    with scratch_database("tournaments") as url:
        setup(url, broker)
        run(args, rng, url, broker)


def run(args: argparse.Namespace, rng: random.Random, url: str, broker: str) -> None:
    from django.db import connection

    from competition.models import TableStatus, TournamentEntry, TournamentTable
    from competition.pairing import swiss as swiss_module
    from competition.selectors.tournament_standings import standings_fold
    from competition.services import tournament_log, tournament_rounds
    from competition.services.tournament_rounds import round_pair, tournament_start

    print(f"database: {connection.vendor}; python {sys.version.split()[0]}; broker {broker}")
    started = time.perf_counter()
    org, t, entries = field(args.players)
    print(f"{args.players} entrants written in {time.perf_counter() - started:.1f} s")

    # Pairing: the hand-offs are held back (the deal bench below sends its own).
    held: list[tuple[Any, ...]] = []
    tournament_rounds.steps_on_commit = lambda task, each: held.extend(each)  # type: ignore[assignment]
    tournament_rounds.step_on_commit = lambda task, *a: None  # type: ignore[assignment]
    pair_cpu: list[float] = []
    real_pair = swiss_module.swiss_pair

    def measured(*a: Any, **kw: Any) -> Any:
        cpu = time.process_time()
        out = real_pair(*a, **kw)
        pair_cpu.append(time.process_time() - cpu)
        return out

    tournament_rounds.swiss_pair = measured  # type: ignore[assignment]
    print(f"\nSwiss pairing, {args.players} players (service call: read, pair, write tables, fact)")
    print("round  pairing CPU s  service CPU s  service wall s  tables  byes")
    for round_no in range(1, args.rounds + 1):
        cpu, wall = time.process_time(), time.perf_counter()
        if round_no == 1:
            tournament_start(tournament_id=t.pk, organiser=org)
        else:
            round_pair(tournament_id=t.pk, organiser=org)
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        tables = TournamentTable.objects.filter(tournament=t, round=round_no).count()
        byes = args.players - 2 * tables
        print(
            f"{round_no:>5}  {pair_cpu[-1]:>13.3f}  {cpu:>13.3f}  {wall:>14.3f}  "
            f"{tables:>6}  {byes:>4}"
        )
        if round_no < args.rounds:
            results_draw(t, round_no, rng)
    print(f"pairing CPU: max {max(pair_cpu):.3f} s, mean {statistics.mean(pair_cpu):.3f} s")

    # Dealing: the last round's first --tables tables, one worker.
    deal_ids = list(
        TournamentTable.objects.filter(tournament=t, round=args.rounds, status=TableStatus.PENDING)
        .order_by("number")
        .values_list("pk", flat=True)[: args.tables]
    )
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "CELERY_BROKER_URL": broker,
        "REDIS_URL": broker,
        "PYTHONUNBUFFERED": "1",
    }
    log_path = ROOT / ".ci" / "logs" / "bench" / "tournaments-worker.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as log:
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "canasta_service",
                "worker",
                "--pool=solo",
                "--concurrency=1",
                "--loglevel=WARNING",
                f"--hostname=bench-{uuid.uuid4().hex[:6]}@%h",
                "--without-gossip",
                "--without-mingle",
                "--queues=interactive,bulk,deliveries",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        from canasta_service.celery import app as celery_app

        deadline = time.monotonic() + 60
        while not celery_app.control.ping(timeout=0.5):
            if time.monotonic() > deadline:
                raise RuntimeError(f"the worker did not start; see {log_path}")
        cpu_before = cpu_seconds([worker.pid])
        wall = time.perf_counter()
        for message in tournament_rounds.tables_chunked(deal_ids):  # as the round commit sends
            tournament_log.step_send(tournament_log.TABLES_DEAL_TASK, *message)
        dealt = TournamentTable.objects.filter(pk__in=deal_ids, game__isnull=False)
        while (count := dealt.count()) < len(deal_ids):
            if time.perf_counter() - wall > 600:
                raise RuntimeError(f"only {count} of {len(deal_ids)} tables dealt in 600 s")
            time.sleep(0.25)
        wall = time.perf_counter() - wall
        worker_cpu = cpu_seconds([worker.pid]) - cpu_before
    finally:
        worker.terminate()
        worker.wait(30)
    print(
        f"\nDealing {len(deal_ids)} tables with one worker: {wall:.1f} s wall "
        f"({len(deal_ids) / wall:.1f} tables/s), worker CPU {worker_cpu:.1f} s"
    )

    # One result, then the whole standings from the log.
    from django.db import transaction

    from competition.services.tournament_log import tournament_lock
    from competition.services.tournament_rounds import Record, standings_record

    finished = TournamentTable.objects.filter(tournament=t, round=args.rounds - 1).first()
    assert finished is not None
    a, b = finished.sides[0][0], finished.sides[1][0]
    statements: list[str] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        statements.append(sql.split(" ", 1)[0])
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        wall_one = time.perf_counter()
        with transaction.atomic():
            locked = tournament_lock(t.pk)
            rows = standings_record(
                locked,
                finished,
                [Record(a, (b,), 1.0, 1.0, 100), Record(b, (a,), 0.0, 0.0, -100)],
            )
        wall_one = time.perf_counter() - wall_one
    wall_fold = time.perf_counter()
    fold = standings_fold(t)
    wall_fold = time.perf_counter() - wall_fold
    print(
        f"\nOne result in a {args.players}-entry event: {len(rows)} standings rows written "
        f"(the two entries and their opponents), {len(statements)} statements, "
        f"{wall_one * 1000:.1f} ms; rebuilding the whole standings from the log "
        f"({len(fold)} entries): {wall_fold:.2f} s"
    )
    print(f"entries in the event: {TournamentEntry.objects.filter(tournament=t).count()}")


if __name__ == "__main__":
    main()
