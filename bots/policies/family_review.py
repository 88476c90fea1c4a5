"""The post-game reviewer of the rule families beside classic (Modern American Canasta, Samba,
Bolivia): how much a seat's move cost, judged from that seat's information only.

``family_review_decision(state, seat, chosen, seed)`` first keeps of ``state`` only what the
seat knows (``family_eval.seat_knowledge``: its hand and the table as they are, the cards it
cannot see, the other hands and the stock, dealt again in sorted order), so nothing below can
read a hidden card: the review is the same whichever way those cards really lie. From that it
lists the candidates (``family_candidates``): the family medium level's choice, then a few of
each kind of the other legal actions (the draws, the largest pile takes and melds by the medium
level's ordering, the discards that give away least, one per kind of card, and asking the
partner, declining the pile, ending the round, a special hand, each answer to the partner), and
the move made. Every candidate is evaluated on the same determinised worlds (common random
numbers: each world deals the unseen cards at random among the other hands and the stock, each
keeping its count, with ``family_eval.determinize``): the candidate is applied, then every seat
plays the family medium level to the end of the round or ``max_plies`` actions in all, and the
position is scored for the seat's side against the best other side (the round's score when the
round ended, else ``family_eval.position_value``). The cost is bounded by
``worlds * (max_candidates + 2) * max_plies`` actions per decision.

The loss (``best - chosen`` over the same worlds, never negative), its grade
(``review.severity_of``, less one standard error of the paired difference) and the reason
(``review.loss_reason``) are those of the classic reviewer, and so is the result
(``review.DecisionReview``): the stored review, the API and the client do not tell the families
apart. ``family_review_log`` reviews every decision of a seat in a family game's log (walked by
``review.seat_decisions``, as the classic ``review.review_log``).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from games.engine import LogEntry, Options, apply, legal_actions
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
from games.engine.cards import IS_WILD, RANK_OF
from games.engine.errors import EngineError
from games.engine.state import PHASE_DRAW, GameState

from .family import medium_choose, meld_discard_ranking
from .family_eval import determinize, final_value, position_value, seat_knowledge
from .family_levels import family_policy_choose
from .ismcts import paired_advantage
from .review import (
    CandidateValue,
    DecisionReview,
    LogDecision,
    MoveStats,
    decision_seed,
    loss_reason,
    seat_decisions,
    severity_of,
)

FAMILY_REVIEWER = "family-review-1"
TAKES_LISTED = 2  # pile takes listed besides the medium choice (the most cards laid first)
MELDS_LISTED = 2  # likewise melds
DISCARDS_LISTED = 4  # discards (the ones that give away least, one per kind of card)
ILLEGAL_VALUE = -1e6  # a candidate the engine refused in a world (never: the seat's own move)


@dataclass(frozen=True, slots=True)
class FamilyReviewSettings:
    """The family reviewer's budget: ``worlds`` determinisations per decision, at most
    ``max_candidates`` candidates besides the medium choice and the chosen move, rollouts of at
    most ``max_plies`` actions (the candidate included)."""

    worlds: int = 12
    max_candidates: int = 5
    max_plies: int = 24

    @property
    def engine(self) -> str:
        """The reviewer and its settings, as a review records them."""
        return (
            f"{FAMILY_REVIEWER} worlds={self.worlds} candidates={self.max_candidates} "
            f"plies={self.max_plies}"
        )


def family_candidates(
    actions: Sequence[Action], known: GameState, seat: int, default: Action, limit: int
) -> list[Action]:
    """``default`` first, then at most ``limit`` other legal actions, a few of each kind."""
    takes = [a for a in actions if isinstance(a, TakePile)]
    melds = [a for a in actions if isinstance(a, Meld)]
    discards = [a for a in actions if isinstance(a, Discard)]
    ranked_takes, _ = meld_discard_ranking(takes, [], known, seat)
    ranked_melds, ranked_discards = meld_discard_ranking(melds, discards, known, seat)
    others: list[Action] = [
        a
        for a in actions
        if isinstance(a, AnswerPartner | DeclareSpecialHand | EndRound | DeclinePile | AskPartner)
    ]
    draws = sorted((a for a in actions if isinstance(a, Draw)), key=lambda d: d.keep_three)
    kinds: set[tuple[int, bool]] = set()
    discards_listed: list[Action] = []
    for d in ranked_discards:
        kind = (RANK_OF[d.card], bool(IS_WILD[d.card]))
        if kind not in kinds:
            kinds.add(kind)
            discards_listed.append(d)
    listing: list[Action] = [
        *others,
        *draws,
        *ranked_takes[:TAKES_LISTED],
        *ranked_melds[:MELDS_LISTED],
        *discards_listed[:DISCARDS_LISTED],
    ]
    out = [default]
    for a in listing:
        if len(out) > limit:
            break
        if a not in out:
            out.append(a)
    return out


@dataclass(frozen=True, slots=True)
class RolloutOutcome:
    value: float
    pile_taken: bool  # by the next opponent, at its next draw decision
    pile_size: int  # the pile it took (0: none)
    went_out: bool  # the round ended within the seat's own turn


def play_out(
    world: GameState, action: Action, seat: int, rng: random.Random, max_plies: int
) -> RolloutOutcome:
    """Play ``action`` on a copy of ``world``, then the medium level in every seat to the end of
    the round or ``max_plies`` actions in all; the position's value for ``seat``'s side."""
    trial = world.clone()
    rounds = len(trial.rounds)
    teams = trial.options.teams
    try:
        apply(trial, action)
    except EngineError:
        return RolloutOutcome(ILLEGAL_VALUE, False, 0, False)
    taken, size, out = False, 0, False
    watching = True  # until the next opponent's draw decision
    ended = trial.game_over or len(trial.rounds) > rounds
    out = ended
    plies = 1
    while not ended and plies < max_plies:
        actor, turn, pile = trial.to_act, trial.turn, len(trial.pile)
        watched = watching and actor % teams != seat % teams and trial.phase == PHASE_DRAW
        actions = legal_actions(trial)
        if not actions:
            break
        move = medium_choose(actions, trial, actor, rng, guessed=True)
        apply(trial, move)
        plies += 1
        if watched:
            taken = isinstance(move, TakePile)
            size = pile if taken else 0
            watching = False
        ended = trial.game_over or len(trial.rounds) > rounds
        if ended:
            out = turn == seat
    value = final_value(trial, seat) if len(trial.rounds) > rounds else position_value(trial, seat)
    return RolloutOutcome(value, taken, size, out)


def family_review_decision(
    state: GameState,
    seat: int,
    chosen: Action,
    seed: int,
    settings: FamilyReviewSettings | None = None,
) -> DecisionReview | None:
    """The review of ``chosen``, the move of ``seat`` (the seat to act) at ``state``, from what
    the seat knows there (None when it had a single legal move)."""
    settings = settings or FamilyReviewSettings()
    known = seat_knowledge(state, seat)
    actions = legal_actions(known)
    if len(actions) <= 1:
        return None
    rng = random.Random(seed)
    default = family_policy_choose("medium", known, seat, random.Random(rng.getrandbits(64)))
    cands = family_candidates(actions, known, seat, default, settings.max_candidates)
    if chosen not in cands:
        cands.append(chosen)
    stats = {a: MoveStats() for a in cands}
    worlds = max(1, settings.worlds)
    for _ in range(worlds):
        world = determinize(known, seat, random.Random(rng.getrandbits(64)))
        rollout_seed = rng.getrandbits(64)
        for a in cands:
            outcome = play_out(world, a, seat, random.Random(rollout_seed), settings.max_plies)
            s = stats[a]
            s.values.append(outcome.value)
            s.pile_taken.append(outcome.pile_taken)
            s.pile_size.append(outcome.pile_size)
            s.went_out.append(outcome.went_out)
    best = max(cands, key=lambda a: (stats[a].mean(), a == chosen))
    loss = max(0.0, stats[best].mean() - stats[chosen].mean())
    samples = {a: s.values for a, s in stats.items()}
    _, stderr = paired_advantage(samples, best, chosen, worlds) if best != chosen else (0.0, 0.0)
    severity = severity_of(loss, stderr)
    reason = loss_reason(chosen, best, stats) if severity != "ok" else None
    ranked = sorted(cands, key=lambda a: (a != best, -stats[a].mean()))  # best first
    return DecisionReview(
        chosen=chosen,
        best=best,
        loss=loss,
        stderr=stderr,
        severity=severity,
        reason=reason,
        candidates=tuple(CandidateValue(a, stats[a].mean(), worlds) for a in ranked),
        worlds=worlds,
    )


def family_review_log(
    options: Options,
    seed: str,
    entries: Iterable[LogEntry],
    seat: int,
    through_round: int,
    seed_base: str,
    settings: FamilyReviewSettings | None = None,
) -> Iterator[LogDecision]:
    """Review every decision of ``seat`` with more than one legal move in rounds
    1..``through_round`` of a family game's log, each from what the seat knew then. Decision
    seeds come from ``seed_base`` and the move's seq (as the classic ``review.review_log``)."""
    settings = settings or FamilyReviewSettings()
    for d in seat_decisions(options, seed, entries, seat, through_round):
        decision = decision_seed(seed_base, d.step)
        review = family_review_decision(d.state, seat, d.chosen, decision, settings)
        if review is None:
            continue
        yield LogDecision(d.step, d.round_no, d.turn_no, d.state.phase, review)


__all__ = [
    "FAMILY_REVIEWER",
    "FamilyReviewSettings",
    "RolloutOutcome",
    "family_candidates",
    "family_review_decision",
    "family_review_log",
    "play_out",
]
