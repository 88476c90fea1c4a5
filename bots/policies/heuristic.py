"""A rule-based Canasta player.

Draw: take the pile when what comes with it pays for what it costs (wild cards spent, pairs
broken), else draw. Play: go out when that wins the round (asking a partner with a big hand
first), open with the cheapest melds that meet the minimum, lay off naturals, start melds from
three naturals, spend wild cards only to complete canastas (or late, to cut the hand penalty).
Discard: the card that is least useful to us and least likely to hand the next player the pile,
judged from what is dead (melded, in the pile, discarded), what that player picked up, what they
threw away, and whether the pile is frozen for them; a wild card freezes a big pile when the
alternatives are dangerous or the side is behind; black threes block.

Everything the policy composes is checked with the engine's validators on a state consistent with
the observation; anything refused falls back to the engine's listed legal actions.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from itertools import combinations

from games.engine.actions import (
    Action,
    AnswerPartner,
    AskPartner,
    DeclinePile,
    Discard,
    Draw,
    EndRound,
    Meld,
    MeldGroup,
    TakePile,
)
from games.engine.cards import (
    FULL_DECK,
    IS_BLACK_THREE,
    IS_RED_THREE,
    IS_WILD,
    JOKER,
    N_CODES,
    RANK_OF,
    THREE,
    VALUE_OF,
    WILD_RANK,
)
from games.engine.legal import legal_actions
from games.engine.rules import (
    CANASTA_SIZE,
    discard_error,
    going_out_plan,
    initial_meld_minimum,
    meld_error,
    wild_cap,
)
from games.engine.state import (
    PERMISSION_NONE,
    PERMISSION_YES,
    PHASE_ANSWER,
    PHASE_DRAW,
    GameState,
)

from .observation import Observation, determinise


@dataclass(frozen=True, slots=True)
class HeuristicParams:
    """Tunable weights (the defaults were tuned in the arena)."""

    draw_value: float = 1.2  # what one stock card is worth, in "pile card" units
    take_margin: float = 0.4
    wild_spend_cost: float = 3.5  # taking the pile with a wild card from the hand
    danger_weight: float = 2.5  # per pile card the next player might win
    go_out_when_behind_stock: int = 10
    ask_partner_min_cards: int = 5
    answer_yes_max_penalty: int = 55
    late_stock: int = 12  # stock at or below this: dump melds to cut the hand penalty


DEFAULT_PARAMS = HeuristicParams()


# ---------------------------------------------------------------------------- evaluation helpers


_VALUE = VALUE_OF.__getitem__
_WILD = IS_WILD.__getitem__


def team_table_value(melds: dict[int, list[int]]) -> int:
    """The cards' points of the side's melds and its canasta bonuses."""
    value = 0
    for cs in melds.values():
        value += sum(map(_VALUE, cs))
        if len(cs) >= CANASTA_SIZE:
            value += 300 if any(map(_WILD, cs)) else 500
    return value


def canastas(melds: dict[int, list[int]]) -> int:
    return sum(1 for cs in melds.values() if len(cs) >= CANASTA_SIZE)


def round_estimates(obs: Observation, my_hand_penalty: int | None = None) -> list[float]:
    """A rough score of the round so far for every team (melds, bonuses, red threes, hands)."""
    out: list[float] = []
    teams = obs.options.teams
    players = obs.options.players
    seat = obs.seat
    counts = obs.hand_counts
    for team in range(teams):
        melds = obs.melds[team]
        value: float = team_table_value(melds)
        reds = len(obs.red_threes[team])
        red_value = 800 if reds == 4 else 100 * reds
        value += red_value if melds else -red_value
        for s in range(team, players, teams):  # the team's seats
            if s == seat:
                value -= sum(map(_VALUE, obs.hand)) if my_hand_penalty is None else my_hand_penalty
            else:
                value -= 8 * counts[s]
        out.append(value)
    return out


def opponent_threat(obs: Observation) -> bool:
    """Could an opponent go out soon?"""
    need = obs.options.canastas_to_go_out
    teams = obs.options.teams
    mine = obs.seat % teams
    made = [canastas(m) for m in obs.melds]
    for s in range(obs.options.players):
        team = s % teams
        if team == mine:
            continue
        if made[team] >= need and obs.hand_counts[s] <= 5:
            return True
        if made[team] >= need - 1 and obs.hand_counts[s] <= 2:
            return True
    return False


# ---------------------------------------------------------------------------- the policy


class HeuristicPolicy:
    """The rule-based player; ``epsilon`` > 0 mixes in random legal moves (a weaker level)."""

    name = "heuristic"

    def __init__(
        self,
        seed: int | None = None,
        epsilon: float = 0.0,
        params: HeuristicParams = DEFAULT_PARAMS,
    ) -> None:
        self.rng = random.Random(seed)
        self.epsilon = epsilon
        self.params = params
        if epsilon > 0:
            self.name = f"heuristic(eps={epsilon:g})"

    def choose(self, obs: Observation) -> Action:
        st = determinise(obs, random.Random(self.rng.random()))
        if self.epsilon > 0 and self.rng.random() < self.epsilon:
            actions = obs.legal if obs.legal is not None else legal_actions(st)
            return self.rng.choice(actions)
        return heuristic_action(obs, st, self.params)


def heuristic_action(
    obs: Observation, st: GameState, params: HeuristicParams = DEFAULT_PARAMS
) -> Action:
    """The heuristic's action for ``obs.seat``; ``st`` is any state consistent with ``obs`` (used
    only to validate the seat's own actions)."""
    seat = obs.seat
    if obs.phase == PHASE_ANSWER:
        return AnswerPartner(seat, answer_partner(obs, params))
    if obs.phase == PHASE_DRAW:
        return _draw_decision(obs, st, params)
    return _play_decision(obs, st, params)


# ---------------------------------------------------------------------------- draw phase


def take_score(obs: Observation, take: TakePile, params: HeuristicParams) -> float:
    """What taking the pile this way is worth, in units of 'one useful card'."""
    pile = obs.pile
    gained = [c for c in pile[:-1] if not IS_RED_THREE[c]]
    score = float(len(gained)) + 2.0  # the top card goes straight onto the table
    score += 1.5 * sum(1 for c in gained if IS_WILD[c])
    score += 1.0 * sum(1 for c in pile[:-1] if IS_RED_THREE[c])
    hand_ranks = Counter(RANK_OF[c] for c in obs.hand if not IS_WILD[c])
    # cards that pair up with what we hold are worth more
    score += 0.5 * sum(1 for c in gained if not IS_WILD[c] and hand_ranks[RANK_OF[c]] >= 1)
    score -= params.wild_spend_cost * sum(1 for c in take.cards if IS_WILD[c])
    # opening melds made from the hand lose some flexibility
    score -= 0.3 * sum(len(g.cards) for g in take.melds)
    score -= 0.15 * sum(1 for c in gained if IS_BLACK_THREE[c])
    return score


def _draw_decision(obs: Observation, st: GameState, params: HeuristicParams) -> Action:
    seat = obs.seat
    actions = legal_actions(st)
    takes = [a for a in actions if isinstance(a, TakePile)]
    can_draw = any(isinstance(a, Draw) for a in actions)
    best: TakePile | None = None
    best_score = -1e9
    for t in takes:
        s = take_score(obs, t, params)
        if s > best_score:
            best, best_score = t, s
    if best is not None:
        if not can_draw:  # stock exhausted (play_on): take only small or cheap piles
            declining = any(isinstance(a, DeclinePile) for a in actions)
            if not declining or (not best.cards and obs.pile_size <= 3):
                return best
            ahead = _ahead(obs)
            if not ahead and best_score >= 3:
                return best
            return DeclinePile(seat)
        if best_score >= params.draw_value * obs.options.draw_count + params.take_margin:
            return best
    if can_draw:
        return Draw(seat)
    for a in actions:
        if isinstance(a, DeclinePile):
            return a
    return actions[0]


def _ahead(obs: Observation) -> bool:
    est = round_estimates(obs)
    mine = est[obs.team]
    return all(mine >= v for t, v in enumerate(est) if t != obs.team)


# ---------------------------------------------------------------------------- going out


def want_go_out(obs: Observation, params: HeuristicParams) -> bool:
    est = round_estimates(obs, my_hand_penalty=0)
    est[obs.team] += 100
    mine = est[obs.team]
    best_other = max(v for t, v in enumerate(est) if t != obs.team)
    if mine >= best_other:
        return True
    if obs.stock_count <= params.go_out_when_behind_stock:
        return True
    return opponent_threat(obs)


def answer_partner(obs: Observation, params: HeuristicParams) -> bool:
    penalty = sum(VALUE_OF[c] for c in obs.hand)
    if penalty <= params.answer_yes_max_penalty:
        return True
    if obs.stock_count <= params.go_out_when_behind_stock or opponent_threat(obs):
        return True
    est = round_estimates(obs)
    est[obs.team] += 100
    mine = est[obs.team]
    return all(mine - 150 >= v for t, v in enumerate(est) if t != obs.team)


# ---------------------------------------------------------------------------- play phase


def _play_decision(obs: Observation, st: GameState, params: HeuristicParams) -> Action:
    seat = obs.seat
    plan = going_out_plan(st, seat)
    if plan is not None and (obs.permission == PERMISSION_YES or want_go_out(obs, params)):
        if (
            obs.options.can_ask_partner
            and obs.permission == PERMISSION_NONE
            and not obs.turn_melded
            and not obs.no_discard
            and obs.hand_counts[(seat + 2) % 4] >= params.ask_partner_min_cards
        ):
            return AskPartner(seat)
        groups, discard = plan
        if groups:
            return Meld(seat, groups)
        if discard is not None:
            return Discard(seat, discard)
    if obs.permission == PERMISSION_YES:  # bound to go out: follow the engine's plan
        for a in legal_actions(st):
            if isinstance(a, Meld):
                return a
    split = _split_hand(obs.hand)  # read, never changed, by both
    meld = _choose_meld(obs, st, params, split)
    if meld is not None:
        return meld
    if obs.no_discard:
        return EndRound(seat)
    chosen = choose_discard(obs, st, params, split)
    if chosen is not None:
        return chosen
    actions = legal_actions(st)
    return actions[0]


def _valid(st: GameState, seat: int, groups: tuple[MeldGroup, ...]) -> bool:
    return meld_error(st, seat, groups) is None


HandSplit = tuple[dict[int, list[int]], list[int], list[int]]


def _split_hand(hand: list[int]) -> HandSplit:
    """The hand's natural cards by rank, its wild cards (deuces first) and its black threes."""
    naturals: dict[int, list[int]] = {}
    wilds: list[int] = []
    blacks: list[int] = []
    for c in hand:
        if IS_WILD[c]:
            wilds.append(c)
        elif IS_BLACK_THREE[c]:
            blacks.append(c)
        elif not IS_RED_THREE[c]:
            naturals.setdefault(RANK_OF[c], []).append(c)
    wilds.sort()  # deuces first (the joker's code is the highest): spend the cheap wild cards
    return naturals, wilds, blacks


def _choose_meld(
    obs: Observation, st: GameState, params: HeuristicParams, split: HandSplit | None = None
) -> Meld | None:
    seat = obs.seat
    team = obs.team
    hand = obs.hand
    naturals, wilds, _ = split or _split_hand(hand)
    melds = obs.melds[team]
    keep = 0 if obs.no_discard else 2  # cards to keep (one to discard, one to hold)

    def ok(groups: tuple[MeldGroup, ...]) -> bool:
        used = sum(len(g.cards) for g in groups)
        return len(hand) - used >= keep and _valid(st, seat, groups)

    if not obs.opened[team]:
        opening = _best_opening(obs, st, naturals, wilds, keep)
        return Meld(seat, opening) if opening else None

    # 1. lay naturals off on the side's melds
    by_size = sorted(naturals.items(), key=lambda kv: -len(kv[1]))
    for rank, cards in by_size:
        if rank in melds:
            n = min(len(cards), len(hand) - keep)
            if n > 0:
                g = (MeldGroup(rank, tuple(cards[:n])),)
                if ok(g):
                    return Meld(seat, g)
    # 2. new melds of three or more naturals
    for rank, cards in by_size:
        if rank not in melds and len(cards) >= 3:
            g = (MeldGroup(rank, tuple(cards)),)
            if ok(g):
                return Meld(seat, g)
    # 3. wild cards that complete a canasta
    late = obs.no_discard or obs.stock_count <= params.late_stock or opponent_threat(obs)
    need_more = canastas(melds) < obs.options.canastas_to_go_out
    if wilds:
        best: tuple[int, int] | None = None
        for rank, cards in melds.items():
            if rank in (THREE, WILD_RANK) or len(cards) >= CANASTA_SIZE:
                continue
            need = CANASTA_SIZE - len(cards)
            e_wild = sum(1 for c in cards if IS_WILD[c])
            room = wild_cap(obs.options, len(cards) - e_wild) - e_wild
            fits = need <= len(wilds) and need <= room and (need <= 2 or need_more or late)
            if fits and (best is None or need < best[1]):
                best = (rank, need)
        if best is not None:
            g = (MeldGroup(best[0], tuple(wilds[: best[1]])),)
            if ok(g):
                return Meld(seat, g)
    # 4. late in the round: cut the hand penalty (pairs with a wild card, spare wild cards)
    if late:
        for rank, cards in sorted(
            naturals.items(), key=lambda kv: -sum(VALUE_OF[c] for c in kv[1])
        ):
            if rank not in melds and len(cards) == 2 and wilds:
                g = (MeldGroup(rank, (*cards, wilds[0])),)
                if ok(g):
                    return Meld(seat, g)
        if wilds:
            for rank in sorted(melds, key=lambda r: -len(melds[r])):
                if rank in (THREE, WILD_RANK):
                    continue
                g = (MeldGroup(rank, (wilds[0],)),)
                if ok(g):
                    return Meld(seat, g)
    return None


def _best_opening(
    obs: Observation,
    st: GameState,
    naturals: dict[int, list[int]],
    wilds: list[int],
    keep: int,
) -> tuple[MeldGroup, ...] | None:
    """The cheapest set of new melds meeting the initial minimum (few wild cards, few cards)."""
    minimum = initial_meld_minimum(obs.scores[obs.team])
    options: list[tuple[int, tuple[int, ...], int]] = []  # (rank, naturals, wilds needed)
    for rank, cards in naturals.items():
        if len(cards) >= 3:
            options.append((rank, tuple(cards), 0))
        if len(cards) >= 2:
            options.append((rank, tuple(cards[:2]) if len(cards) == 2 else tuple(cards), 1))
    best: tuple[float, tuple[MeldGroup, ...]] | None = None
    for k in range(1, min(4, len(options)) + 1):
        for combo in combinations(options, k):
            ranks = [o[0] for o in combo]
            if len(set(ranks)) != k:
                continue
            n_wild = sum(o[2] for o in combo)
            if n_wild > len(wilds):
                continue
            spare = list(wilds)
            groups: list[MeldGroup] = []
            value = 0
            for g_rank, g_naturals, w in combo:
                g_cards = g_naturals + tuple(spare[:w])
                spare = spare[w:]
                groups.append(MeldGroup(g_rank, g_cards))
                value += sum(VALUE_OF[c] for c in g_cards)
            # top up with wild cards when the naturals fall short
            extra: list[int] = []
            while value < minimum and spare:
                extra.append(spare.pop(0))
                value += VALUE_OF[extra[-1]]
            if value < minimum:
                continue
            if extra:
                g0 = groups[0]
                groups[0] = MeldGroup(g0.rank, g0.cards + tuple(extra))
            used_cards = sum(len(g.cards) for g in groups)
            if len(obs.hand) - used_cards < keep:
                continue
            wild_used = n_wild + len(extra)
            cost = 12.0 * wild_used + used_cards - 0.01 * value
            if best is not None and cost >= best[0]:
                continue
            cand = tuple(groups)
            if _valid(st, obs.seat, cand):
                best = (cost, cand)
    if best is None:
        return None
    # don't pour many wild cards into an opening unless the minimum is high
    wild_used = sum(1 for g in best[1] for c in g.cards if IS_WILD[c])
    if wild_used >= 3 and minimum <= 50 and obs.stock_count > 20:
        return None
    return best[1]


# ---------------------------------------------------------------------------- discarding


def _prob_at_least(k: int, q: float, h: int) -> float:
    """P(at least k successes in h draws with probability q) (binomial approximation)."""
    if k <= 0:
        return 1.0
    if h < k or q <= 0:
        return 0.0
    q = min(q, 1.0)
    p0 = (1 - q) ** h
    if k == 1:
        return 1 - p0
    p1 = h * q * (1 - q) ** (h - 1)
    return max(0.0, 1 - p0 - p1)


# A card's counting bucket: its rank (0 .. 14) when natural or a three, 15 when wild.
_WILD_BUCKET = 15
_BUCKET: tuple[int, ...] = tuple(_WILD_BUCKET if IS_WILD[c] else RANK_OF[c] for c in range(N_CODES))
_DECK_BY_BUCKET: tuple[int, ...] = tuple(
    sum(1 for c in FULL_DECK if _BUCKET[c] == b) for b in range(_WILD_BUCKET + 1)
)


class _Unseen:
    """Unseen copies per natural rank and of wild cards (from ``obs.unseen()``)."""

    __slots__ = ("by_rank", "total", "wilds")

    def __init__(self, unseen: Counter[int]) -> None:
        self.by_rank = [0] * 15
        self.wilds = 0
        self.total = 0
        for c, n in unseen.items():
            self.total += n
            if IS_WILD[c]:
                self.wilds += n
            else:
                self.by_rank[RANK_OF[c]] += n

    @classmethod
    def of(cls, obs: Observation) -> _Unseen:
        """The same counts as ``_Unseen(obs.unseen())``, without Counters: the copies of each
        natural rank and of wild cards in the packs, less every card the seat can place (an
        observation never places more copies of a card than the packs hold)."""
        left = list(_DECK_BY_BUCKET)
        bucket = _BUCKET
        for c in obs.hand:
            left[bucket[c]] -= 1
        placed = len(obs.hand) + len(obs.pile)
        for team_melds in obs.melds:
            for cards in team_melds.values():
                placed += len(cards)
                for c in cards:
                    left[bucket[c]] -= 1
        for reds in obs.red_threes:
            placed += len(reds)
            for c in reds:
                left[bucket[c]] -= 1
        for c in obs.pile:
            left[bucket[c]] -= 1
        for s, cards in enumerate(obs.known):
            if s != obs.seat:
                placed += len(cards)
                for c in cards:
                    left[bucket[c]] -= 1
        out = cls.__new__(cls)
        out.wilds = left.pop()
        out.by_rank = left
        out.total = len(FULL_DECK) - placed
        return out


def take_probability(obs: Observation, card: int, taker: int, unseen: Counter[int]) -> float:
    """How likely ``taker`` (to act next) can take the pile if ``card`` is discarded onto it."""
    return _TakeOdds(obs, taker, _Unseen(unseen)).of(card)


class _TakeOdds:
    """``take_probability`` for one taker: what depends on the taker only is worked out once,
    and each rank's probability once (a hand's discards share ranks)."""

    __slots__ = (
        "discarded",
        "frozen",
        "h",
        "known",
        "known_w",
        "melds",
        "memo",
        "obs",
        "opened",
        "unseen",
    )

    def __init__(self, obs: Observation, taker: int, unseen: _Unseen) -> None:
        team = taker % obs.options.teams
        self.obs = obs
        self.opened = obs.opened[team]
        self.frozen = obs.pile_frozen or not self.opened
        self.melds = obs.melds[team]
        known = obs.known[taker] if taker < len(obs.known) else []
        self.known = known
        self.known_w = sum(1 for c in known if IS_WILD[c])
        self.h = max(0, obs.hand_counts[taker] - len(known))
        self.discarded = obs.discarded_ranks[taker] if obs.discarded_ranks else None
        self.memo: dict[int, float] = {}
        self.unseen = unseen

    def of(self, card: int) -> float:
        if IS_WILD[card] or IS_BLACK_THREE[card] or IS_RED_THREE[card]:
            return 0.0
        rank = RANK_OF[card]
        p = self.memo.get(rank)
        if p is None:
            p = self.memo[rank] = self._of_rank(rank)
        return p

    def _of_rank(self, rank: int) -> float:
        obs = self.obs
        frozen = self.frozen
        if not frozen:
            meld = self.melds.get(rank)
            if meld is not None and (obs.options.pile_to_canasta or len(meld) < CANASTA_SIZE):
                return 1.0
        known_r = sum(1 for c in self.known if not IS_WILD[c] and RANK_OF[c] == rank)
        unseen = self.unseen
        total_unseen = unseen.total
        h = self.h
        q = unseen.by_rank[rank] / total_unseen if total_unseen else 0.0
        p_pair = 1.0 if known_r >= 2 else _prob_at_least(2 - known_r, q, h)
        p_one = 1.0 if known_r >= 1 else _prob_at_least(1, q, h)
        if self.discarded is not None and self.discarded[rank] > 0:
            p_pair *= 0.35
            p_one *= 0.6
        if frozen:
            p = p_pair
            if not self.opened:
                p *= 0.6  # they must also meet the initial minimum
            return p
        if obs.options.pile_new_meld_needs_two_naturals:
            return p_pair
        q_wild = unseen.wilds / total_unseen if total_unseen else 0.0
        p_wild = 1.0 if self.known_w else _prob_at_least(1, q_wild, h)
        return min(1.0, p_pair + (p_one - p_pair) * p_wild)


def choose_discard(
    obs: Observation, st: GameState, params: HeuristicParams, split: HandSplit | None = None
) -> Discard | None:
    scored = discard_scores(obs, st, params, split)
    if not scored:
        return None
    return Discard(obs.seat, scored[0][1])


def discard_scores(
    obs: Observation, st: GameState, params: HeuristicParams, split: HandSplit | None = None
) -> list[tuple[float, int]]:
    """Every allowed discard with its cost (keep value + danger), best (lowest) first.

    ``split`` is ``_split_hand(obs.hand)`` when the caller has it already."""
    seat = obs.seat
    hand = obs.hand
    candidates = sorted(set(hand))
    candidates = [c for c in candidates if discard_error(st, seat, c) is None]
    if not candidates:
        return []
    unseen = _Unseen.of(obs)
    naturals, wilds, blacks = split or _split_hand(hand)
    team_melds = obs.melds[obs.team]
    taker = (seat + 1) % obs.players
    pile_after = obs.pile_size + 1
    pile_wilds = sum(1 for c in obs.pile if IS_WILD[c])
    gain = pile_after + 2.0 * pile_wilds
    behind: bool | None = None  # worked out when a wild card is a candidate
    odds = _TakeOdds(obs, taker, unseen)
    late = obs.stock_count <= params.late_stock
    scored: list[tuple[float, int]] = []
    for c in candidates:
        if IS_WILD[c]:
            # a wild card freezes the pile (and blocks the next player)
            keep = 30.0 if c != JOKER else 45.0
            if len(wilds) <= 1:
                keep += 20
            if behind is None:
                behind = not _ahead(obs)
            if behind:
                keep -= 6
            if obs.pile_frozen:
                keep += 15  # already frozen: the wild card buys little
            danger = 0.0
        elif IS_BLACK_THREE[c]:
            keep = -4.0 - min(obs.pile_size, 10) * 0.3
            if len(hand) <= 3 and len(blacks) >= 2:
                keep += 2
            danger = 0.0
        else:
            rank = RANK_OF[c]
            n = len(naturals.get(rank, []))
            if rank in team_melds:
                keep = 25.0
            elif n >= 3:
                keep = 22.0
            elif n == 2:
                keep = 12.0
            else:
                keep = 2.0
            # partner's melds: a card our side can lay off is worth keeping
            # dead ranks (few unseen copies): our pair is less likely to grow
            unseen_r = unseen.by_rank[rank]
            if n >= 1 and rank not in team_melds:
                keep += min(unseen_r, 3) * 0.8
            keep += VALUE_OF[c] * (0.02 if not late else -0.15)
            p = odds.of(c)
            danger = p * params.danger_weight * gain
            if p > 0.99:
                danger += 10
        scored.append((keep + danger, c))
    scored.sort()
    return scored


__all__ = [
    "DEFAULT_PARAMS",
    "HeuristicParams",
    "HeuristicPolicy",
    "answer_partner",
    "choose_discard",
    "heuristic_action",
    "take_probability",
    "discard_scores",
    "want_go_out",
]
