"""Legal actions in Samba and Bolivia: draws, discards, declines, questions and answers are
listed exhaustively; pile takes for every way the top card can go (new trio, a pair onto each
group of its rank, the top card alone onto each meld that takes it, with the melds an initial
meld needs); melds canonically: each rank's naturals onto each of its groups or as a new group
(with or without one wild card), each wild card onto each group that may take it, wild melds,
new sequences from the hand's runs and their extensions, merges, openings reaching the minimum,
the first group of an opening laid in parts and what completes a first meld below the minimum,
and a whole going-out plan. Every listed action is accepted by ``apply``.

One-group melds valid by their shape are listed without planning while the side has opened,
keeps two cards and has no binding "yes" (``single_meld_ok`` and the full check otherwise)."""

from __future__ import annotations

from ..actions import (
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
from ..cards import (
    IS_NATURAL,
    IS_RED_THREE,
    IS_WILD,
    N_CODES,
    RANK_OF,
    SUIT_OF,
    VALUE_OF,
    WILD_RANK,
)
from ..errors import IllegalAction
from ..melds import wild_cap
from ..options import Options
from ..state import PERMISSION_NONE, PERMISSION_YES, PHASE_ANSWER, PHASE_DRAW, PHASE_PLAY, GameState
from .melds import (
    CANASTA_SIZE,
    SEQUENCE_MAX,
    WILD_MELD_MAX,
    ext_of,
    group_rank,
    initial_minimum,
    initial_need,
    merge_groups,
    sequence_bounds,
)
from .opening import completion
from .play import (
    ask_error,
    discard_error,
    going_out_plan,
    lay_off_targets,
    meld_error,
    must_take_pile,
    pile_blocked,
    pile_frozen_for,
    single_meld_ok,
    take_pile_error,
)
from .state import GROUP, SEQUENCE, WILD, meld_name

MAX_SEATS = 4
DISCARDS: tuple[tuple[Discard, ...], ...] = tuple(
    tuple(Discard(seat, card) for card in range(N_CODES)) for seat in range(MAX_SEATS)
)
DRAWS: tuple[Draw, ...] = tuple(Draw(seat) for seat in range(MAX_SEATS))


def legal_actions(st: GameState) -> list[Action]:
    seat = st.to_act
    if st.phase == PHASE_DRAW:
        return draw_phase(st, seat)
    if st.phase == PHASE_PLAY:
        return play_phase(st, seat)
    if st.phase == PHASE_ANSWER:
        return [AnswerPartner(seat, True), AnswerPartner(seat, False)]
    return []


def split_hand(hand: list[int]) -> tuple[dict[int, list[int]], list[int]]:
    """The hand's natural cards by rank (4..A) and its wild cards."""
    naturals: dict[int, list[int]] = {}
    wilds: list[int] = []
    for c in hand:
        if IS_WILD[c]:
            wilds.append(c)
        elif IS_NATURAL[c]:
            naturals.setdefault(RANK_OF[c], []).append(c)
    return naturals, wilds


# Card codes in suit-major order: a sequence's cards are then consecutive, 4 codes apart.
SUIT_MAJOR: tuple[int, ...] = tuple(SUIT_OF[c] * 64 + c for c in range(N_CODES))


def runs(cards: list[int]) -> list[list[int]]:
    """Maximal runs (3 or more, at most 7) of distinct consecutive ranks per suit."""
    out = []
    run: list[int] = []
    prev = -8
    for c in sorted({c for c in cards if IS_NATURAL[c]}, key=SUIT_MAJOR.__getitem__):
        if c - prev == 4:  # the next rank of the same suit
            run.append(c)
        else:
            if len(run) >= 3:
                out.append(run[:SEQUENCE_MAX])
            run = [c]
        prev = c
    if len(run) >= 3:
        out.append(run[:SEQUENCE_MAX])
    return out


def openings(
    opts: Options, hand: list[int], used: tuple[int, ...], start: int, minimum: int
) -> list[tuple[MeldGroup, ...]]:
    """New melds from the hand (without ``used``) reaching the minimum with ``start`` points
    already shown: the richest, a trimmed one and single melds; [()] if none is needed."""
    if start >= minimum:
        return [()]
    rest = hand[:]
    for c in used:
        rest.remove(c)
    out: list[tuple[MeldGroup, ...]] = []
    for sequences_first in (False, True):
        pool = rest[:]
        melds: list[MeldGroup] = []
        if sequences_first:
            for run in runs(pool):
                melds.append(MeldGroup(RANK_OF[run[0]], tuple(run), SEQUENCE))
                for c in run:
                    pool.remove(c)
        naturals, wilds = split_hand(pool)
        wilds.sort(key=lambda c: -VALUE_OF[c])
        specs: list[tuple[int, list[int], list[int]]] = []
        for rank, cards in sorted(naturals.items(), key=lambda kv: -len(kv[1])):
            if len(cards) >= 3:
                specs.append((rank, cards, []))
            elif len(cards) == 2 and wilds:
                specs.append((rank, cards, [wilds.pop(0)]))
        for w in list(wilds):
            for _rank, cards, ws in specs:
                if len(ws) < wild_cap(opts, len(cards)) and len(cards) + len(ws) < CANASTA_SIZE:
                    ws.append(w)
                    wilds.remove(w)
                    break
        for rank, cards, ws in specs:
            melds.append(MeldGroup(rank, (*cards, *ws), GROUP, None, True))
            for c in (*cards, *ws):
                pool.remove(c)
        if not sequences_first:
            for run in runs(pool):
                melds.append(MeldGroup(RANK_OF[run[0]], tuple(run), SEQUENCE))
        if opts.wild_canasta and len(wilds) >= 3:
            melds.append(MeldGroup(WILD_RANK, tuple(wilds[:WILD_MELD_MAX]), WILD, None, True))

        def worth(g: MeldGroup) -> int:
            return sum(VALUE_OF[c] for c in g.cards)

        total = start + sum(worth(g) for g in melds)
        if total < minimum:
            continue
        out.append(tuple(melds))
        trimmed = list(melds)
        for g in sorted(melds, key=worth):
            if total - worth(g) >= minimum:
                trimmed.remove(g)
                total -= worth(g)
        out.append(tuple(trimmed))
        out.extend((g,) for g in melds if start + worth(g) >= minimum)
    return list(dict.fromkeys(out))


def draw_phase(st: GameState, seat: int) -> list[Action]:
    out: list[Action] = []
    if st.stock:
        out.append(DRAWS[seat])
    if st.pile and not pile_blocked(st):
        out.extend(pile_takes(st, seat))
    if not st.stock and not must_take_pile(st, seat):
        out.append(DeclinePile(seat))
    return out


def pile_takes(st: GameState, seat: int) -> list[Action]:
    top = st.pile[-1]
    rank = RANK_OF[top]
    team = seat % st.options.teams
    hand = st.hands[seat]
    kinds = ext_of(st).kinds[team]
    melds = st.melds[team]
    same = [c for c in hand if IS_NATURAL[c] and RANK_OF[c] == rank] if IS_NATURAL[top] else []
    ways: list[tuple[tuple[int, ...], str | None]] = []
    if len(same) >= 2:
        pair = (same[0], same[1])
        ways.append((pair, None))
        for num in sorted(melds):
            if kinds[num] == GROUP and group_rank(melds[num]) == rank:
                ways.append((pair, meld_name(team, num)))
    if not pile_frozen_for(st, seat):
        for num in lay_off_targets(st, seat, top):
            ways.append(((), meld_name(team, num)))
    out: list[Action] = []
    opened = st.opened[team]
    minimum = initial_minimum(st.options, st.scores[team])
    to_hand = len(hand) + sum(1 for c in st.pile[:-1] if not IS_RED_THREE[c])
    for cards, target in ways:
        if opened:
            if to_hand - len(cards) >= 2:
                # Valid by construction: only keeping too few cards could refuse it.
                out.append(TakePile(seat, cards, (), target))
                continue
            extras: list[tuple[MeldGroup, ...]] = [()]
        else:
            start = VALUE_OF[top] + sum(VALUE_OF[c] for c in cards)
            extras = openings(st.options, hand, cards, start, minimum)
        for melds_ in extras:
            action = TakePile(seat, cards, melds_, target)
            if take_pile_error(st, action) is None:
                out.append(action)
                break
    return out


def play_phase(st: GameState, seat: int) -> list[Action]:
    hand = st.hands[seat]
    team = seat % st.options.teams
    opts = st.options
    melds = st.melds[team]
    opened = st.opened[team]
    # A side laying its first melds over several actions: the turn cannot end until they
    # reach the minimum, and what completes them is listed below.
    incomplete = not opened and bool(melds)
    plan = going_out_plan(st, seat)
    out: list[Action] = []
    if st.no_discard:
        if not incomplete:
            out.append(EndRound(seat))
    elif not incomplete:
        out.extend(discards(st, seat, hand))
    if (
        plan is not None
        and opts.can_ask_partner
        and st.permission == PERMISSION_NONE
        and not st.turn_melded
        and not st.no_discard
        and len(hand) >= 2
        and ask_error(st, seat, plan) is None
    ):
        out.append(AskPartner(seat))
    # One-group melds valid by their shape (natural cards onto a group of their rank, new
    # groups of three naturals or a pair and a wild card, wild cards where a meld has room,
    # runs and sequence extensions): only keeping too few cards, a binding "yes" or an
    # incomplete first meld can refuse them, and then the full check decides.
    singles: list[MeldGroup] = []
    candidates: list[tuple[MeldGroup, ...]] = []  # anything else (the full check)
    sure: list[tuple[MeldGroup, ...]] = []  # openings that need no check
    naturals, wilds = split_hand(hand)
    kinds = ext_of(st).kinds[team]
    size = len(hand)
    keep = 1 if st.no_discard else 2
    if opened or incomplete:
        groups_of: dict[int, list[int]] = {}
        open_groups: list[tuple[int, int]] = []  # groups with room for one more wild card
        open_wild: list[int] = []
        sequences: list[int] = []
        for num in sorted(melds):
            cards = melds[num]
            kind = kinds[num]
            if kind == GROUP:
                rank = group_rank(cards)
                groups_of.setdefault(rank, []).append(num)
                n = len(cards)
                if n < CANASTA_SIZE:
                    w_in = 0
                    for c in cards:
                        if IS_WILD[c]:
                            w_in += 1
                    if w_in < wild_cap(opts, n - w_in):
                        open_groups.append((rank, num))
            elif kind == SEQUENCE:
                if len(cards) < SEQUENCE_MAX:
                    sequences.append(num)
            elif len(cards) < WILD_MELD_MAX:
                open_wild.append(num)
        names = {num: meld_name(team, num) for num in melds}
        wild = min(wilds) if wilds else None  # a deuce before a joker
        room = size - keep
        for rank, cards in naturals.items():
            count = len(cards)
            nums = groups_of.get(rank)
            if nums is not None:
                whole = tuple(cards)
                part = tuple(cards[:room]) if 1 <= room < count else None
                for num in nums:
                    target = names[num]
                    singles.append(MeldGroup(rank, whole, GROUP, target))
                    if part is not None:
                        singles.append(MeldGroup(rank, part, GROUP, target))
            new = nums is not None
            if count >= 3:
                singles.append(MeldGroup(rank, tuple(cards), GROUP, None, new))
                if 3 <= room < count:
                    singles.append(MeldGroup(rank, tuple(cards[:room]), GROUP, None, new))
            if wild is not None and count >= 2:
                singles.append(MeldGroup(rank, (cards[0], cards[1], wild), GROUP, None, new))
        if wilds:
            for w in sorted(set(wilds)):
                for rank, num in open_groups:
                    singles.append(MeldGroup(rank, (w,), GROUP, names[num]))
                if opts.wild_canasta:
                    for num in open_wild:
                        singles.append(MeldGroup(WILD_RANK, (w,), WILD, names[num]))
            if opts.wild_canasta and len(wilds) >= 3:
                n = min(len(wilds), WILD_MELD_MAX, max(3, room))
                singles.append(MeldGroup(WILD_RANK, tuple(sorted(wilds)[:n]), WILD, None, True))
        for run in runs(hand):
            singles.append(MeldGroup(RANK_OF[run[0]], tuple(run), SEQUENCE))
            if 3 <= room < len(run):
                short = tuple(run[:room])
                singles.append(MeldGroup(RANK_OF[short[0]], short, SEQUENCE))
        if sequences:
            held = set(hand)
            for num in sequences:
                cards = melds[num]
                suit, low, high = sequence_bounds(cards)
                target = names[num]
                chain: list[int] = []
                space = SEQUENCE_MAX - len(cards)
                code = (low - 1) * 4 + suit
                while space and low - 1 - len(chain) >= 1 and code in held:
                    chain.append(code)
                    code -= 4
                    space -= 1
                below = len(chain)
                code = (high + 1) * 4 + suit
                while space and code in held and RANK_OF[code] <= 11:
                    chain.append(code)
                    code += 4
                    space -= 1
                picks = {tuple(chain[:1]), tuple(chain)}
                if len(chain) > below:
                    picks.add((chain[below],))  # the next card above alone
                for pick in sorted(picks):
                    if pick:
                        singles.append(MeldGroup(RANK_OF[pick[0]], pick, SEQUENCE, target))
        for nums in groups_of.values():
            for i, a in enumerate(nums):
                for b in nums[i + 1 :]:
                    merge = (names[a], names[b])
                    if merge_ok(st, seat, merge):
                        out.append(Meld(seat, (), merge))
    if not opened:
        minimum = initial_minimum(opts, st.scores[team])
        need = initial_need(st, team)
        found = openings(opts, hand, (), minimum - need, minimum)
        for groups in found:
            if not groups:
                continue
            if st.permission != PERMISSION_YES and size - sum(len(g.cards) for g in groups) >= 2:
                sure.append(groups)  # new melds from the hand reaching the minimum
            else:
                candidates.append(groups)
        if found and len(found[0]) > 1:
            candidates.append(found[0][:1])  # a first meld laid one group at a time
        if incomplete:
            rest = completion(st, seat, hand, melds, kinds, ext_of(st).next_id[team], need)
            if rest is not None:  # always, as a first meld below the minimum needs one
                candidates.append(rest)
                if len(rest) > 1:
                    candidates.append(rest[:1])
    if plan is not None and plan[0]:
        candidates.append(plan[0])  # checked by going_out_plan
    check_more = bool(candidates or sure)
    plain = opened and st.permission != PERMISSION_YES
    seen: set[tuple[MeldGroup, ...]] = set()
    for group in singles:
        key = (group,)
        if (plain and size - len(group.cards) >= 2) or single_meld_ok(st, seat, group):
            out.append(Meld(seat, key))
        if check_more:
            seen.add(key)
    for groups in sure:
        if groups not in seen:
            seen.add(groups)
            out.append(Meld(seat, groups))
    for groups in candidates:
        if groups not in seen:
            seen.add(groups)
            action = Meld(seat, groups)
            if (plan is not None and groups is plan[0]) or meld_error(st, action) is None:
                out.append(action)
    return out


def merge_ok(st: GameState, seat: int, merge: tuple[str, str]) -> bool:
    """``meld_error`` of a merge alone is None, checked on copies of the side's melds when
    only the merge itself can refuse it."""
    team = seat % st.options.teams
    if not st.opened[team] or st.permission == PERMISSION_YES or len(st.hands[seat]) < 2:
        return meld_error(st, Meld(seat, (), merge)) is None
    kinds = ext_of(st).kinds[team]
    try:
        merge_groups(st.options, team, dict(st.melds[team]), dict(kinds), merge)
    except IllegalAction:
        return False
    return True


def discards(st: GameState, seat: int, hand: list[int]) -> list[Action]:
    if len(hand) == 1 or st.permission == PERMISSION_YES:
        return [DISCARDS[seat][c] for c in sorted(set(hand)) if discard_error(st, seat, c) is None]
    row = DISCARDS[seat]
    if st.options.red_three_discard:
        return [row[c] for c in sorted(set(hand))]
    return [row[c] for c in sorted(set(hand)) if not IS_RED_THREE[c]]
