"""Legal actions in Samba and Bolivia: draws, discards, declines, questions and answers are
listed exhaustively; pile takes for every way the top card can go (new trio, a pair onto each
group of its rank, the top card alone onto each meld that takes it, with the melds an initial
meld needs); melds canonically: each rank's naturals onto each of its groups or as a new group
(with or without one wild card), each wild card onto each group that may take it, wild melds,
new sequences from the hand's runs and their extensions, merges, openings reaching the minimum
and a whole going-out plan. Every listed action is accepted by ``apply``."""

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
from ..melds import wild_cap
from ..options import Options
from ..state import PERMISSION_NONE, PERMISSION_YES, PHASE_ANSWER, PHASE_DRAW, PHASE_PLAY, GameState
from .melds import CANASTA_SIZE, SEQUENCE_MAX, WILD_MELD_MAX, ext_of, group_rank, initial_minimum
from .play import (
    ask_error,
    discard_error,
    going_out_plan,
    lay_off_targets,
    meld_error,
    must_take_pile,
    pile_blocked,
    pile_frozen_for,
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


def runs(cards: list[int]) -> list[list[int]]:
    """Maximal runs (3 or more, at most 7) of distinct consecutive ranks per suit."""
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
                if len(run) >= 3:
                    out.append(run[:SEQUENCE_MAX])
                start = i
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
    for cards, target in ways:
        if opened:
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
    out: list[Action] = []
    if st.no_discard:
        out.append(EndRound(seat))
    else:
        out.extend(discards(st, seat, hand))
    if (
        opts.can_ask_partner
        and st.permission == PERMISSION_NONE
        and not st.turn_melded
        and not st.no_discard
        and len(hand) >= 2
        and ask_error(st, seat) is None
    ):
        out.append(AskPartner(seat))
    candidates: list[Meld] = []
    naturals, wilds = split_hand(hand)
    melds = st.melds[team]
    kinds = ext_of(st).kinds[team]
    size = len(hand)
    keep = 1 if st.no_discard else 2
    if st.opened[team]:
        groups_of: dict[int, list[int]] = {}
        for num in sorted(melds):
            if kinds[num] == GROUP:
                groups_of.setdefault(group_rank(melds[num]), []).append(num)
        wild = min(wilds, default=None)  # a deuce before a joker
        for rank, cards in naturals.items():
            most = min(len(cards), size - keep)
            for num in groups_of.get(rank, ()):
                target = meld_name(team, num)
                candidates.append(Meld(seat, (MeldGroup(rank, tuple(cards), GROUP, target),)))
                if 1 <= most < len(cards):
                    candidates.append(
                        Meld(seat, (MeldGroup(rank, tuple(cards[:most]), GROUP, target),))
                    )
            new = rank in groups_of
            if len(cards) >= 3:
                candidates.append(Meld(seat, (MeldGroup(rank, tuple(cards), GROUP, None, new),)))
                if 3 <= most < len(cards):
                    candidates.append(
                        Meld(seat, (MeldGroup(rank, tuple(cards[:most]), GROUP, None, new),))
                    )
            if wild is not None and len(cards) >= 2:
                two = tuple(cards[:2])
                candidates.append(Meld(seat, (MeldGroup(rank, (*two, wild), GROUP, None, new),)))
        for w in sorted(set(wilds)):
            for rank, nums in groups_of.items():
                for num in nums:
                    if len(melds[num]) < CANASTA_SIZE:
                        group = MeldGroup(rank, (w,), GROUP, meld_name(team, num))
                        candidates.append(Meld(seat, (group,)))
            if opts.wild_canasta:
                for num in sorted(melds):
                    if kinds[num] == WILD and len(melds[num]) < WILD_MELD_MAX:
                        group = MeldGroup(WILD_RANK, (w,), WILD, meld_name(team, num))
                        candidates.append(Meld(seat, (group,)))
        if opts.wild_canasta and len(wilds) >= 3:
            n = min(len(wilds), WILD_MELD_MAX, max(3, size - keep))
            group = MeldGroup(WILD_RANK, tuple(sorted(wilds)[:n]), WILD, None, True)
            candidates.append(Meld(seat, (group,)))
        for run in runs(hand):
            candidates.append(Meld(seat, (MeldGroup(RANK_OF[run[0]], tuple(run), SEQUENCE),)))
            if 3 <= size - keep < len(run):
                short = tuple(run[: size - keep])
                candidates.append(Meld(seat, (MeldGroup(RANK_OF[short[0]], short, SEQUENCE),)))
        by_card = {}
        for c in hand:
            if IS_NATURAL[c]:
                by_card[(SUIT_OF[c], RANK_OF[c])] = c
        for num in sorted(melds):
            cards = melds[num]
            if kinds[num] != SEQUENCE or len(cards) >= SEQUENCE_MAX:
                continue
            suit = SUIT_OF[cards[0]]
            ranks = [RANK_OF[c] for c in cards]
            low, high = min(ranks), max(ranks)
            target = meld_name(team, num)
            chain: list[int] = []
            r = low - 1
            while (suit, r) in by_card and len(cards) + len(chain) < SEQUENCE_MAX:
                chain.append(by_card[(suit, r)])
                r -= 1
            r = high + 1
            while (suit, r) in by_card and len(cards) + len(chain) < SEQUENCE_MAX:
                chain.append(by_card[(suit, r)])
                r += 1
            for pick in {tuple(chain[:1]), tuple(chain)} | (
                {(by_card[(suit, high + 1)],)} if (suit, high + 1) in by_card else set()
            ):
                if pick:
                    group = MeldGroup(RANK_OF[pick[0]], pick, SEQUENCE, target)
                    candidates.append(Meld(seat, (group,)))
        for nums in groups_of.values():
            for i, a in enumerate(nums):
                for b in nums[i + 1 :]:
                    candidates.append(Meld(seat, (), (meld_name(team, a), meld_name(team, b))))
    else:
        minimum = initial_minimum(opts, st.scores[team])
        for groups in openings(opts, hand, (), 0, minimum):
            if groups:
                candidates.append(Meld(seat, groups))
    plan = going_out_plan(st, seat)
    if plan is not None and plan[0]:
        candidates.append(Meld(seat, plan[0]))
    seen: set[Meld] = set()
    for action in candidates:
        if action not in seen:
            seen.add(action)
            if meld_error(st, action) is None:
                out.append(action)
    return out


def discards(st: GameState, seat: int, hand: list[int]) -> list[Action]:
    if len(hand) == 1 or st.permission == PERMISSION_YES:
        return [DISCARDS[seat][c] for c in sorted(set(hand)) if discard_error(st, seat, c) is None]
    row = DISCARDS[seat]
    if st.options.red_three_discard:
        return [row[c] for c in sorted(set(hand))]
    return [row[c] for c in sorted(set(hand)) if not IS_RED_THREE[c]]
