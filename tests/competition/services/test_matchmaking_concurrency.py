"""Quick play under concurrency, on PostgreSQL: two pairing runs at once never pair a player
twice, and a player leaving while a run is in progress either leaves (not paired) or is paired
and refused - never both. Each thread has its own connection (Django's per thread), so the
row locks, SKIP LOCKED and the advisory lock are PostgreSQL's own."""

from __future__ import annotations

import functools
import random
import threading
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import connection, transaction

from accounts.models import Player
from accounts.services.players import player_create
from competition import errors
from competition.models import QueueEntry
from competition.services import matchmaking
from competition.services.matchmaking import PairingResult, pairing_run, queue_join, queue_leave

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
LATER = T0 + timedelta(seconds=5)


@pytest.fixture(autouse=True)
def pairing_by_hand(settings: Any) -> None:
    settings.MATCHMAKING_IN_PROCESS = False


def queued(n: int, preset: str = "two_player") -> list[Player]:
    players = [player_create(display_name=f"Q{i}")[0] for i in range(n)]
    for player in players:
        queue_join(player=player, preset=preset, now=T0)
    return players


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
def slow_grouping(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """The first pairing run to group its entries pauses there, after its read (holding its
    row locks), until the returned event is set; the runs of other threads do not pause."""
    release = threading.Event()
    grouping = matchmaking.groups_form
    slow_thread: dict[str, int] = {}

    def paused(*args: Any, **kwargs: Any) -> Any:
        if slow_thread.setdefault("id", threading.get_ident()) == threading.get_ident():
            release.wait(10)
        return grouping(*args, **kwargs)

    monkeypatch.setattr(matchmaking, "groups_form", paused)
    yield release
    release.set()


def paired_once(results: list[PairingResult]) -> set[int]:
    """Assert that no player is in two matches of ``results`` and that the database holds
    exactly the matches the runs report; the players paired."""
    players = [p for r in results for m in r.matches for p in m.player_ids]
    assert len(players) == len(set(players)), "a player was paired twice"
    reported = {p: m.match for r in results for m in r.matches for p in m.player_ids}
    stored = dict(QueueEntry.objects.filter(match__isnull=False).values_list("player_id", "match"))
    assert stored == reported
    return set(players)


# ============================================================================== two runs
@pytest.mark.parametrize("exclusive", [True, False], ids=["advisory_lock", "skip_locked_only"])
def test_two_runs_at_once_never_pair_a_player_twice(
    exclusive: bool, slow_grouping: threading.Event
) -> None:
    players = queued(40)

    first, first_out = in_thread(lambda: pairing_run(now=LATER, deal=False, exclusive=exclusive))
    time.sleep(0.5)  # the first run holds its locks, paused after its read
    second, second_out = in_thread(lambda: pairing_run(now=LATER, deal=False, exclusive=exclusive))
    second.join(5)
    assert not second.is_alive(), "the second run waited for the first one's locks"
    slow_grouping.set()
    first.join(10)

    assert "error" not in first_out and "error" not in second_out, (first_out, second_out)
    one, two = first_out["result"], second_out["result"]
    if exclusive:
        assert two.skipped and two.matches == []  # the lock was held: nothing done
    else:
        assert two.waiting == 0 and two.matches == []  # every row locked: all skipped
    assert paired_once([one, two]) == {p.pk for p in players}


def test_many_runs_at_once_pair_everyone_once() -> None:
    """No pause: runs racing freely (advisory lock off, SKIP LOCKED alone) over many queues.

    Racing runs may split a queue between them (each sees only the rows it could lock), so a
    few players can be left over by all of them; they stay queued, and the next run pairs
    them. Nobody is paired twice and nobody is lost."""
    players = queued(30, "two_player") + queued(30, "three_player") + queued(32, "classic")
    barrier = threading.Barrier(4)

    def run() -> PairingResult:
        barrier.wait(5)
        return pairing_run(now=LATER, deal=False, exclusive=False)

    threads = [in_thread(run) for _ in range(4)]
    for thread, _ in threads:
        thread.join(20)

    assert all("error" not in out for _, out in threads), [out for _, out in threads]
    raced = [out["result"] for _, out in threads]
    left = QueueEntry.objects.filter(match__isnull=True).count()
    assert left == len(players) - len(paired_once(raced))  # the rest still queued
    after = pairing_run(now=LATER, deal=False)
    assert after.waiting == left
    assert paired_once([*raced, after]) == {p.pk for p in players}


# ============================================================================== leaving
def test_leaving_during_a_run_that_pairs_the_player_is_refused(
    slow_grouping: threading.Event,
) -> None:
    ada, bob = queued(2)

    run, run_out = in_thread(lambda: pairing_run(now=LATER, deal=False))
    time.sleep(0.5)  # the run has read and locked both entries
    leave, leave_out = in_thread(lambda: queue_leave(player=ada))
    time.sleep(0.5)
    assert leave.is_alive(), "the leave must wait for the run's row lock"
    slow_grouping.set()
    run.join(10)
    leave.join(10)

    assert isinstance(leave_out.get("error"), errors.QueueMatched)
    assert paired_once([run_out["result"]]) == {ada.pk, bob.pk}


def test_a_player_who_left_first_is_not_paired() -> None:
    ada, bob, cid = queued(3)
    left = threading.Event()
    go_on = threading.Event()

    def leave_and_hold() -> None:
        with transaction.atomic():  # the entry stays locked (and deleted, uncommitted)
            queue_leave(player=ada)
            left.set()
            go_on.wait(10)

    leave, leave_out = in_thread(leave_and_hold)
    assert left.wait(10)
    run, run_out = in_thread(lambda: pairing_run(now=LATER, deal=False))
    run.join(10)
    go_on.set()
    leave.join(10)

    assert "error" not in leave_out and "error" not in run_out, (leave_out, run_out)
    result = run_out["result"]
    assert result.waiting == 2  # ada's locked entry skipped, not waited for
    assert paired_once([result]) == {bob.pk, cid.pk}
    assert not QueueEntry.objects.filter(player=ada).exists()


def test_leaving_while_runs_race_is_one_or_the_other() -> None:
    """Random timings: each leaver either left (no entry, in no match) or was refused with 409
    ``queue_matched`` and is in exactly one match."""
    rng = random.Random(17)
    for _ in range(8):
        QueueEntry.objects.all().delete()
        players = queued(12)
        leavers = rng.sample(players, 4)

        def leave(p: Player, pause: float) -> None:
            time.sleep(pause)
            queue_leave(player=p)

        def run(pause: float) -> PairingResult:
            time.sleep(pause)
            return pairing_run(now=LATER, deal=False, exclusive=False)

        threads = [in_thread(functools.partial(leave, p, rng.uniform(0, 0.05))) for p in leavers]
        runs = [in_thread(functools.partial(run, rng.uniform(0, 0.05))) for _ in range(2)]
        for thread, _ in threads + runs:
            thread.join(20)

        assert all("error" not in out for _, out in runs)
        paired = paired_once([out["result"] for _, out in runs])
        for p, (_, out) in zip(leavers, threads, strict=True):
            error = out.get("error")
            if error is None:
                assert p.pk not in paired and not QueueEntry.objects.filter(player=p).exists()
            else:
                assert isinstance(error, errors.QueueMatched), error
                assert p.pk in paired
