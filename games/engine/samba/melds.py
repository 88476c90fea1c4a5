"""Meld checks and meld planning for Samba and Bolivia: group melds (several per rank, chosen by
``target`` or ``new``), sequences of one suit, Bolivia's wild melds, merges of two groups, the
initial minimum and the going-out conditions a meld or pile take must meet.

``plan_melds`` checks a whole action on copies and returns what would result; nothing here
changes a state.
"""

from __future__ import annotations

from dataclasses import dataclass

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
    card_text,
    rank_text,
)
from ..errors import IllegalAction
from ..melds import wild_cap
from ..options import Options
from ..state import PERMISSION_NO, GameState
from .state import GROUP, SEQUENCE, WILD, SambaExt, meld_name, parse_meld_name

CANASTA_SIZE = 7
SEQUENCE_MAX = 7  # a samba / escalera is closed (R19)
WILD_MELD_MAX = 7  # a bolivia is closed


def ext_of(st: GameState) -> SambaExt:
    ext = st.ext
    assert isinstance(ext, SambaExt)
    return ext


def initial_minimum(opts: Options, team_score: int) -> int:
    """The initial meld's minimum for a side's score at the start of the round (R24)."""
    if team_score < 0:
        return 15
    if team_score < 1500:
        return 50
    if team_score < 3000:
        return 90
    if team_score < 7000:
        return 120
    return opts.initial_meld_over_7000


def initial_need(st: GameState, team: int) -> int:
    """Points the side's first melds still lack this turn (0 once it has opened). A side that
    has not opened holds only melds laid this turn, so all of them count."""
    if st.opened[team]:
        return 0
    shown = 0
    for cards in st.melds[team].values():
        for c in cards:
            shown += VALUE_OF[c]
    return max(0, initial_minimum(st.options, st.scores[team]) - shown)


def group_rank(cards: list[int]) -> int:
    """The rank of a group meld: its natural cards' rank (3 for black threes)."""
    for c in cards:
        if not IS_WILD[c]:
            return RANK_OF[c]
    return WILD_RANK


def sequence_bounds(cards: list[int]) -> tuple[int, int, int]:
    """(suit, lowest rank, highest rank) of a sequence meld."""
    ranks = [RANK_OF[c] for c in cards]
    return SUIT_OF[cards[0]], min(ranks), max(ranks)


def canasta_kind(family: str, kind: str, cards: list[int]) -> str | None:
    if len(cards) < CANASTA_SIZE:
        return None
    if kind == SEQUENCE:
        return "samba" if family == "samba" else "escalera"
    if kind == WILD:
        return "bolivia"
    return "mixed" if any(IS_WILD[c] for c in cards) else "natural"


def canasta_counts(melds: dict[int, list[int]], kinds: dict[int, str]) -> tuple[int, int]:
    """(canastas of every kind, sequence canastas) among a side's melds."""
    total = sequences = 0
    for num, cards in melds.items():
        if len(cards) >= CANASTA_SIZE:
            total += 1
            if kinds[num] == SEQUENCE:
                sequences += 1
    return total, sequences


def go_out_error(
    opts: Options, melds: dict[int, list[int]], kinds: dict[int, str]
) -> IllegalAction | None:
    """Why a side holding ``melds`` may not go out, or None."""
    total, sequences = canasta_counts(melds, kinds)
    need = opts.canastas_to_go_out
    if total < need:
        return IllegalAction(
            "cannot_go_out_without_canasta",
            f"Going out (or keeping one card to discard) needs {need} canastas on your side's "
            f"melds (it would have {total}).",
        )
    if opts.family == "bolivia" and sequences == 0:
        return IllegalAction(
            "cannot_go_out_without_escalera",
            "Going out (or keeping one card to discard) needs two canastas, one of them an "
            "escalera (a sequence of seven): your side has none.",
        )
    return None


def take_from(hand: list[int], cards: tuple[int, ...] | list[int]) -> list[int]:
    """The hand without ``cards``; refused when a card is not held (often enough)."""
    rest = hand[:]
    for c in cards:
        try:
            rest.remove(c)
        except ValueError:
            held = hand.count(c)
            raise IllegalAction(
                "card_not_in_hand",
                f"{card_text(c)} is named more often than your hand holds it ({held})."
                if held
                else f"{card_text(c)} is not in your hand.",
            ) from None
    return rest


# -- card checks ---------------------------------------------------------------------------------
def check_sequence(existing: list[int], cards: tuple[int, ...] | list[int]) -> None:
    for c in cards:
        if IS_WILD[c]:
            raise IllegalAction(
                "meld_wild_forbidden",
                f"A sequence holds no wild card ({card_text(c)} is wild).",
            )
        if not IS_NATURAL[c]:
            raise IllegalAction(
                "sequence_invalid",
                f"A sequence runs from 4 to ace in one suit: {card_text(c)} cannot be in one.",
            )
    if len(existing) >= SEQUENCE_MAX:
        raise IllegalAction(
            "meld_too_large", "This sequence is a closed canasta of seven: nothing more goes on it."
        )
    every = [*existing, *cards]
    suit = SUIT_OF[every[0]]
    ranks = sorted(RANK_OF[c] for c in every)
    if any(SUIT_OF[c] != suit for c in every):
        raise IllegalAction("sequence_invalid", "A sequence holds cards of one suit only.")
    if any(b != a + 1 for a, b in zip(ranks, ranks[1:], strict=False)):
        raise IllegalAction(
            "sequence_invalid",
            "A sequence holds consecutive ranks (4 5 6 7 8 9 10 J Q K A), each rank once"
            + (": these cards do not extend it at either end." if existing else "."),
        )
    if len(every) > SEQUENCE_MAX:
        raise IllegalAction(
            "meld_too_large",
            f"A sequence holds at most seven cards (this one would hold {len(every)}).",
        )
    if len(every) < 3:
        raise IllegalAction(
            "meld_too_small",
            f"A sequence needs at least three cards (this one would hold {len(every)}).",
        )


def check_wild_meld(opts: Options, existing: list[int], cards: tuple[int, ...] | list[int]) -> None:
    if not opts.wild_canasta:
        raise IllegalAction(
            "meld_wild_canasta_disabled", "Melds of wild cards alone are not played in Samba."
        )
    for c in cards:
        if not IS_WILD[c]:
            raise IllegalAction(
                "meld_mixed_ranks",
                f"A meld of wild cards holds wild cards only: {card_text(c)} is not wild.",
            )
    size = len(existing) + len(cards)
    if len(existing) >= WILD_MELD_MAX or size > WILD_MELD_MAX:
        raise IllegalAction(
            "meld_too_large", f"A wild meld holds at most seven cards (this one would hold {size})."
        )
    if size < 3:
        raise IllegalAction(
            "meld_too_small", "A new meld of wild cards needs at least three cards."
        )


def check_group(
    opts: Options, rank: int, existing: list[int], cards: tuple[int, ...] | list[int]
) -> None:
    if rank == THREE:
        for c in cards:
            if IS_WILD[c]:
                raise IllegalAction(
                    "meld_invalid_card",
                    f"Black threes are melded without wild cards ({card_text(c)} is wild).",
                )
            if not IS_BLACK_THREE[c]:
                raise IllegalAction(
                    "meld_mixed_ranks",
                    f"A meld holds cards of one rank: {card_text(c)} is not a black three.",
                )
        if existing:
            raise IllegalAction(
                "meld_invalid_card", "Black threes are melded once, together: none can be added."
            )
        if len(cards) < 3:
            raise IllegalAction(
                "meld_too_small", "Black threes are melded three or more together, not fewer."
            )
        return
    if rank in (TWO, JOKER_RANK) or not 1 <= rank <= 11:
        raise IllegalAction(
            "meld_invalid_card",
            "2s and jokers are wild, not a rank: meld them with natural cards of 4 to A"
            + (", or as a wild meld (kind wild)." if opts.wild_canasta else "."),
        )
    name = rank_text(rank)
    naturals = wilds = 0
    for c in existing:
        if IS_WILD[c]:
            wilds += 1
        else:
            naturals += 1
    added_wild = False
    for c in cards:
        if IS_WILD[c]:
            wilds += 1
            added_wild = True
        elif RANK_OF[c] == rank:
            naturals += 1
        else:
            raise IllegalAction(
                "meld_mixed_ranks",
                f"A group holds cards of one rank: {card_text(c)} is not of rank {name}.",
            )
    if added_wild and len(existing) >= CANASTA_SIZE:
        raise IllegalAction(
            "meld_wild_to_canasta",
            f"This {name} meld is a canasta: no wild card may be added to a group canasta.",
        )
    if naturals + wilds < 3:
        raise IllegalAction(
            "meld_too_small",
            f"A new meld needs at least three cards (this {name} meld would hold "
            f"{naturals + wilds}).",
        )
    if naturals < 2:
        raise IllegalAction(
            "meld_needs_two_naturals",
            f"A meld needs at least two natural cards (this {name} meld would hold {naturals}).",
        )
    if wilds > wild_cap(opts, naturals):
        raise IllegalAction(
            "meld_too_many_wilds",
            f"Too many wild cards: this {name} meld would hold {wilds} wild and {naturals} "
            f"natural cards; at most {opts.max_wilds_per_meld}, and no more than the natural "
            "cards.",
        )


# -- placing groups ------------------------------------------------------------------------------
def resolve_target(
    team: int,
    melds: dict[int, list[int]],
    kinds: dict[int, str],
    group: MeldGroup,
    kind: str,
) -> int | None:
    """The meld number ``group`` goes onto, or None for a new meld (R22)."""
    rank = group.rank
    if group.target is not None:
        t_team, num = parse_meld_name(group.target)
        if t_team != team or num not in melds:
            raise IllegalAction(
                "meld_target_invalid", f"{group.target} is not one of your side's melds."
            )
        if kinds[num] != kind:
            raise IllegalAction(
                "meld_target_invalid", f"{group.target} is a {kinds[num]} meld, not a {kind} meld."
            )
        if kind == GROUP and group_rank(melds[num]) != rank:
            raise IllegalAction(
                "meld_target_invalid",
                f"{group.target} is a meld of rank {rank_text(group_rank(melds[num]))}, not "
                f"{rank_text(rank)}.",
            )
        return num
    if group.new or kind == SEQUENCE:
        return None
    found = None
    for num, k in kinds.items():
        if k == kind and (kind == WILD or group_rank(melds[num]) == rank):
            if found is not None:
                what = "wild melds" if kind == WILD else f"{rank_text(rank)} melds"
                raise IllegalAction(
                    "meld_target_required",
                    f"Your side has several {what}: name the one to add to with 'target', or "
                    "'new' for a new meld.",
                )
            found = num
    return found


def group_kind(group: MeldGroup) -> str:
    return WILD if group.kind == WILD or group.rank == WILD_RANK else group.kind


def place_group(
    opts: Options,
    team: int,
    melds: dict[int, list[int]],
    kinds: dict[int, str],
    next_id: int,
    group: MeldGroup,
) -> tuple[int, int]:
    """Check ``group`` and put it into ``melds``/``kinds`` (working copies: lists are replaced,
    never mutated); returns (meld number, next number)."""
    for c in group.cards:
        if IS_RED_THREE[c]:
            raise IllegalAction(
                "meld_invalid_card",
                f"{card_text(c)} is a red three: red threes are never melded.",
            )
    kind = group_kind(group)
    if kind == WILD and not opts.wild_canasta:
        raise IllegalAction(
            "meld_wild_canasta_disabled", "Melds of wild cards alone are not played in Samba."
        )
    num = resolve_target(team, melds, kinds, group, kind)
    existing = melds[num] if num is not None else []
    if kind == SEQUENCE:
        check_sequence(existing, group.cards)
    elif kind == WILD:
        check_wild_meld(opts, existing, group.cards)
    else:
        check_group(opts, group.rank, existing, group.cards)
    if num is None:
        num, next_id = next_id, next_id + 1
        kinds[num] = kind
    melds[num] = [*existing, *group.cards]
    return num, next_id


def merge_groups(
    opts: Options,
    team: int,
    melds: dict[int, list[int]],
    kinds: dict[int, str],
    merge: tuple[str, str],
) -> None:
    """Move the second group meld's cards into the first (R25: the second id is retired)."""
    first, second = merge
    (ta, a), (tb, b) = parse_meld_name(first), parse_meld_name(second)
    if ta != team or tb != team or a not in melds or b not in melds:
        raise IllegalAction(
            "meld_merge_invalid", f"Only your side's own melds can be merged ({first}, {second})."
        )
    if a == b or kinds[a] != GROUP or kinds[b] != GROUP:
        raise IllegalAction(
            "meld_merge_invalid",
            "Only two different group melds can be merged (sequences and wild melds never).",
        )
    ca, cb = melds[a], melds[b]
    rank = group_rank(ca)
    if group_rank(cb) != rank or rank == THREE:
        raise IllegalAction(
            "meld_merge_invalid", f"{first} and {second} are not group melds of one rank."
        )
    if (len(ca) >= CANASTA_SIZE and any(IS_WILD[c] for c in cb)) or (
        len(cb) >= CANASTA_SIZE and any(IS_WILD[c] for c in ca)
    ):
        raise IllegalAction(
            "meld_wild_to_canasta",
            "This merge would bring a wild card into a group canasta, which takes none.",
        )
    wilds = sum(1 for c in ca if IS_WILD[c]) + sum(1 for c in cb if IS_WILD[c])
    naturals = len(ca) + len(cb) - wilds
    if wilds > wild_cap(opts, naturals):
        raise IllegalAction(
            "meld_too_many_wilds",
            f"The merged meld would hold {wilds} wild cards; at most {opts.max_wilds_per_meld}, "
            "and no more than the natural cards.",
        )
    melds[a] = [*ca, *cb]
    del melds[b]
    del kinds[b]


@dataclass(slots=True)
class MeldPlan:
    hand: list[int]  # the hand after the action
    melds: dict[int, list[int]]  # the side's melds after the action (a new dict)
    kinds: dict[int, str]
    next_id: int
    ids: list[str]  # the meld each group went to, the pile's group first
    value: int  # points melded by the action (for the initial minimum)
    going_out: bool  # the action leaves no card, or one to discard
    need: int  # points the side's first melds still lack after the action (0: opened)


def plan_melds(
    st: GameState,
    seat: int,
    groups: tuple[MeldGroup, ...],
    hand: list[int],
    merge: tuple[str, str] | None = None,
    pile_group: MeldGroup | None = None,
    extra_to_hand: int = 0,
) -> MeldPlan:
    """Check a meld action (or the melds of a pile take, ``pile_group`` holding the top card
    first) against the rules; return what would result."""
    opts = st.options
    team = seat % opts.teams
    ext = ext_of(st)
    melds = dict(st.melds[team])
    kinds = dict(ext.kinds[team])
    next_id = ext.next_id[team]
    if pile_group is None and not groups and merge is None:
        raise IllegalAction("invalid_action", "Name at least one meld.")
    used = [c for g in groups for c in g.cards]
    if pile_group is not None:
        used += pile_group.cards[1:]
    rest = take_from(hand, used)
    if merge is not None:
        merge_groups(opts, team, melds, kinds, merge)
    ids: list[str] = []
    value = 0
    blacks = False
    for group in ((pile_group,) if pile_group is not None else ()) + groups:
        if not group.cards:
            raise IllegalAction("invalid_action", "Each meld must name at least one card.")
        num, next_id = place_group(opts, team, melds, kinds, next_id, group)
        ids.append(meld_name(team, num))
        value += sum(VALUE_OF[c] for c in group.cards)
        blacks = blacks or (group.kind == GROUP and group.rank == THREE)
    need = max(0, initial_need(st, team) - value)
    if need and pile_group is not None:
        minimum = initial_minimum(opts, st.scores[team])
        raise IllegalAction(
            "initial_meld_below_minimum",
            f"Taking the pile for your side's first meld needs {minimum} points shown with it, "
            f"counting the top card and cards from your hand only (these are worth {value}).",
        )
    left = len(rest) + extra_to_hand
    going_out = left == 0 or (left == 1 and not st.no_discard)
    if need and going_out:
        raise IllegalAction(
            "initial_meld_below_minimum",
            f"Your side's first melds must be worth at least "
            f"{initial_minimum(opts, st.scores[team])} points this turn: these leave them "
            f"{need} short, and too few cards in your hand to make up the rest.",
        )
    if blacks and not going_out:
        raise IllegalAction(
            "meld_black_threes_only_going_out",
            f"Black threes may be melded only when going out (this would leave you {left} cards).",
        )
    if going_out:
        err = go_out_error(opts, melds, kinds)
        if err is not None:
            raise err
        if st.permission == PERMISSION_NO:
            raise IllegalAction(
                "partner_said_no",
                "Your partner said no: you may not go out this turn, nor keep only one card.",
            )
    return MeldPlan(rest, melds, kinds, next_id, ids, value, going_out, need)
