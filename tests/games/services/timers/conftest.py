"""Fixtures and helpers for the turn timer tests: two-player tables of humans with a timer."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta

import pytest
from django.utils import timezone

from accounts.models import Player
from accounts.services.players import player_create
from canasta_service.celery import app as celery_app
from games.engine import GameState, action_to_dict, legal_actions
from games.engine.history import TABLE_FACTS, TURN_TIMED_OUT
from games.models import EventSource, Game, GameEvent
from games.selectors.games import game_replay_state
from games.services.actions import game_action_apply
from games.services.deadlines import TimerOptions, grace
from games.services.lobby import game_create, game_join, game_start


@pytest.fixture(autouse=True)
def eager_unless_worker(request: pytest.FixtureRequest) -> Iterator[None]:
    """Outside the ``worker`` tests nothing goes to a broker: the tests drive the timer paths
    (with a broker configured, ETA messages would otherwise reach a running worker)."""
    if request.node.get_closest_marker("worker"):
        yield
        return
    saved = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    try:
        yield
    finally:
        celery_app.conf.task_always_eager = saved


@dataclass
class Table:
    game_id: int
    players: list[Player]  # by seat

    def game(self) -> Game:
        return Game.objects.get(pk=self.game_id)


def timed_table(
    turn_seconds: int | None = 30, timeout_limit: int = 3, timeout_outcome: str = "bot"
) -> Table:
    """A started two-player table of humans (Ada at seat 0, Bob at seat 1)."""
    ada = player_create(display_name="Ada")[0]
    bob = player_create(display_name="Bob")[0]
    game = game_create(
        creator=ada,
        preset="two_player",
        options={"target_score": 1000},
        timer=TimerOptions(turn_seconds, timeout_limit, timeout_outcome),
    )
    game_join(player=bob, game_id=game.pk)
    game_start(game_id=game.pk, player=ada)
    return Table(game.pk, [ada, bob])


def overdue(game_id: int, seconds: float = 60) -> None:
    """Move the deadline into the past, as if the seat had been away for ``seconds``."""
    Game.objects.filter(pk=game_id).update(
        turn_deadline=timezone.now() - timedelta(seconds=seconds)
    )


def after_deadline(game: Game) -> datetime:
    assert game.turn_deadline is not None
    return game.turn_deadline + grace() + timedelta(seconds=1)


def timeouts(game_id: int) -> list[GameEvent]:
    return list(GameEvent.objects.filter(game_id=game_id, type=TURN_TIMED_OUT))


def timer_moves(game_id: int) -> list[GameEvent]:
    """The moves the timer played (not its facts: timeouts, hand-overs)."""
    return list(
        GameEvent.objects.filter(game_id=game_id, source=EventSource.TIMER).exclude(
            type__in=TABLE_FACTS
        )
    )


def assert_log_consistent(game_id: int) -> None:
    """No gap or duplicate in the move log, and the log replays to the snapshot."""
    game = Game.objects.get(pk=game_id)
    seqs = list(GameEvent.objects.filter(game=game).values_list("seq", flat=True))
    assert seqs == list(range(1, game.version + 1))
    assert game.snapshot is not None
    assert game_replay_state(game) == GameState.from_dict(game.snapshot)


def play_turn(game_id: int, seat: int) -> None:
    """``seat`` plays a whole turn itself: draw, then discard its first card."""
    game = Game.objects.get(pk=game_id)
    game_action_apply(
        game_id=game_id, seat=seat, action={"type": "draw"}, expected_version=game.version
    )
    game.refresh_from_db()
    state = GameState.from_dict(game.snapshot or {})
    discards = [a for a in legal_actions(state) if a.type == "discard"]
    game_action_apply(
        game_id=game_id,
        seat=seat,
        action=action_to_dict(discards[0]),
        expected_version=game.version,
    )
