"""The bots of the rule families beside classic (Modern American Canasta, Samba, Bolivia).

``level_choose(level, state, seat, rng)`` picks among the engine's ``legal_actions(state)`` for
the seat to act (the entry point of every level, hard included, is
``family_levels.family_policy_choose``). What a level knows is what a player at that seat
knows: its hand and the public table (``player_view(state, seat)``); the other hands and the
stock are never read. A level that looks ahead applies a candidate to a copy of the state in
which the cards the seat cannot see (the other hands and the stock) are shuffled among those
places, so the outcome depends on what the seat knows and the bot's own randomness only.

Levels:

- ``random``: uniform over the legal actions;
- ``easy``: a fixed preference: a special hand when one may be declared, the pile when it may
  be taken, else a draw; then the meld (or lay-off) of the most cards; then the discard least
  useful to the side and least useful to the opponents (``discard_cost``); but about one
  decision in three is a random legal action (as the classic easy level's random moves);
- ``medium``: the same frame without random moves, but the pile take and the meld are
  chosen by a one-ply evaluation of the state each leads to (``evaluate``: the side's meld value
  and canasta progress, less the value of the hand), and played unless it leaves the side
  clearly worse off;
- ``hard``: a determinised search over the medium level's candidates and the turn-ending
  choices, with medium rollouts to the seat's next turn, or in Modern American Canasta to the
  turn after (``bots.policies.family_search``).

In Modern American Canasta no level starts or extends a sevens, aces or wild meld that would
stay short of seven cards (an incomplete one costs 2000 to 2500 at the end of the round).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from typing import Any, TypeVar

from games.engine import apply, legal_actions
from games.engine.actions import (
    Action,
    AnswerPartner,
    AskPartner,
    DeclareSpecialHand,
    DeclinePile,
    Discard,
    Draw,
    EndRound,
    Meld,
    TakePile,
)
from games.engine.cards import (
    IS_BLACK_THREE,
    IS_WILD,
    RANK_OF,
    VALUE_OF,
    WILD_RANK,
    cards_text,
    parse_card,
    rank_text,
)
from games.engine.errors import EngineError
from games.engine.mac.melds import canasta_kind as mac_canasta_kind
from games.engine.samba.melds import canasta_kind as samba_canasta_kind
from games.engine.samba.melds import ext_of as samba_ext_of
from games.engine.state import GameState
from games.engine.view import player_view

FAMILY_LEVELS = ("random", "easy", "medium", "hard")
A = TypeVar("A")

# The evaluation's weights (points of the side's score, as the rule books count them).
CANASTA_BONUS = {
    "natural": 500,
    "mixed": 300,
    "wild": 2000,
    "natural_sevens": 2500,
    "natural_aces": 2500,
    "samba": 1500,
    "escalera": 1500,
    "bolivia": 2500,
}
PROGRESS_WEIGHT = 40  # times the square of an incomplete meld's cards beyond the third
HAND_WEIGHT = 0.5  # the hand's value counts against, if the round ended now, halved
ROUND_END_BONUS = 100  # ending the round (going out) beside what the round's score says
PILE_MARGIN = -1000  # a take is played unless it leaves the seat this much worse off
MELD_MARGIN = -1000  # likewise a meld (the largest safe one is the easy level's choice)
CANDIDATES_MAX = 40  # melds or takes judged per decision (the largest first)
# Modern American Canasta: a sevens, natural aces or wild meld left incomplete costs 2000-2500;
# each card it still lacks weighs this much against starting or keeping one.
MAC_PENALISED_RANKS = frozenset({"7", "A", "W"})
MAC_INCOMPLETE_RISK = 300
SEVEN, ACE = 4, 11  # rank indices (games.engine.cards)
MAC_PENALISED_KEYS = frozenset({SEVEN, ACE, WILD_RANK})  # the same melds by their keys
EASY_EPSILON = 0.35  # the easy level plays a random legal action this often (as classic's easy)
MAC_HAND_RISK = 1000  # three aces or sevens held: 1500 at the end unless melded or discarded


def level_choose(level: str, state: GameState, seat: int, rng: random.Random) -> Action:
    """The action the ``random``, ``easy`` or ``medium`` level plays for ``seat`` (the seat to
    act); always one of ``legal_actions(state)``. The ``hard`` level is
    ``family_levels.family_policy_choose``'s (it searches with this module's medium level)."""
    if level not in ("random", "easy", "medium"):
        raise ValueError(f"unknown bot level '{level}'; choose one of random, easy, medium")
    actions = legal_actions(state)
    if not actions:
        raise ValueError("no legal action for this seat")
    if level == "random" or (level == "easy" and rng.random() < EASY_EPSILON):
        return rng.choice(actions)
    view = player_view(state, seat, with_legal=False)
    return _choose(actions, state, seat, view, rng, level == "medium")


def medium_choose(
    actions: list[Action], state: GameState, seat: int, rng: random.Random, guessed: bool = False
) -> Action:
    """The medium level's choice among ``actions`` (the legal actions of ``state``). With
    ``guessed`` the state's hidden cards are already a guess (a search's determinisation): they
    are not dealt again, and the view is the light one (``table_view``)."""
    view = table_view(state, seat) if guessed else player_view(state, seat, with_legal=False)
    return _choose(actions, state, seat, view, rng, True, guessed)


def table_view(state: GameState, seat: int) -> dict[str, Any]:
    """The part of ``player_view(state, seat)`` the levels read (the family, the seat, its
    hand, each side's melds by rank text and kind), built straight from the state: cheap
    enough for a search's rollouts."""
    mac = state.options.family == "mac"
    kinds = None if mac else samba_ext_of(state).kinds
    teams = []
    for team in range(state.options.teams):
        melds = []
        for key, cards in state.melds[team].items():
            if kinds is None:  # keyed by rank
                kind, rank = ("wild" if key == WILD_RANK else "group"), key
            else:
                kind = kinds[team][key]
                naturals = [RANK_OF[c] for c in cards if not IS_WILD[c]]
                if kind == "wild":
                    rank = WILD_RANK
                elif kind == "group":
                    rank = naturals[0]
                else:  # a sequence is named by its lowest rank
                    rank = min(naturals)
            melds.append({"rank": rank_text(rank), "cards": cards, "kind": kind})
        teams.append({"team": team, "seats": state.seats_of(team), "melds": melds})
    return {
        "family": state.options.family,
        "viewer": seat,
        "hand": cards_text(state.hands[seat]),
        "teams": teams,
    }


def meld_discard_ranking(
    melds: Sequence[Meld | TakePile], discards: Sequence[Discard], state: GameState, seat: int
) -> tuple[list[Meld | TakePile], list[Discard]]:
    """The melds or pile takes worth playing (none the medium level finds risky), the most
    cards first, and the discards, the one that gives away least first."""
    view = table_view(state, seat)
    safe = [m for m in melds if not _risky(m, view)]
    ranked = sorted(safe, key=cards_laid, reverse=True)
    return ranked, _discards_ranked(discards, view)


def family_discard_choose(state: GameState, seat: int) -> Action | None:
    """The discard the easy level would make for ``seat`` now (None: no discard is legal)."""
    discards = [a for a in legal_actions(state) if isinstance(a, Discard)]
    if not discards:
        return None
    return _discard(discards, player_view(state, seat, with_legal=False))


# ============================================================================== choices
def _of(actions: Sequence[Action], kind: type[A]) -> list[A]:
    return [a for a in actions if isinstance(a, kind)]


def _choose(
    actions: list[Action],
    state: GameState,
    seat: int,
    view: dict[str, Any],
    rng: random.Random,
    lookahead: bool,
    guessed: bool = False,
) -> Action:
    special = _of(actions, DeclareSpecialHand)
    if special:
        return special[0]  # a special hand outscores anything a turn of melds makes
    answers = _of(actions, AnswerPartner)
    if answers:  # the partner may go out: let it
        return next((a for a in answers if a.allow), answers[0])
    takes = _of(actions, TakePile)
    draws = _of(actions, Draw)
    if takes or draws:
        takes = [t for t in takes if not _risky(t, view)]
        if takes:
            take = (
                _best(takes, state, seat, rng, PILE_MARGIN, guessed)
                if lookahead
                else _largest(takes)
            )
            if take is not None:
                return take
        if draws:
            plain = [d for d in draws if not d.keep_three]
            return plain[0] if plain else draws[0]
    melds = _of(actions, Meld)
    melds = [m for m in melds if not _risky(m, view)]
    if melds:
        meld = (
            _best(melds, state, seat, rng, MELD_MARGIN, guessed) if lookahead else _largest(melds)
        )
        if meld is not None:
            return meld
    discards = _of(actions, Discard)
    if discards:
        if lookahead:
            shed = _penalty_shed(discards, view)
            if shed is not None:
                return shed
        return _discard(discards, view)
    ends = [a for a in actions if isinstance(a, (EndRound, DeclinePile, Draw))]
    if ends:
        return ends[0]
    rest = [a for a in actions if not isinstance(a, AskPartner)]
    return (rest or actions)[0]


def _team_melds(view: dict[str, Any]) -> dict[str, int]:
    """The sizes of the seat's side's melds by rank text (the largest of a rank)."""
    team = next(t for t in view["teams"] if view["viewer"] in t["seats"])
    sizes: dict[str, int] = {}
    for meld in team["melds"]:
        sizes[meld["rank"]] = max(sizes.get(meld["rank"], 0), len(meld["cards"]))
    return sizes


def _risky(action: Meld | TakePile, view: dict[str, Any]) -> bool:
    """Modern American Canasta: the meld or take leaves a sevens, aces or wild meld incomplete
    (its penalty, unless completed before the round ends)."""
    if view.get("family") != "mac":
        return False
    sizes = _team_melds(view)
    laid = [(rank_text(g.rank), len(g.cards)) for g in action.melds]
    if isinstance(action, TakePile) and action.cards:
        laid.append((rank_text(RANK_OF[action.cards[0]]), len(action.cards) + 1))
    return any(
        text in MAC_PENALISED_RANKS and sizes.get(text, 0) + count < 7 for text, count in laid
    )


def cards_laid(action: Meld | TakePile) -> int:
    laid = sum(len(g.cards) for g in action.melds)
    if isinstance(action, TakePile):
        laid += len(action.cards) + 1
    return laid


def _largest(actions: Sequence[Meld | TakePile]) -> Action | None:
    """The meld or take that lays the most cards (the first listed among equals)."""
    if not actions:
        return None
    return max(actions, key=cards_laid)


def _best(
    actions: Sequence[Meld | TakePile],
    state: GameState,
    seat: int,
    rng: random.Random,
    margin: float,
    guessed: bool = False,
) -> Action | None:
    """The candidate whose resulting state evaluates best, if it beats the state now by
    ``margin`` or more; None otherwise."""
    world = state if guessed else own_knowledge(state, seat, rng)
    now = evaluate(world, seat)
    ranked = sorted(actions, key=cards_laid, reverse=True)[:CANDIDATES_MAX]
    best: Action | None = None
    best_value = now + margin
    for action in ranked:
        value = _after(world, seat, action)
        if value is not None and value >= best_value:
            best, best_value = action, value
    return best


def _after(world: GameState, seat: int, action: Action) -> float | None:
    """The evaluation after ``action`` on a copy of ``world`` (None: the engine refused it)."""
    trial = world.clone()
    round_no = trial.round_no
    try:
        apply(trial, action)
    except EngineError:
        return None
    if trial.round_no != round_no or trial.game_over:
        return _round_result(trial, world, seat)
    return evaluate(trial, seat)


def _round_result(after: GameState, before: GameState, seat: int) -> float:
    """The value of an action that ended the round: the side's score for it, beside the
    other side's (the hands they hold are the shuffled guess of ``own_knowledge``)."""
    if len(after.rounds) <= len(before.rounds):
        return evaluate(before, seat)
    teams = after.rounds[-1]["teams"]
    mine = after.team_of(seat)
    others = [t["total"] for i, t in enumerate(teams) if i != mine]
    return float(teams[mine]["total"] - max(others, default=0) + ROUND_END_BONUS)


def _penalty_shed(discards: Sequence[Discard], view: dict[str, Any]) -> Discard | None:
    """Modern American Canasta: a discard of aces or sevens while the hand holds three or more
    of them (1500 against the side if the round ends so), the rank with most cards first."""
    if view.get("family") != "mac":
        return None
    held = Counter(RANK_OF[parse_card(c)] for c in view["hand"] or [])
    for rank in sorted((SEVEN, ACE), key=lambda r: -held[r]):
        if held[rank] >= 3:
            shed = next((d for d in discards if RANK_OF[d.card] == rank), None)
            if shed is not None:
                return shed
    return None


# ============================================================================== the evaluation
def own_knowledge(state: GameState, seat: int, rng: random.Random) -> GameState:
    """A copy of ``state`` in which the cards ``seat`` cannot see (the other seats' hands and
    the stock) are shuffled among those places, each keeping its number of cards."""
    world = state.clone()
    others = [s for s in range(state.options.players) if s != seat]
    # Sorted first: the copy depends on how many unseen cards each place holds, never on
    # which cards are where.
    pool = sorted(list(world.stock) + [c for s in others for c in world.hands[s]])
    rng.shuffle(pool)
    start = 0
    for s in others:
        count = len(world.hands[s])
        world.hands[s] = pool[start : start + count]
        start += count
    world.stock = pool[start:]
    return world


def evaluate(state: GameState, seat: int) -> float:
    """What ``seat``'s side holds, from what the seat sees: the value of the side's melds and
    their canasta bonuses, the progress of its incomplete melds, less the seat's hand. (Read
    from the state's table and the seat's hand only: cheaper than the player view, the same
    figures.)"""
    team = state.team_of(seat)
    mac = state.options.family == "mac"
    kinds = None if mac else samba_ext_of(state).kinds[team]
    value = 0.0
    for key, cards in state.melds[team].items():
        value += sum(VALUE_OF[c] for c in cards)
        if kinds is None:
            kind = mac_canasta_kind(key, cards)
        else:
            kind = samba_canasta_kind(state.options.family, kinds[key], cards)
        if kind is not None:
            value += CANASTA_BONUS.get(kind, 300)
        else:
            value += PROGRESS_WEIGHT * max(0, len(cards) - 3) ** 2
            if mac and key in MAC_PENALISED_KEYS:  # its penalty unless completed in the round
                value -= MAC_INCOMPLETE_RISK * (7 - len(cards))
    hand = state.hands[seat]
    value -= HAND_WEIGHT * sum(VALUE_OF[c] for c in hand)
    if mac:  # three aces or three sevens left in a hand cost 1500 each at the end
        held = Counter(RANK_OF[c] for c in hand)
        value -= sum(MAC_HAND_RISK for rank in (SEVEN, ACE) if held[rank] >= 3)
    return value


# ============================================================================== the discard
def _meld_ranks(view: dict[str, Any], team: int) -> set[str]:
    return {m["rank"] for m in view["teams"][team]["melds"] if m.get("kind", "group") == "group"}


def discard_cost(
    card: int, hand: Sequence[int], mine: set[str], theirs: set[str]
) -> tuple[int, int, int, int, int]:
    """How much a discard gives away (lower is better): a card the opponents' melds take, a
    wild card, a card of a rank the side melded, a card of a pair in the hand, in that order;
    among the rest the highest value goes first. A black three blocks the pile: best."""
    if IS_BLACK_THREE[card]:
        return (0, 0, 0, 0, 0)
    if IS_WILD[card]:
        return (2, 1, 0, 0, 0)
    text = rank_text(RANK_OF[card])
    same = Counter(RANK_OF[c] for c in hand if not IS_WILD[c])[RANK_OF[card]]
    return (1 if text in theirs else 0, 0, 1 if text in mine else 0, same, -VALUE_OF[card])


def _discard(discards: Sequence[Discard], view: dict[str, Any]) -> Discard:
    return _discards_ranked(discards, view)[0]


def _discards_ranked(discards: Sequence[Discard], view: dict[str, Any]) -> list[Discard]:
    """The discards, the one that gives away least first."""
    if not discards:
        return []
    seat = view["viewer"]
    teams = len(view["teams"])
    mine_team = next(t["team"] for t in view["teams"] if seat in t["seats"])
    mine = _meld_ranks(view, mine_team)
    theirs: set[str] = set()
    for team in range(teams):
        if team != mine_team:
            theirs |= _meld_ranks(view, team)
    hand = [parse_card(c) for c in view["hand"] or []]
    return sorted(discards, key=lambda a: discard_cost(a.card, hand, mine, theirs))
