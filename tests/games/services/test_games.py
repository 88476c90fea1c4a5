"""Services: the move log is the truth, projections stay in step, bots run without recursion."""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from django.db import transaction

from accounts.models import Player
from accounts.services.players import player_create
from canasta_service.celery import app as celery_app
from core.errors import ServiceError
from games.engine import GameState
from games.engine.view import player_view
from games.models import Game, GameEvent, GameStatus, Meld, RoundScore
from games.selectors.games import game_replay_state
from games.services.actions import game_action_apply
from games.services.bots import (
    BotPlayer,
    bot_fallback_choose,
    bot_player_get,
    bot_player_register,
)
from games.services.lobby import BotSeatSpec, game_create, game_join, game_start
from games.services.moves import bot_action_apply
from tests.games.api.conftest import eager_bots, snapshot_of  # noqa: F401  (eager_bots: autouse)


def _player(name: str) -> Player:
    return player_create(display_name=name)[0]


def _two_humans(target: int = 1000) -> Game:
    ada, bob = _player("Ada"), _player("Bob")
    game = game_create(creator=ada, preset="two_player", options={"target_score": target})
    game_join(player=bob, game_id=game.pk)
    return game_start(game_id=game.pk, player=ada)


def _melds_of(state: GameState) -> list[tuple[int, str, tuple[str, ...]]]:
    table = player_view(state, None, with_legal=False)
    return sorted(
        (t["team"], m["rank"], tuple(m["cards"])) for t in table["teams"] for m in t["melds"]
    )


def _check_projections(game: Game) -> GameState:
    game.refresh_from_db()
    state = snapshot_of(game)
    rows = Meld.objects.filter(game=game)
    assert sorted((m.team, m.rank, tuple(m.cards)) for m in rows) == _melds_of(state)
    assert RoundScore.objects.filter(game=game).count() == len(state.rounds) * state.options.teams
    assert game.to_act == (None if state.game_over else state.to_act)
    return state


@pytest.mark.django_db
def test_player_create_gives_a_token_and_a_name() -> None:
    player, token = player_create(display_name="  Ada ")
    assert player.display_name == "Ada" and len(token) == 40
    assert not player.user.has_usable_password()


@pytest.mark.django_db
def test_the_snapshot_always_equals_the_log_replayed() -> None:
    game = _two_humans()
    assert game.version == 1
    assert list(game.events.values_list("seq", "type")) == [(1, "game_started")]
    for step in range(2000):
        state = _check_projections(game)
        if step % 4 == 0 or state.game_over:  # replaying is O(log length): not every step
            assert game_replay_state(game) == state
        if state.game_over:
            break
        result = game_action_apply(
            game_id=game.pk,
            seat=state.to_act,
            action=bot_fallback_choose(state),
            expected_version=game.version,
        )
        assert result.event is not None and result.event.seq == game.version + 1
        assert result.event.payload["type"] == result.event.type
    else:
        raise AssertionError("the game did not end")
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED and game.finished_at is not None
    assert game.winner_team == state.winner
    assert game.events.count() == game.version
    # the log replays step by step to any earlier state too
    middle = game.version // 2
    assert game_replay_state(game, upto=middle).action_count == middle - 1


@pytest.mark.django_db
def test_a_refused_action_changes_nothing() -> None:
    game = _two_humans()
    before = (game.version, game.snapshot, GameEvent.objects.count(), Meld.objects.count())
    with pytest.raises(ServiceError) as refused:
        game_action_apply(
            game_id=game.pk, seat=0, action={"type": "discard", "card": "QH"}, expected_version=1
        )
    assert refused.value.status == 422
    with pytest.raises(ServiceError) as stale:
        game_action_apply(game_id=game.pk, seat=0, action={"type": "draw"}, expected_version=7)
    assert (stale.value.code, stale.value.extra) == ("stale_version", {"current_version": 1})
    game.refresh_from_db()
    assert before == (game.version, game.snapshot, GameEvent.objects.count(), Meld.objects.count())


@pytest.mark.django_db
def test_bot_action_apply_ignores_stale_or_human_turns() -> None:
    game = _two_humans()  # seat 0 (a human) is to act
    assert bot_action_apply(game.pk, 1) is None
    ada = game.created_by
    robo = game_create(creator=ada, preset="two_player", bots=[BotSeatSpec(seat=1)])
    game_start(game_id=robo.pk, player=ada)
    assert bot_action_apply(robo.pk, 1) is None  # the human's turn
    robo.refresh_from_db()
    while robo.to_act == 0:  # the human plays a turn (bots would move only on commit)
        game_action_apply(
            game_id=robo.pk,
            seat=0,
            action=bot_fallback_choose(snapshot_of(robo)),
            expected_version=robo.version,
        )
        robo.refresh_from_db()
    assert robo.to_act == 1 and robo.version > 2
    assert bot_action_apply(robo.pk, 1) is None  # stale
    result = bot_action_apply(robo.pk, robo.version)
    assert result is not None and result.event is not None
    assert result.event.source == "bot" and result.event.seat == 1


@pytest.mark.django_db(transaction=True)
def test_bot_turns_run_in_a_loop_not_a_recursion() -> None:
    depths: list[int] = []
    registered = bot_player_get()
    assert registered is not None
    real: BotPlayer = registered

    class Recording:
        def turn_schedule(self, game_id: int, version: int) -> None:
            depths.append(len(inspect.stack(0)))
            real.turn_schedule(game_id, version)

        def action_choose(self, *args: Any) -> Any:
            return real.action_choose(*args)

        def discard_choose(self, *args: Any) -> Any:
            return real.discard_choose(*args)

        def review_schedule(self, review_id: int) -> None:
            real.review_schedule(review_id)

    ada = _player("Ada")
    game = game_create(
        creator=ada,
        preset="classic",
        options={"target_score": 1000},
        spectate=True,
        bots=[BotSeatSpec(seat=i) for i in range(4)],
    )
    bot_player_register(Recording())
    try:
        game_start(game_id=game.pk, player=ada)
    finally:
        bot_player_register(real)
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED
    assert len(depths) == game.version - 1  # one call per bot move
    assert max(depths) == min(depths)  # every turn ran at the same stack depth
    assert game_replay_state(game) == snapshot_of(game)


@pytest.mark.django_db(transaction=True)
def test_replaying_a_whole_game_costs_one_query(django_assert_max_num_queries: Any) -> None:
    """The replay (delayed spectators read through it) reads the log in one query, not one
    per event."""
    ada = _player("Ada")
    game = game_create(
        creator=ada,
        preset="two_player",
        spectate=True,
        bots=[BotSeatSpec(seat=i) for i in range(2)],
    )
    game_start(game_id=game.pk, player=ada)
    game.refresh_from_db()
    assert game.version > 50
    with django_assert_max_num_queries(1):
        state = game_replay_state(game)
    assert state == snapshot_of(game)


@pytest.fixture
def broker_mode() -> Iterator[None]:
    saved = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        yield
    finally:
        celery_app.conf.task_always_eager = saved


@pytest.mark.django_db(transaction=True)
def test_with_a_broker_the_bot_task_is_sent_after_commit(broker_mode: None) -> None:
    sent: list[tuple[Any, ...]] = []
    ada = _player("Ada")
    game = game_create(creator=ada, preset="two_player", bots=[BotSeatSpec(seat=0)], seat=1)
    with mock.patch("bots.tasks.bot_turn_send", side_effect=lambda *a: sent.append(a)):
        with transaction.atomic():
            game_start(game_id=game.pk, player=ada)
            assert sent == []  # not before the commit
        assert sent == [(game.pk, 1)]


@pytest.mark.django_db
@pytest.mark.usefixtures("replay_unverified")  # the log is damaged on purpose
def test_a_taken_seq_is_refused_as_stale_not_a_crash() -> None:
    """Behind the row lock, unique (game, seq) is the backstop: a clash reads as stale."""
    game = _two_humans()
    GameEvent.objects.create(game=game, seq=2, seat=0, type="draw", payload={"type": "draw"})
    with pytest.raises(ServiceError) as clash:
        game_action_apply(game_id=game.pk, seat=0, action={"type": "draw"}, expected_version=1)
    assert (clash.value.code, clash.value.extra) == ("stale_version", {"current_version": 2})
    game.refresh_from_db()
    assert game.version == 1
