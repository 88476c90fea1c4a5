"""A reclaim racing the stand-in bot's turn on real PostgreSQL (threads, each with its own
connection): exactly one of them has the turn, never both, and the log replays."""

from __future__ import annotations

import threading
import time
from functools import partial

import pytest
from django.db import transaction

from games import tasks
from games.engine.history import SEAT_RETURNED
from games.models import EventSource, Game, GameEvent, Seat
from games.services.reclaim import seat_reclaim
from games.services.timers import turn_timer_expire_apply
from tests.games.api.test_race import race
from tests.games.services.timers.conftest import (
    Table,
    after_deadline,
    assert_log_consistent,
    play_turn,
    timed_table,
)

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _ada_stood_in_and_to_act(table: Table) -> int:
    """Ada (seat 0) handed to her stand-in, and to act: the stand-in is due at once. Returns
    the version its task is sent for."""
    game = table.game()
    if game.to_act != 0:
        play_turn(table.game_id, 1)
        game.refresh_from_db()
    seat = Seat.objects.get(game_id=table.game_id, index=0)
    if not seat.stand_in:
        assert turn_timer_expire_apply(table.game_id, now=after_deadline(game)).applied
        play_turn(table.game_id, 1)
    game = table.game()
    assert game.to_act == 0 and Seat.objects.get(game_id=table.game_id, index=0).stand_in
    return game.version


def _bot_moves_after(game_id: int, version: int) -> int:
    return GameEvent.objects.filter(
        game_id=game_id, seq__gt=version, source=EventSource.BOT
    ).count()


def test_a_reclaim_racing_the_stand_ins_turn_lets_exactly_one_play_it() -> None:
    table = timed_table(turn_seconds=30, timeout_limit=1)
    ada = table.players[0]
    outcomes = set()
    for round_no in range(6):
        version = _ada_stood_in_and_to_act(table)
        returned_before = GameEvent.objects.filter(
            game_id=table.game_id, type=SEAT_RETURNED
        ).count()
        results = race(
            [
                partial(tasks.turn_timer_expire, table.game_id, version),  # the stand-in's task
                partial(tasks.turn_timer_expire, table.game_id, version),  # ... redelivered
                tasks.turn_timers_sweep,
                partial(seat_reclaim, game_id=table.game_id, player_id=ada.pk),
            ]
        )
        assert not [r for r in results if isinstance(r, BaseException)], (round_no, results)
        game = table.game()
        bot = _bot_moves_after(table.game_id, version)
        returned = GameEvent.objects.filter(game_id=table.game_id, type=SEAT_RETURNED)
        assert returned.count() == returned_before + 1, round_no
        assert not Seat.objects.get(game_id=table.game_id, index=0).stand_in
        if bot:  # the stand-in had the lock first: it played the whole turn, once
            outcomes.add("bot")
            applied = [r for r in results[:3] if r is True or r == 1]
            assert len(applied) == 1, results
            assert game.to_act == 1, round_no
            assert returned.last().seq == game.version  # type: ignore[union-attr]
            assert game.version == version + bot + 1
        else:  # the reclaim first: Ada has a full turn, the stand-in's task found nothing
            outcomes.add("player")
            assert results[:3] == [False, False, 0], results
            assert game.to_act == 0 and game.version == version + 1
            assert game.turn_deadline is not None
            play_turn(table.game_id, 0)
        assert_log_consistent(table.game_id)  # the next round hands Ada over again
    assert outcomes  # which one won each round is the scheduler's choice


def test_a_reclaim_while_the_stand_in_is_mid_turn_takes_the_seat_from_the_next_turn() -> None:
    """The stand-in's task holds the row lock, playing Ada's turn; the reclaim waits for it,
    then finds another seat to act: the seat is hers from her next turn, no move twice."""
    table = timed_table(turn_seconds=30, timeout_limit=1)
    version = _ada_stood_in_and_to_act(table)
    locked = threading.Event()

    def stand_in_turn() -> bool:
        with transaction.atomic():
            Game.objects.select_for_update().get(pk=table.game_id)
            locked.set()
            applied = turn_timer_expire_apply(table.game_id, version).applied
            time.sleep(0.5)  # mid-flight: the reclaim waits for the lock meanwhile
        return applied

    def reclaim() -> int:
        locked.wait(timeout=20)
        return seat_reclaim(game_id=table.game_id, player_id=table.players[0].pk).version

    results = race([stand_in_turn, reclaim])
    assert results[0] is True, results
    game = table.game()
    bot = _bot_moves_after(table.game_id, version)
    assert bot >= 2  # a whole turn: draw ... discard
    assert results[1] == game.version == version + bot + 1
    assert game.to_act == 1
    assert not Seat.objects.get(game_id=table.game_id, index=0).stand_in
    # Ada's next turn is hers, with a full deadline
    play_turn(table.game_id, 1)
    game = table.game()
    assert game.to_act == 0 and game.turn_deadline is not None
    assert turn_timer_expire_apply(table.game_id, game.version).applied is False
    assert_log_consistent(table.game_id)


def test_a_reclaim_holding_the_lock_leaves_the_stand_ins_task_nothing() -> None:
    table = timed_table(turn_seconds=30, timeout_limit=1)
    version = _ada_stood_in_and_to_act(table)
    locked = threading.Event()

    def reclaim() -> int:
        with transaction.atomic():
            Game.objects.select_for_update().get(pk=table.game_id)
            locked.set()
            game = seat_reclaim(game_id=table.game_id, player_id=table.players[0].pk)
            time.sleep(0.5)
        return game.version

    def stand_in_turn() -> bool:
        locked.wait(timeout=20)
        return tasks.turn_timer_expire(table.game_id, version)

    results = race([reclaim, stand_in_turn])
    assert results == [version + 1, False], results
    game = table.game()
    assert game.to_act == 0 and game.version == version + 1
    assert _bot_moves_after(table.game_id, version) == 0
    assert_log_consistent(table.game_id)
