"""Legal actions of Modern American Canasta for the seat to move, and the two searches the
rules share with the listing: openings (first melds reaching the minimum with a clean triple)
and a way out (melds leaving one card to discard with the going-out conditions met).

Draws, discards, questions, answers and special hands are listed exhaustively; melds and pile
takes canonically (per rank: all naturals, one natural, with one wild card; wild melds; the
openings the search finds; the way out). Every listed action is accepted by the rules: most
are checked by the rules' own validators; discards and the one-meld actions of an open side
past its initial-meld turn by the same conditions reduced to counts over the hand (computed
once per state). The searches first test cheap necessary conditions (a clean triple and the
minimum within reach; at most one card left over) and return nothing when they fail."""

from __future__ import annotations

from ..actions import (
    Action,
    AnswerPartner,
    AskPartner,
    DeclareSpecialHand,
    Discard,
    Draw,
    Meld,
    MeldGroup,
    TakePile,
)
from ..cards import IS_THREE, IS_WILD, JOKER, RANK_OF, WILD_RANK
from ..errors import IllegalAction
from ..legal import DISCARDS, DRAWS
from ..state import PERMISSION_YES, PHASE_ANSWER, PHASE_DRAW, PHASE_PLAY, GameState
from .melds import ACE, CANASTA, MAC_VALUE, SEVEN, dead_ranks, ext_of, initial_minimum
from .rules import (
    SEARCHES,
    ask_error,
    can_keep_three,
    discard_error,
    meld_check,
    opening_facts,
    partial_opening,
    special_hand_error,
    swad,
    take_pile_error,
)
from .special import SPECIAL_HANDS_SIZE, special_values

OPENINGS_WANTED = 4
SEARCH_NODES = 4000


def split_hand(hand: list[int]) -> tuple[dict[int, list[int]], list[int]]:
    by_rank: dict[int, list[int]] = {}
    wilds: list[int] = []
    for c in sorted(hand):
        if IS_WILD[c]:
            wilds.append(c)
        elif not IS_THREE[c]:
            by_rank.setdefault(RANK_OF[c], []).append(c)
    wilds.sort(key=lambda c: (c != JOKER, c))  # jokers first: they weigh most
    return by_rank, wilds


RANK_VALUE: tuple[int, ...] = tuple(MAC_VALUE[r * 4] for r in range(WILD_RANK))


def opening_possible(
    hand: list[int],
    dead: set[int],
    existing: dict[int, list[int]],
    need: int,
    clean: bool,
    wild_core: bool,
    pile_rank: int,
) -> bool:
    """Necessary conditions for the opening search to find anything: a clean triple within
    reach (already laid, a live rank with three naturals, or a wild meld of three with the
    wild-meld core) and value enough: the wild cards, live ranks held three or more (or
    already melded) and the best pairs that wild cards could make melds of (one each)."""
    counts = [0] * WILD_RANK
    wild_n = 0
    total = 0
    for c in hand:
        if IS_WILD[c]:
            wild_n += 1
            total += MAC_VALUE[c]
        elif not IS_THREE[c]:
            counts[RANK_OF[c]] += 1
    pairs: list[int] = []
    for r, n in enumerate(counts):
        if not n or r in dead:
            continue
        old = existing.get(r)
        if old is not None:
            total += RANK_VALUE[r] * n
            if not clean and len(old) + n - (r == pile_rank) >= 3:
                clean = True
        elif n >= 3:
            total += RANK_VALUE[r] * n
            if n - (r == pile_rank) >= 3:
                clean = True
        elif n == 2 and r != SEVEN:
            pairs.append(RANK_VALUE[r] * 2)
    if not clean and wild_core:
        w_old = existing.get(WILD_RANK)
        clean = wild_n + (len(w_old) if w_old is not None else 0) >= 3
    if not clean:
        return False
    if total >= need:
        return True
    if wild_n and pairs:
        pairs.sort(reverse=True)
        total += sum(pairs[:wild_n])
    return total >= need


def cards_left_over(hand: list[int], melds: dict[int, list[int]], dead: set[int]) -> int:
    """Cards of the hand that no meld of the way-out search takes: threes, dead ranks, ranks
    held below three without a meld of them, naturals beyond a meld's seven."""
    counts = [0] * WILD_RANK
    left = 0
    for c in hand:
        if IS_THREE[c]:
            left += 1
        elif not IS_WILD[c]:
            counts[RANK_OF[c]] += 1
    for r, n in enumerate(counts):
        if not n:
            continue
        if r in dead:
            left += n
            continue
        old = melds.get(r)
        if old is not None:
            left += max(0, n - (CANASTA - len(old)))
        elif n < 3:
            left += n
        elif n > CANASTA:
            left += n - CANASTA
    return left


def opening_groups(
    st: GameState, seat: int, hand: list[int], trio: tuple[int, ...] = ()
) -> list[tuple[MeldGroup, ...]]:
    """Sets of melds from ``hand`` that complete the side's opening (after the pile trio
    ``trio`` = top card + pair, when taking). Canonical and bounded, best first."""
    team = st.team_of(seat)
    ext = ext_of(st)
    existing = st.melds[team]
    pile_top = ext.pile_top
    if trio:
        pile_top = trio[0]
        existing = {r: list(c) for r, c in existing.items()}
        existing.setdefault(RANK_OF[trio[0]], []).extend(trio)
    value0, clean0 = opening_facts(st.options, existing, pile_top)
    need = initial_minimum(st.scores[team]) - value0
    dead = dead_ranks(st)
    pile_rank = RANK_OF[pile_top] if pile_top >= 0 else -1
    wild_core = st.options.initial_meld_core == "clean_triple_or_wild_meld"
    if not opening_possible(hand, dead, existing, need, clean0, wild_core, pile_rank):
        return []
    by_rank, wilds = split_hand(hand)
    ranks = sorted(
        (r for r in by_rank if r not in dead and (len(by_rank[r]) >= 2 or r in existing)),
        key=lambda r: -MAC_VALUE[by_rank[r][0]] * len(by_rank[r]),
    )
    out: list[tuple[MeldGroup, ...]] = []
    nodes = 0
    w_old = existing.get(WILD_RANK)
    wild_starts: list[int] = [0]
    if w_old is not None:
        if len(w_old) < CANASTA:
            wild_starts = sorted({min(len(wilds), CANASTA - len(w_old)), 0}, reverse=True)
    elif len(wilds) >= 3:
        wild_starts = sorted({min(len(wilds), CANASTA), 3, 0}, reverse=True)
    max_rank_value = {r: MAC_VALUE[by_rank[r][0]] * len(by_rank[r]) for r in ranks}

    def dfs(
        i: int, wi: int, value: int, clean: bool, open_w: bool, chosen: list[MeldGroup]
    ) -> None:
        nonlocal nodes
        nodes += 1
        if len(out) >= OPENINGS_WANTED or nodes > SEARCH_NODES:
            return
        if value >= need and clean and chosen:
            out.append(tuple(chosen))
            return
        if i == len(ranks):
            return
        rest = sum(max_rank_value[r] for r in ranks[i:]) + sum(MAC_VALUE[c] for c in wilds[wi:])
        if value + rest < need:
            return
        r = ranks[i]
        nat = by_rank[r]
        old = existing.get(r, [])
        old_w = sum(1 for c in old if IS_WILD[c])
        counts = [min(len(nat), CANASTA - len(old))]
        if not old and len(nat) > 3:
            counts.append(3)
        if old and len(nat) > 1:
            counts.append(1)
        aces_ok = r != ACE or pile_rank != ACE
        for k in counts:
            if k <= 0:
                continue
            nat_after = len(old) - old_w + k
            for w in (0, 1, 2):
                if w and (r == SEVEN or not aces_ok or open_w or wi + w > len(wilds)):
                    break
                size = len(old) + k + w
                wild_total = old_w + w
                if size > CANASTA or size < 3 or nat_after < 2 or wild_total > min(2, nat_after):
                    continue
                if size == CANASTA and wild_total:
                    continue
                cards = tuple(nat[:k]) + tuple(wilds[wi : wi + w])
                v = sum(MAC_VALUE[c] for c in cards)
                hand_nat = nat_after - (1 if r == pile_rank else 0)
                c2 = clean or (wild_total == 0 and hand_nat >= 3)
                dfs(i + 1, wi + w, value + v, c2, open_w, [*chosen, MeldGroup(r, cards)])
        dfs(i + 1, wi, value, clean, open_w, chosen)

    for n in wild_starts:
        if n and w_old is None and n < 3:
            continue
        group = [MeldGroup(WILD_RANK, tuple(wilds[:n]), kind="wild")] if n else []
        size = len(w_old or ()) + n
        open_w = (w_old is not None or n > 0) and size < CANASTA
        clean = clean0 or (wild_core and size >= 3)
        dfs(0, n, sum(MAC_VALUE[c] for c in wilds[:n]), clean, open_w, group)
    return out


def openings(st: GameState, seat: int) -> list[Meld]:
    """Meld actions that open the side now (validated)."""
    if st.phase != PHASE_PLAY or st.opened[st.team_of(seat)]:
        return []
    out = []
    for groups in opening_groups(st, seat, st.hands[seat]):
        action = Meld(seat, groups)
        try:
            meld_check(st, seat, groups, require_open=True)
        except IllegalAction:
            continue
        out.append(action)
    return out


def out_plan(st: GameState, seat: int) -> Meld | None:
    """Melds leaving exactly one card, after which the discard goes out (or None)."""
    team = st.team_of(seat)
    if st.phase != PHASE_PLAY or not st.opened[team] or len(st.hands[seat]) < 2:
        return None
    melds = st.melds[team]
    dead = dead_ranks(st)
    if cards_left_over(st.hands[seat], melds, dead) > 1:
        return None  # at least two cards would stay in the hand
    by_rank, wilds = split_hand(st.hands[seat])
    groups: list[MeldGroup] = []
    sizes: dict[int, list[int]] = {}
    for r, nat in by_rank.items():
        if r in dead:
            continue
        old = melds.get(r)
        if old is not None:
            k = min(len(nat), CANASTA - len(old))
            if k:
                sizes[r] = [
                    len(old) - sum(1 for c in old if IS_WILD[c]) + k,
                    sum(1 for c in old if IS_WILD[c]),
                    len(old) + k,
                ]
                groups.append(MeldGroup(r, tuple(nat[:k])))
        elif len(nat) >= 3:
            k = min(len(nat), CANASTA)
            sizes[r] = [k, 0, k]
            groups.append(MeldGroup(r, tuple(nat[:k])))
    w_old = melds.get(WILD_RANK)
    if wilds:
        if w_old is not None and len(w_old) < CANASTA:
            groups.append(MeldGroup(WILD_RANK, tuple(wilds[: CANASTA - len(w_old)]), kind="wild"))
        elif w_old is None and len(wilds) >= CANASTA:
            groups.append(MeldGroup(WILD_RANK, tuple(wilds[:CANASTA]), kind="wild"))
        elif w_old is not None:
            left = list(wilds)
            for i, g in enumerate(groups):
                r = g.rank
                if r == SEVEN or r not in sizes or not left:
                    continue
                nat_n, wild_n, size = sizes[r]
                old = melds.get(r, [])
                if r == ACE and not any(IS_WILD[c] for c in old):
                    continue
                add = []
                while left and wild_n < 2 and size < CANASTA and nat_n >= 5 and wild_n < nat_n:
                    add.append(left.pop(0))
                    wild_n += 1
                    size += 1
                if add:
                    groups[i] = MeldGroup(r, g.cards + tuple(add))
    used = sum(len(g.cards) for g in groups)
    left_n = len(st.hands[seat]) - used
    tries: list[tuple[MeldGroup, ...]] = []
    if left_n == 1:
        tries.append(tuple(groups))
    elif left_n == 0:
        for i, g in enumerate(groups):
            if len(g.cards) > 1:
                tries.append(
                    tuple(groups[:i])
                    + (MeldGroup(g.rank, g.cards[:-1], g.kind),)
                    + tuple(groups[i + 1 :])
                )
            else:
                tries.append(tuple(groups[:i]) + tuple(groups[i + 1 :]))
    for groups_try in tries:
        if not groups_try:
            continue
        try:
            plan, _, _ = meld_check(st, seat, groups_try)
        except IllegalAction:
            continue
        if len(plan.hand) == 1:
            return Meld(seat, groups_try)
    return None


SEARCHES["openings"] = openings
SEARCHES["out_plan"] = out_plan


def take_candidates(st: GameState, seat: int) -> list[TakePile]:
    if not st.pile:
        return []
    top = st.pile[-1]
    if IS_WILD[top]:
        return []
    rank = RANK_OF[top]
    hand = [c for c in st.hands[seat] if not IS_THREE[c]]
    nat = sorted(c for c in hand if RANK_OF[c] == rank and not IS_WILD[c])
    if len(nat) < 2 or rank in dead_ranks(st):
        return []
    team = st.team_of(seat)
    pair = tuple(nat[:2])
    out: list[TakePile] = []
    if st.opened[team]:
        out.append(TakePile(seat, pair))
        if len(nat) > 2:
            out.append(TakePile(seat, tuple(nat[: CANASTA - 1])))
    else:
        rest = hand[:]
        for c in pair:
            rest.remove(c)
        for groups in opening_groups(st, seat, rest, (top, *pair)):
            out.append(TakePile(seat, pair, groups))
    return [a for a in out if take_pile_error(st, a) is None]


def meld_candidates(
    melds: dict[int, list[int]], dead: set[int], by_rank: dict[int, list[int]], wilds: list[int]
) -> list[MeldGroup]:
    """One-meld candidates of an open side (each is a whole meld action)."""
    out: list[MeldGroup] = []
    for r, nat in by_rank.items():
        if r in dead:
            continue
        old = melds.get(r)
        if old is not None:
            k = min(len(nat), CANASTA - len(old))
            if k <= 0:
                continue
            out.append(MeldGroup(r, tuple(nat[:k])))
            if k > 1:
                out.append(MeldGroup(r, tuple(nat[:1])))
            if wilds and k < CANASTA - len(old):
                out.append(MeldGroup(r, tuple(nat[:k]) + (wilds[-1],)))
        elif len(nat) >= 3:
            k = min(len(nat), CANASTA)
            out.append(MeldGroup(r, tuple(nat[:k])))
            if k > 3:
                out.append(MeldGroup(r, tuple(nat[:3])))
            if wilds and k < CANASTA:
                out.append(MeldGroup(r, tuple(nat[:k]) + (wilds[-1],)))
    if not wilds:
        return out
    for r, old in melds.items():
        if r != WILD_RANK and len(old) < CANASTA:
            out.append(MeldGroup(r, (wilds[-1],)))
    w_old = melds.get(WILD_RANK)
    if w_old is not None and len(w_old) < CANASTA:
        out.append(MeldGroup(WILD_RANK, (wilds[-1],), kind="wild"))
        n = min(len(wilds), CANASTA - len(w_old))
        if n > 1:
            out.append(MeldGroup(WILD_RANK, tuple(wilds[:n]), kind="wild"))
    elif w_old is None and len(wilds) >= 3:
        out.append(MeldGroup(WILD_RANK, tuple(wilds[-3:]), kind="wild"))
        n = min(len(wilds), CANASTA)
        if n > 3:
            out.append(MeldGroup(WILD_RANK, tuple(wilds[:n]), kind="wild"))
    return out


class LayOffFacts:
    """What a one-meld action of an open side (past its initial-meld turn, no "yes" from the
    partner) is checked against, computed once per state: the rules' meld and leave checks
    reduced to counts (``meld_check`` gives the same verdict)."""

    __slots__ = (
        "melds",
        "dead",
        "hand_n",
        "counts",
        "non_three",
        "safe",
        "open_discard",
        "wild_meld_open",
        "rule_of_five",
    )

    def __init__(self, st: GameState, seat: int, dead: set[int]) -> None:
        hand = st.hands[seat]
        self.melds = st.melds[st.team_of(seat)]
        self.dead = dead
        self.hand_n = len(hand)
        counts = [0] * WILD_RANK
        non_three = safe = 0
        for c in hand:
            if IS_THREE[c]:
                continue
            non_three += 1
            if not IS_WILD[c]:
                r = RANK_OF[c]
                counts[r] += 1
                if r != SEVEN and r != ACE and r not in dead:
                    safe += 1
        self.counts = counts
        self.non_three = non_three  # cards that may be discarded onto a pile
        self.safe = safe  # naturals that may go onto the empty pile
        self.open_discard = bool(st.pile) or ext_of(st).swad_lifted
        w_old = self.melds.get(WILD_RANK)
        self.wild_meld_open = w_old is not None and len(w_old) < CANASTA
        self.rule_of_five = st.options.rule_of_five

    def verdict(self, g: MeldGroup) -> bool | None:
        """Whether the single meld ``g`` (cards from the hand) is accepted; None when it leaves
        at most one card (going out is the rules' own check)."""
        k = len(g.cards)
        if self.hand_n - k <= 1:
            return None
        r = g.rank
        old = self.melds.get(r)
        size = k + (len(old) if old is not None else 0)
        if size > CANASTA or (old is None and size < 3):
            return False
        added_w = 0
        for c in g.cards:
            if IS_WILD[c]:
                added_w += 1
        nat_added = k - added_w
        if r != WILD_RANK:
            if r in self.dead:
                return False
            old_w = 0
            if old is not None:
                for c in old:
                    if IS_WILD[c]:
                        old_w += 1
            wilds = old_w + added_w
            naturals = size - wilds
            if naturals < 2 or wilds > min(2, naturals):
                return False
            if added_w and (
                r == SEVEN
                or (r == ACE and not old_w)
                or (self.rule_of_five and naturals < 5)
                or self.wild_meld_open
            ):
                return False
        if self.open_discard:
            return self.non_three - k > 0
        safe = self.safe
        if r != WILD_RANK and r != SEVEN and r != ACE:
            safe -= self.counts[r] if size >= CANASTA else nat_added
        return safe > 0


def special_hands_possible(hand: list[int]) -> bool:
    """A necessary condition for any special hand: 14 cards whose natural ranks (threes
    included) are all single (a Straight) or all at least pairs (the others)."""
    if len(hand) != SPECIAL_HANDS_SIZE:
        return False
    counts = [0] * WILD_RANK
    for c in hand:
        if not IS_WILD[c]:
            counts[RANK_OF[c]] += 1
    return not (1 in counts and any(n >= 2 for n in counts))


ANSWERS = tuple((AnswerPartner(seat, True), AnswerPartner(seat, False)) for seat in range(4))
KEEP_THREE_DRAWS = tuple(Draw(seat, keep_three=True) for seat in range(4))


def discards(st: GameState, seat: int, dead: set[int]) -> list[Action]:
    hand = st.hands[seat]
    if len(hand) == 1 or st.permission == PERMISSION_YES:
        return [Discard(seat, c) for c in sorted(set(hand)) if discard_error(st, seat, c) is None]
    shared = DISCARDS[seat]
    has_natural = False
    for c in hand:
        if not IS_WILD[c] and not IS_THREE[c]:
            has_natural = True
            break
    open_pile = bool(st.pile) or ext_of(st).swad_lifted
    out: list[Action] = []
    for c in sorted(set(hand)):
        if IS_THREE[c] or (IS_WILD[c] and has_natural):
            continue
        if open_pile or not swad(c, dead):
            out.append(shared[c])
    return out


def legal_actions(st: GameState) -> list[Action]:
    seat = st.to_act
    if st.phase == PHASE_ANSWER:
        return list(ANSWERS[seat])
    if st.phase == PHASE_DRAW:
        actions: list[Action] = [DRAWS[seat]]
        if can_keep_three(st, seat):
            actions.append(KEEP_THREE_DRAWS[seat])
        actions += take_candidates(st, seat)
        return actions
    if st.phase != PHASE_PLAY:
        return []
    team = st.team_of(seat)
    if partial_opening(st, team):
        return list(openings(st, seat))
    dead = dead_ranks(st)
    actions = discards(st, seat, dead)
    melds: list[Action] = []
    if st.opened[team]:
        by_rank, wilds = split_hand(st.hands[seat])
        facts: LayOffFacts | None = None
        if not ext_of(st).initial_turn and st.permission != PERMISSION_YES:
            facts = LayOffFacts(st, seat, dead)
        for g in meld_candidates(st.melds[team], dead, by_rank, wilds):
            ok = facts.verdict(g) if facts is not None else None
            if ok is None:
                try:
                    meld_check(st, seat, (g,))
                except IllegalAction:
                    continue
            elif not ok:
                continue
            melds.append(Meld(seat, (g,)))
    else:
        melds += openings(st, seat)
    way_out = out_plan(st, seat)
    if way_out is not None and way_out not in melds:
        melds.append(way_out)
    actions += melds
    ext = ext_of(st)
    if ext.fresh and not st.melds[team] and special_hands_possible(st.hands[seat]):
        for name in special_values(st.options.special_hands):
            if special_hand_error(st, seat, name) is None:
                actions.append(DeclareSpecialHand(seat, name))
    if way_out is not None and st.options.can_ask_partner and ask_error(st, seat) is None:
        actions.append(AskPartner(seat))
    return actions
