"""The three expiry paths racing on real PostgreSQL (threads, each with its own connection):
exactly one expiry applies, and none after a real move."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta
from functools import partial
from typing import Any

import pytest
from django.db import transaction
from django.test import override_settings
from django.utils import timezone

from games import tasks
from games.engine import GameState, action_to_dict, legal_actions
from games.models import EventSource, Game, GameEvent
from games.services.actions import game_action_apply
from tests.games.api.test_race import race
from tests.games.services.timers.conftest import (
    assert_log_consistent,
    overdue,
    timed_table,
    timeouts,
)
from tests.games.services.timers.test_timers import client_for

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_task_sweeper_and_request_racing_apply_one_expiry() -> None:
    table = timed_table()
    ada, bob = (client_for(p) for p in table.players)
    for round_no in range(4):
        overdue(table.game_id)
        game = table.game()
        version, seat = game.version, game.to_act
        before = len(timeouts(table.game_id))
        results = race(
            [
                partial(tasks.turn_timer_expire, table.game_id, version),  # the ETA task
                partial(tasks.turn_timer_expire, table.game_id, version),  # ... redelivered
                tasks.turn_timers_sweep,  # beat's sweep
                # writes (a read applies nothing)
                lambda: ada.post(f"/api/v1/games/{table.game_id}/presence/").status_code,
                lambda: bob.post(f"/api/v1/games/{table.game_id}/presence/").status_code,
            ]
        )
        assert not [r for r in results if isinstance(r, BaseException)], results
        applied = [r for r in results[:3] if r is True or r == 1]
        assert len(applied) <= 1, results  # a request may have been the one
        after = timeouts(table.game_id)
        assert len(after) == before + 1, (round_no, results)
        assert after[-1].seat == seat and after[-1].seq == version + 1
        game.refresh_from_db()
        assert game.version == version + 3 and game.to_act == 1 - (seat or 0)
    assert GameEvent.objects.filter(game_id=table.game_id, source=EventSource.TIMER).count() == 12
    assert_log_consistent(table.game_id)


@override_settings(TURN_TIMER_GRACE_MS=100)
def test_a_move_being_written_at_the_deadline_wins_over_every_timer_path() -> None:
    """The player's move takes the row lock just before the deadline and commits after it;
    the timer paths that fire meanwhile wait for the lock, then find the version moved on."""
    table = timed_table()
    game = table.game()
    version, seat = game.version, game.to_act
    assert seat is not None
    deadline = timezone.now() + timedelta(seconds=0.5)
    Game.objects.filter(pk=table.game_id).update(turn_deadline=deadline)
    locked, fire = threading.Event(), threading.Event()

    def move() -> int:
        with transaction.atomic():
            Game.objects.select_for_update().get(pk=table.game_id)
            locked.set()
            game_action_apply(
                game_id=table.game_id, seat=seat, action={"type": "draw"}, expected_version=version
            )
            state = GameState.from_dict(Game.objects.get(pk=table.game_id).snapshot or {})
            discard = next(a for a in legal_actions(state) if a.type == "discard")
            game_action_apply(
                game_id=table.game_id,
                seat=seat,
                action=action_to_dict(discard),
                expected_version=version + 1,
            )
            # hold the lock past the deadline and its grace while the timer paths fire
            while timezone.now() < deadline + timedelta(seconds=0.3):
                time.sleep(0.02)
            fire.set()
            time.sleep(0.5)
        return 1

    def after_lock(call: Callable[[], Any]) -> Callable[[], Any]:
        def run() -> Any:
            fire.wait(timeout=20)
            return call()

        return run

    ada = client_for(table.players[0])
    results = race(
        [
            move,
            after_lock(lambda: tasks.turn_timer_expire(table.game_id, version)),
            after_lock(tasks.turn_timers_sweep),
            after_lock(lambda: ada.get(f"/api/v1/games/{table.game_id}/").status_code),
        ]
    )
    assert results == [1, False, 0, 200], results
    assert timeouts(table.game_id) == []
    game.refresh_from_db()
    assert game.version == version + 2 and game.to_act == 1 - seat
    assert not GameEvent.objects.filter(game_id=table.game_id, source=EventSource.TIMER).exists()
    assert game.turn_deadline is not None and game.turn_deadline > deadline
    assert_log_consistent(table.game_id)
