"""Property: for random games played through the service, the log replays to live play.

Each example plays a game with the service (the built-in bot's moves, some random legal moves),
recording the live snapshot after every event. Then:

- rebuilding from the log gives, at every step, exactly the state live play had then;
- the replay endpoint's selector at random steps shows what the engine's views showed then
  (a seat's own view while running; every hand once finished);
- ``game_verify`` passes;
- a finished game's export imports into a new game with the same final state, which verifies;
- the fairness check passes, and fails once any dealt card or commitment is changed.

Bounded for CI; ``CANASTA_REPLAY_GAMES=50`` plays more.
"""

from __future__ import annotations

import copy
import json
import os
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import Player
from accounts.services.players import player_create
from games.engine import GameState, make_options, replay_log, state_digest
from games.engine.cards import cards_text
from games.engine.fairness import check_game, published_deals
from games.engine.view import player_view
from games.models import Game
from games.selectors.games import game_replay_state
from games.selectors.log import entries_of
from games.selectors.replay import game_export, game_fairness_get, game_replay_get
from games.selectors.verify import game_verify
from games.services.imports import game_import
from games.services.seating import seat_save
from tests.games.selectors.replay.conftest import advance, started_game

pytestmark = pytest.mark.django_db

GAMES = int(os.environ.get("CANASTA_REPLAY_GAMES", "4"))

bounded = settings(
    max_examples=GAMES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=os.environ.get("CANASTA_REPLAY_RANDOM") is None,
)
presets = st.sampled_from(["classic", "hoyle", "two_player", "three_player"])


def _normal(value: Any) -> Any:
    return json.loads(json.dumps(value))


def play(preset: str, seed: str, wander: float, steps: int | None) -> tuple[Game, dict[int, Any]]:
    """A game of bots played through the service; the live snapshot after every event."""
    creator, _ = player_create(display_name="Prop")
    options = {"target_score": 1000}
    game = started_game(creator, preset=preset, seat=None, options=options, seed=seed)
    live: dict[int, Any] = {1: game.snapshot}

    def record(g: Game) -> None:
        live[g.version] = g.snapshot

    final = advance(game.pk, steps=steps, rng=random.Random(seed), wander=wander, on_step=record)
    return final, live


@bounded
@given(
    preset=presets,
    seed=st.text(alphabet="0123456789abcdef", min_size=8, max_size=16),
    wander=st.sampled_from([0.0, 0.3]),
    picks=st.lists(st.floats(min_value=0, max_value=1), min_size=3, max_size=3),
)
def test_finished_games_replay_verify_export_and_prove_fair(
    preset: str, seed: str, wander: float, picks: list[float]
) -> None:
    game, live = play(preset, seed, wander, None)
    assert game.status == "finished"
    assert sorted(live) == list(range(1, game.version + 1))

    for step in replay_log(make_options(game.preset, game.options), game.seed, entries_of(game)):
        assert _normal(step.state.to_dict()) == live[step.entry.seq], step.entry.seq

    for pick in picks:
        at = 1 + int(pick * (game.version - 1))
        body = game_replay_get(game=game, player=None, at=at)
        then = GameState.from_dict(live[at])
        assert body["hands"] == [cards_text(h) for h in then.hands]
        assert body["state"] == player_view(then, None, with_legal=False)

    assert game_verify(game).ok

    document = _normal(game_export(game=game, player=None))
    importer = Player.objects.get(pk=game.created_by_id)
    result = game_import(creator=importer, document=document)
    assert result.final_state_sha256 == state_digest(GameState.from_dict(live[game.version]))
    assert result.game.snapshot == game.snapshot and result.game.status == "finished"
    assert game_verify(result.game).ok

    fairness = game_fairness_get(game=game)
    assert fairness["verified"] is True and fairness["problems"] == []
    effects = [e for ev in document["events"] for e in ev["effects"]]
    options = make_options(game.preset, game.options)
    assert check_game(options, game.seed, published_deals(effects)).ok
    rng = random.Random(seed)
    for _ in range(3):
        forged = copy.deepcopy(effects)
        deals = [e for e in forged if e["kind"] == "round_started"]
        deal = rng.choice(deals)
        seat = rng.choice(sorted(deal["private"]))
        hand = deal["private"][seat]["hand"]
        i = rng.randrange(len(hand))
        hand[i] = "JK" if hand[i] != "JK" else "2C"
        assert not check_game(options, game.seed, published_deals(forged)).ok
    assert not check_game(options, game.seed + "x", published_deals(effects)).ok


@bounded
@given(
    preset=presets,
    seed=st.text(alphabet="0123456789abcdef", min_size=8, max_size=16),
    steps=st.integers(min_value=0, max_value=120),
    picks=st.lists(st.floats(min_value=0, max_value=1), min_size=2, max_size=2),
)
def test_running_games_replay_each_seats_view_of_the_time(
    preset: str, seed: str, steps: int, picks: list[float]
) -> None:
    game, live = play(preset, seed, 0.3, steps)
    assert game_verify(game).ok
    if game.status != "active":
        return
    seated = Player.objects.get(pk=game.created_by_id)
    seat = game.seats.order_by("index").first()
    assert seat is not None
    # The creator takes the bot's seat for the look (behind the log's back: put back after).
    level = seat.bot_level
    seat.bot_level = None
    seat.player = seated
    seat_save(game, seat, ["bot_level", "player"])
    try:
        for pick in picks:
            at = 1 + int(pick * (game.version - 1))
            body = game_replay_get(game=game, player=seated, at=at)
            then = GameState.from_dict(live[at])
            assert body["hands"] is None and body["viewer"] == 0
            assert body["state"] == player_view(then, 0, with_legal=False)
            assert game_replay_state(game, at) == then
    finally:
        seat.bot_level, seat.player = level, None
        seat_save(game, seat, ["bot_level", "player"])
