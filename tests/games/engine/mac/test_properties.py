"""Random play on the mac presets with every invariant checked after every action: cards
conserved, replay from the action list, JSON round trip, views hiding other hands and the
stock, every listed action accepted, refused actions changing nothing, a legal action always
available; whole games to a low target end."""

from __future__ import annotations

import json
import os
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    Action,
    AskPartner,
    DeclareSpecialHand,
    Discard,
    Draw,
    EngineError,
    GameState,
    Meld,
    MeldGroup,
    TakePile,
    action_from_dict,
    action_to_dict,
    apply,
    legal_actions,
    make_options,
    new_game,
    replay,
)
from games.engine.cards import CODE_OF_TEXT, N_CODES, RANK_OF, VALUE_OF, WILD_RANK, card_text
from games.engine.view import player_view

HANDS = int(os.environ.get("CANASTA_ENGINE_HANDS", "6"))
PRESETS = ("mac", "mac_two_player")


def state_json(state: GameState) -> str:
    return json.dumps(state.to_dict(), sort_keys=True)


def random_action(rng: random.Random, state: GameState) -> Action:
    seat = state.to_act
    hand = state.hands[seat] if seat >= 0 else []
    pool = list(hand) + [rng.randrange(N_CODES)]

    def some(k: int) -> tuple[int, ...]:
        return tuple(rng.choice(pool) for _ in range(k))

    def group() -> MeldGroup:
        cards = some(rng.randint(1, 4))
        rank = rng.choice([RANK_OF[cards[0]], rng.randrange(15), WILD_RANK])
        return MeldGroup(rank, cards, "wild" if rank == WILD_RANK else "group")

    kind = rng.randrange(6)
    if kind == 0:
        return Draw(seat, rng.random() < 0.5)
    if kind == 1:
        return TakePile(
            seat, some(rng.randint(0, 3)), tuple(group() for _ in range(rng.randint(0, 2)))
        )
    if kind == 2:
        return Meld(seat, tuple(group() for _ in range(rng.randint(1, 3))))
    if kind == 3:
        return Discard(seat, rng.choice(pool))
    if kind == 4:
        return DeclareSpecialHand(seat, rng.choice(["pairs", "garbage", "straight", "nope"]))
    return AskPartner(seat)


def cards_in(value: Any) -> list[str]:
    out: list[str] = []
    if isinstance(value, str):
        if value in CODE_OF_TEXT:
            out.append(value)
    elif isinstance(value, dict):
        for key, v in value.items():
            if key not in ("rank", "phase", "permission", "type", "dead_ranks", "name"):
                out += cards_in(v)
    elif isinstance(value, list):
        for v in value:
            out += cards_in(v)
    return out


def check_views(state: GameState) -> None:
    public: Counter[str] = Counter()
    for team_melds in state.melds:
        for cards in team_melds.values():
            public.update(card_text(c) for c in cards)
    for area in state.red_threes:
        public.update(card_text(c) for c in area)
    if state.ext is not None:
        public.update(card_text(c) for c in state.ext.cards())
    if state.pile:
        public[card_text(state.pile[-1])] += 1
    for viewer in [*range(state.options.players), None]:
        view = player_view(state, viewer)
        assert "stock" not in view and "seed" not in view
        own: Counter[str] = Counter()
        if viewer is not None:
            own.update(card_text(c) for c in state.hands[viewer])
        view.pop("legal_actions")
        leaked = Counter(cards_in(view)) - public - own
        assert not leaked, (viewer, leaked)


def steady(state: GameState, actions: list[Action]) -> Action:
    """A plain strategy that ends games: no new sevens, aces or wild melds, the biggest meld
    or take first, else the cheapest discard."""
    melds = state.melds[state.team_of(state.to_act)]
    good = [
        a
        for a in actions
        if isinstance(a, Meld | TakePile)
        and not any(g.rank not in melds and g.rank in (4, 11, WILD_RANK) for g in a.melds)
    ]
    if good:
        return max(
            good, key=lambda a: sum(len(g.cards) for g in a.melds) + len(getattr(a, "cards", ()))
        )
    discards = [a for a in actions if isinstance(a, Discard)]
    if discards:
        return min(discards, key=lambda a: (VALUE_OF[a.card], a.card))
    return actions[0]


def choose(rng: random.Random, actions: list[Action], eager: float) -> Action:
    active = [a for a in actions if isinstance(a, Meld | TakePile | DeclareSpecialHand)]
    if active and rng.random() < eager:
        return rng.choice(active)
    return rng.choice(actions)


def play(
    seed: int,
    preset: str,
    overrides: dict[str, Any],
    max_rounds: int,
    eager: float,
    probes: int,
    check_every: int,
) -> GameState:
    rng = random.Random(seed)
    options = make_options(preset, overrides)
    state = new_game(options, f"seed-{seed}")
    log: list[Action] = []
    steps = 0
    while not state.game_over and state.round_no <= max_rounds and steps < 3000:
        actions = legal_actions(state)
        assert actions, f"no legal action in phase {state.phase}"
        before = state_json(state)
        if steps % check_every == 0:
            for action in actions:
                trial = state.clone()
                apply(trial, action)
                assert trial.cards_conserved()
            assert state_json(state) == before
        for _ in range(probes):
            probe = random_action(rng, state)
            trial = state.clone()
            try:
                apply(trial, probe)
            except EngineError:
                assert state_json(trial) == before, f"refused {probe} changed the state"
                assert probe not in actions, f"listed action refused: {probe}"
            else:
                if isinstance(probe, Draw | Discard | DeclareSpecialHand | AskPartner):
                    assert probe in actions, f"accepted, not listed: {probe}"
                else:
                    assert any(type(a) is type(probe) for a in actions), f"none listed: {probe}"
        action = steady(state, actions) if eager > 1 else choose(rng, actions, eager)
        assert action_from_dict(action_to_dict(action), action.seat) == action
        apply(state, action)
        log.append(action)
        steps += 1
        assert state.cards_conserved()
        check_views(state)
        restored = GameState.from_dict(json.loads(state_json(state)))
        assert restored == state
    assert replay(options, f"seed-{seed}", log) == state
    return state


seeds = st.integers(min_value=0, max_value=2**32 - 1)
small = settings(
    max_examples=HANDS,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=os.environ.get("CANASTA_ENGINE_RANDOM") is None,
)
variants = st.fixed_dictionaries(
    {},
    optional={
        "talons": st.booleans(),
        "rule_of_five": st.booleans(),
        "special_hands": st.sampled_from(["cla", "basic", "none"]),
        "initial_meld_core": st.sampled_from(["clean_triple", "clean_triple_or_wild_meld"]),
        "red_three_reveal": st.sampled_from(["on_turn", "at_deal"]),
    },
)


@small
@given(seed=seeds, preset=st.sampled_from(PRESETS), eager=st.sampled_from([0.3, 0.8]))
def test_random_hands_keep_the_invariants(seed: int, preset: str, eager: float) -> None:
    play(seed, preset, {}, max_rounds=1, eager=eager, probes=3, check_every=1)


@small
@given(seed=seeds, preset=st.sampled_from(PRESETS), overrides=variants)
def test_random_hands_with_options_keep_the_invariants(
    seed: int, preset: str, overrides: dict[str, Any]
) -> None:
    play(seed, preset, overrides, max_rounds=1, eager=0.7, probes=2, check_every=2)


@small
@given(seed=seeds, preset=st.sampled_from(PRESETS))
def test_whole_games_to_a_low_target_end(seed: int, preset: str) -> None:
    # A steady strategy (eager > 1) reaches 1000 within a few rounds; replay covers the deals.
    state = play(
        seed, preset, {"target_score": 1000}, max_rounds=12, eager=2, probes=0, check_every=10
    )
    assert state.game_over or state.round_no > 12
    if state.game_over:
        assert state.winner is not None and max(state.scores) >= 1000
