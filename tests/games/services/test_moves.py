"""games.services.moves: one action through the service, as every entry point applies it.

An accepted action appends one event (seq = version + 1) through the log's writer, moves the
version, publishes ``MovePlayed`` (and ``GameEnded`` when it ends the game) to the subscribed
apps in the same transaction, and wakes live clients on commit; a refused one changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from accounts.services.players import player_create
from games import errors, hooks, live
from games.models import Game, GameEvent
from games.services.lobby import game_create, game_join, game_start
from games.services.moves import move_apply
from tests.games.api.conftest import choose, snapshot_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def table() -> tuple[Game, list[Any]]:
    ada = player_create(display_name="Ada")[0]
    bob = player_create(display_name="Bob")[0]
    game = game_create(creator=ada, preset="two_player", options={"target_score": 1000})
    game_join(player=bob, game_id=game.pk)
    return game_start(game_id=game.pk, player=ada), [ada, bob]


@pytest.fixture
def published() -> Iterator[list[object]]:
    """What the service publishes to the other apps, in order."""
    seen: list[object] = []
    kinds = (hooks.MovePlayed, hooks.GameEnded)
    for kind in kinds:
        hooks.subscribe(kind, seen.append)
    yield seen
    for kind in kinds:
        hooks.unsubscribe(kind, seen.append)


def test_an_accepted_action_appends_one_event_and_publishes_the_move(
    table: tuple[Game, list[Any]],
    published: list[object],
    django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    game, players = table
    woken: list[int] = []
    monkeypatch.setattr(live, "notify", woken.append)
    assert game.to_act is not None
    actor = players[game.to_act]
    with django_capture_on_commit_callbacks(execute=True):
        result = move_apply(
            game_id=game.pk,
            seat=None,
            action=choose(_actions(game)),
            expected_version=game.version,
            player=actor,
        )
    assert result.event is not None and result.event.seq == game.version + 1
    assert Game.objects.get(pk=game.pk).version == game.version + 1
    assert GameEvent.objects.filter(game=game).count() == game.version + 1
    assert [type(e) for e in published] == [hooks.MovePlayed]
    move = published[0]
    assert isinstance(move, hooks.MovePlayed) and move.game.pk == game.pk
    assert move.acted == game.to_act and move.by_player
    assert game.pk in woken  # the live wake-up, once committed


def _actions(game: Game) -> list[dict[str, Any]]:
    from games.engine import action_to_dict, legal_actions

    return [action_to_dict(a) for a in legal_actions(snapshot_of(game.pk))]


@pytest.mark.parametrize("refusal", ["stale_version", "not_seated", "not_your_turn"])
def test_a_refused_action_changes_nothing_and_publishes_nothing(
    table: tuple[Game, list[Any]], published: list[object], refusal: str
) -> None:
    game, players = table
    before = list(GameEvent.objects.filter(game=game).values_list("seq", "type", "payload"))
    assert game.to_act is not None
    actor = players[game.to_act]
    other = players[1 - game.to_act]
    stranger = player_create(display_name="Eve")[0]
    version = game.version - 1 if refusal == "stale_version" else game.version
    who = {"stale_version": actor, "not_seated": stranger, "not_your_turn": other}[refusal]
    with pytest.raises(errors.ServiceError) as refused:
        move_apply(
            game_id=game.pk,
            seat=None,
            action=choose(_actions(game)),
            expected_version=version,
            player=who,
        )
    assert refused.value.code == refusal
    stored = Game.objects.get(pk=game.pk)
    assert stored.version == game.version and stored.snapshot == game.snapshot
    after = list(GameEvent.objects.filter(game=game).values_list("seq", "type", "payload"))
    assert after == before and published == []


def test_the_same_idempotency_key_replays_the_first_answer_and_appends_once(
    table: tuple[Game, list[Any]], published: list[object]
) -> None:
    game, players = table
    assert game.to_act is not None
    actor = players[game.to_act]
    action = choose(_actions(game))
    first = move_apply(
        game_id=game.pk,
        seat=None,
        action=action,
        expected_version=game.version,
        player=actor,
        idempotency_key="k-1",
    )
    again = move_apply(
        game_id=game.pk,
        seat=None,
        action=action,
        expected_version=game.version,
        player=actor,
        idempotency_key="k-1",
    )
    assert again.replayed and again.body == first.body and again.status == first.status
    assert GameEvent.objects.filter(game=game).count() == game.version + 1
    assert len(published) == 1  # the move was published once
    with pytest.raises(errors.IdempotencyKeyReused):  # the key for another request
        move_apply(
            game_id=game.pk,
            seat=None,
            action=action,
            expected_version=game.version + 5,
            player=actor,
            idempotency_key="k-1",
        )
