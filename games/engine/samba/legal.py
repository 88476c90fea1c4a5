"""Legal actions in Samba and Bolivia: draws, discards, declines, questions and answers are
listed exhaustively; pile takes for every way the top card can go (new trio, a pair onto each
group of its rank, the top card alone onto each meld that takes it, with the melds an initial
meld needs); melds canonically: each rank's naturals onto each of its groups or as a new group
(with or without one wild card), each wild card onto each group that may take it, wild melds,
new sequences from the hand's runs and their extensions, merges, openings reaching the minimum,
the first group of an opening laid in parts and what completes a first meld below the minimum,
and a whole going-out plan. Every listed action is accepted by ``apply``.

One-group melds valid by their shape are listed without planning while the side has opened,
keeps two cards and has no binding "yes" (``single_meld_ok`` and the full check otherwise).
The hand and the side's melds are counted once per listing; the going-out planner runs only
when its first necessary test passes (``may_go_out``), openings only when the hand holds
enough meldable points; discards, draws, one-group melds and plain pile takes are shared
immutable objects."""

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
    THREE,
    TWO,
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
)
from .opening import completion
from .outplan import NAMES
from .play import (
    ask_error,
    discard_error,
    going_out_plan,
    meld_error,
    must_take_pile,
    pile_blocked,
    single_meld_ok,
    take_pile_error,
)
from .state import GROUP, SEQUENCE, WILD, meld_name

MAX_SEATS = 4
DISCARDS: tuple[tuple[Discard, ...], ...] = tuple(
    tuple(Discard(seat, card) for card in range(N_CODES)) for seat in range(MAX_SEATS)
)
DRAWS: tuple[Draw, ...] = tuple(Draw(seat) for seat in range(MAX_SEATS))
# Entries kept in each cache of shared actions before it is emptied.
SINGLES_MAX = 1 << 16


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
        rank = RANK_OF[c]
        if rank >= TWO:  # deuces and jokers
            wilds.append(c)
        elif rank:  # not a three
            if rank in naturals:
                naturals[rank].append(c)
            else:
                naturals[rank] = [c]
    return naturals, wilds


def runs(cards: list[int]) -> list[list[int]]:
    """Maximal runs (3 or more, at most 7) of distinct consecutive ranks per suit, suit by suit
    and from the lowest rank."""
    masks = [0, 0, 0, 0]  # per suit: bit r set when the rank r natural is held
    for c in cards:
        if IS_NATURAL[c]:
            masks[c & 3] |= 1 << (c >> 2)
    return runs_of(masks)


def runs_of(masks: list[int]) -> list[list[int]]:
    """``runs`` of the natural cards given as per-suit rank masks."""
    out = []
    for suit, mask in enumerate(masks):
        if not mask & mask >> 1 & mask >> 2:
            continue  # no three consecutive ranks in this suit
        run: list[int] = []
        for rank in range(1, 13):  # rank 12 is never a natural: it closes the last run
            if mask >> rank & 1:
                run.append(rank * 4 + suit)
            elif run:
                if len(run) >= 3:
                    out.append(run[:SEQUENCE_MAX])
                run = []
    return out


def meldable_points(hand: list[int]) -> int:
    """At most the points new melds from ``hand`` (or from part of it) can show: its wild
    cards, its naturals of ranks held three times or more (twice beside a wild card) and its
    other naturals within three or more consecutive ranks of one suit."""
    naturals, wilds = split_hand(hand)
    points = 0
    for c in wilds:
        points += VALUE_OF[c]
    masks = [0, 0, 0, 0]
    grouped = 0  # ranks counted whole
    for rank, cards in naturals.items():
        if len(cards) >= 3 or (len(cards) == 2 and wilds):
            grouped |= 1 << rank
            for c in cards:
                points += VALUE_OF[c]
        for c in cards:
            masks[c & 3] |= 1 << rank
    for suit, mask in enumerate(masks):
        # Ranks within three or more consecutive ranks held in this suit.
        trio = mask & mask >> 1 & mask >> 2  # lowest rank of each three in a row
        inside = (trio | trio << 1 | trio << 2) & ~grouped
        rank = 1
        while inside >> rank:
            if inside >> rank & 1:
                points += VALUE_OF[rank * 4 + suit] * len(
                    [c for c in naturals[rank] if c & 3 == suit]
                )
            rank += 1
    return points


def openings(
    opts: Options, hand: list[int], used: tuple[int, ...], start: int, minimum: int
) -> list[tuple[MeldGroup, ...]]:
    """New melds from the hand (without ``used``) reaching the minimum with ``start`` points
    already shown: the richest, a trimmed one and single melds; [()] if none is needed."""
    if start >= minimum:
        return [()]
    if start + meldable_points(hand) < minimum:
        return []  # not even every card that could be melded is enough
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

        worths = [sum(map(VALUE_OF.__getitem__, g.cards)) for g in melds]
        total = start + sum(worths)
        if total < minimum:
            continue
        out.append(tuple(melds))
        trimmed = list(melds)
        for i in sorted(range(len(melds)), key=worths.__getitem__):
            if total - worths[i] >= minimum:
                trimmed.remove(melds[i])
                total -= worths[i]
        out.append(tuple(trimmed))
        out.extend((g,) for g, w in zip(melds, worths, strict=True) if start + w >= minimum)
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
    natural = IS_NATURAL[top]
    same = [c for c in hand if RANK_OF[c] == rank] if natural else []
    opened = st.opened[team]
    lay_off = st.pile_freezers == 0 and opened  # the pile is not frozen for the side
    ways: list[tuple[tuple[int, ...], str | None]] = []
    if len(same) >= 2 or lay_off:
        # The side's groups of the top card's rank, and the melds the top card alone may go
        # to (``lay_off_targets``: groups of its rank below 7 cards, sequences it extends).
        groups: list[int] = []
        targets: list[int] = []
        suit = top & 3
        for num, meld in melds.items():
            kind = kinds[num]
            if kind == GROUP:
                first = meld[0]
                if (group_rank(meld) if IS_WILD[first] else RANK_OF[first]) == rank:
                    groups.append(num)
                    if len(meld) < CANASTA_SIZE:
                        targets.append(num)
            elif (
                kind == SEQUENCE
                and natural
                and len(meld) < SEQUENCE_MAX
                and meld[0] & 3 == suit
                # One suit's naturals: the lowest code is the lowest rank.
                and (rank == (min(meld) >> 2) - 1 or rank == (max(meld) >> 2) + 1)
            ):
                targets.append(num)
        if len(same) >= 2:
            pair = (same[0], same[1])
            ways.append((pair, None))
            for num in sorted(groups):
                ways.append((pair, name_of(team, num)))
        if lay_off:
            for num in targets:
                ways.append(((), name_of(team, num)))
    out: list[Action] = []
    if opened:
        if len(hand) >= 2 + 2:
            # Valid by construction: only keeping too few cards could refuse them.
            return [plain_take(seat, cards, target) for cards, target in ways]
        to_hand = len(hand) + sum(1 for c in st.pile[:-1] if not IS_RED_THREE[c])
    else:
        minimum = initial_minimum(st.options, st.scores[team])
    for cards, target in ways:
        if opened:
            if to_hand - len(cards) >= 2:
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


def name_of(team: int, num: int) -> str:
    """``meld_name(team, num)``, from the table when it holds it."""
    names = NAMES[team]
    return names[num] if num < len(names) else meld_name(team, num)


# Pile takes without melds from the hand, shared: listing them again builds no new objects.
PLAIN_TAKES: dict[tuple[int, tuple[int, ...], str | None], TakePile] = {}


def plain_take(seat: int, cards: tuple[int, ...], target: str | None) -> TakePile:
    """``TakePile(seat, cards, (), target)``, built once."""
    key = (seat, cards, target)
    action = PLAIN_TAKES.get(key)
    if action is None:
        if len(PLAIN_TAKES) >= SINGLES_MAX:
            PLAIN_TAKES.clear()
        action = PLAIN_TAKES[key] = TakePile(seat, cards, (), target)
    return action


# One-group melds, shared: listing them again builds no new objects.
SingleKey = tuple[int, int, tuple[int, ...], str, "str | None", bool]
SINGLES: dict[SingleKey, Meld] = {}


def single(
    seat: int,
    rank: int,
    cards: tuple[int, ...],
    kind: str,
    target: str | None = None,
    new: bool = False,
) -> Meld:
    """``Meld(seat, (MeldGroup(rank, cards, kind, target, new),))``, built once."""
    key = (seat, rank, cards, kind, target, new)
    return SINGLES.get(key) or new_single(key)


def new_single(key: SingleKey) -> Meld:
    """The shared one-group meld of ``key`` (seat, rank, cards, kind, target, new), built now."""
    if len(SINGLES) >= SINGLES_MAX:
        SINGLES.clear()
    seat, rank, cards, kind, target, new = key
    action = SINGLES[key] = Meld(seat, (MeldGroup(rank, cards, kind, target, new),))
    return action


def may_go_out(
    st: GameState,
    naturals: dict[int, list[int]],
    threes: list[int],
    group_ranks: dict[int, list[int]],
    bounds: list[tuple[int, int, int, int]],
    wilds: int,
) -> bool:
    """A necessary condition of a way out (``out_plan``'s first test): at most one card of the
    hand (none without a discard) fits no meld: a lone natural of a rank without a group and
    beyond the reach of its suit's open sequences, a red three, one or two black threes; and
    natural pairs of ranks without a group need a wild card each (or one is broken by the
    discard)."""
    allowed = 0 if st.no_discard else 1
    stuck = 0
    if threes:
        blacks = 0
        for c in threes:
            if IS_RED_THREE[c]:
                stuck += 1
            else:
                blacks += 1
        if blacks < 3:
            stuck += blacks
        if stuck > allowed:
            return False
    for rank, cards in naturals.items():
        if len(cards) == 1 and rank not in group_ranks:
            suit = cards[0] & 3
            for s, low, high, room in bounds:
                if s == suit and (0 < low - rank <= room or 0 < rank - high <= room):
                    break
            else:
                stuck += 1
                if stuck > allowed:
                    return False
    pairs = 0
    for rank, cards in naturals.items():
        if len(cards) == 2 and rank not in group_ranks:
            pairs += 1
    return pairs <= wilds + (0 if st.no_discard or stuck else 1)


def play_phase(st: GameState, seat: int) -> list[Action]:
    hand = st.hands[seat]
    team = seat % st.options.teams
    opts = st.options
    melds = st.melds[team]
    opened = st.opened[team]
    kinds = ext_of(st).kinds[team]
    # A side laying its first melds over several actions: the turn cannot end until they
    # reach the minimum, and what completes them is listed below.
    incomplete = not opened and bool(melds)
    # The hand counted once: naturals by rank (in hand order), wild cards, threes, and per suit
    # the ranks held (for runs).
    naturals: dict[int, list[int]] = {}
    wilds: list[int] = []
    threes: list[int] = []
    masks = [0, 0, 0, 0]
    for c in hand:
        rank = RANK_OF[c]
        if rank >= TWO:  # deuces and jokers
            wilds.append(c)
        elif rank:
            if rank in naturals:
                naturals[rank].append(c)
            else:
                naturals[rank] = [c]
            masks[c & 3] |= 1 << rank
        else:
            threes.append(c)
    # The side's melds: groups by rank, open sequences (with suit, bounds and room), wild melds
    # with room.
    groups_of: dict[int, list[int]] = {}
    sequences: list[int] = []
    bounds: list[tuple[int, int, int, int]] = []
    wild_melds: list[int] = []
    for num in sorted(melds):
        kind = kinds[num]
        cards = melds[num]
        if kind == GROUP:
            first = cards[0]
            rank = group_rank(cards) if IS_WILD[first] else RANK_OF[first]
            if rank in groups_of:
                groups_of[rank].append(num)
            else:
                groups_of[rank] = [num]
        elif kind == SEQUENCE:
            if len(cards) < SEQUENCE_MAX:
                sequences.append(num)
                # One suit's naturals: the lowest code is the lowest rank.
                bounds.append(
                    (cards[0] & 3, min(cards) >> 2, max(cards) >> 2, SEQUENCE_MAX - len(cards))
                )
        elif len(cards) < WILD_MELD_MAX:
            wild_melds.append(num)
    plan = None
    if may_go_out(st, naturals, threes, groups_of, bounds, len(wilds)):
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
    singles: list[Meld] = []
    candidates: list[tuple[MeldGroup, ...]] = []  # anything else (the full check)
    sure: list[tuple[MeldGroup, ...]] = []  # openings that need no check
    size = len(hand)
    keep = 1 if st.no_discard else 2
    if opened or incomplete:
        names = NAMES[team]
        top = max(melds, default=0)
        if top >= len(names):
            names = tuple(meld_name(team, n) for n in range(top + 1))
        room = size - keep
        shared = SINGLES.get
        wild = min(wilds) if wilds else None  # a deuce before a joker
        for rank, cards in naturals.items():
            count = len(cards)
            nums = groups_of.get(rank)
            whole = tuple(cards)
            if nums is not None:
                part = whole[:room] if 1 <= room < count else None
                for num in nums:
                    target = names[num]
                    key: SingleKey = (seat, rank, whole, GROUP, target, False)
                    singles.append(shared(key) or new_single(key))
                    if part is not None:
                        singles.append(single(seat, rank, part, GROUP, target))
            new = nums is not None
            if count >= 3:
                key = (seat, rank, whole, GROUP, None, new)
                singles.append(shared(key) or new_single(key))
                if 3 <= room < count:
                    singles.append(single(seat, rank, whole[:room], GROUP, None, new))
            if wild is not None and count >= 2:
                key = (seat, rank, (cards[0], cards[1], wild), GROUP, None, new)
                singles.append(shared(key) or new_single(key))
        if wilds:
            # Groups with room for one more wild card (never a group canasta).
            open_groups: list[tuple[int, int]] = []
            for rank, nums in groups_of.items():
                for num in nums:
                    cards = melds[num]
                    n = len(cards)
                    if n < CANASTA_SIZE:
                        w_in = 0
                        for c in cards:
                            if IS_WILD[c]:
                                w_in += 1
                        if w_in < wild_cap(opts, n - w_in):
                            open_groups.append((num, rank))
            open_groups.sort()
            for w in sorted(set(wilds)):
                for num, rank in open_groups:
                    key = (seat, rank, (w,), GROUP, names[num], False)
                    singles.append(shared(key) or new_single(key))
                if opts.wild_canasta:
                    for num in wild_melds:
                        singles.append(single(seat, WILD_RANK, (w,), WILD, names[num]))
            if opts.wild_canasta and len(wilds) >= 3:
                n = min(len(wilds), WILD_MELD_MAX, max(3, room))
                singles.append(single(seat, WILD_RANK, tuple(sorted(wilds)[:n]), WILD, None, True))
        for run in runs_of(masks):
            singles.append(single(seat, RANK_OF[run[0]], tuple(run), SEQUENCE))
            if 3 <= room < len(run):
                short = tuple(run[:room])
                singles.append(single(seat, RANK_OF[short[0]], short, SEQUENCE))
        for num, (suit, low, high, space) in zip(sequences, bounds, strict=True):
            mask = masks[suit]
            target = names[num]
            chain: list[int] = []
            rank = low - 1
            while space and rank >= 1 and mask >> rank & 1:
                chain.append(rank * 4 + suit)
                rank -= 1
                space -= 1
            below = len(chain)
            rank = high + 1
            while space and rank <= 11 and mask >> rank & 1:
                chain.append(rank * 4 + suit)
                rank += 1
                space -= 1
            if not chain:
                continue
            picks = {tuple(chain[:1]), tuple(chain)}
            if len(chain) > below:
                picks.add((chain[below],))  # the next card above alone
            for pick in sorted(picks):
                singles.append(single(seat, RANK_OF[pick[0]], pick, SEQUENCE, target))
        plain_merge = opened and st.permission != PERMISSION_YES and size >= 2
        for rank, nums in groups_of.items():
            if len(nums) < 2:
                continue
            for i, a in enumerate(nums):
                for b in nums[i + 1 :]:
                    merge = (names[a], names[b])
                    if plain_merge:
                        ok = rank != THREE and merge_fits(opts, melds[a], melds[b])
                    else:
                        ok = meld_error(st, Meld(seat, (), merge)) is None
                    if ok:
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
    plain = opened and st.permission != PERMISSION_YES
    if not plain:
        for action in singles:
            if single_meld_ok(st, seat, action.melds[0]):
                out.append(action)
    elif size - max(SEQUENCE_MAX, len(wilds), *map(len, naturals.values())) >= 2:
        # No single holds more cards than the largest rank held, seven (a run or a sequence
        # extension) or the wild cards held: with that many left, every single keeps two.
        out.extend(singles)
    else:
        for action in singles:
            group = action.melds[0]
            if size - len(group.cards) >= 2 or single_meld_ok(st, seat, group):
                out.append(action)
    if not candidates and not sure:
        return out
    seen: set[tuple[MeldGroup, ...]] = set()
    if any(len(groups) == 1 for groups in (*sure, *candidates)):
        seen.update(action.melds for action in singles)  # listed or refused already
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


def merge_fits(opts: Options, ca: list[int], cb: list[int]) -> bool:
    """Whether two groups of one rank (not threes) may be merged (``merge_groups`` counting):
    no wild card into a group canasta, and the wild cards within the cap."""
    wa = 0
    for c in ca:
        if IS_WILD[c]:
            wa += 1
    wb = 0
    for c in cb:
        if IS_WILD[c]:
            wb += 1
    if (wb and len(ca) >= CANASTA_SIZE) or (wa and len(cb) >= CANASTA_SIZE):
        return False
    return wa + wb <= wild_cap(opts, len(ca) + len(cb) - wa - wb)


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
    held = sorted(set(hand))
    if held[0] >= 4:  # no three held (threes are codes 0-3)
        return [row[c] for c in held]
    return [row[c] for c in held if not IS_RED_THREE[c]]
