"""A side's first melds laid over several actions of one turn (RULES.md section 6, as Classic):
a meld below the initial minimum is accepted only while the cards left in hand can complete it
and the turn can still end, and the turn cannot end until the minimum is met.

``completion`` finds such melds: a way out worth the rest (``out_plan``), or melds keeping the
cards the turn needs to end (two, or one when it ends without a discard). It is a greedy
planner: every melding the hand allows (new groups, natural pairs with a wild card, lay-offs on
the side's melds, sequences and their extensions, Bolivia's wild melds), then the least
valuable cards taken out until enough cards are kept. A plan is checked by the meld rules before
it is returned, so a refusal may be cautious but an acceptance always has a way to finish.
"""

from __future__ import annotations

from ..actions import MeldGroup
from ..cards import IS_NATURAL, IS_WILD, RANK_OF, SUIT_OF, THREE, VALUE_OF, WILD_RANK
from ..errors import IllegalAction
from ..melds import wild_cap
from ..options import Options
from ..state import PERMISSION_NO, PERMISSION_YES, GameState
from .melds import (
    CANASTA_SIZE,
    SEQUENCE_MAX,
    WILD_MELD_MAX,
    MeldPlan,
    group_rank,
    initial_minimum,
    place_group,
)
from .outplan import out_plan
from .state import GROUP, SEQUENCE, WILD, meld_name


class Part:
    """One meld of a plan being trimmed: the cards it adds, and which of them may go."""

    __slots__ = (
        "kind",
        "rank",
        "target",
        "naturals",
        "wilds",
        "base_naturals",
        "base_wilds",
        "base_ranks",
    )

    def __init__(
        self,
        kind: str,
        rank: int,
        target: str | None,
        naturals: list[int],
        wilds: list[int],
        base: list[int],
    ) -> None:
        self.kind = kind
        self.rank = rank
        self.target = target
        self.naturals = naturals  # sequences: in rank order
        self.wilds = wilds
        self.base_wilds = sum(1 for c in base if IS_WILD[c])
        self.base_naturals = len(base) - self.base_wilds
        self.base_ranks = {RANK_OF[c] for c in base} if kind == SEQUENCE else set()

    def size(self) -> int:
        return len(self.naturals) + len(self.wilds)

    def value(self) -> int:
        return sum(VALUE_OF[c] for c in self.naturals) + sum(VALUE_OF[c] for c in self.wilds)

    def valid(self, opts: Options) -> bool:
        """Whether the part is still a meld (or lay-off) the rules accept."""
        if not self.naturals and not self.wilds:
            return True  # an empty part is dropped
        base = self.base_naturals + self.base_wilds
        if self.kind == SEQUENCE:
            return base + len(self.naturals) >= 3
        if self.kind == WILD:
            return base + len(self.wilds) >= 3
        naturals = self.base_naturals + len(self.naturals)
        wilds = self.base_wilds + len(self.wilds)
        return naturals + wilds >= 3 and naturals >= 2 and wilds <= wild_cap(opts, naturals)

    def removals(self) -> list[int]:
        """Cards that may be taken out one at a time (ends only, for sequences)."""
        if self.kind == SEQUENCE:
            if not self.base_ranks:
                return self.naturals[:1] + self.naturals[-1:] if self.naturals else []
            low, high = min(self.base_ranks), max(self.base_ranks)
            ends = [c for c in self.naturals[:1] if RANK_OF[c] < low]
            return ends + [c for c in self.naturals[-1:] if RANK_OF[c] > high]
        return self.naturals[-1:] + sorted(self.wilds, key=lambda c: VALUE_OF[c])[:1]

    def remove(self, card: int) -> None:
        if card in self.wilds:
            self.wilds.remove(card)
        else:
            self.naturals.remove(card)

    def group(self) -> MeldGroup:
        cards = (*self.naturals, *self.wilds)
        rank = WILD_RANK if self.kind == WILD else self.rank
        if self.kind == SEQUENCE:
            rank = RANK_OF[self.naturals[0]]
        return MeldGroup(rank, cards, self.kind, self.target, self.target is None)


def sequence_runs(cards: list[int]) -> list[list[int]]:
    """Runs of 3 to 7 natural cards of one suit in consecutive ranks, one card per rank."""
    by_suit: dict[int, dict[int, int]] = {}
    for c in cards:
        if IS_NATURAL[c]:
            by_suit.setdefault(SUIT_OF[c], {})[RANK_OF[c]] = c
    out = []
    for suit_cards in by_suit.values():
        ranks = sorted(suit_cards)
        start = 0
        for i in range(1, len(ranks) + 1):
            if i == len(ranks) or ranks[i] != ranks[i - 1] + 1:
                run = [suit_cards[r] for r in ranks[start:i]]
                while len(run) >= 3:
                    out.append(run[:SEQUENCE_MAX])
                    run = run[SEQUENCE_MAX:]
                start = i
    return out


def full_parts(
    opts: Options,
    team: int,
    hand: list[int],
    melds: dict[int, list[int]],
    kinds: dict[int, str],
    sequences_first: bool,
) -> list[Part]:
    """Every melding of ``hand`` the planner sees beside ``melds``."""
    pool = hand[:]
    parts: list[Part] = []

    def take_runs() -> None:
        for run in sequence_runs(pool):
            parts.append(Part(SEQUENCE, RANK_OF[run[0]], None, run, [], []))
            for c in run:
                pool.remove(c)

    # Naturals extending the side's open sequences, outward from each end.
    for num in sorted(melds):
        cards = melds[num]
        if kinds[num] != SEQUENCE or len(cards) >= SEQUENCE_MAX:
            continue
        suit = SUIT_OF[cards[0]]
        ranks = [RANK_OF[c] for c in cards]
        low, high = min(ranks), max(ranks)
        below: list[int] = []
        above: list[int] = []
        size = len(cards)
        for step, chain in ((-1, below), (1, above)):
            r = (low if step < 0 else high) + step
            while size < SEQUENCE_MAX:
                found = next((c for c in pool if SUIT_OF[c] == suit and RANK_OF[c] == r), None)
                if found is None or not IS_NATURAL[found]:
                    break
                chain.append(found)
                pool.remove(found)
                size += 1
                r += step
        added = below[::-1] + above
        if added:
            parts.append(Part(SEQUENCE, RANK_OF[added[0]], meld_name(team, num), added, [], cards))
    if sequences_first:
        take_runs()
    naturals: dict[int, list[int]] = {}
    wilds: list[int] = []
    for c in pool:
        if IS_WILD[c]:
            wilds.append(c)
        elif IS_NATURAL[c]:
            naturals.setdefault(RANK_OF[c], []).append(c)
    wilds.sort(key=lambda c: -VALUE_OF[c])  # the most valuable wild cards are placed first
    groups: dict[int, int] = {}
    for num in sorted(melds):
        if kinds[num] == GROUP:
            rank = group_rank(melds[num])
            if rank != THREE and (rank not in groups or len(melds[groups[rank]]) >= CANASTA_SIZE):
                groups[rank] = num  # prefer a group that can still take wild cards
    for rank in sorted(naturals, key=lambda r: -len(naturals[r])):
        cards = naturals[rank]
        if rank in groups:
            num = groups[rank]
            parts.append(Part(GROUP, rank, meld_name(team, num), cards, [], melds[num]))
        elif len(cards) >= 3 or (len(cards) == 2 and wilds):
            part = Part(GROUP, rank, None, cards, [], [])
            if len(cards) == 2:
                part.wilds.append(wilds.pop(0))
            parts.append(part)
        else:
            continue
        for c in cards:
            pool.remove(c)
    if not sequences_first:
        take_runs()
    # Wild cards where there is room (never onto a group canasta), then into wild melds.
    for target_num, part in [(groups.get(p.rank), p) for p in parts if p.kind == GROUP]:
        existing = melds[target_num] if target_num is not None and part.target is not None else []
        if len(existing) >= CANASTA_SIZE:
            continue
        while wilds:
            part.wilds.append(wilds[0])
            if not part.valid(opts):
                part.wilds.pop()
                break
            wilds.pop(0)
    for rank, num in groups.items():
        if not wilds:
            break
        if rank in naturals or len(melds[num]) >= CANASTA_SIZE:
            continue
        part = Part(GROUP, rank, meld_name(team, num), [], [], melds[num])
        while wilds:
            part.wilds.append(wilds[0])
            if not part.valid(opts):
                part.wilds.pop()
                break
            wilds.pop(0)
        if part.wilds:
            parts.append(part)
    if opts.wild_canasta and wilds:
        for num in sorted(melds):
            if kinds[num] == WILD and len(melds[num]) < WILD_MELD_MAX and wilds:
                room = WILD_MELD_MAX - len(melds[num])
                take, wilds = wilds[:room], wilds[room:]
                parts.append(Part(WILD, WILD_RANK, meld_name(team, num), [], take, melds[num]))
        if len(wilds) >= 3:
            parts.append(Part(WILD, WILD_RANK, None, [], wilds[:WILD_MELD_MAX], []))
    return parts


def trim(opts: Options, parts: list[Part], most: int) -> list[Part]:
    """Take the least valuable cards (or whole melds) out until at most ``most`` cards are
    melded."""
    parts = [p for p in parts if p.size()]
    total = sum(p.size() for p in parts)
    while total > most and parts:
        best: tuple[float, int, Part, int | None] | None = None  # loss per card, cards, ...
        for part in parts:
            for card in part.removals():
                part.remove(card)
                ok = part.valid(opts)
                (part.wilds if IS_WILD[card] else part.naturals).append(card)
                if part.kind == SEQUENCE and not IS_WILD[card]:
                    part.naturals.sort(key=lambda c: RANK_OF[c])
                if ok and part.size() > 1:
                    key = (float(VALUE_OF[card]), 1, part, card)
                    if best is None or key[:2] < best[:2]:
                        best = key
            whole = (part.value() / part.size(), part.size(), part, None)
            if best is None or whole[:2] < best[:2]:
                best = whole
        assert best is not None
        _, freed, chosen, chosen_card = best
        if chosen_card is None:
            parts.remove(chosen)
        else:
            chosen.remove(chosen_card)
        total -= freed
    return parts


def melds_keeping(
    st: GameState,
    team: int,
    hand: list[int],
    melds: dict[int, list[int]],
    kinds: dict[int, str],
    next_id: int,
    need: int,
) -> tuple[MeldGroup, ...] | None:
    """Melds from ``hand`` worth at least ``need`` points that keep the cards the turn needs to
    end without going out; None if the planner finds none."""
    opts = st.options
    most = len(hand) - (1 if st.no_discard else 2)
    if most < 1:
        return None
    for sequences_first in (False, True):
        parts = trim(opts, full_parts(opts, team, hand, melds, kinds, sequences_first), most)
        if sum(p.value() for p in parts) < need:
            continue
        groups = tuple(p.group() for p in parts if p.size())
        trial_melds, trial_kinds, number = dict(melds), dict(kinds), next_id
        try:
            for g in groups:
                _, number = place_group(opts, team, trial_melds, trial_kinds, number, g)
        except IllegalAction:
            continue
        return groups
    return None


def completion(
    st: GameState,
    seat: int,
    hand: list[int],
    melds: dict[int, list[int]],
    kinds: dict[int, str],
    next_id: int,
    need: int,
) -> tuple[MeldGroup, ...] | None:
    """Melds from ``hand`` onto or beside ``melds`` (the side's melds of this turn) worth at
    least ``need`` points after which the turn can still end: a way out, or melds that keep a
    card to discard and one more (one card when the turn ends without a discard)."""
    team = seat % st.options.teams
    if st.permission != PERMISSION_NO:
        out = out_plan(st, team, hand, melds, kinds, need)
        if out is not None and out[0]:
            return out[0]
    if st.permission == PERMISSION_YES:
        return None  # bound to go out
    return melds_keeping(st, team, hand, melds, kinds, next_id, need)


def opening_error(st: GameState, seat: int, plan: MeldPlan) -> IllegalAction | None:
    """Refusal of a meld action that leaves the side's first melds below the minimum with no
    way to complete them this turn."""
    if not plan.need:
        return None
    if completion(st, seat, plan.hand, plan.melds, plan.kinds, plan.next_id, plan.need):
        return None
    team = seat % st.options.teams
    minimum = initial_minimum(st.options, st.scores[team])
    return IllegalAction(
        "initial_meld_below_minimum",
        f"Your side's first melds must be worth at least {minimum} points this turn: with "
        f"these they are worth {minimum - plan.need}, and the cards left in your hand cannot "
        "make up the rest while keeping a card to discard.",
    )


def incomplete_error(st: GameState, seat: int) -> IllegalAction | None:
    """Refusal of ending the turn while the side's first melds are below the minimum."""
    team = seat % st.options.teams
    if st.opened[team] or not st.melds[team]:
        return None
    minimum = initial_minimum(st.options, st.scores[team])
    shown = sum(VALUE_OF[c] for cards in st.melds[team].values() for c in cards)
    return IllegalAction(
        "initial_meld_incomplete",
        f"Your side's first melds are worth {shown} of the {minimum} points it needs this "
        "turn: meld the rest of them before you end your turn.",
    )
