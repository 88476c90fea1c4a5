"""Information Set Monte Carlo search over the seat's candidate moves.

At a decision the seat knows only its observation. Each iteration samples one world consistent
with it (``determinise``: hidden cards dealt from the unseen multiset, known pickups kept where
they are), then plays every surviving candidate move in that same world followed by a heuristic
rollout for all seats (to the end of the round, or a ply cap and a static evaluation). Scores
are the seat's side's round score minus the best other side's, averaged over worlds: the
information-set value of each move (statistics are aggregated across determinisations at the
single information-set root, as in SO-ISMCTS with one tree level; deeper own decisions are played
by the heuristic). Evaluating all candidates on the same worlds (common random numbers) makes the
comparison far less noisy than independent samples would; successive halving spends the budget
on the moves still in contention. Candidates come from the heuristic (move ordering): its own
choice, the next best discards, the alternative pile takes, melds it skipped, going out or not.

The search stops at its time budget or after ``max_iterations`` iterations, whichever comes
first; with ``iterations`` it runs exactly that many and ignores the clock (reproducible play:
tests, the arena's fixed budget). A move replaces the heuristic's choice only when its paired
advantage over it is clear: mean minus ``confidence`` (2) standard errors above ``base_bonus``
points. (Determinised worlds deal the opponents' unknown cards uniformly, whereas real
opponents keep pairs and throw singletons, so rollouts misjudge some risks; in the arena a
cautious threshold beat looser ones: bench/README.md, "Bots".)
"""

from __future__ import annotations

import math
import random
import time

from games.engine.actions import (
    Action,
    AskPartner,
    DeclinePile,
    Discard,
    Draw,
    EndRound,
    Meld,
    TakePile,
)
from games.engine.cards import IS_RED_THREE, IS_WILD, VALUE_OF
from games.engine.errors import IllegalAction
from games.engine.legal import legal_actions
from games.engine.rules import apply
from games.engine.state import PHASE_ANSWER, PHASE_DRAW, PHASE_GAME_OVER, GameState

from .heuristic import (
    DEFAULT_PARAMS,
    HeuristicParams,
    discard_scores,
    heuristic_action,
    team_table_value,
)
from .observation import Observation, determinise, observation_from_state


def evaluate(st: GameState, seat: int, round_no: int) -> float:
    """The seat's side's score advantage: the round's result if it ended, else an estimate."""
    teams = st.options.teams
    mine = seat % teams
    if st.round_no != round_no or st.phase == PHASE_GAME_OVER:
        record = next((r for r in st.rounds if r["round"] == round_no), None)
        if record is not None:
            totals = [float(t["total"]) for t in record["teams"]]
            return totals[mine] - max(v for t, v in enumerate(totals) if t != mine)
    values: list[float] = []
    for team in range(teams):
        v: float = team_table_value(st.melds[team])
        reds = len(st.red_threes[team])
        red_value = 800 if reds == 4 else 100 * reds
        v += red_value if st.melds[team] else -red_value
        for s in st.seats_of(team):
            v -= sum(VALUE_OF[c] for c in st.hands[s] if not IS_RED_THREE[c])
        values.append(v)
    return values[mine] - max(v for t, v in enumerate(values) if t != mine)


def rollout(
    st: GameState,
    seat: int,
    round_no: int,
    max_plies: int,
    params: HeuristicParams = DEFAULT_PARAMS,
) -> float:
    """Play the heuristic for every seat in ``st`` (a sampled world) and evaluate for ``seat``."""
    plies = 0
    while st.round_no == round_no and st.phase != PHASE_GAME_OVER and plies < max_plies:
        rollout_step(st, params)
        plies += 1
    return evaluate(st, seat, round_no)


def rollout_step(st: GameState, params: HeuristicParams = DEFAULT_PARAMS) -> Action:
    """One ply of a rollout: the heuristic's move for the seat to act, applied to ``st`` (a
    sampled world); returns the move applied."""
    action = heuristic_action(observation_from_state(st, st.to_act), st, params)
    try:
        apply(st, action)
    except IllegalAction:  # should not happen; fall back to a listed move
        action = legal_actions(st)[0]
        apply(st, action)
    return action


class IsmctsPolicy:
    """Determinised search with heuristic rollouts; ``time_budget`` seconds per decision."""

    name = "ismcts"

    def __init__(
        self,
        seed: int | None = None,
        time_budget: float = 0.6,
        iterations: int | None = None,
        max_iterations: int | None = None,
        max_candidates: int = 5,
        max_plies: int = 80,
        base_bonus: float = 5.0,
        confidence: float = 2.0,
        params: HeuristicParams = DEFAULT_PARAMS,
    ) -> None:
        self.rng = random.Random(seed)
        self.time_budget = time_budget
        self.iterations = iterations
        self.max_iterations = max_iterations
        self.max_candidates = max_candidates
        self.max_plies = max_plies
        self.base_bonus = base_bonus
        self.confidence = confidence
        self.params = params
        self.last_iterations = 0

    # -- candidates (move ordering from the heuristic) ---------------------------------------
    def candidates(self, obs: Observation, st: GameState, base: Action) -> list[Action]:
        legal = legal_actions(st)
        out: list[Action] = [base]

        def add(a: Action) -> None:
            if a not in out and len(out) < self.max_candidates:
                out.append(a)

        if obs.phase == PHASE_ANSWER:
            for a in legal:
                add(a)
            return out
        if obs.phase == PHASE_DRAW:
            for a in legal:
                if isinstance(a, Draw | DeclinePile):
                    add(a)
            for a in legal:
                if isinstance(a, TakePile):
                    add(a)
            return out
        # play phase: going out (or not), the best discards, the melds the heuristic skipped
        for a in legal:
            if isinstance(a, AskPartner | EndRound):
                add(a)
        going_out = [a for a in legal if isinstance(a, Meld) and empties_hand(obs, a)]
        for a in going_out[:1]:
            add(a)
        scored = discard_scores(obs, st, self.params)
        for _, card in scored[:3]:
            add(Discard(obs.seat, card))
        for a in legal:
            if isinstance(a, Meld) and not any(IS_WILD[c] for g in a.melds for c in g.cards):
                add(a)
        for a in legal:
            if isinstance(a, Meld):
                add(a)
        return out

    # -- search --------------------------------------------------------------------------------
    def choose(self, obs: Observation) -> Action:
        rng = self.rng
        start = time.perf_counter()
        st0 = determinise(obs, random.Random(rng.random()))
        base = heuristic_action(obs, st0, self.params)
        if obs.legal is not None and len(obs.legal) == 1:
            return obs.legal[0]
        cands = self.candidates(obs, st0, base)
        self.last_iterations = 0
        if len(cands) <= 1:
            return base
        deadline = start + self.time_budget
        samples: dict[Action, list[float]] = {a: [] for a in cands}
        alive = list(cands)
        n = 0
        seat, round_no = obs.seat, obs.round_no
        halving_at = {6, 14, 30}
        clocked = self.iterations is None
        cap = self.max_iterations if clocked else self.iterations
        while cap is None or n < cap:
            world = determinise(obs, random.Random(rng.random()))
            results: dict[Action, float] = {}
            for a in alive:
                if clocked and time.perf_counter() > deadline:
                    break
                w = world.clone()
                try:
                    apply(w, a)
                except IllegalAction:
                    results[a] = -1e6  # cannot happen for the seat's own listed moves
                    continue
                results[a] = rollout(w, seat, round_no, self.max_plies, self.params)
            if len(results) < len(alive):
                break  # out of time mid-iteration: keep only complete, paired iterations
            for a, v in results.items():
                samples[a].append(v)
            n += 1
            if n in halving_at and len(alive) > 2:
                alive.sort(key=lambda a: -self._advantage(samples, a, base, n)[0])
                alive = alive[: max(2, math.ceil(len(alive) / 2))]
                if base not in alive:  # the heuristic's move stays as the reference
                    alive[-1] = base
            if clocked and time.perf_counter() > deadline:
                break
        self.last_iterations = n
        if n < 2:
            return base
        best, best_lower = base, 0.0
        for a in alive:
            if a == base:
                continue
            mean, stderr = self._advantage(samples, a, base, n)
            lower = mean - self.base_bonus - self.confidence * stderr
            if lower > best_lower:
                best, best_lower = a, lower
        return best

    @staticmethod
    def _advantage(
        samples: dict[Action, list[float]], a: Action, base: Action, n: int
    ) -> tuple[float, float]:
        return paired_advantage(samples, a, base, n)


def paired_advantage(
    samples: dict[Action, list[float]], a: Action, base: Action, n: int
) -> tuple[float, float]:
    """Mean and standard error of ``a``'s paired advantage over ``base`` (the last ``n`` worlds
    both were evaluated on: common random numbers)."""
    xs, bs = samples[a], samples[base]
    k = min(len(xs), len(bs), n)
    if k == 0:
        return (0.0, 0.0)
    diffs = [x - b for x, b in zip(xs[-k:], bs[-k:], strict=True)]
    mean = sum(diffs) / k
    if k < 2:
        return (mean, abs(mean) + 1.0)
    var = sum((d - mean) ** 2 for d in diffs) / (k - 1)
    return (mean, math.sqrt(var / k))


def empties_hand(obs: Observation, meld: Meld) -> bool:
    """Whether ``meld`` leaves the seat at most one card (a discard to go out)."""
    used = sum(len(g.cards) for g in meld.melds)
    return len(obs.hand) - used <= 1


__all__ = [
    "IsmctsPolicy",
    "empties_hand",
    "evaluate",
    "paired_advantage",
    "rollout",
    "rollout_step",
]
