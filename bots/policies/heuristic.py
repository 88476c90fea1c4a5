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
from games.engine.going_out import going_out_plan
from games.engine.legal import legal_actions
from games.engine.melds import CANASTA_SIZE, initial_meld_minimum, wild_cap
from games.engine.rules import discard_error, meld_error
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
_BLACK_THREE = IS_BLACK_THREE.__getitem__


def team_table_value(melds: dict[int, list[int]]) -> int:
    """The cards' points of the side's melds and its canasta bonuses."""
    value = 0
    for cs in melds.values():
        value += sum(map(_VALUE, cs))
        if len(cs) >= CANASTA_SIZE:
            value += 300 if any(map(_WILD, cs)) else 500
    return value


def canastas(melds: dict[int, list[int]]) -> int:
    n = 0
    for cs in melds.values():
        if len(cs) >= CANASTA_SIZE:
            n += 1
    return n


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
    counts = obs.hand_counts
    for s in range(obs.options.players):
        team = s % teams
        if team == mine:
            continue
        count = counts[s]
        if count > 5:
            continue
        made = canastas(obs.melds[team])
        if made >= need:
            return True
        if made >= need - 1 and count <= 2:
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
    base, blacks = _take_base(obs)
    return _take_score(base, blacks, take, params)


def _take_base(obs: Observation) -> tuple[float, float]:
    """The parts of ``take_score`` that depend on the pile and the hand only: the score before
    the take's own terms, and the black threes' term (subtracted last)."""
    pile = obs.pile
    gained = [c for c in pile[:-1] if not IS_RED_THREE[c]]
    score = float(len(gained)) + 2.0  # the top card goes straight onto the table
    score += 1.5 * sum(map(_WILD, gained))
    score += 1.0 * (len(pile[:-1]) - len(gained))  # the red threes
    hand_ranks = {RANK_OF[c] for c in obs.hand if not IS_WILD[c]}
    # cards that pair up with what we hold are worth more
    score += 0.5 * sum(1 for c in gained if not IS_WILD[c] and RANK_OF[c] in hand_ranks)
    return score, 0.15 * sum(map(_BLACK_THREE, gained))


def _take_score(base: float, blacks: float, take: TakePile, params: HeuristicParams) -> float:
    score = base
    score -= params.wild_spend_cost * sum(map(_WILD, take.cards))
    # opening melds made from the hand lose some flexibility
    score -= 0.3 * sum(len(g.cards) for g in take.melds)
    score -= blacks
    return score


def _draw_decision(obs: Observation, st: GameState, params: HeuristicParams) -> Action:
    seat = obs.seat
    actions = legal_actions(st)
    takes = [a for a in actions if isinstance(a, TakePile)]
    can_draw = any(isinstance(a, Draw) for a in actions)
    best: TakePile | None = None
    best_score = -1e9
    if takes:
        base, blacks = _take_base(obs)
        for t in takes:
            s = _take_score(base, blacks, t, params)
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
    if not wilds:  # steps 3 and 4 spend wild cards
        return None
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
        "p_wild",
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
        self.p_wild: float | None = None  # worked out when first needed

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
        known = self.known
        known_r = sum(1 for c in known if not IS_WILD[c] and RANK_OF[c] == rank) if known else 0
        unseen = self.unseen
        total_unseen = unseen.total
        h = self.h
        count = unseen.by_rank[rank]
        key = (known_r, count, total_unseen, h)
        odds = _PAIR_ODDS.get(key)
        if odds is None:
            q = count / total_unseen if total_unseen else 0.0
            p_pair = 1.0 if known_r >= 2 else _prob_at_least(2 - known_r, q, h)
            p_one = 1.0 if known_r >= 1 else _prob_at_least(1, q, h)
            odds = _PAIR_ODDS[key] = (p_pair, p_one)
        p_pair, p_one = odds
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
        p_wild = self.p_wild
        if p_wild is None:
            q_wild = unseen.wilds / total_unseen if total_unseen else 0.0
            p_wild = self.p_wild = 1.0 if self.known_w else _prob_at_least(1, q_wild, h)
        return min(1.0, p_pair + (p_one - p_pair) * p_wild)


# (copies known, unseen copies, unseen cards, unknown cards in the hand) -> the chances that
# the hand holds a pair and one card of a rank: a pure function of the four counts, and few
# distinct counts occur (at most some 10^5), so it is kept for every search.
_PAIR_ODDS: dict[tuple[int, int, int, int], tuple[float, float]] = {}


def choose_discard(
    obs: Observation, st: GameState, params: HeuristicParams, split: HandSplit | None = None
) -> Discard | None:
    card = _best_discard(obs, st, params, split)
    if card is None:
        return None
    return Discard(obs.seat, card)


def allowed_discards(st: GameState, seat: int, cards: list[int]) -> list[int]:
    """``[c for c in cards if discard_error(st, seat, c) is None]`` for cards of the seat's hand,
    with one call to the engine: for a card in the hand, ``discard_error`` depends on the card
    only through whether it is a red three (refused unless the options allow it); every other
    reason (phase, no discard, initial meld, last card, the partner's yes) is the same for all."""
    probe = next((c for c in cards if not IS_RED_THREE[c]), None)
    if probe is None:  # red threes only: the engine decides card by card
        return [c for c in cards if discard_error(st, seat, c) is None]
    if discard_error(st, seat, probe) is not None:
        return []
    if st.options.red_three_discard:
        return cards
    return [c for c in cards if not IS_RED_THREE[c]]


def discard_scores(
    obs: Observation, st: GameState, params: HeuristicParams, split: HandSplit | None = None
) -> list[tuple[float, int]]:
    """Every allowed discard with its cost (keep value + danger), best (lowest) first.

    ``split`` is ``_split_hand(obs.hand)`` when the caller has it already."""
    scored = _discard_costs(obs, st, params, split)
    scored.sort()
    return scored


def _discard_costs(
    obs: Observation, st: GameState, params: HeuristicParams, split: HandSplit | None
) -> list[tuple[float, int]]:
    """``discard_scores`` unsorted."""
    seat = obs.seat
    hand = obs.hand
    candidates = allowed_discards(st, seat, sorted(set(hand)))
    if not candidates:
        return []
    unseen = _Unseen.of(obs)
    naturals, wilds, blacks = split or _split_hand(hand)
    team_melds = obs.melds[obs.team]
    taker = (seat + 1) % obs.players
    gain = _pile_gain(obs)
    behind: bool | None = None  # worked out when a wild card is a candidate
    odds = _TakeOdds(obs, taker, unseen)
    value_weight = 0.02 if obs.stock_count > params.late_stock else -0.15
    danger_weight = params.danger_weight
    by_rank: dict[int, float] = {}  # a natural card's cost depends on its rank only
    scored: list[tuple[float, int]] = []
    for c in candidates:
        if IS_WILD[c]:
            if behind is None:
                behind = not _ahead(obs)
            scored.append((_wild_keep(obs, c, wilds, behind) + 0.0, c))
        elif IS_BLACK_THREE[c]:
            scored.append((_black_three_keep(obs, blacks) + 0.0, c))
        else:
            # (a red three reaches here too: rank THREE, no naturals of it, value 0, no odds)
            rank = RANK_OF[c]
            cost = by_rank.get(rank)
            if cost is None:
                keep = _natural_keep(c, rank, naturals, team_melds, unseen, value_weight)
                cost = by_rank[rank] = keep + _danger(odds.of(c), danger_weight, gain)
            scored.append((cost, c))
    return scored


def _best_discard(
    obs: Observation, st: GameState, params: HeuristicParams, split: HandSplit | None
) -> int | None:
    """``discard_scores(...)[0][1]`` (or None when nothing may be discarded), working out only
    what can still be the lowest pair (cost, card): a card's cost is at least its keep value
    (the danger is never negative), and a wild card's keep at least its value less 6."""
    seat = obs.seat
    hand = obs.hand
    candidates = allowed_discards(st, seat, sorted(set(hand)))
    if not candidates:
        return None
    unseen = _Unseen.of(obs)
    naturals, wilds, blacks = split or _split_hand(hand)
    team_melds = obs.melds[obs.team]
    value_weight = 0.02 if obs.stock_count > params.late_stock else -0.15
    best: tuple[float, int] | None = None
    ranks: dict[int, list[int]] = {}  # natural rank -> its candidates (ascending)
    wild_cards: list[int] = []
    for c in candidates:
        if IS_WILD[c]:
            wild_cards.append(c)
        elif IS_BLACK_THREE[c]:
            pair = (_black_three_keep(obs, blacks) + 0.0, c)
            if best is None or pair < best:
                best = pair
        else:
            ranks.setdefault(RANK_OF[c], []).append(c)
    if ranks:
        keeps = [
            (_natural_keep(cs[0], rank, naturals, team_melds, unseen, value_weight), rank)
            for rank, cs in ranks.items()
        ]
        keeps.sort(key=_first)  # the most promising first (stable)
        odds: _TakeOdds | None = None
        gain = 0.0
        danger_weight = params.danger_weight
        for keep, rank in keeps:
            cs = ranks[rank]
            if best is not None and danger_weight >= 0 and (keep, cs[0]) > best:
                continue  # every card of the rank costs at least (keep, its code)
            if odds is None:
                odds = _TakeOdds(obs, (seat + 1) % obs.players, unseen)
                gain = _pile_gain(obs)
            cost = keep + _danger(odds.of(cs[0]), danger_weight, gain)
            for c in cs:
                pair = (cost, c)
                if best is None or pair < best:
                    best = pair
    behind: bool | None = None
    for c in wild_cards:
        bound = _wild_keep(obs, c, wilds, True)
        if best is not None and (bound, c) > best:
            continue
        if behind is None:
            behind = not _ahead(obs)
        pair = (_wild_keep(obs, c, wilds, behind) + 0.0, c)
        if best is None or pair < best:
            best = pair
    return None if best is None else best[1]


def _first(pair: tuple[float, int]) -> float:
    return pair[0]


def _pile_gain(obs: Observation) -> float:
    """The pile the next player would win, its wild cards counting triple."""
    return obs.pile_size + 1 + 2.0 * sum(map(_WILD, obs.pile))


def _danger(p: float, danger_weight: float, gain: float) -> float:
    danger = p * danger_weight * gain
    if p > 0.99:
        danger += 10
    return danger


def _wild_keep(obs: Observation, c: int, wilds: list[int], behind: bool) -> float:
    # a wild card freezes the pile (and blocks the next player)
    keep = 30.0 if c != JOKER else 45.0
    if len(wilds) <= 1:
        keep += 20
    if behind:
        keep -= 6
    if obs.pile_frozen:
        keep += 15  # already frozen: the wild card buys little
    return keep


def _black_three_keep(obs: Observation, blacks: list[int]) -> float:
    keep = -4.0 - min(obs.pile_size, 10) * 0.3
    if len(obs.hand) <= 3 and len(blacks) >= 2:
        keep += 2
    return keep


def _natural_keep(
    c: int,
    rank: int,
    naturals: dict[int, list[int]],
    team_melds: dict[int, list[int]],
    unseen: _Unseen,
    value_weight: float,
) -> float:
    """A natural card's (or a red three's) keep value: the same for every card of its rank."""
    same = naturals.get(rank)
    n = len(same) if same is not None else 0
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
    if n >= 1 and rank not in team_melds:
        keep += min(unseen.by_rank[rank], 3) * 0.8
    keep += VALUE_OF[c] * value_weight
    return keep


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
