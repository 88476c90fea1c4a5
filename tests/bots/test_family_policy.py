"""The family policy (bots/policies/family.py): every level plays only legal moves in Modern
American Canasta, Samba and Bolivia, the levels that judge their moves finish games, no level
reads a card its seat cannot see, and the discard gives away as little as it can."""

from __future__ import annotations

import random

import pytest

from bots.policies.family import (
    FAMILY_LEVELS,
    discard_cost,
    evaluate,
    family_discard_choose,
    own_knowledge,
)
from bots.policies.family_levels import family_policy_choose
from games.engine import GameState, apply, legal_actions, make_options, new_game
from games.engine.actions import Discard, Draw
from games.engine.cards import parse_card, parse_cards

FAMILY_PRESETS = ["mac", "mac_two_player", "samba", "bolivia"]


def played(preset: str, level: str, seed: int, actions: int) -> GameState:
    """``actions`` moves (or the whole game) of ``level`` in every seat, each checked legal."""
    state = new_game(make_options(preset, {"target_score": 1000}), f"policy-{seed}")
    rng = random.Random(seed)
    for _ in range(actions):
        if state.game_over:
            break
        action = family_policy_choose(level, state, state.to_act, rng)
        assert action in legal_actions(state), (preset, level, action)
        apply(state, action)
    return state


@pytest.mark.parametrize("preset", FAMILY_PRESETS)
@pytest.mark.parametrize("level", FAMILY_LEVELS)
def test_every_level_plays_only_legal_moves(preset: str, level: str) -> None:
    state = played(preset, level, 1, 600)
    assert state.cards_conserved()
    assert state.action_count > 0


@pytest.mark.parametrize("preset", FAMILY_PRESETS)
@pytest.mark.parametrize("level", ["easy", "medium"])
def test_the_levels_that_judge_their_moves_finish_a_short_game(preset: str, level: str) -> None:
    state = played(preset, level, 2, 6000)
    assert state.game_over, (preset, level, state.round_no, state.scores)
    assert state.winner is not None and max(state.scores) >= 1000


def hidden_shuffled(state: GameState, seat: int, seed: int) -> GameState:
    """``state`` with the cards ``seat`` cannot see dealt again among the other hands and the
    stock (each place keeping its count)."""
    other = state.clone()
    others = [s for s in range(state.options.players) if s != seat]
    pool = list(other.stock) + [c for s in others for c in other.hands[s]]
    random.Random(seed).shuffle(pool)
    start = 0
    for s in others:
        count = len(other.hands[s])
        other.hands[s] = pool[start : start + count]
        start += count
    other.stock = pool[start:]
    return other


@pytest.mark.parametrize("preset", FAMILY_PRESETS)
@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
def test_no_level_reads_the_cards_its_seat_cannot_see(preset: str, level: str) -> None:
    state = played(preset, "easy", 3, 0)
    for step in range(120):
        if state.game_over:
            break
        seat = state.to_act
        mine = family_policy_choose(level, state, seat, random.Random(step))
        for variant in range(3):
            elsewhere = hidden_shuffled(state, seat, variant)
            assert family_policy_choose(level, elsewhere, seat, random.Random(step)) == mine
        apply(state, mine)


def test_the_evaluation_sees_only_the_seat_and_the_table() -> None:
    state = played("samba", "easy", 4, 40)
    seat = state.to_act
    assert evaluate(state, seat) == evaluate(hidden_shuffled(state, seat, 9), seat)
    world = own_knowledge(state, seat, random.Random(5))
    assert world.hands[seat] == state.hands[seat] and world.pile == state.pile
    assert sorted(world.all_cards()) == sorted(state.all_cards())


def test_the_discard_gives_away_as_little_as_it_can() -> None:
    hand = parse_cards("KH KS 9C 5D QD 2C 3S")
    mine, theirs = {"K"}, {"9"}

    def order(cards: str) -> list[str]:
        ranked = sorted(parse_cards(cards), key=lambda c: discard_cost(c, hand, mine, theirs))
        return [str(c) for c in ranked]

    # A black three blocks the pile; then the highest single card of a rank nobody melded
    # (the queen before the five); then a card of the side's own meld; a card the other side
    # melded only before a wild card.
    assert order("KH 9C 5D QD 2C 3S") == [
        str(parse_card(c)) for c in ("3S", "QD", "5D", "KH", "9C", "2C")
    ]


@pytest.mark.parametrize("preset", FAMILY_PRESETS)
def test_the_easy_discard_is_a_legal_discard(preset: str) -> None:
    state = new_game(make_options(preset, {"target_score": 1000}), "discard")
    seat = state.to_act
    assert family_discard_choose(state, seat) is None  # nothing to discard before the draw
    apply(state, Draw(seat))
    while not any(isinstance(a, Discard) for a in legal_actions(state)):
        apply(state, legal_actions(state)[0])
    chosen = family_discard_choose(state, seat)
    assert chosen is not None and chosen in legal_actions(state)


def test_an_unknown_level_is_refused() -> None:
    state = new_game(make_options("samba"), "levels")
    with pytest.raises(ValueError, match="unknown bot level"):
        family_policy_choose("grandmaster", state, state.to_act, random.Random(0))
