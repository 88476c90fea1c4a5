"""The hard level of the families beside classic: a determinised search (information-set Monte
Carlo over the cards the seat cannot see).

For a decision of ``seat``, the candidates are the medium level's own choice, the largest pile
takes or melds (the medium level's ordering) and the turn-ending choices (the draw, the
discards, one per kind of card). Each of ``iterations`` determinisations deals the unseen cards
(the family's deck less everything the seat sees: its hand, the melds, the threes areas, the
pile) at random into the other hands and the stock, each keeping its count; every candidate is
applied to that guess and the play goes on with the medium level for every seat until the seat's
next turn (the turn cycle; two of them in Modern American Canasta) or a fixed number of actions,
and the position is scored by ``position_value`` (or the round's score when the round ended).
All candidates share each determinisation and its rollout randomness, so their differences are
measured on the same cards. The candidate with the best total wins; the medium choice wins ties
and near ties.

The true hidden cards are never read: the determinisation starts from the sorted pool of unseen
cards, so the decision depends on the seat's knowledge and the generator's state only.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from games.engine import apply, legal_actions
from games.engine.actions import (
    Action,
    AnswerPartner,
    AskPartner,
    DeclareSpecialHand,
    Discard,
    Draw,
    Meld,
    TakePile,
)
from games.engine.cards import IS_WILD, RANK_OF
from games.engine.errors import EngineError
from games.engine.state import GameState

from .family import medium_choose, meld_discard_ranking
from .family_eval import determinize, final_value, position_value

HARD_ITERATIONS = 6  # determinisations per decision (each plays out every candidate)
SEARCH_TAKES = 3  # pile takes searched (the largest first)
SEARCH_MELDS = 3  # melds searched (the largest first)
SEARCH_DISCARDS = 5  # discards searched (the cheapest kinds of card first)
ROLLOUT_ACTIONS = 40  # a rollout stops after this many actions a turn cycle if it is longer
# Turn cycles a rollout plays (one where the family is not named): in Modern American Canasta
# two, so a take or a meld is judged after the seat's own next turn too (it measured better).
ROLLOUT_CYCLES = {"mac": 2}
DEFAULT_PRIOR = 25.0  # points per determinisation the medium choice is given (ties, noise)


def search_choose(
    state: GameState, seat: int, rng: random.Random, iterations: int = HARD_ITERATIONS
) -> Action:
    """The hard level's action for ``seat`` (the seat to act): one of ``legal_actions``."""
    actions = legal_actions(state)
    if not actions:
        raise ValueError("no legal action for this seat")
    default = medium_choose(actions, state, seat, rng)
    fixed = (DeclareSpecialHand, AnswerPartner)  # the medium level's answer is the only one
    if len(actions) == 1 or any(isinstance(a, fixed) for a in actions):
        return default
    candidates = search_candidates(actions, state, seat, default)
    if len(candidates) == 1:
        return candidates[0]
    totals = [0.0] * len(candidates)
    totals[0] = DEFAULT_PRIOR * iterations
    for _ in range(max(1, iterations)):
        world = determinize(state, seat, rng)
        seed = rng.getrandbits(32)
        for i, action in enumerate(candidates):
            totals[i] += rollout(world, seat, action, random.Random(seed))
    best = max(range(len(candidates)), key=lambda i: totals[i])
    return candidates[best]


def search_candidates(
    actions: Sequence[Action], state: GameState, seat: int, default: Action
) -> list[Action]:
    """The medium choice first, then the other actions worth a rollout."""
    out: list[Action] = [default]

    def add(action: Action) -> None:
        if action not in out:
            out.append(action)

    takes = [a for a in actions if isinstance(a, TakePile)]
    draws = [a for a in actions if isinstance(a, Draw) and not a.keep_three]
    if takes or draws:
        for draw in draws[:1]:
            add(draw)
        melds_or_takes, _ = meld_discard_ranking(takes, [], state, seat)
        for t in melds_or_takes[:SEARCH_TAKES]:
            add(t)
        return out
    melds = [a for a in actions if isinstance(a, Meld)]
    discards = [a for a in actions if isinstance(a, Discard)]
    ranked_melds, ranked_discards = meld_discard_ranking(melds, discards, state, seat)
    for m in ranked_melds[:SEARCH_MELDS]:
        add(m)
    kinds: set[tuple[int, bool]] = set()
    for d in ranked_discards:
        kind = (RANK_OF[d.card], bool(IS_WILD[d.card]))
        if kind in kinds:
            continue
        kinds.add(kind)
        add(d)
        if len(kinds) >= SEARCH_DISCARDS:
            break
    for a in actions:
        if isinstance(a, AskPartner):
            add(a)
    return out


def rollout(world: GameState, seat: int, action: Action, rng: random.Random) -> float:
    """The value for ``seat`` of ``action`` on ``world`` followed by the medium level's play
    to the seat's next turn (the family's ``ROLLOUT_CYCLES`` turns later), or the round's end,
    or ``ROLLOUT_ACTIONS`` actions a cycle."""
    trial = world.clone()
    rounds = len(trial.rounds)
    try:
        apply(trial, action)
    except EngineError:
        return -1e9
    cycles = ROLLOUT_CYCLES.get(trial.options.family, 1)
    left = trial.turn != seat
    for _ in range(ROLLOUT_ACTIONS * cycles):
        if trial.game_over or len(trial.rounds) > rounds:
            break
        if trial.turn != seat:
            left = True
        elif left:
            cycles -= 1
            if cycles <= 0:
                break
            left = False
        actor = trial.to_act
        actions = legal_actions(trial)
        if not actions:
            break
        apply(trial, medium_choose(actions, trial, actor, rng, guessed=True))
    if len(trial.rounds) > rounds:
        return final_value(trial, seat)
    return position_value(trial, seat)
