"""The post-game reviewer: how much a seat's move cost, judged from that seat's information only.

``review_decision`` takes the seat's :class:`Observation` at a decision (what the seat could know
then, never the hidden cards), the move it chose and a seed. It lists the candidates as the
search does (``IsmctsPolicy.candidates``: the heuristic's choice, the next best discards, the
other ways to take the pile, melds, going out or not) plus the chosen move, and evaluates every
candidate on the same determinised worlds (common random numbers: each world deals the cards the
seat cannot see at random; the candidate is applied, then every seat plays the heuristic to the
end of the round or a ply cap, and ``evaluate`` scores the seat's side's advantage). By default
every candidate is played in every world, so all values are means over the same worlds and
``loss = best - chosen`` is never negative. Successive halving (``halving_at``) may drop the
weakest candidates after a few worlds to save time; the chosen move and the leader are always
played to the end, ``best`` is the best of those played in every world, and a dropped
candidate's value is the best's mean plus its paired difference with the best over the worlds
they shared (a common-random-numbers estimate on the full set). Everything is drawn from
``random.Random(seed)``: the same observation, move and seed give the same review.

``severity`` grades the loss less one standard error of the paired difference (a loss the
worlds cannot tell from noise is not called a mistake): below ``INACCURACY`` (10 points)
``ok``, below ``MISTAKE`` (30) ``inaccuracy``, below ``BLUNDER`` (100) ``mistake``, else
``blunder``. A graded decision gets a ``reason`` when the rollouts or the kinds of the two
moves tell one (``REASONS``), else None.

``review_log`` walks a game's log (the engine's replay) and reviews every decision of one seat
in rounds 1..``through_round`` that had more than one legal move (not the moves the turn timer
made for an absent seat), from the observation a bot in that seat would have had: the seat's
player view of the state before the move and the round's events as that seat saw them
(``seat_decisions`` walks the log). A game of a family beside classic (Modern American Canasta,
Samba, Bolivia) is reviewed the same way by ``bots.policies.family_review.family_review_log``
(the family bots' candidates, worlds and rollouts), with the same grades, reasons and result.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from games.engine import Event, GameState, LogEntry, Options, action_from_dict, replay_log
from games.engine.actions import (
    Action,
    AnswerPartner,
    DeclinePile,
    Discard,
    Draw,
    Meld,
    TakePile,
)
from games.engine.errors import IllegalAction
from games.engine.history import TABLE_FACTS
from games.engine.legal import legal_actions
from games.engine.rules import apply
from games.engine.state import PHASE_DRAW, PHASE_GAME_OVER
from games.engine.stored import effects_from_json
from games.engine.view import event_view, player_view

from .heuristic import DEFAULT_PARAMS, HeuristicParams, heuristic_action
from .ismcts import IsmctsPolicy, paired_advantage, rollout, rollout_step
from .observation import Observation, determinise, observe

REVIEWER = "review-1"
TIMER_SOURCE = "timer"  # a move the turn timer made for an absent seat (not reviewed)

# Grades of a loss, in points of the seat's side's round advantage.
INACCURACY = 10.0
MISTAKE = 30.0
BLUNDER = 100.0
SEVERITIES = ("ok", "inaccuracy", "mistake", "blunder")

# What a graded decision may be told, and when:
REASONS: dict[str, str] = {
    "went out too soon": "the chosen move ended the round in most worlds; the best did not",
    "missed going out": "the best move ended the round in most worlds; the chosen did not",
    "passed up the pile": "the seat drew (or declined) where taking the pile was best",
    "took the pile at a cost": "the seat took the pile where drawing was best",
    "melded too early": "the seat melded where the best move kept the cards in hand",
    "held back a meld": "the seat discarded where the best move melded first",
    "gave the pile away": "after the chosen discard the next opponent took a pile of five or "
    "more cards in a clearly larger share of worlds than after the best one",
    "discarded a card the opponents wanted": "the same with a smaller pile",
}
# The share of worlds that makes a move "go out", and a clear difference in pile takes.
OUT_SHARE = 0.5
PILE_SHARE_GAP = 0.2
BIG_PILE = 5


@dataclass(frozen=True, slots=True)
class ReviewSettings:
    """The reviewer's budget: ``worlds`` determinisations per decision (halving after the
    counts in ``halving_at``, none by default), at most ``max_candidates`` candidates besides the
    chosen move, rollouts of at most ``max_plies`` plies."""

    worlds: int = 40
    max_candidates: int = 5
    max_plies: int = 60
    halving_at: tuple[int, ...] = ()
    params: HeuristicParams = DEFAULT_PARAMS

    @property
    def engine(self) -> str:
        """The reviewer and its settings, as a review records them."""
        return (
            f"{REVIEWER} worlds={self.worlds} candidates={self.max_candidates} "
            f"plies={self.max_plies}"
        )


@dataclass(frozen=True, slots=True)
class CandidateValue:
    """A candidate's mean value (the seat's side's advantage) over the worlds it was played in."""

    action: Action
    value: float
    worlds: int


@dataclass(frozen=True, slots=True)
class DecisionReview:
    chosen: Action
    best: Action
    loss: float  # best's value - chosen's value, over the same worlds (>= 0)
    stderr: float  # standard error of that paired difference
    severity: str
    reason: str | None
    candidates: tuple[CandidateValue, ...]  # best first
    worlds: int

    def value_of(self, action: Action) -> float:
        return next(c.value for c in self.candidates if c.action == action)


@dataclass(slots=True)
class MoveStats:
    values: list[float] = field(default_factory=list)
    pile_taken: list[bool] = field(default_factory=list)  # by the next opponent, its next turn
    pile_size: list[int] = field(default_factory=list)  # the pile it took (0: none)
    went_out: list[bool] = field(default_factory=list)  # the round ended in the seat's turn

    def mean(self, values: list[float] | None = None) -> float:
        xs = self.values if values is None else values
        return sum(xs) / len(xs) if xs else 0.0


def severity_of(loss: float, stderr: float = 0.0) -> str:
    """The grade of a loss (less one standard error)."""
    clear = loss - stderr
    if clear >= BLUNDER:
        return "blunder"
    if clear >= MISTAKE:
        return "mistake"
    if clear >= INACCURACY:
        return "inaccuracy"
    return "ok"


def _play_out(
    world: GameState, action: Action, seat: int, round_no: int, settings: ReviewSettings
) -> tuple[float, bool, int, bool]:
    """Play ``action`` in ``world`` and the heuristic after it: (value, whether the next
    opponent took the pile at its next turn, that pile's size, whether the round ended within
    the seat's own turn)."""
    teams = world.options.teams
    taken, size, out = False, 0, False
    plies = 0
    watching = True  # until the next opponent's draw decision
    move: Action = action
    while watching and plies < settings.max_plies:
        turn = world.turn
        watched = plies > 0 and world.to_act % teams != seat % teams and world.phase == PHASE_DRAW
        pile = len(world.pile)
        if plies == 0:
            try:
                apply(world, action)
            except IllegalAction:  # the seat's own listed moves are legal in every world
                return (-1e6, False, 0, False)
        else:
            move = rollout_step(world, settings.params)
        plies += 1
        if watched:
            taken = isinstance(move, TakePile)
            size = pile if taken else 0
            watching = False
        if world.round_no != round_no or world.phase == PHASE_GAME_OVER:
            out = turn == seat
            break
    value = rollout(world, seat, round_no, max(0, settings.max_plies - plies), settings.params)
    return (value, taken, size, out)


def review_decision(
    obs: Observation,
    chosen: Action,
    seed: int,
    settings: ReviewSettings | None = None,
) -> DecisionReview | None:
    """The review of ``chosen`` at ``obs`` (None when the seat had a single legal move)."""
    settings = settings or ReviewSettings()
    rng = random.Random(seed)
    st0 = determinise(obs, random.Random(rng.random()))
    legal = obs.legal if obs.legal is not None else legal_actions(st0)
    if len(legal) <= 1:
        return None
    base = heuristic_action(obs, st0, settings.params)
    lister = IsmctsPolicy(max_candidates=settings.max_candidates, params=settings.params)
    cands = lister.candidates(obs, st0, base)
    if chosen not in cands:
        cands.append(chosen)
    stats = {a: MoveStats() for a in cands}
    alive = list(cands)
    seat, round_no = obs.seat, obs.round_no
    n = 0
    for n in range(1, settings.worlds + 1):
        world = determinise(obs, random.Random(rng.random()))
        for a in alive:
            value, taken, size, out = _play_out(world.clone(), a, seat, round_no, settings)
            s = stats[a]
            s.values.append(value)
            s.pile_taken.append(taken)
            s.pile_size.append(size)
            s.went_out.append(out)
        if n in settings.halving_at and len(alive) > 2:
            ranked = sorted(alive, key=lambda a: -stats[a].mean(stats[a].values[-n:]))
            keep = ranked[: max(2, math.ceil(len(alive) / 2))]
            for must in (ranked[0], chosen):
                if must not in keep:
                    keep[-1] = must
            alive = [a for a in alive if a in keep]  # the listing order, for determinism
    best = max(alive, key=lambda a: (stats[a].mean(), a == chosen))
    loss = max(0.0, stats[best].mean() - stats[chosen].mean())
    samples = {a: s.values for a, s in stats.items()}
    _, stderr = paired_advantage(samples, best, chosen, n) if best != chosen else (0.0, 0.0)
    severity = severity_of(loss, stderr)
    reason = loss_reason(chosen, best, stats) if severity != "ok" else None
    values = {a: stats[a].mean() for a in alive}
    for a in cands:
        if a not in alive:  # its paired difference with the best, on the worlds they shared
            pairs = list(zip(stats[a].values, stats[best].values, strict=False))
            values[a] = values[best] + sum(x - b for x, b in pairs) / max(1, len(pairs))
    survivors = sorted(alive, key=lambda a: -values[a])
    dropped = sorted((a for a in cands if a not in alive), key=lambda a: -values[a])
    return DecisionReview(
        chosen=chosen,
        best=best,
        loss=loss,
        stderr=stderr,
        severity=severity,
        reason=reason,
        candidates=tuple(
            CandidateValue(a, values[a], len(stats[a].values)) for a in survivors + dropped
        ),
        worlds=n,
    )


def _share(xs: list[bool]) -> float:
    return sum(xs) / len(xs) if xs else 0.0


def loss_reason(chosen: Action, best: Action, stats: dict[Action, MoveStats]) -> str | None:
    """What the worlds or the kinds of the two moves tell about the loss, if anything."""
    c, b = stats[chosen], stats[best]
    chosen_out, best_out = _share(c.went_out) >= OUT_SHARE, _share(b.went_out) >= OUT_SHARE
    if chosen_out and not best_out:
        return "went out too soon"
    if best_out and not chosen_out:
        return "missed going out"
    if isinstance(chosen, AnswerPartner) and isinstance(best, AnswerPartner):
        return "went out too soon" if chosen.allow else "missed going out"
    if isinstance(best, TakePile) and isinstance(chosen, Draw | DeclinePile):
        return "passed up the pile"
    if isinstance(chosen, TakePile) and isinstance(best, Draw | DeclinePile):
        return "took the pile at a cost"
    if isinstance(chosen, Meld) and isinstance(best, Discard):
        return "melded too early"
    if isinstance(chosen, Discard) and isinstance(best, Meld):
        return "held back a meld"
    gap = _share(c.pile_taken) - _share(b.pile_taken)
    if isinstance(chosen, Discard) and isinstance(best, Discard) and gap >= PILE_SHARE_GAP:
        sizes = sorted(s for s in c.pile_size if s)
        if sizes and sizes[len(sizes) // 2] >= BIG_PILE:
            return "gave the pile away"
        return "discarded a card the opponents wanted"
    return None


# ---------------------------------------------------------------------------- a whole log


@dataclass(frozen=True, slots=True)
class LogDecision:
    """One reviewed decision of the log: the event that made it and its review."""

    step: int  # the event's seq
    round_no: int
    turn_no: int  # the round's turn number (1: the round's first turn)
    phase: str
    review: DecisionReview


def decision_seed(base: str, step: int) -> int:
    """The seed of the decision at event ``step`` of a review named ``base`` (a game, a seat)."""
    digest = hashlib.sha256(f"{base}:{step}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True, slots=True)
class SeatDecision:
    """A decision of the reviewed seat in a log: the state before it (the true one: a reviewer
    reads only what the seat sees of it), the round's events as the seat saw them, the move."""

    step: int  # the move's seq
    round_no: int
    turn_no: int
    state: GameState
    seen: list[dict[str, Any]]
    chosen: Action


def seat_decisions(
    options: Options, seed: str, entries: Iterable[LogEntry], seat: int, through_round: int
) -> Iterator[SeatDecision]:
    """Every decision of ``seat`` with more than one legal move in rounds 1..``through_round``
    of a log (replayed by the engine), not the moves the turn timer made for it."""
    entries = list(entries)
    seen: list[dict[str, Any]] = []  # the round's events as the seat saw them
    prev_turn: int | None = None
    turn_no = 0
    round_no = 0
    steps = replay_log(options, seed, entries, record=True, passthrough=TABLE_FACTS)
    for i, step in enumerate(steps):
        st = step.state
        events: list[Event] = effects_from_json(step.effects) if step.effects else []
        for e in events:
            if e.kind == "round_started":
                seen = []
            seen.append(event_view(e, seat))
        if st.round_no != round_no:
            round_no, prev_turn, turn_no = st.round_no, None, 0
        if st.turn != prev_turn:
            prev_turn, turn_no = st.turn, turn_no + 1
        if st.round_no > through_round:
            return
        nxt = entries[i + 1] if i + 1 < len(entries) else None
        if nxt is None or nxt.seat != seat or nxt.type in TABLE_FACTS or st.to_act != seat:
            continue
        if nxt.source == TIMER_SOURCE:  # the turn timer moved for the seat: no decision
            continue
        if st.phase == PHASE_GAME_OVER or len(legal_actions(st)) <= 1:
            continue
        chosen = action_from_dict(nxt.payload, seat)
        yield SeatDecision(nxt.seq, st.round_no, turn_no, st, seen, chosen)


def review_log(
    options: Options,
    seed: str,
    entries: Iterable[LogEntry],
    seat: int,
    through_round: int,
    seed_base: str,
    settings: ReviewSettings | None = None,
) -> Iterator[LogDecision]:
    """Review every decision of ``seat`` with more than one legal move in rounds
    1..``through_round`` of a log (replayed by the engine), each from the observation a bot in
    that seat would have had then. Decision seeds come from ``seed_base`` and the event's seq.
    (A game of a family beside classic: ``family_review.family_review_log``.)"""
    settings = settings or ReviewSettings()
    for d in seat_decisions(options, seed, entries, seat, through_round):
        obs = observe(player_view(d.state, seat), d.seen, d.state.options)
        review = review_decision(obs, d.chosen, decision_seed(seed_base, d.step), settings)
        if review is None:
            continue
        yield LogDecision(d.step, d.round_no, d.turn_no, d.state.phase, review)


__all__ = [
    "BLUNDER",
    "INACCURACY",
    "MISTAKE",
    "REASONS",
    "SEVERITIES",
    "CandidateValue",
    "DecisionReview",
    "LogDecision",
    "MoveStats",
    "ReviewSettings",
    "SeatDecision",
    "decision_seed",
    "loss_reason",
    "review_decision",
    "review_log",
    "seat_decisions",
    "severity_of",
]
