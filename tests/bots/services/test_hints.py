"""The hint service over many deals: whatever the seed and the table, the hint for the seat to
act names only cards that seat can see (its hand, and the pile's top card when it takes the
pile), is accepted by the move service, and writes nothing."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accounts.models import Player
from accounts.services.players import player_create
from bots.services.hints import hint_get
from games.engine import GameState, card_text
from games.models import Game, GameEvent
from games.services.actions import game_action_apply
from games.services.lobby import game_create, game_join, game_start

pytestmark = pytest.mark.django_db

MOVES = 12


def visible_cards(state: GameState, seat: int, action: dict[str, Any]) -> Counter[str]:
    seen = Counter(card_text(c) for c in state.hands[seat])
    if action["type"] == "take_pile" and state.pile:
        seen[card_text(state.pile[-1])] += 1
    return seen


def named_cards(action: dict[str, Any]) -> Counter[str]:
    cards = list(action.get("cards") or []) + ([action["card"]] if action.get("card") else [])
    for group in action.get("melds") or []:
        cards.extend(group["cards"])
    return Counter(cards)


@settings(max_examples=5, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), players=st.sampled_from([2, 4]))
def test_hints_name_only_visible_cards_and_are_accepted(seed: bytes, players: int) -> None:
    people = [player_create(display_name=f"P{i}")[0] for i in range(players)]
    preset = "two_player" if players == 2 else "classic"
    game = game_create(creator=people[0], preset=preset, seat=0, hints=True)
    for person in people[1:]:
        game_join(player=person, game_id=game.pk)
    Game.objects.filter(pk=game.pk).update(seed=seed.hex())  # the deal Hypothesis chose
    game_start(game_id=game.pk, player=people[0])
    by_seat = {i: p for i, p in enumerate(people)}
    for move in range(MOVES):
        game = Game.objects.get(pk=game.pk)
        if game.to_act is None or game.status != "active":
            break
        seat = game.to_act
        player: Player = by_seat[seat]
        events = GameEvent.objects.filter(game=game).count()
        level = "hard" if move == MOVES - 1 else "medium"
        hint = hint_get(game=game, player=player, level=level)
        assert (hint["seat"], hint["version"], hint["level"]) == (seat, game.version, level)
        state = GameState.from_dict(game.snapshot or {})
        assert not named_cards(hint["action"]) - visible_cards(state, seat, hint["action"])
        assert GameEvent.objects.filter(game=game).count() == events  # a hint writes nothing
        game_action_apply(
            game_id=game.pk,
            seat=None,
            action=hint["action"],
            expected_version=hint["version"],
            player=player,
        )
