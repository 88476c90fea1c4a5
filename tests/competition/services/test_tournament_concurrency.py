"""Tournaments under concurrency, on PostgreSQL: two pairing runs at once, a result racing a
withdrawal, a table's deal crashing or lost, and a real Celery worker killed mid-round. Every
entry is paired once per round and every table gets exactly one game."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from accounts.models import Player
from competition.models import (
    EntryStatus,
    TableStatus,
    Tournament,
    TournamentEntry,
    TournamentFact,
    TournamentTable,
)
from competition.services import tournament_rounds, tournaments
from competition.services.tournament_rounds import (
    TABLE_RESEND_SECONDS,
    round_discard,
    round_pair,
    table_deal,
    tournament_advance,
    tournament_start,
    tournaments_sweep,
)
from competition.services.tournaments import withdraw
from games.models import Game, GameStatus
from games.services.table import game_concede
from tests.competition.services.tournament_helpers import (
    assert_paired_once_per_round,
    assert_verified,
    event,
    facts_of,
    organiser,
    people,
    register_all,
)
from tests.conftest import ROOT, process_stop, worker_environment

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def in_thread(fn: Callable[[], Any]) -> tuple[threading.Thread, dict[str, Any]]:
    """``fn`` in a thread of its own (its own connection, closed after); its result or error."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["result"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out["error"] = exc
        finally:
            connection.close()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, out


@pytest.fixture
def no_hand_offs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[Any, ...]]]:
    """Hand-offs are recorded, not sent: tables stay pending unless a test deals them."""
    sent: list[tuple[str, tuple[Any, ...]]] = []
    monkeypatch.setattr(
        tournament_rounds,
        "steps_on_commit",
        lambda task, each: sent.extend((task, a) for a in each),
    )
    monkeypatch.setattr(
        tournament_rounds, "step_on_commit", lambda task, *a: sent.append((task, a))
    )
    monkeypatch.setattr(tournament_rounds, "step_send", lambda task, *a: sent.append((task, a)))
    monkeypatch.setattr(tournaments, "step_on_commit", lambda task, *a: sent.append((task, a)))
    return sent


def swiss_of_people(count: int, **setup: Any) -> tuple[Tournament, Player, list[Player]]:
    org = organiser()
    t = event(org, format="swiss", rounds=3, **setup)
    players = people(count)
    register_all(t, players)
    return t, org, players


def test_two_pairing_runs_at_once_pair_each_entry_once(
    no_hand_offs: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    t, org, _ = swiss_of_people(16, pairing_review=True)
    tournament_start(tournament_id=t.pk, organiser=org)
    round_discard(tournament_id=t.pk, organiser=org)  # round 1 is the organiser's to pair
    # The first run to pair pauses inside the pairing, holding the tournament's row lock.
    release = threading.Event()
    first: dict[str, int] = {}
    pair = tournament_rounds.swiss_pair

    def paused(*args: Any, **kwargs: Any) -> Any:
        if first.setdefault("thread", threading.get_ident()) == threading.get_ident():
            release.wait(10)
        return pair(*args, **kwargs)

    monkeypatch.setattr(tournament_rounds, "swiss_pair", paused)
    runs = [
        in_thread(lambda: round_pair(tournament_id=t.pk, organiser=org)),
        in_thread(lambda: round_pair(tournament_id=t.pk, organiser=org)),
        in_thread(lambda: tournament_advance(t.pk)),
    ]
    time.sleep(0.5)
    release.set()
    for thread, _ in runs:
        thread.join(30)
    outcomes = [out.get("error") or "paired" for _, out in runs[:2]]
    assert sorted(type(o).__name__ if not isinstance(o, str) else o for o in outcomes) == [
        "RoundInProgress",
        "paired",
    ]
    assert all("error" not in out for _, out in runs[2:])
    assert TournamentTable.objects.filter(tournament=t, round=1).count() == 8
    assert len([f for f in facts_of(t, "round_paired") if f["round"] == 1]) == 2  # + discarded
    assert_paired_once_per_round(t)


def test_bots_entered_into_two_events_at_once_are_counted_in_turn(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    """Each call holds its event's row lock while it counts: without the organiser's row lock
    both would count the other's bots as absent and pass the limit together."""
    settings.TOURNAMENT_BOTS_ACTIVE_MAX = 6
    org = organiser()
    first, second = event(org, format="swiss", rounds=2), event(org, format="swiss", rounds=2)
    barrier = threading.Barrier(2)
    check = tournaments.bots_quota_check

    def counted_together(*args: Any, **kwargs: Any) -> None:
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(2)  # both count at once, unless one waits for the other's lock
        check(*args, **kwargs)

    monkeypatch.setattr(tournaments, "bots_quota_check", counted_together)

    def enter(t: Tournament) -> Callable[[], Any]:
        return lambda: tournaments.bots_enter(
            tournament_id=t.pk, organiser=org, count=4, level="easy"
        )

    runs = [in_thread(enter(first)), in_thread(enter(second))]
    for thread, _ in runs:
        thread.join(30)
    errors_raised = [type(out["error"]).__name__ for _, out in runs if "error" in out]
    assert errors_raised == ["TournamentBotsLimit"]
    assert TournamentEntry.objects.filter(tournament__organiser=org).count() == 4


def test_a_result_racing_a_withdrawal_is_counted_once_and_the_leaver_is_not_paired(
    no_hand_offs: list[Any],
) -> None:
    t, org, players = swiss_of_people(8)
    tournament_start(tournament_id=t.pk, organiser=org)
    for table in TournamentTable.objects.filter(tournament=t, round=1):
        table_deal(table.pk)
    found = TournamentTable.objects.filter(tournament=t, round=1).order_by("number").first()
    assert found is not None and found.game_id is not None
    table, game_id = found, found.game_id
    by_id = {p.pk: p for p in players}
    loser = by_id[table.seating[0][1]]
    leaver = by_id[table.seating[1][1]]  # the winner withdraws as the game ends
    barrier = threading.Barrier(2)

    def concede() -> Any:
        barrier.wait(5)
        return game_concede(game_id=game_id, player=loser)

    def leave() -> Any:
        barrier.wait(5)
        return withdraw(tournament_id=t.pk, player=leaver)

    runs = [in_thread(concede), in_thread(leave)]
    for thread, _ in runs:
        thread.join(30)
    assert all("error" not in out for _, out in runs), [out for _, out in runs]
    results = [f for f in facts_of(t, "result") if f["round"] == 1 and f["number"] == table.number]
    assert len(results) == 1
    assert len([f for f in facts_of(t, "withdrawn")]) == 1
    # The rest of round 1 ends; round 2 leaves the leaver out.
    for other in TournamentTable.objects.filter(tournament=t, round=1).exclude(pk=table.pk):
        seat0 = by_id[other.seating[0][1]]
        assert other.game_id is not None
        game_concede(game_id=other.game_id, player=seat0)
    tournament_advance(t.pk)
    leaver_entry = t.entries.get(player=leaver)
    assert leaver_entry.status == EntryStatus.WITHDRAWN
    round2 = TournamentTable.objects.filter(tournament=t, round=2)
    assert round2.exists()
    assert all(leaver_entry.pk not in side for r in round2 for side in r.sides)
    assert [f["entry"] for f in facts_of(t, "bye") if f["round"] == 2] != [leaver_entry.pk]
    assert_paired_once_per_round(t)
    assert_verified(t)


def test_a_crashed_or_lost_deal_is_dealt_once_by_the_sweep(
    no_hand_offs: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    t, org, _ = swiss_of_people(8)
    tournament_start(tournament_id=t.pk, organiser=org)
    tables = list(TournamentTable.objects.filter(tournament=t, round=1).order_by("number"))
    sent = [a[0] for task, a in no_hand_offs if task == tournament_rounds.TABLES_DEAL_TASK]
    assert sorted(x for ids in sent for x in ids) == sorted(t_.pk for t_ in tables)
    # The worker dies inside the first deal, after the game was created: all of it rolls back.
    start = tournament_rounds.game_start

    def crash(**kwargs: Any) -> Any:
        start(**kwargs)
        raise SystemExit("worker killed")

    monkeypatch.setattr(tournament_rounds, "game_start", crash)
    with pytest.raises(SystemExit):
        table_deal(tables[0].pk)
    monkeypatch.setattr(tournament_rounds, "game_start", start)
    assert Game.objects.count() == 0
    tables[0].refresh_from_db()
    assert tables[0].status == TableStatus.PENDING and tables[0].game_id is None
    # The second table is dealt; its message is delivered again: nothing changes.
    game = table_deal(tables[1].pk)
    assert game is not None and table_deal(tables[1].pk) is None
    # The sweep, once the deals are overdue, sends what is still pending; dealt twice, once.
    no_hand_offs.clear()
    later = timezone.now() + timedelta(seconds=TABLE_RESEND_SECONDS + 1)
    tournaments_sweep(now=later)
    resent = sorted(
        x for task, a in no_hand_offs if task == tournament_rounds.TABLES_DEAL_TASK for x in a[0]
    )
    assert resent == sorted([tables[0].pk, tables[2].pk, tables[3].pk])
    for table_id in resent * 2:
        table_deal(table_id)
    assert Game.objects.count() == 4
    for table in TournamentTable.objects.filter(tournament=t, round=1):
        assert table.status == TableStatus.PLAYING
        assert table.game is not None and table.game.status == GameStatus.ACTIVE
    assert_paired_once_per_round(t)


# ============================================================================== a real worker
def _worker(queue: str, log_path: Path) -> subprocess.Popen[bytes]:
    env = worker_environment(str(settings.CELERY_BROKER_URL))
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "canasta_service",
        "worker",
        "--pool=solo",
        "--concurrency=1",
        f"--queues={queue}",
        "--loglevel=INFO",
        f"--hostname=killed-{uuid.uuid4().hex[:8]}@%h",
        "--without-gossip",
        "--without-mingle",
    ]
    with log_path.open("ab") as log:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)


@pytest.fixture
def private_bulk_queue(settings: Any) -> Iterator[str]:
    """The bulk queue (tables are dealt there) renamed for this test: only its own workers
    read it."""
    name = f"bulk-{uuid.uuid4().hex[:8]}"
    settings.TASK_QUEUES = {**settings.TASK_QUEUES, "bulk": name}
    yield name


def _wait(until: Callable[[], bool], seconds: float, log_path: Path) -> None:
    deadline = time.monotonic() + seconds
    while not until():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out; worker log:\n{log_path.read_text(errors='replace')[-3000:]}")
        time.sleep(0.1)


@pytest.mark.worker
def test_a_worker_killed_mid_round_leaves_no_table_out_and_none_dealt_twice(
    private_bulk_queue: str, tmp_path: Path
) -> None:
    from canasta_service.celery import app as celery_app

    assert not celery_app.conf.task_always_eager
    t, org, players = swiss_of_people(64)
    log_path = tmp_path / "worker.log"
    tournament_start(tournament_id=t.pk, organiser=org)  # 32 deals queued on the bulk queue
    worker = _worker(private_bulk_queue, log_path)
    dealt = TournamentTable.objects.filter(tournament=t, round=1, game__isnull=False)
    try:
        _wait(lambda: dealt.count() >= 3, 90, log_path)
        os.kill(worker.pid, signal.SIGKILL)  # mid-round, mid-task as likely as not
        worker.wait(10)
        before = dealt.count()
        assert before < 32, "the worker finished before it could be killed"
        worker = _worker(private_bulk_queue, log_path)
        # Beat's sweep after the resend delay sends every pending table again.
        tournaments_sweep(now=timezone.now() + timedelta(seconds=TABLE_RESEND_SECONDS + 1))
        _wait(lambda: dealt.count() == 32, 120, log_path)
    finally:
        process_stop(worker)
    tables = TournamentTable.objects.filter(tournament=t, round=1)
    assert tables.count() == 32
    games = Game.objects.filter(tournament_table__tournament=t)
    assert (
        games.count()
        == 32
        == Game.objects.filter(created_by_id__in=[p.pk for p in players]).count()
    )
    assert {tb.status for tb in tables} == {TableStatus.PLAYING}
    assert_paired_once_per_round(t)
    assert TournamentFact.objects.filter(tournament=t, type="round_paired").count() == 1
    for table in tables:  # no turn timer left running on another test's worker
        player = Player.objects.get(pk=table.seating[0][1])
        assert table.game_id is not None
        game_concede(game_id=table.game_id, player=player)
