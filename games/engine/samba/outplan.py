"""The going-out planner for Samba and Bolivia: melds placing every card of a hand (or all but
one, which is then discarded) so that the side then holds what going out needs.

It is a greedy planner (naturals onto the side's groups of their rank or into new groups, single
naturals onto sequences they extend, wild cards where they complete canastas first); the rules
check every plan before it is offered or relied on.
"""

from __future__ import annotations

from ..actions import MeldGroup
from ..cards import (
    IS_BLACK_THREE,
    IS_NATURAL,
    IS_RED_THREE,
    IS_WILD,
    JOKER_RANK,
    RANK_OF,
    SUIT_OF,
    THREE,
    TWO,
    VALUE_OF,
    WILD_RANK,
)
from ..melds import wild_cap
from ..options import Options
from ..state import GameState
from .melds import (
    CANASTA_SIZE,
    SEQUENCE_MAX,
    WILD_MELD_MAX,
    go_out_error,
    group_rank,
)
from .state import GROUP, SEQUENCE, WILD, meld_name

Plan = tuple[tuple[MeldGroup, ...], int | None]
# The meld ids of each side by meld number (``meld_name``; higher numbers are formatted).
NAMES: tuple[tuple[str, ...], ...] = tuple(
    tuple(meld_name(team, num) for num in range(64)) for team in range(2)
)


def meld_all(
    opts: Options,
    team: int,
    cards: list[int],
    melds: dict[int, list[int]],
    kinds: dict[int, str],
) -> tuple[MeldGroup, ...] | None:
    """Groups melding every card of ``cards`` after which the side may go out; None if the
    planner finds none."""
    wilds: list[int] = []
    blacks: list[int] = []
    naturals: dict[int, list[int]] = {}
    for c in cards:
        if IS_RED_THREE[c]:
            return None
        if IS_WILD[c]:
            wilds.append(c)
        elif IS_BLACK_THREE[c]:
            blacks.append(c)
        else:
            naturals.setdefault(RANK_OF[c], []).append(c)
    if blacks and len(blacks) < 3:
        return None
    by_rank: dict[int, int] = {}
    rank_of: dict[int, int] = {}  # group meld number -> rank
    for num, kind in kinds.items():
        if kind == GROUP:
            existing = melds[num]
            first = existing[0]
            rank = group_rank(existing) if IS_WILD[first] else RANK_OF[first]
            rank_of[num] = rank
            if rank not in by_rank or len(melds[by_rank[rank]]) >= CANASTA_SIZE:
                by_rank[rank] = num  # prefer a group that can still take wild cards
    plan: dict[int, list[int]] = {}  # meld number -> cards added
    new_groups: list[tuple[int, list[int], list[int]]] = []  # rank, naturals, wilds
    singles: list[int] = []
    for rank, nats in naturals.items():
        if rank in by_rank:
            plan.setdefault(by_rank[rank], []).extend(nats)
        elif len(nats) >= 2:
            new_groups.append((rank, nats, []))
        else:
            singles.extend(nats)
    # Single naturals onto sequences they extend (repeatedly, lowest first).
    seq_ends: dict[int, list[int]] = {}
    if singles:
        for num, kind in kinds.items():
            existing = melds[num]
            if kind == SEQUENCE and len(existing) < SEQUENCE_MAX:
                # One suit's naturals: the lowest code is the lowest rank.
                low, high = min(existing) >> 2, max(existing) >> 2
                seq_ends[num] = [existing[0] & 3, low, high, len(existing)]
    progress = True
    while singles and progress:
        progress = False
        for c in sorted(singles):
            for num, (suit, low, high, size) in seq_ends.items():
                if SUIT_OF[c] != suit or size >= SEQUENCE_MAX:
                    continue
                rank = RANK_OF[c]
                if rank == low - 1 or rank == high + 1:
                    seq_ends[num] = [suit, min(low, rank), max(high, rank), size + 1]
                    plan.setdefault(num, []).append(c)
                    singles.remove(c)
                    progress = True
                    break
    if singles:
        return None
    wilds.sort()  # jokers last in the list: they are placed first
    # New natural pairs take one wild card each.
    for _rank, nats, ws in new_groups:
        if len(nats) == 2:
            if not wilds:
                return None
            ws.append(wilds.pop())
    # Room for wild cards on the groups (never on a group canasta).
    rooms: list[tuple[list[int], list[int]]] = []  # ([size, room], the list to add to)
    for num in by_rank.values():
        existing = melds[num]
        if len(existing) >= CANASTA_SIZE:
            continue
        added = plan.setdefault(num, [])
        e_wild = 0
        for c in existing:
            if IS_WILD[c]:
                e_wild += 1
        nat = len(existing) - e_wild + len(added)
        room = wild_cap(opts, nat) - e_wild
        if room > 0:
            rooms.append(([len(existing) + len(added), room], added))
    for _rank, nats, ws in new_groups:
        room = wild_cap(opts, len(nats)) - len(ws)
        if room > 0:
            rooms.append(([len(nats) + len(ws), room], ws))
    # Complete canastas first (fewest wild cards needed first), then anywhere.
    rooms.sort(key=lambda r: CANASTA_SIZE - r[0][0] if r[0][0] < CANASTA_SIZE else 99)
    for counts, target in rooms:
        need = CANASTA_SIZE - counts[0]
        if 0 < need <= counts[1] and need <= len(wilds):
            for _ in range(need):
                target.append(wilds.pop())
            counts[0] += need
            counts[1] -= need
    for counts, target in rooms:
        while wilds and counts[1] > 0:
            target.append(wilds.pop())
            counts[1] -= 1
    groups: list[MeldGroup] = []
    extra_wild: dict[int, list[int]] = {}
    if wilds:
        if not opts.wild_canasta:
            return None
        for num, kind in kinds.items():
            if kind == WILD and wilds:
                room = WILD_MELD_MAX - len(melds[num])
                if room > 0:
                    extra_wild[num] = [wilds.pop() for _ in range(min(room, len(wilds)))]
        while wilds:
            if len(wilds) < 3:
                return None
            take = min(WILD_MELD_MAX, len(wilds))
            groups.append(
                MeldGroup(WILD_RANK, tuple(wilds.pop() for _ in range(take)), WILD, None, True)
            )
    after = dict(melds)
    names = NAMES[team]
    for num, added in list(plan.items()) + list(extra_wild.items()):
        if added:
            kind = kinds[num]
            rank = (
                WILD_RANK if kind == WILD else rank_of[num] if kind == GROUP else RANK_OF[added[0]]
            )
            name = names[num] if num < len(names) else meld_name(team, num)
            groups.append(MeldGroup(rank, tuple(added), kind, name))
            after[num] = [*melds[num], *added]
    new_kinds = dict(kinds)
    fresh = max(melds, default=0) + 1000
    for rank, nats, ws in new_groups:
        groups.append(MeldGroup(rank, (*nats, *ws), GROUP, None, True))
        after[fresh] = [*nats, *ws]
        new_kinds[fresh] = GROUP
        fresh += 1
    for g in groups:
        if g.kind == WILD and g.new:
            after[fresh] = list(g.cards)
            new_kinds[fresh] = WILD
            fresh += 1
    if blacks:
        groups.append(MeldGroup(THREE, tuple(blacks), GROUP, None, True))
    if go_out_error(opts, after, new_kinds) is not None:
        return None
    return tuple(groups)


def out_plan(
    st: GameState,
    team: int,
    hand: list[int],
    melds: dict[int, list[int]],
    kinds: dict[int, str],
    need: int = 0,
) -> Plan | None:
    """Melds and a discard (or none) with which a hand goes out beside ``melds``, the melded
    cards worth at least ``need`` points (what the side's first melds still lack); None if the
    planner finds no way. The rules check the plan before relying on it.

    Quick necessary tests come first: at most one card may be unplaceable (a lone natural of a
    rank without a group, out of reach of its suit's open sequences; a red three; one or two
    black threes), and it is then the discard; natural pairs without a group need a wild card
    each; the canastas needed (and Bolivia's escalera) must be within reach of the hand.
    """
    opts = st.options
    if not hand:
        return ((), None) if need == 0 and go_out_error(opts, melds, kinds) is None else None
    counts = [0] * 15
    for c in hand:
        counts[RANK_OF[c]] += 1
    wilds = counts[TWO] + counts[JOKER_RANK]
    # The side's group ranks and open sequences: what a card of the hand can go onto.
    group_ranks = set()
    seq_ends: list[tuple[int, int, int, int]] = []  # suit, low, high, room
    for num, cards in melds.items():
        kind = kinds[num]
        if kind == GROUP:
            first = cards[0]
            group_ranks.add(group_rank(cards) if IS_WILD[first] else RANK_OF[first])
        elif kind == SEQUENCE and len(cards) < SEQUENCE_MAX:
            # One suit's naturals: the lowest code is the lowest rank.
            seq_ends.append(
                (cards[0] & 3, min(cards) >> 2, max(cards) >> 2, SEQUENCE_MAX - len(cards))
            )
    # Cards no meld can take: at most one, the discard (none without a discard).
    allowed = 0 if st.no_discard else 1
    stuck: list[int] = []
    if counts[THREE]:
        blacks = [c for c in hand if IS_BLACK_THREE[c]]
        if len(blacks) in (1, 2):
            stuck += blacks
        stuck += [c for c in hand if IS_RED_THREE[c]]
        if len(stuck) > allowed:
            return None
    lone = [r for r in range(1, 12) if counts[r] == 1 and r not in group_ranks]
    if not seq_ends and len(lone) + len(stuck) > allowed:
        return None  # no sequence to take any of them
    if lone:
        for c in hand:
            rank = RANK_OF[c]
            if rank in lone and not any(
                suit == SUIT_OF[c] and (0 < low - rank <= room or 0 < rank - high <= room)
                for suit, low, high, room in seq_ends
            ):
                stuck.append(c)
                if len(stuck) > allowed:
                    return None
    pairs = [rank for rank in range(1, 12) if counts[rank] == 2 and rank not in group_ranks]
    if len(pairs) > wilds + (0 if st.no_discard or stuck else 1):
        return None
    # The canastas needed (and Bolivia's escalera) must be within reach of the hand, with the
    # hand cards each canasta within reach still needs.
    want = opts.canastas_to_go_out
    bolivia = opts.family == "bolivia"
    have = 0
    escalera = False
    deficits = []
    by_suit: list[int] | None = None
    reach = CANASTA_SIZE - min(wilds, 2)  # a group and the hand's naturals of its rank
    for num, cards in melds.items():
        size = len(cards)
        kind = kinds[num]
        if kind == GROUP:
            if size >= CANASTA_SIZE:
                have += 1
                continue
            first = cards[0]
            rank = group_rank(cards) if IS_WILD[first] else RANK_OF[first]
            if size + counts[rank] >= reach and rank != THREE:
                deficits.append(CANASTA_SIZE - size)
        elif kind == SEQUENCE:
            if size >= SEQUENCE_MAX:
                have += 1
                escalera = True
                continue
            suit = SUIT_OF[cards[0]]
            if by_suit is None:
                by_suit = [0] * 4
                for c in hand:
                    if IS_NATURAL[c]:
                        by_suit[SUIT_OF[c]] += 1
            if size + by_suit[suit] >= SEQUENCE_MAX:
                deficits.append(SEQUENCE_MAX - size)
                escalera = True  # within reach
        elif size >= WILD_MELD_MAX:
            have += 1
        elif size + wilds >= WILD_MELD_MAX:
            deficits.append(WILD_MELD_MAX - size)
    if bolivia and not escalera:
        return None
    missing = want - have
    if missing > 0:
        for rank in range(1, 12):
            n = counts[rank]
            if n >= 2 and rank not in group_ranks and n + min(wilds, 2, n) >= CANASTA_SIZE:
                deficits.append(CANASTA_SIZE)
        if opts.wild_canasta and wilds >= WILD_MELD_MAX:
            deficits.append(WILD_MELD_MAX)
        if len(deficits) < missing:
            return None
        deficits.sort()
        if sum(deficits[:missing]) > len(hand):
            return None

    def attempt(discard: int | None) -> Plan | None:
        """The plan melding the hand but ``discard`` (None: the whole hand), if found."""
        rest = hand[:]
        if discard is not None:
            if IS_RED_THREE[discard] and not opts.red_three_discard:
                return None
            rest.remove(discard)
        if not rest:
            if need == 0 and go_out_error(opts, melds, kinds) is None:
                return (), discard
            return None
        if need and sum(VALUE_OF[c] for c in rest) < need:
            return None
        groups = meld_all(opts, team, rest, melds, kinds)
        return None if groups is None else (groups, discard)

    choices: list[int]
    if stuck:
        choices = [stuck[0]]  # the card that cannot be melded must be the discard
    elif len(pairs) > wilds:  # the discard breaks a pair
        choices = [next(c for c in hand if RANK_OF[c] == rank) for rank in pairs]
    else:
        found = attempt(None)  # melding the whole hand first, then each discard in turn
        if found is not None or st.no_discard:
            return found
        choices = sorted(set(hand), key=lambda card: (not IS_BLACK_THREE[card], card))
    for discard in choices:
        found = attempt(discard)
        if found is not None:
            return found
    return None
