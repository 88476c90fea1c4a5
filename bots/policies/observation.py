"""What one seat knows, and worlds consistent with it.

An :class:`Observation` is built ONLY from the seat's player view (``view.player_view``)
and the public history as that seat saw it (``event_view`` of every event of the round: upcards,
discards, pile takes, melds). It never holds a card the seat could not see. From the history the
seat also knows the whole discard pile (every pile card was face up when it arrived) and which
cards each other player picked up with the pile and has not since melded or discarded.

``determinise`` deals the cards the seat cannot see (the "unseen" multiset) at random into the
other hands and the stock, keeping every known card where the seat knows it is. The result is a
full ``GameState`` in which the seat's own legal actions are exactly those of the real game (they
depend only on the seat's hand, the table and the counts), so policies may call the engine's
``legal_actions`` and validators on it.

``observation_from_state`` is the fast path used inside search rollouts, where the "world" is a
determinisation already: it copies the same fields straight from a state.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine.actions import Action, action_from_dict
from games.engine.cards import (
    FULL_DECK,
    IS_RED_THREE,
    IS_WILD,
    RANK_OF,
    THREE,
    parse_card,
    parse_rank,
)
from games.engine.options import Options, options_from_dict
from games.engine.state import (
    PERMISSION_NONE,
    PERMISSION_TEXT,
    PHASE_DRAW,
    GameState,
)

# A public event as one seat saw it: ``games.engine.view.event_view(event, seat)``.
EventView = Mapping[str, Any]


@dataclass(slots=True)
class Observation:
    """Everything one seat may know at its decision point (cards are engine card codes)."""

    seat: int
    options: Options
    round_no: int
    dealer: int
    turn: int
    to_act: int
    phase: str
    hand: list[int]
    hand_counts: list[int]
    stock_count: int
    pile: list[int]  # the known pile, bottom .. top (the whole pile when the history is known)
    pile_unknown: int  # pile cards under ``pile`` the seat does not know (history missing)
    pile_frozen: bool  # the pile holds a wild card or red three
    melds: list[dict[int, list[int]]]  # per team: rank -> cards
    red_threes: list[list[int]]
    opened: list[bool]
    scores: list[int]
    permission: int
    no_discard: bool
    turn_melded: bool = False
    turn_started: list[int] = field(default_factory=list)
    melded_before: list[bool] = field(default_factory=list)
    had_turn: list[bool] = field(default_factory=list)  # seat has started a turn this round
    known: list[list[int]] = field(default_factory=list)  # cards known to be in others' hands
    discarded_ranks: list[Counter[int]] = field(default_factory=list)  # per seat, this round
    legal: list[Action] | None = None  # the seat's legal actions when the view listed them

    @property
    def players(self) -> int:
        return self.options.players

    @property
    def teams(self) -> int:
        return self.options.teams

    def team_of(self, seat: int) -> int:
        return seat % self.options.teams

    @property
    def team(self) -> int:
        return self.seat % self.options.teams

    @property
    def pile_size(self) -> int:
        return len(self.pile) + self.pile_unknown

    @property
    def pile_top(self) -> int | None:
        return self.pile[-1] if self.pile else None

    def visible_cards(self) -> Counter[int]:
        """Every card the seat can place: own hand, melds, red threes, known pile, known cards."""
        seen: Counter[int] = Counter(self.hand)
        for team_melds in self.melds:
            for cards in team_melds.values():
                seen.update(cards)
        for reds in self.red_threes:
            seen.update(reds)
        seen.update(self.pile)
        for s, cards in enumerate(self.known):
            if s != self.seat:
                seen.update(cards)
        return seen

    def unseen(self) -> Counter[int]:
        """The multiset of cards the seat cannot place (other hands' unknown part, stock, and
        unknown pile cards)."""
        return Counter(FULL_DECK) - self.visible_cards()


# ---------------------------------------------------------------------------- from view + history


class _Tracker:
    """Replays one round's public events (as one seat saw them) to recover the pile and what
    each other seat is known to hold."""

    def __init__(self, players: int, teams: int) -> None:
        self.players = players
        self.teams = teams
        self.started = False
        self.pile: list[int] = []
        self.known: list[list[int]] = [[] for _ in range(players)]
        self.discarded: list[Counter[int]] = [Counter() for _ in range(players)]
        self.melded_before = [False] * players
        self.had_turn = [False] * players
        self.team_ranks: list[set[int]] = [set() for _ in range(teams)]
        self.turn_seat: int | None = None
        self.turn_melded = False
        self.turn_started: list[int] = []

    def _new_turn(self, seat: int) -> None:
        self.turn_seat = seat
        self.had_turn[seat] = True
        self.turn_melded = False
        self.turn_started = []

    def _forget(self, seat: int, cards: Iterable[int]) -> None:
        known = self.known[seat]
        for c in cards:
            if c in known:
                known.remove(c)

    def _meld(self, seat: int, groups: Iterable[tuple[int, list[int]]]) -> None:
        team = seat % self.teams
        self.turn_melded = True
        for rank, cards in groups:
            if rank not in self.team_ranks[team]:
                self.team_ranks[team].add(rank)
                self.turn_started.append(rank)
            self._forget(seat, cards)

    def feed(self, ev: EventView) -> None:
        kind = ev.get("kind")
        seat = ev.get("seat")
        if kind == "round_started":
            self.__init__(self.players, self.teams)  # type: ignore[misc]
            self.started = True
            self.pile = [parse_card(c) for c in ev.get("upcards", [])]
            return
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            return
        if kind == "card_drawn":
            self._new_turn(seat)
        elif kind == "pile_taken":
            self._new_turn(seat)
            top = parse_card(ev["top"])
            with_cards = [parse_card(c) for c in ev.get("with", [])]
            groups = [(RANK_OF[top], [top, *with_cards])]
            for g in ev.get("melds", []):
                groups.append((parse_rank(g["rank"]), [parse_card(c) for c in g["cards"]]))
            self._forget(seat, with_cards)
            self._meld(seat, groups)
            taken = [c for c in self.pile[:-1] if not IS_RED_THREE[c]]
            self.known[seat].extend(taken)
            self.pile = []
        elif kind == "melded":
            self._meld(
                seat,
                [
                    (parse_rank(g["rank"]), [parse_card(c) for c in g["cards"]])
                    for g in ev.get("melds", [])
                ],
            )
        elif kind == "card_discarded":
            card = parse_card(ev["card"])
            self.pile.append(card)
            self._forget(seat, [card])
            self.discarded[seat][RANK_OF[card]] += 1
            if self.turn_melded:
                self.melded_before[seat] = True
        elif kind == "pile_declined":
            self._new_turn(seat)


def observe(
    view: Mapping[str, Any],
    events: Sequence[EventView] = (),
    options: Options | Mapping[str, Any] | None = None,
) -> Observation:
    """The observation of the seat ``view['viewer']`` from its player view and the events it saw
    (``event_view(e, seat)`` of the game's events; only the current round's are used).

    The game's options (public) come from ``options`` or from ``view['options']``."""
    seat = view["viewer"]
    if not isinstance(seat, int):
        raise ValueError("an observation needs a seat's view (viewer is None)")
    if options is None:
        if "options" not in view:
            raise ValueError("give the game's options (they are public)")
        options = view["options"]
    if not isinstance(options, Options):
        options = options_from_dict(dict(options))
    players, teams = options.players, options.teams
    tracker = _Tracker(players, teams)
    for ev in events:
        tracker.feed(ev)
    hand = [parse_card(c) for c in view["hand"]]
    melds: list[dict[int, list[int]]] = [{} for _ in range(teams)]
    red_threes: list[list[int]] = [[] for _ in range(teams)]
    opened = [False] * teams
    scores = [0] * teams
    for t in view["teams"]:
        team = t["team"]
        melds[team] = {
            parse_rank(m["rank"]): [parse_card(c) for c in m["cards"]] for m in t["melds"]
        }
        red_threes[team] = [parse_card(c) for c in t["red_threes"]]
        opened[team] = bool(t["opened"])
        scores[team] = int(t["score"])
    pile_view = view["pile"]
    size = int(pile_view["size"])
    top = parse_card(pile_view["top"]) if pile_view.get("top") else None
    pile = tracker.pile if tracker.started else []
    if len(pile) != size or (size and pile[-1] != top):
        # History missing or partial: only the top card is known.
        pile = [top] if top is not None else []
        pile_unknown = size - len(pile)
        known: list[list[int]] = [[] for _ in range(players)]
    else:
        pile_unknown = 0
        known = [list(k) for k in tracker.known]
    counts = [int(n) for n in view["hand_counts"]]
    for s in range(players):  # never claim to know more cards than a hand holds
        if s == seat:
            known[s] = []
        del known[s][counts[s] :]
    legal: list[Action] | None = None
    if view.get("legal_actions"):
        legal = [action_from_dict(a, seat) for a in view["legal_actions"]]
    had_turn = tracker.had_turn[:] if tracker.started else [True] * players
    if tracker.started and view["turn"] is not None:
        had_turn[int(view["turn"])] = True
    return Observation(
        seat=seat,
        options=options,
        round_no=int(view["round"]),
        dealer=int(view["dealer"]),
        turn=int(view["turn"]),
        to_act=int(view["to_act"]),
        phase=str(view["phase"]),
        hand=hand,
        hand_counts=counts,
        stock_count=int(view["stock_count"]),
        pile=list(pile),
        pile_unknown=pile_unknown,
        pile_frozen=bool(pile_view["frozen"]),
        melds=melds,
        red_threes=red_threes,
        opened=opened,
        scores=scores,
        permission=PERMISSION_TEXT.index(view["permission"]),
        no_discard=bool(view["must_end_without_discard"]),
        turn_melded=tracker.turn_melded and tracker.turn_seat == view["turn"],
        turn_started=list(tracker.turn_started) if tracker.turn_seat == view["turn"] else [],
        melded_before=tracker.melded_before[:],
        had_turn=had_turn,
        known=known,
        discarded_ranks=[Counter(c) for c in tracker.discarded],
        legal=legal,
    )


def observation_from_state(st: GameState, seat: int) -> Observation:
    """The same fields copied from a state (for rollouts inside an already sampled world).

    Known pickups and discarded ranks are not tracked here (``known`` and ``discarded_ranks``
    are empty); the pile is the state's pile (public by history). Built field by field rather
    than through the constructor: a rollout builds one at every move, and passing 26 keyword
    arguments costs more than the rest of the copy."""
    obs: Observation = Observation.__new__(Observation)
    obs.seat = seat
    obs.options = st.options
    obs.round_no = st.round_no
    obs.dealer = st.dealer
    obs.turn = st.turn
    obs.to_act = st.to_act
    obs.phase = st.phase
    obs.hand = sorted(st.hands[seat])
    obs.hand_counts = list(map(len, st.hands))
    obs.stock_count = len(st.stock)
    obs.pile = st.pile  # read-only use, like the melds
    obs.pile_unknown = 0
    obs.pile_frozen = st.pile_freezers > 0
    obs.melds = st.melds  # read-only use
    obs.red_threes = st.red_threes
    obs.opened = st.opened
    obs.scores = st.scores
    obs.permission = st.permission
    obs.no_discard = st.no_discard
    obs.turn_melded = st.turn_melded
    obs.turn_started = st.turn_started
    obs.melded_before = st.melded_before
    obs.had_turn = [True] * st.options.players
    obs.known = []
    obs.discarded_ranks = []
    obs.legal = None
    return obs


# ---------------------------------------------------------------------------- determinisation


def determinise(obs: Observation, rng: random.Random | None = None) -> GameState:
    """A full state consistent with everything ``obs`` knows; hidden cards dealt at random.

    Other hands get their known cards plus a random draw from the unseen multiset (red threes
    only go to hands that may still hold them: ``on_turn`` reveal, no turn yet this round); the
    unknown pile cards and the stock get the rest.
    """
    rng = rng or random.Random()
    opts = obs.options
    players = opts.players
    pool = list(obs.unseen().elements())
    rng.shuffle(pool)
    reds = [c for c in pool if IS_RED_THREE[c]]
    others = [c for c in pool if not IS_RED_THREE[c]]
    hands: list[list[int]] = [[] for _ in range(players)]
    hands[obs.seat] = obs.hand[:]
    for s in range(players):
        if s == obs.seat:
            continue
        hand = list(obs.known[s]) if s < len(obs.known) else []
        need = obs.hand_counts[s] - len(hand)
        may_hold_reds = opts.red_three_reveal == "on_turn" and not (
            s < len(obs.had_turn) and obs.had_turn[s]
        )
        for _ in range(max(0, need)):
            if may_hold_reds and reds and rng.random() < len(reds) / (len(reds) + len(others)):
                hand.append(reds.pop())
            elif others:
                hand.append(others.pop())
            elif reds:
                hand.append(reds.pop())
        hands[s] = hand
    rest = reds + others
    rng.shuffle(rest)
    pile_under = rest[: obs.pile_unknown]
    stock = rest[obs.pile_unknown :]
    # A red three cannot sit in the stock's unknown part any differently; keep counts honest.
    st = GameState(opts, "determinised")
    st.round_no = obs.round_no
    st.dealer = obs.dealer
    st.turn = obs.turn
    st.to_act = obs.to_act
    st.phase = obs.phase
    st.stock = stock
    st.pile = pile_under + obs.pile
    freezers = sum(1 for c in st.pile if IS_WILD[c] or IS_RED_THREE[c])
    st.pile_freezers = max(freezers, 1) if obs.pile_frozen else 0
    st.hands = hands
    st.melds = [{r: cs[:] for r, cs in m.items()} for m in obs.melds]
    st.red_threes = [r[:] for r in obs.red_threes]
    st.opened = obs.opened[:]
    st.melded_before = (
        obs.melded_before[:] if len(obs.melded_before) == players else [False] * players
    )
    st.turn_melded = obs.turn_melded
    st.turn_started = obs.turn_started[:]
    st.permission = obs.permission
    st.no_discard = obs.no_discard
    st.scores = obs.scores[:]
    st.rounds = []
    st.winner = None
    return st


def own_state(obs: Observation) -> GameState:
    """A determinisation good enough for listing and validating the seat's own actions."""
    return determinise(obs, random.Random(0))


__all__ = [
    "PERMISSION_NONE",
    "PHASE_DRAW",
    "THREE",
    "EventView",
    "Observation",
    "determinise",
    "observation_from_state",
    "observe",
    "own_state",
]
