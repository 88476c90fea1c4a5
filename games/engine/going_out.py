"""The going-out planners: whether and how a seat can meld its whole hand now.

``going_out_plan`` (asking the partner, the binding "yes", the listed way out), ``out_plan`` (the
same for any hand beside any melds), ``meld_all`` (every card of a hand melded with the canastas
to go out) and ``completion`` (what completes a first meld laid below the minimum). The rules
(``rules.py``) use them to validate actions and the legal actions (``legal.py``) to list them.
"""

from __future__ import annotations

from .actions import MeldGroup
from .cards import (
    IS_RED_THREE,
    IS_WILD,
    JOKER,
    RANK_OF,
    THREE,
    VALUE_OF,
    WILD_RANK,
)
from .melds import CANASTA_SIZE, initial_meld_need, wild_cap
from .state import PERMISSION_NO, PERMISSION_YES, PHASE_PLAY, GameState

# RANK_OF with red threes moved to a rank of their own (14), for counting a hand in one pass.
RANK_OF_RED: tuple[int, ...] = tuple(
    14 if IS_RED_THREE[c] else RANK_OF[c] for c in range(JOKER + 1)
)


GoingOut = tuple[tuple[MeldGroup, ...], int | None]


def going_out_possible(st: GameState, seat: int) -> bool:
    return going_out_plan(st, seat) is not None


def going_out_plan(st: GameState, seat: int) -> GoingOut | None:
    """Melds that get rid of the seat's whole hand now (leaving at most one card to discard), or
    None when the seat cannot go out this turn. Used for asking the partner, for the binding
    'yes', and listed among the legal actions."""
    if st.phase != PHASE_PLAY or st.permission == PERMISSION_NO:
        return None
    team = seat % st.options.teams
    return out_plan(st, team, st.hands[seat], st.melds[team], initial_meld_need(st, team))


def out_plan(
    st: GameState, team: int, hand: list[int], melds: dict[int, list[int]], need: int
) -> GoingOut | None:
    """A way to go out from ``hand`` beside ``melds``: groups to meld and the card to discard;
    the melded cards must be worth ``need`` points (what the initial meld still lacks).

    Cheap necessary conditions are checked first (a card that can be neither melded nor
    discarded, too few possible canastas); then each possible discard is tried, one card per
    rank or wild kind, as any other card of the same kind gives the same result.
    """
    opts = st.options
    counts = [0] * 15
    wilds = 0
    is_wild, rank_of = IS_WILD, RANK_OF_RED  # red threes count under rank 14
    for c in hand:
        if is_wild[c]:
            wilds += 1
        else:
            counts[rank_of[c]] += 1
    # Cards that cannot be melded: red threes, one or two black threes, a lone natural without
    # a team meld of its rank. At most one of them can go, as the discard.
    if counts[14] and (not opts.red_three_discard or st.no_discard):
        return None
    stuck = counts[14] + (counts[THREE] if counts[THREE] in (1, 2) else 0)
    stuck_rank = 14 if counts[14] else THREE
    for rank in range(1, 12):
        if counts[rank] == 1 and rank not in melds:
            stuck += 1
            stuck_rank = rank
    if stuck > (0 if st.no_discard else 1):
        return None
    canastas_needed = opts.canastas_to_go_out
    have = possible = 0
    for rank, existing in melds.items():
        size = len(existing)
        if size >= CANASTA_SIZE:
            have += 1
        elif rank == WILD_RANK:
            if size + wilds >= CANASTA_SIZE:
                possible += 1
        elif rank != THREE and size + counts[rank] + wilds >= CANASTA_SIZE:
            e_wild = 0
            for c in existing:
                if is_wild[c]:
                    e_wild += 1
            n = counts[rank]
            room = wild_cap(opts, size - e_wild + n) - e_wild
            if size + n + min(wilds, max(room, 0)) >= CANASTA_SIZE:
                possible += 1
    if have < canastas_needed:
        for rank in range(1, 12):
            n = counts[rank]
            if n >= 2 and rank not in melds and n + min(wilds, wild_cap(opts, n)) >= CANASTA_SIZE:
                possible += 1
        if opts.wild_canasta and WILD_RANK not in melds and wilds >= CANASTA_SIZE:
            possible += 1
        if have + possible < canastas_needed:
            return None
    choices: list[int | None] = [] if stuck else [None]
    if not st.no_discard:
        tried: set[int] = set()
        for c in sorted(set(hand)):
            if IS_WILD[c]:
                kind = c
            else:
                kind = 14 if IS_RED_THREE[c] else RANK_OF[c]
                if stuck:
                    if kind != stuck_rank:
                        continue  # the card that cannot be melded must be the discard
                elif kind == THREE:
                    if counts[THREE] != 4:
                        continue  # three black threes are melded whole
                elif counts[kind] == 2 and kind not in melds:
                    continue  # discarding one of a pair would leave a lone card
            if kind in tried:
                continue
            tried.add(kind)
            choices.append(c)
    for discard in choices:
        rest = hand[:]
        if discard is not None:
            rest.remove(discard)
        groups = meld_all(st, team, rest, melds, need)
        if groups is not None:
            return groups, discard
    return None


def meld_all(
    st: GameState, team: int, cards: list[int], melds: dict[int, list[int]], need: int = 0
) -> tuple[MeldGroup, ...] | None:
    """Groups melding every card in ``cards`` onto/beside the team's melds so that the team then
    holds the canastas needed to go out, worth at least ``need`` points (what the initial meld
    still lacks); None if there are none."""
    opts = st.options
    by_rank: dict[int, list[int]] = {}
    wilds: list[int] = []
    value = 0
    for c in cards:
        if IS_RED_THREE[c]:
            return None
        if IS_WILD[c]:
            wilds.append(c)
        else:
            by_rank.setdefault(RANK_OF[c], []).append(c)
        value += VALUE_OF[c]
    blacks = by_rank.pop(THREE, [])
    if len(blacks) not in (0, 3, 4):
        return None
    if value < need:
        return None
    wilds.sort(key=lambda c: VALUE_OF[c])
    plan: dict[int, list[int]] = {}  # rank -> cards from the hand
    size: dict[int, int] = {}
    cap: dict[int, int] = {}
    canastas = sum(1 for r, cs in melds.items() if r in (THREE, WILD_RANK) and len(cs) >= 7)
    for rank in range(1, 12):
        existing = melds.get(rank)
        naturals = by_rank.get(rank, [])
        if existing is None and not naturals:
            continue
        if existing is None and len(naturals) == 1:
            return None
        e_wild = sum(1 for c in existing if IS_WILD[c]) if existing else 0
        e_nat = len(existing) - e_wild if existing else 0
        plan[rank] = list(naturals)
        size[rank] = len(existing or ()) + len(naturals)
        cap[rank] = wild_cap(opts, e_nat + len(naturals)) - e_wild
        if size[rank] < 3:  # a new meld of a natural pair takes one wild card
            if not wilds or cap[rank] < 1:
                return None
            plan[rank].append(wilds.pop())
            size[rank] += 1
            cap[rank] -= 1
    # Spend spare wild cards on completing canastas first (smallest need first), then anywhere.
    for rank in sorted(size, key=lambda r: CANASTA_SIZE - size[r]):
        need = CANASTA_SIZE - size[rank]
        if 0 < need <= cap[rank] and need <= len(wilds):
            for _ in range(need):
                plan[rank].append(wilds.pop())
            size[rank] += need
            cap[rank] -= need
    for rank in size:
        while wilds and cap[rank] > 0:
            plan[rank].append(wilds.pop())
            size[rank] += 1
            cap[rank] -= 1
    canastas += sum(1 for r in size if size[r] >= CANASTA_SIZE)
    groups = [MeldGroup(r, tuple(cs)) for r, cs in plan.items() if cs]
    if wilds:
        wild_meld = melds.get(WILD_RANK, [])
        if not opts.wild_canasta or len(wild_meld) + len(wilds) < 3:
            return None
        if len(wild_meld) < CANASTA_SIZE <= len(wild_meld) + len(wilds):
            canastas += 1
        groups.append(MeldGroup(WILD_RANK, tuple(wilds)))
    if blacks:
        groups.append(MeldGroup(THREE, tuple(blacks)))
    if canastas < opts.canastas_to_go_out:
        return None
    return tuple(groups)


def completion(
    st: GameState, seat: int, hand: list[int], melds: dict[int, list[int]], need: int
) -> tuple[MeldGroup, ...] | None:
    """Melds from ``hand`` beside or onto ``melds`` (the side's melds of this turn) worth at
    least ``need`` points, after which the turn can still end legally: a way out, or melds that
    keep a card to discard and one more (one card when the turn ends without a discard). A
    first meld below the minimum is accepted only when such melds exist; None when none do."""
    team = seat % st.options.teams
    if st.permission != PERMISSION_NO:
        out = out_plan(st, team, hand, melds, need)
        if out is not None and out[0]:
            return out[0]
    if st.permission == PERMISSION_YES:
        return None  # bound to go out
    return _melds_keeping(st, hand, melds, need)


Picks = tuple[tuple[int, int], ...]  # (rank, natural cards of that rank melded)


def _melds_keeping(
    st: GameState, hand: list[int], melds: dict[int, list[int]], need: int
) -> tuple[MeldGroup, ...] | None:
    """The fewest cards of ``hand`` that meld for at least ``need`` points (new melds, lay-offs
    on ``melds``) and keep the cards needed to end the turn without going out; None if none.

    A dynamic programme over the ranks (the natural cards of a rank are worth the same): for
    each count of natural cards used, wild cards the new pairs need and room for wild cards,
    the richest choice; the wild cards are added last, the most valuable first."""
    opts = st.options
    naturals: dict[int, list[int]] = {}
    wilds: list[int] = []
    for c in hand:
        if IS_WILD[c]:
            wilds.append(c)
        elif 1 <= RANK_OF[c] <= 11:
            naturals.setdefault(RANK_OF[c], []).append(c)
    most = len(hand) - (1 if st.no_discard else 2)
    if not st.no_discard and not opts.red_three_discard:
        most = min(most, sum(1 for c in hand if not IS_RED_THREE[c]) - 1)
    if most <= 0:
        return None
    wilds.sort(key=lambda c: -VALUE_OF[c])
    n_wilds = len(wilds)
    ranks = sorted(set(naturals) | {r for r in melds if 1 <= r <= 11})
    states: dict[tuple[int, int, int], tuple[int, Picks]] = {(0, 0, 0): (0, ())}
    for rank in ranks:
        cards = naturals.get(rank, [])
        existing = melds.get(rank)
        choices: list[tuple[int, int, int]] = []  # naturals used, wild cards needed, room
        if existing is not None:
            e_wild = sum(1 for c in existing if IS_WILD[c])
            e_nat = len(existing) - e_wild
            for j in range(len(cards) + 1):
                choices.append((j, 0, max(0, wild_cap(opts, e_nat + j) - e_wild)))
        else:
            choices.append((0, 0, 0))
            for j in range(2, len(cards) + 1):
                room = wild_cap(opts, j)
                if j >= 3 or room >= 1:
                    choices.append((j, 1 if j == 2 else 0, room))
        worth_each = VALUE_OF[cards[0]] if cards else 0
        after: dict[tuple[int, int, int], tuple[int, Picks]] = {}
        for (used, needed, room), (worth, picks) in states.items():
            for j, w_need, w_room in choices:
                key = (used + j, needed + w_need, min(room + w_room, n_wilds))
                if key[0] > most or key[1] > n_wilds:
                    continue
                entry = (worth + j * worth_each, (*picks, (rank, j)) if j else picks)
                known = after.get(key)
                if known is None or known[0] < entry[0]:
                    after[key] = entry
        states = after
    wild_meld = opts.wild_canasta
    open_wild = wild_meld and WILD_RANK in melds
    prefix = [0]
    for w in wilds:
        prefix.append(prefix[-1] + VALUE_OF[w])
    best: tuple[int, int, Picks, int] | None = None  # cards, value, picks, wild cards
    for (used, needed, room), (worth, picks) in states.items():
        for w in range(needed, n_wilds + 1):
            if used + w > most:
                break
            if w > room and not open_wild and not (wild_meld and w >= needed + 3):
                continue
            if worth + prefix[w] >= need:
                found = (used + w, worth + prefix[w], picks, w)
                if best is None or found[:2] < best[:2]:
                    best = found
                break
    if best is None:
        return None
    _, _, picks, w = best
    chosen = dict(picks)
    spare = wilds[:w]
    groups: dict[int, list[int]] = {rank: naturals[rank][:j] for rank, j in picks}
    rooms: dict[int, int] = {}
    for rank in ranks:
        existing = melds.get(rank)
        if existing is None and rank not in chosen:
            continue
        e_wild = sum(1 for c in existing if IS_WILD[c]) if existing else 0
        e_nat = len(existing) - e_wild if existing else 0
        rooms[rank] = max(0, wild_cap(opts, e_nat + chosen.get(rank, 0)) - e_wild)
        if existing is None and chosen[rank] == 2:  # a new natural pair takes one wild card
            groups[rank].append(spare.pop())
            rooms[rank] -= 1
    overflow = len(spare) - sum(rooms.values())
    extra: list[MeldGroup] = []
    if overflow > 0:  # the wild meld takes what the other melds have no room for
        take = overflow if open_wild else max(3, overflow)
        extra.append(MeldGroup(WILD_RANK, tuple(spare.pop() for _ in range(take))))
    for rank in rooms:
        while spare and rooms[rank] > 0:
            groups.setdefault(rank, []).append(spare.pop())
            rooms[rank] -= 1
    return tuple(MeldGroup(r, tuple(cs)) for r, cs in sorted(groups.items()) if cs) + tuple(extra)
