"""Legal actions for the seat to act: concrete actions the validator accepts.

Draws, discards, pile declines, partner questions and answers and round ends are listed
exhaustively. Melds and pile takes have too many combinations to list one by one, so a canonical
set is listed per rank: every way the top card can be used (a natural pair, all the hand's
naturals of its rank, natural + wild, lay-off, and for a short hand the takes that go out),
every rank that can be started or laid off on with the hand's naturals (all of them, or as many
as may go while keeping enough cards; with and without one wild card), every wild card lay-off,
for a side that has not opened the richest and the trimmed combinations reaching the minimum
(once its first melds are laid below the minimum: no discard, but the fewest cards completing
them, each of their melds alone and the lay-offs that keep it reachable), black threes when
going out, and a whole going-out plan. Every listed action is accepted by
``apply``; clients may still build other combinations.
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
    IS_RED_THREE,
    IS_WILD,
    JOKER,
    N_CODES,
    RANK_OF,
    THREE,
    VALUE_OF,
    WILD_RANK,
)
from .family import CLASSIC, family_rules
from .going_out import completion, going_out_plan, meld_all
from .melds import initial_meld_minimum, initial_meld_need, wild_cap
from .options import Options
from .rules import (
    discard_error,
    meld_error,
    must_take_pile,
    pile_blocked,
    pile_frozen_for,
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
    if st.options.family != CLASSIC:
        return family_rules(st.options.family).legal_actions(st)
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


def _openings(
    options: Options,
    naturals: dict[int, list[int]],
    wilds: list[int],
    skip_rank: int,
    used: tuple[int, ...],
    start: int,
    minimum: int,
) -> list[tuple[MeldGroup, ...]]:
    """Combinations of new melds from the hand reaching the initial minimum (with ``start``
    points already shown): the richest combination, one trimmed to just reach the minimum,
    and each single meld of the richest that reaches it alone. Empty when none reaches it."""
    if start >= minimum:
        return [()]
    spare = [w for w in wilds]
    for c in used:
        if c in spare:
            spare.remove(c)
    spare.sort(key=lambda c: -VALUE_OF[c])  # the most valuable wild cards first
    specs: list[tuple[int, list[int], list[int]]] = []  # rank, naturals, wild cards
    for rank, cards in naturals.items():
        if rank not in (skip_rank, THREE) and len(cards) >= 2:
            specs.append((rank, cards, []))
    # A wild card is worth the same in any meld, but on a pair it also lets the pair be melded.
    specs.sort(key=lambda sp: (len(sp[1]) > 2, -sum(VALUE_OF[c] for c in sp[1])))
    for w in spare:
        for _rank, cards, ws in specs:
            if len(ws) < wild_cap(options, len(cards)) and (len(cards) > 2 or not ws):
                ws.append(w)
                break
        else:
            for _rank, cards, ws in specs:
                if len(ws) < wild_cap(options, len(cards)):
                    ws.append(w)
                    break
    richest = [(r, cs, ws) for r, cs, ws in specs if len(cs) + len(ws) >= 3]
    total = start + sum(VALUE_OF[c] for _, cs, ws in richest for c in (*cs, *ws))
    if total < minimum:
        return []
    # Trim: drop spare wild cards, then whole melds, cheapest first, while the minimum holds.
    trimmed = [(r, cs, list(ws)) for r, cs, ws in richest]
    extras = sorted(
        ((VALUE_OF[w], i, w) for i, (_, cs, ws) in enumerate(trimmed) for w in ws[len(cs) < 3 :]),
    )
    for value, i, w in extras:
        if total - value >= minimum:
            trimmed[i][2].remove(w)
            total -= value
    keep = []
    for r, cs, ws in sorted(trimmed, key=lambda sp: sum(VALUE_OF[c] for c in (*sp[1], *sp[2]))):
        value = sum(VALUE_OF[c] for c in (*cs, *ws))
        if total - value >= minimum:
            total -= value
        else:
            keep.append((r, cs, ws))
    out = [
        tuple(MeldGroup(r, (*cs, *ws)) for r, cs, ws in keep),
        tuple(MeldGroup(r, (*cs, *ws)) for r, cs, ws in richest),
    ]
    for r, cs, ws in richest:
        if start + sum(VALUE_OF[c] for c in (*cs, *ws)) >= minimum:
            out.append((MeldGroup(r, (*cs, *ws)),))
    return list(dict.fromkeys(out))


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
    team = seat % st.options.teams
    naturals, wilds = _by_rank(st.hands[seat])
    same = naturals.get(rank, [])
    frozen = pile_frozen_for(st, seat)  # then only a natural pair (or more naturals) will do
    ways: list[tuple[int, ...]] = []
    if rank in st.melds[team] and not frozen:
        ways.append(())
    if len(same) >= 2:
        ways.append(tuple(same[:2]))
    if len(same) > 2:
        ways.append(tuple(same))  # more points with the top card, for the initial minimum
    wild = _cheapest_wild(wilds)
    if same and wild is not None and not frozen:
        ways.append((same[0], wild))
    out: list[Action] = []
    opened = st.opened[team]
    minimum = initial_meld_minimum(st.scores[team])
    for cards in ways:
        if opened:
            options: list[tuple[MeldGroup, ...]] = [()]
        else:
            start = VALUE_OF[top] + sum(VALUE_OF[c] for c in cards)
            options = _openings(st.options, naturals, wilds, rank, cards, start, minimum)
        for extras in options:
            action = TakePile(seat, cards, extras)
            if take_pile_error(st, action) is None:
                out.append(action)
                break
    if not out and opened and len(st.hands[seat]) <= 4:
        out = _short_hand_takes(st, seat, same, wilds)
    return out


def _short_hand_takes(st: GameState, seat: int, same: list[int], wilds: list[int]) -> list[Action]:
    """Takes for a hand of a few cards, which the plain ways may leave with too few cards
    without the canastas to go out: take more of the hand with the top card, and meld the rest
    of the hand (keeping one card to discard or none) when that makes the canastas."""
    hand = st.hands[seat]
    top = st.pile[-1]
    rank = RANK_OF[top]
    team = seat % st.options.teams
    melds = st.melds[team]
    pile_rest = sum(1 for c in st.pile[:-1] if not IS_RED_THREE[c])
    usable = [*same, *wilds]
    out: list[Action] = []
    tried: set[tuple[int, ...]] = set()
    for mask in range(1 << len(usable)):
        cards = tuple(sorted(c for i, c in enumerate(usable) if mask >> i & 1))
        if cards in tried or (not cards and rank not in melds):
            continue
        tried.add(cards)
        rest = hand[:]
        for c in cards:
            rest.remove(c)
        options: list[tuple[MeldGroup, ...]] = [()]
        if rest and pile_rest == 0:
            merged = dict(melds)
            merged[rank] = [*melds.get(rank, []), top, *cards]
            for kept in [None, *sorted(set(rest))]:
                to_meld = rest[:]
                if kept is not None:
                    to_meld.remove(kept)
                groups = meld_all(st, team, to_meld, merged) if to_meld else None
                if groups:
                    options.append(groups)
        for extras in options:
            action = TakePile(seat, cards, extras)
            if take_pile_error(st, action) is None:
                out.append(action)
                break
    return out


def _play_phase(st: GameState, seat: int) -> list[Action]:
    hand = st.hands[seat]
    team = seat % st.options.teams
    plan = going_out_plan(st, seat)
    opened = st.opened[team]
    # A side laying its first melds one at a time: the turn cannot end until they reach the
    # minimum, and what completes them is listed below.
    incomplete = not opened and bool(st.melds[team])
    out: list[Action] = []
    if st.no_discard and not incomplete:
        out.append(EndRound(seat))
    elif not incomplete:
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
    if opened or incomplete:
        wild = _cheapest_wild(wilds) if wilds else None
        # Natural cards laid off, three or more naturals, or a natural pair with one wild card
        # always make a valid meld; only keeping too few cards (going out), a binding "yes" or
        # an incomplete first meld can refuse them, and then the full check decides.
        size = len(hand)
        keep = 1 if st.no_discard else 2
        plain = opened and st.permission != PERMISSION_YES
        for rank, cards in naturals.items():
            if rank == THREE:
                continue
            # As many of the rank's natural cards as may go while keeping enough cards.
            most = min(len(cards), size - keep) if plain else 0
            if rank in melds or len(cards) >= 3:
                group = MeldGroup(rank, tuple(cards))
                if (plain and size - len(cards) >= keep) or single_meld_ok(st, seat, group):
                    out.append(Meld(seat, (group,)))
                elif most >= (1 if rank in melds else 3):
                    out.append(Meld(seat, (MeldGroup(rank, tuple(cards[:most])),)))
                if rank in melds:
                    continue
            if wild is not None and len(cards) >= 2:
                group = MeldGroup(rank, (*cards, wild))
                if (plain and size - len(cards) > keep) or single_meld_ok(st, seat, group):
                    out.append(Meld(seat, (group,)))
                elif 2 <= most - 1 < len(cards):
                    out.append(Meld(seat, (MeldGroup(rank, (*cards[: most - 1], wild)),)))
        if wilds:
            # Whether one wild card may be laid off depends on the meld, not on which wild card.
            kinds = sorted(set(wilds))
            ranks = [
                r
                for r in sorted(melds)  # the same order after a JSON round trip
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
    if not opened:
        minimum = initial_meld_minimum(st.scores[team])
        need = initial_meld_need(st, team)
        candidates += _openings(st.options, naturals, wilds, -1, (), minimum - need, minimum)
        if incomplete:
            rest = completion(st, seat, hand, melds, need)
            if rest is not None:  # always, as a first meld below the minimum needs one
                candidates.append(rest)
                candidates += [(g,) for g in rest]
    blacks = tuple(naturals.get(THREE, ()))  # red threes are not in ``naturals``
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
