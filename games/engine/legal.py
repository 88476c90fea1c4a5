"""Legal actions for the seat to act: concrete actions the validator accepts.

Draws, discards, pile declines, partner questions and answers are listed exhaustively. Melds and
pile takes have too many combinations to list one by one, so a canonical set is listed per rank:
every way the top card can be used (pair, natural + wild, lay-off), every rank that can be
started or laid off on with the hand's naturals (with and without one wild card), every wild card
lay-off, and for a side that has not opened, the smallest groups of melds that reach the minimum.
Every listed action is accepted by ``apply``; clients may still build other combinations.
"""

from __future__ import annotations

from .actions import (
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
from .cards import (
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
from .rules import (
    discard_error,
    going_out_plan,
    initial_meld_minimum,
    meld_error,
    must_take_pile,
    pile_blocked,
    single_meld_ok,
    take_pile_error,
)
from .state import (
    PERMISSION_NONE,
    PERMISSION_YES,
    PHASE_ANSWER,
    PHASE_DRAW,
    PHASE_PLAY,
    GameState,
)

# Actions are immutable values: the common ones are made once and shared.
MAX_SEATS = 4
DISCARDS: tuple[tuple[Discard, ...], ...] = tuple(
    tuple(Discard(seat, card) for card in range(N_CODES)) for seat in range(MAX_SEATS)
)
DRAWS: tuple[Draw, ...] = tuple(Draw(seat) for seat in range(MAX_SEATS))


def legal_actions(st: GameState) -> list[Action]:
    seat = st.to_act
    if st.phase == PHASE_DRAW:
        return _draw_phase(st, seat)
    if st.phase == PHASE_PLAY:
        return _play_phase(st, seat)
    if st.phase == PHASE_ANSWER:
        return [AnswerPartner(seat, True), AnswerPartner(seat, False)]
    return []


_WILD_LAY_OFFS: dict[tuple[int, int, int], Meld] = {}


def _wild_lay_off(seat: int, rank: int, wild: int) -> Meld:
    """The (shared, immutable) action laying one wild card off on the team's meld of ``rank``."""
    key = (seat, rank, wild)
    action = _WILD_LAY_OFFS.get(key)
    if action is None:
        action = _WILD_LAY_OFFS[key] = Meld(seat, (MeldGroup(rank, (wild,)),))
    return action


def _by_rank(
    hand: list[int],
    is_wild: tuple[bool, ...] = IS_WILD,
    is_red_three: tuple[bool, ...] = IS_RED_THREE,
    rank_of: tuple[int, ...] = RANK_OF,
) -> tuple[dict[int, list[int]], list[int]]:
    naturals: dict[int, list[int]] = {}
    wilds: list[int] = []
    for c in hand:
        if is_wild[c]:
            wilds.append(c)
        elif not is_red_three[c]:
            rank = rank_of[c]
            if rank in naturals:
                naturals[rank].append(c)
            else:
                naturals[rank] = [c]
    return naturals, wilds


def _cheapest_wild(wilds: list[int], exclude: tuple[int, ...] = ()) -> int | None:
    best = None
    for w in wilds:
        if w in exclude:
            continue
        if best is None or (best == JOKER and w != JOKER):
            best = w
    return best


def _opening_groups(
    naturals: dict[int, list[int]], wilds: list[int], skip_rank: int, used: tuple[int, ...]
) -> list[MeldGroup]:
    """New-meld groups from the hand, most valuable first, for reaching the initial minimum."""
    groups: list[MeldGroup] = []
    spare = [w for w in wilds]
    for c in used:
        if c in spare:
            spare.remove(c)
    pairs: list[list[int]] = []
    for rank, cards in naturals.items():
        if rank in (skip_rank, THREE):
            continue
        if len(cards) >= 3:
            groups.append(MeldGroup(rank, tuple(cards)))
        elif len(cards) == 2:
            pairs.append(cards)
    pairs.sort(key=lambda cs: -sum(VALUE_OF[c] for c in cs))
    spare.sort(key=lambda c: VALUE_OF[c])
    for cards in pairs:
        if not spare:
            break
        groups.append(MeldGroup(RANK_OF[cards[0]], (*cards, spare.pop(0))))
    groups.sort(key=lambda g: -sum(VALUE_OF[c] for c in g.cards))
    return groups


def _reach_minimum(
    groups: list[MeldGroup], start: int, minimum: int
) -> tuple[MeldGroup, ...] | None:
    if start >= minimum:
        return ()
    chosen: list[MeldGroup] = []
    total = start
    for g in groups:
        chosen.append(g)
        total += sum(VALUE_OF[c] for c in g.cards)
        if total >= minimum:
            return tuple(chosen)
    return None


def _draw_phase(st: GameState, seat: int) -> list[Action]:
    out: list[Action] = []
    if st.stock:
        out.append(DRAWS[seat])
    if st.pile and not pile_blocked(st):
        out.extend(_pile_takes(st, seat))
    if not st.stock and not must_take_pile(st, seat):
        out.append(DeclinePile(seat))
    return out


def _pile_takes(st: GameState, seat: int) -> list[Action]:
    top = st.pile[-1]
    rank = RANK_OF[top]
    team = st.team_of(seat)
    naturals, wilds = _by_rank(st.hands[seat])
    same = naturals.get(rank, [])
    ways: list[tuple[int, ...]] = []
    if rank in st.melds[team]:
        ways.append(())
    if len(same) >= 2:
        ways.append(tuple(same[:2]))
    wild = _cheapest_wild(wilds)
    if same and wild is not None:
        ways.append((same[0], wild))
    out: list[Action] = []
    opened = st.opened[team]
    minimum = initial_meld_minimum(st.scores[team])
    for cards in ways:
        extras: tuple[MeldGroup, ...] = ()
        if not opened:
            start = VALUE_OF[top] + sum(VALUE_OF[c] for c in cards)
            reach = _reach_minimum(_opening_groups(naturals, wilds, rank, cards), start, minimum)
            if reach is None:
                continue
            extras = reach
        action = TakePile(seat, cards, extras)
        if take_pile_error(st, action) is None:
            out.append(action)
    return out


def _play_phase(st: GameState, seat: int) -> list[Action]:
    hand = st.hands[seat]
    team = st.team_of(seat)
    plan = going_out_plan(st, seat)
    out: list[Action] = []
    if st.no_discard:
        out.append(EndRound(seat))
    else:
        out.extend(_discards(st, seat, hand, plan is not None))
    if (
        plan is not None
        and st.options.can_ask_partner
        and not st.turn_melded
        and st.permission == PERMISSION_NONE
        and not st.no_discard
        and len(hand) >= 2
    ):
        out.append(AskPartner(seat))
    naturals, wilds = _by_rank(hand)
    melds = st.melds[team]
    if st.opened[team]:
        wild = _cheapest_wild(wilds) if wilds else None
        # Natural cards laid off, three or more naturals, or a natural pair with one wild card
        # always make a valid meld; only keeping too few cards (going out) or a binding "yes"
        # can refuse them, and then the full check decides.
        size = len(hand)
        keep = 1 if st.no_discard else 2
        plain = st.permission != PERMISSION_YES
        for rank, cards in naturals.items():
            if rank == THREE:
                continue
            if rank in melds or len(cards) >= 3:
                group = MeldGroup(rank, tuple(cards))
                if (plain and size - len(cards) >= keep) or single_meld_ok(st, seat, group):
                    out.append(Meld(seat, (group,)))
                if rank in melds:
                    continue
            if wild is not None and len(cards) >= 2:
                group = MeldGroup(rank, (*cards, wild))
                if (plain and size - len(cards) > keep) or single_meld_ok(st, seat, group):
                    out.append(Meld(seat, (group,)))
        if wilds:
            # Whether one wild card may be laid off depends on the meld, not on which wild card.
            kinds = sorted(set(wilds))
            ranks = [
                r
                for r in melds
                if r != THREE and single_meld_ok(st, seat, MeldGroup(r, (kinds[0],)))
            ]
            for w in kinds:
                for rank in ranks:
                    out.append(_wild_lay_off(seat, rank, w))
        if st.options.wild_canasta and WILD_RANK not in melds and len(wilds) >= 3:
            group = MeldGroup(WILD_RANK, tuple(wilds))
            if single_meld_ok(st, seat, group):
                out.append(Meld(seat, (group,)))
    candidates: list[tuple[MeldGroup, ...]] = []
    if not st.opened[team]:
        groups = _opening_groups(naturals, wilds, -1, ())
        minimum = initial_meld_minimum(st.scores[team])
        for g in groups:
            if sum(VALUE_OF[c] for c in g.cards) >= minimum:
                candidates.append((g,))
        smallest = _reach_minimum(groups, 0, minimum)
        if smallest and len(smallest) > 1:
            candidates.append(smallest)
    blacks = tuple(c for c in hand if IS_BLACK_THREE[c])
    if len(blacks) in (3, 4) and len(hand) - len(blacks) <= 1:
        candidates.append((MeldGroup(THREE, blacks),))
    if plan is not None and plan[0]:
        candidates.append(plan[0])
    if candidates:
        seen = {a.melds for a in out if isinstance(a, Meld)}
        for groups_ in candidates:
            if groups_ not in seen and meld_error(st, seat, groups_) is None:
                seen.add(groups_)
                out.append(Meld(seat, groups_))
    return out


def _discards(st: GameState, seat: int, hand: list[int], can_go_out: bool) -> list[Action]:
    if len(hand) == 1:
        card = hand[0]
        return [DISCARDS[seat][card]] if discard_error(st, seat, card) is None else []
    if st.permission == PERMISSION_YES and can_go_out:
        return []  # bound to go out: only melds (and a final discard) remain
    row = DISCARDS[seat]
    if st.options.red_three_discard:
        return [row[c] for c in sorted(set(hand))]
    return [row[c] for c in sorted(set(hand)) if not IS_RED_THREE[c]]
