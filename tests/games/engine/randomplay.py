"""Random legal play with every invariant checked after every action (used by test_properties).

``check_game`` plays one game (up to ``max_rounds`` rounds) from a seed, choosing random legal
actions, and after each action checks:

- card conservation (the full 108-card deck is accounted for);
- the seat to act has a legal action until the game is over;
- every listed legal action is accepted (applied on a clone);
- random malformed or illegal actions are refused with an EngineError, change nothing, and are
  not in the legal list;
- a first meld accepted below the minimum leaves a turn that cannot end yet but lists what
  completes it (every listed action accepted, one of them reaching the minimum);
- round scores equal the sum of their components and the totals add up;
- to_dict/from_dict round-trips through JSON to an equal state;
- the player view of every seat and the spectator view hold no card hidden from that viewer;
- event views give private parts only to their owner;
- replaying the action log reproduces the state.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from games.engine import (
    AnswerPartner,
    AskPartner,
    DeclinePile,
    Discard,
    Draw,
    EndRound,
    EngineError,
    Event,
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
from games.engine.actions import Action
from games.engine.cards import CODE_OF_TEXT, IS_WILD, N_CODES, RANK_OF, WILD_RANK, card_text
from games.engine.view import event_view, player_view

SCORE_PARTS = (
    "meld_cards",
    "hand_cards",
    "natural_canastas",
    "mixed_canastas",
    "wild_canastas",
    "red_threes",
    "going_out",
    "concealed",
)

# Options varied on top of the presets (each example picks a few).
OPTION_VARIANTS: dict[str, list[Any]] = {
    "draw_count": [1, 2],
    "canastas_to_go_out": [1, 2],
    "max_wilds_per_meld": [3, 4],
    "wild_ratio": ["naturals_exceed_wilds", "wilds_not_exceed_naturals"],
    "pile_new_meld_needs_two_naturals": [False, True],
    "pile_to_canasta": [False, True],
    "one_card_pile_restriction": [False, True],
    "red_three_reveal": ["on_turn", "at_deal"],
    "stock_exhausted": ["end_round", "play_on"],
    "first_upcard_black_three_turns": [False, True],
    "red_three_discard": [False, True],
    "wild_canasta": [False, True],
    "concealed_requires_canasta": [False, True],
    "last_red_three": ["meld_then_end", "end_now"],
    "target_score": [1000, 5000],
}


def state_json(st: GameState) -> str:
    return json.dumps(st.to_dict(), sort_keys=True)


def choose(rng: random.Random, actions: list[Action], eager: float) -> Action:
    """A random legal action, preferring melds and pile takes with probability ``eager``."""
    active = [a for a in actions if isinstance(a, Meld | TakePile | AskPartner | EndRound)]
    if active and rng.random() < eager:
        return rng.choice(active)
    return rng.choice(actions)


def random_action(rng: random.Random, st: GameState) -> Action:
    """A random, usually ill-formed or illegal, action (random card combinations)."""
    seat = st.to_act if rng.random() < 0.85 else rng.randrange(st.options.players)
    hand = st.hands[seat] if 0 <= seat < len(st.hands) else []

    def some_cards(k: int) -> tuple[int, ...]:
        pool = list(hand) + [rng.randrange(N_CODES) for _ in range(3)]
        return tuple(rng.choice(pool) for _ in range(k)) if pool else ()

    def group() -> MeldGroup:
        cards = some_cards(rng.randint(1, 5))
        rank = rng.choice([RANK_OF[cards[0]] if cards else 1, rng.randrange(15), WILD_RANK])
        return MeldGroup(rank, cards)

    kind = rng.randrange(8)
    if kind == 0:
        return Draw(seat)
    if kind == 1:
        return TakePile(
            seat, some_cards(rng.randint(0, 3)), tuple(group() for _ in range(rng.randint(0, 2)))
        )
    if kind == 2:
        return Meld(seat, tuple(group() for _ in range(rng.randint(1, 3))))
    if kind == 3:
        return Discard(seat, rng.choice(list(hand) + [rng.randrange(N_CODES)]))
    if kind == 4:
        return AskPartner(seat)
    if kind == 5:
        return AnswerPartner(seat, rng.random() < 0.5)
    if kind == 6:
        return DeclinePile(seat)
    return EndRound(seat)


def plausible_action(rng: random.Random, st: GameState) -> Action:
    """A random pile take or meld built from the hand's cards of one rank (often legal)."""
    seat = st.to_act
    hand = st.hands[seat]
    wilds = [c for c in hand if IS_WILD[c]]
    by_rank: dict[int, list[int]] = {}
    for c in hand:
        if not IS_WILD[c]:
            by_rank.setdefault(RANK_OF[c], []).append(c)

    def pick(cards: list[int], low: int) -> list[int]:
        k = rng.randint(min(low, len(cards)), len(cards))
        return rng.sample(cards, k)

    def group(rank: int) -> MeldGroup:
        cards = pick(by_rank.get(rank, []), 1) + pick(wilds, 0)[: rng.randint(0, 3)]
        return MeldGroup(rank, tuple(cards) or tuple(wilds[:1]))

    team_ranks = list(st.melds[st.team_of(seat)])
    ranks = list(by_rank) + team_ranks
    if st.phase == "draw" and st.pile:
        top_rank = RANK_OF[st.pile[-1]]
        same = pick(by_rank.get(top_rank, []), 0) + pick(wilds, 0)[: rng.randint(0, 2)]
        extra = [r for r in by_rank if r != top_rank]
        groups = tuple(group(r) for r in rng.sample(extra, min(len(extra), rng.randint(0, 2))))
        return TakePile(seat, tuple(same), groups)
    if not ranks:
        return Draw(seat)
    chosen = rng.sample(ranks, min(len(set(ranks)), rng.randint(1, 2)))
    return Meld(seat, tuple(group(r) for r in dict.fromkeys(chosen)))


def random_dict(rng: random.Random) -> Any:
    """A random, often malformed, action in text form."""
    cards = [rng.choice([*CODE_OF_TEXT, "1H", "ZZ", "", 7, None]) for _ in range(rng.randint(0, 3))]
    choices: list[Any] = [
        {"type": "draw", "extra": 1},
        {"type": "take_pile", "cards": cards},
        {"type": "take_pile", "cards": "QH"},
        {"type": "meld", "melds": [{"cards": cards}]},
        {"type": "meld", "melds": [{"rank": rng.choice(["Q", "2", "W", "X", 3]), "cards": cards}]},
        {"type": "meld", "melds": []},
        {"type": "discard"},
        {"type": "discard", "card": rng.choice([*CODE_OF_TEXT, "11S", None])},
        {"type": "answer_partner", "allow": "yes"},
        {"type": rng.choice(["pass", None, 3])},
        ["draw"],
        None,
    ]
    return rng.choice(choices)


def check_exhaustive_kinds(
    rng: random.Random, st: GameState, actions: list[Action], before: str
) -> None:
    """Draws, discards, declines, questions, answers and round ends are listed exhaustively:
    each is accepted exactly when it is listed."""
    seat = st.to_act
    if seat < 0 or rng.random() > 0.3:
        return
    tries: list[Action] = [Draw(seat), DeclinePile(seat), AskPartner(seat), EndRound(seat)]
    tries += [AnswerPartner(seat, True), AnswerPartner(seat, False)]
    tries += [Discard(seat, c) for c in set(st.hands[seat])]
    for action in tries:
        trial = st.clone()
        try:
            apply(trial, action)
        except EngineError:
            assert state_json(trial) == before
            assert action not in actions, f"listed but refused: {action}"
        else:
            assert action in actions, f"accepted but not listed: {action}"


def check_first_meld_in_steps(st: GameState) -> None:
    """A side whose first melds are below the minimum: the turn cannot end, and the listed
    actions are accepted, one of them reaching the minimum."""
    team = st.team_of(st.turn)
    if st.phase != "play" or st.opened[team] or not st.melds[team]:
        return
    actions = legal_actions(st)
    assert actions, "a first meld below the minimum left no legal action"
    assert not any(isinstance(a, Discard | EndRound) for a in actions)
    opens = False
    for action in actions:
        trial = st.clone()
        apply(trial, action)
        opens = opens or trial.opened[team] or trial.round_no != st.round_no
    assert opens, "nothing listed completes the first meld"


def split_first_meld(rng: random.Random, st: GameState, action: Action) -> Action:
    """Now and then lay a side's first melds one at a time: the first group of a listed
    opening alone, when it is accepted (the rest then completes it)."""
    if (
        isinstance(action, Meld)
        and len(action.melds) > 1
        and not st.opened[st.team_of(action.seat)]
        and rng.random() < 0.5
    ):
        first = Meld(action.seat, action.melds[:1])
        trial = st.clone()
        try:
            apply(trial, first)
        except EngineError:
            return action
        return first
    return action


def check_views(st: GameState) -> None:
    """No view holds a card hidden from its viewer (multisets: two packs hold duplicates)."""
    public: Counter[str] = Counter()
    for team_melds in st.melds:
        for cards in team_melds.values():
            public.update(card_text(c) for c in cards)
    for reds in st.red_threes:
        public.update(card_text(c) for c in reds)
    if st.pile:
        public[card_text(st.pile[-1])] += 1
    for viewer in [*range(st.options.players), None]:
        view = player_view(st, viewer)
        text = json.dumps(view)
        assert "seed" not in view and "stock" not in view
        own: Counter[str] = Counter()
        if viewer is not None:
            own.update(card_text(c) for c in st.hands[viewer])
            assert Counter(view["hand"]) == own
        else:
            assert view["hand"] is None
        assert view["hand_counts"] == [len(h) for h in st.hands]
        assert view["stock_count"] == len(st.stock)
        legal = view.pop("legal_actions")
        if viewer != st.to_act:
            assert legal == []
        for action in legal:
            used = Counter(_cards_in(action))
            top = card_text(st.pile[-1]) if st.pile else None
            assert not used - own - Counter([top] if top else []), (viewer, action)
        shown = Counter(_cards_in(view))
        leaked = shown - public - own
        assert not leaked, (viewer, leaked, text[:300])


def _cards_in(value: Any) -> list[str]:
    out: list[str] = []
    if isinstance(value, str):
        if value in CODE_OF_TEXT:
            out.append(value)
    elif isinstance(value, dict):
        for key, v in value.items():
            if key not in ("rank", "phase", "permission", "type"):
                out += _cards_in(v)
    elif isinstance(value, list):
        for v in value:
            out += _cards_in(v)
    return out


def check_events(st: GameState, events: list[Event]) -> None:
    """Private parts go to their owner only; public parts show only cards now on the table."""
    table: Counter[str] = Counter()
    for team_melds in st.melds:
        for cards in team_melds.values():
            table.update(card_text(c) for c in cards)
    for reds in st.red_threes:
        table.update(card_text(c) for c in reds)
    round_over = any(e.kind == "round_ended" for e in events)
    for event in events:
        assert set(event.private) <= ({event.seat} if event.seat is not None else set(range(4)))
        if event.kind == "round_started":
            assert set(event.private) == set(range(st.options.players))
        for viewer in [*range(st.options.players), None]:
            view = event_view(event, viewer)
            json.dumps(view)
            if viewer not in event.private:
                assert view == {"kind": event.kind, "seat": event.seat, **event.public}
        if round_over or event.kind in ("round_started", "card_discarded"):
            continue  # hands are shown at the end of a round; discards and upcards are public
        # everything else shown publicly (melds, pile top, red threes) is now on the table
        shown = Counter(_cards_in(event.public))
        assert not shown - table, (event.kind, shown - table)


def check_scores(st: GameState) -> None:
    totals = [0] * st.options.teams
    for record in st.rounds:
        for team, parts in enumerate(record["teams"]):
            assert parts["total"] == sum(parts[k] for k in SCORE_PARTS), parts
            assert set(parts) == {*SCORE_PARTS, "total"}
            totals[team] += parts["total"]
        assert record["scores"] == totals
    assert st.scores == totals


def check_game(
    seed: int,
    preset: str,
    overrides: dict[str, Any] | None = None,
    *,
    max_rounds: int = 1,
    max_actions: int = 4000,
    eager: float = 0.6,
    probes: int = 2,
    check_legal_every: int = 1,
) -> GameState:
    rng = random.Random(seed)
    options = make_options(preset, overrides or {})
    events: list[Event] = []
    st = new_game(options, f"seed-{seed}", events)
    check_events(st, events)
    log: list[Action] = []
    steps = 0
    while not st.game_over and st.round_no <= max_rounds and steps < max_actions:
        assert st.cards_conserved()
        actions = legal_actions(st)
        assert actions, f"no legal action for seat {st.to_act} in phase {st.phase}"
        assert all(a.seat == st.to_act for a in actions)
        before = state_json(st)
        if steps % check_legal_every == 0:
            for action in actions:
                trial = st.clone()
                try:
                    apply(trial, action)
                except EngineError as exc:  # pragma: no cover - reported as a failure
                    raise AssertionError(f"listed action refused: {action} -> {exc!r}") from exc
                assert trial.cards_conserved()
                assert state_json(st) == before, "clone shares mutable state with the original"
        check_exhaustive_kinds(rng, st, actions, before)
        for _ in range(probes):
            probe = plausible_action(rng, st)
            trial = st.clone()
            try:
                apply(trial, probe)
            except EngineError:
                assert state_json(trial) == before, f"refused {probe} changed the state"
                assert probe not in actions, f"listed action refused: {probe}"
            else:
                kind = type(probe)
                assert any(isinstance(a, kind) for a in actions), f"{probe} accepted, none listed"
                if isinstance(probe, Meld) and st.opened[st.team_of(probe.seat)]:
                    listed = {g.rank for a in actions if isinstance(a, Meld) for g in a.melds}
                    ranks = {g.rank for g in probe.melds}
                    assert ranks & listed, f"{probe} accepted, no meld of its ranks listed"
                check_first_meld_in_steps(trial)
            probe = random_action(rng, st)
            trial = st.clone()
            try:
                apply(trial, probe)
            except EngineError:
                assert state_json(trial) == before, f"refused {probe} changed the state"
                assert probe not in actions, f"listed action refused: {probe}"
            data = random_dict(rng)
            try:
                parsed = action_from_dict(data, st.to_act)
            except EngineError as exc:
                assert exc.code == "invalid_action"
            else:
                assert action_from_dict(action_to_dict(parsed), st.to_act) == parsed
        action = split_first_meld(rng, st, choose(rng, actions, eager))
        assert action_from_dict(action_to_dict(action), action.seat) == action
        events = []
        apply(st, action, events)
        log.append(action)
        steps += 1
        check_events(st, events)
        assert st.cards_conserved()
        check_scores(st)
        check_views(st)
        restored = GameState.from_dict(json.loads(state_json(st)))
        assert restored == st
        assert legal_actions(restored) == legal_actions(st), "listing depends on dict order"
        assert state_json(restored) == state_json(st)
    assert replay(options, f"seed-{seed}", log) == st
    return st
