"""Legal actions of Modern American Canasta for the seat to move, and the two searches the
rules share with the listing: openings (first melds reaching the minimum with a clean triple)
and a way out (melds leaving one card to discard with the going-out conditions met).

Draws, discards, questions, answers and special hands are listed exhaustively; melds and pile
takes canonically (per rank: all naturals, one natural, with one wild card; wild melds; the
openings the search finds; the way out). Every listed action is validated by the rules."""

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
from ..state import PHASE_ANSWER, PHASE_DRAW, PHASE_PLAY, GameState
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
    take_pile_error,
)
from .special import special_values

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


def opening_groups(
    st: GameState, seat: int, hand: list[int], trio: tuple[int, ...] = ()
) -> list[tuple[MeldGroup, ...]]:
    """Sets of melds from ``hand`` that complete the side's opening (after the pile trio
    ``trio`` = top card + pair, when taking). Canonical and bounded, best first."""
    team = st.team_of(seat)
    ext = ext_of(st)
    existing = {r: list(c) for r, c in st.melds[team].items()}
    pile_top = ext.pile_top
    if trio:
        pile_top = trio[0]
        existing.setdefault(RANK_OF[trio[0]], []).extend(trio)
    value0, clean0 = opening_facts(st.options, existing, pile_top)
    need = initial_minimum(st.scores[team]) - value0
    dead = dead_ranks(st)
    by_rank, wilds = split_hand(hand)
    pile_rank = RANK_OF[pile_top] if pile_top >= 0 else -1
    wild_core = st.options.initial_meld_core == "clean_triple_or_wild_meld"
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


def meld_candidates(st: GameState, seat: int) -> list[tuple[MeldGroup, ...]]:
    team = st.team_of(seat)
    melds = st.melds[team]
    dead = dead_ranks(st)
    by_rank, wilds = split_hand(st.hands[seat])
    out: list[tuple[MeldGroup, ...]] = []
    for r, nat in by_rank.items():
        if r in dead:
            continue
        old = melds.get(r)
        if old is not None:
            k = min(len(nat), CANASTA - len(old))
            if k <= 0:
                continue
            out.append((MeldGroup(r, tuple(nat[:k])),))
            if k > 1:
                out.append((MeldGroup(r, tuple(nat[:1])),))
            if wilds and k < CANASTA - len(old):
                out.append((MeldGroup(r, tuple(nat[:k]) + (wilds[-1],)),))
        elif len(nat) >= 3:
            k = min(len(nat), CANASTA)
            out.append((MeldGroup(r, tuple(nat[:k])),))
            if k > 3:
                out.append((MeldGroup(r, tuple(nat[:3])),))
            if wilds and k < CANASTA:
                out.append((MeldGroup(r, tuple(nat[:k]) + (wilds[-1],)),))
    for r, old in melds.items():
        if wilds and r != WILD_RANK and len(old) < CANASTA:
            out.append((MeldGroup(r, (wilds[-1],)),))
    w_old = melds.get(WILD_RANK)
    if wilds:
        if w_old is not None and len(w_old) < CANASTA:
            out.append((MeldGroup(WILD_RANK, (wilds[-1],), kind="wild"),))
            n = min(len(wilds), CANASTA - len(w_old))
            if n > 1:
                out.append((MeldGroup(WILD_RANK, tuple(wilds[:n]), kind="wild"),))
        elif w_old is None and len(wilds) >= 3:
            out.append((MeldGroup(WILD_RANK, tuple(wilds[-3:]), kind="wild"),))
            n = min(len(wilds), CANASTA)
            if n > 3:
                out.append((MeldGroup(WILD_RANK, tuple(wilds[:n]), kind="wild"),))
    return out


def legal_actions(st: GameState) -> list[Action]:
    seat = st.to_act
    if st.phase == PHASE_ANSWER:
        return [AnswerPartner(seat, True), AnswerPartner(seat, False)]
    if st.phase == PHASE_DRAW:
        actions: list[Action] = [Draw(seat)]
        if can_keep_three(st, seat):
            actions.append(Draw(seat, keep_three=True))
        actions += take_candidates(st, seat)
        return actions
    if st.phase != PHASE_PLAY:
        return []
    team = st.team_of(seat)
    if partial_opening(st, team):
        return list(openings(st, seat))
    actions = []
    for card in sorted(set(st.hands[seat])):
        if discard_error(st, seat, card) is None:
            actions.append(Discard(seat, card))
    melds: list[Action] = []
    if st.opened[team]:
        for groups in meld_candidates(st, seat):
            try:
                meld_check(st, seat, groups)
            except IllegalAction:
                continue
            melds.append(Meld(seat, groups))
    else:
        melds += openings(st, seat)
    way_out = out_plan(st, seat)
    if way_out is not None and way_out not in melds:
        melds.append(way_out)
    actions += melds
    for name in special_values(st.options.special_hands):
        if special_hand_error(st, seat, name) is None:
            actions.append(DeclareSpecialHand(seat, name))
    if st.options.can_ask_partner and ask_error(st, seat) is None:
        actions.append(AskPartner(seat))
    return actions
