"""Fixtures for the replay tests: games played through the services, one seat at a time.

The games here are driven by calling ``game_action_apply`` for the seat to act (bots do not
play on their own in a test transaction), so a test decides exactly how far a game goes.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from accounts.models import Player
from games.engine import GameState, action_to_dict, legal_actions
from games.models import Game
from games.services.actions import game_action_apply
from games.services.bots import bot_fallback_choose
from games.services.lobby import BotSeatSpec, game_create, game_start
from tests.games.api.conftest import (  # noqa: F401  (fixtures)
    PlayerClient,
    ada,
    bob,
    eager_bots,
    make_player,
)

PlayGame = Callable[..., Game]


def choose(state: GameState, rng: random.Random | None, wander: float) -> dict[str, Any]:
    """The built-in bot's choice, or now and then (``wander``) a random legal action."""
    if rng is not None and rng.random() < wander:
        return action_to_dict(rng.choice(legal_actions(state)))
    return bot_fallback_choose(state)


def advance(
    game_id: int,
    steps: int | None = None,
    rng: random.Random | None = None,
    wander: float = 0.2,
    on_step: Callable[[Game], None] | None = None,
    max_events: int = 4000,
) -> Game:
    """Apply ``steps`` actions (None: until the game ends) for whichever seat is to act."""
    done = 0
    while steps is None or done < steps:
        game = Game.objects.get(pk=game_id)
        if game.status != "active" or game.version >= max_events:
            return game
        state = GameState.from_dict(game.snapshot or {})
        game_action_apply(
            game_id=game_id,
            seat=state.to_act,
            action=choose(state, rng, wander),
            expected_version=game.version,
            source="bot",
        )
        done += 1
        if on_step is not None:
            on_step(Game.objects.get(pk=game_id))
    return Game.objects.get(pk=game_id)


def started_game(
    creator: Player,
    preset: str = "classic",
    options: dict[str, Any] | None = None,
    seat: int | None = 0,
    is_public: bool = True,
    seed: str | None = None,
) -> Game:
    """A started game: ``creator`` at ``seat`` (None: spectating), every other seat a bot;
    ``seed`` replaces the random seed before the deal."""
    opts = options if options is not None else {"target_score": 1000}
    players = int(opts.get("players") or {"two_player": 2, "three_player": 3}.get(preset, 4))
    bots = [BotSeatSpec(seat=i) for i in range(players) if i != seat]
    game = game_create(
        creator=creator,
        preset=preset,
        options=opts,
        bots=bots,
        seat=seat,
        spectate=seat is None,
        is_public=is_public,
    )
    if seed is not None:
        Game.objects.filter(pk=game.pk).update(seed=seed)
    return game_start(game_id=game.pk, player=creator)


def player_of(client: PlayerClient) -> Player:
    return Player.objects.get(pk=client.player_id)


@pytest.fixture
def play_game() -> PlayGame:
    return advance
