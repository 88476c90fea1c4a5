"""Modern American Canasta: dealing, validating and applying actions, ending rounds.

Readings beyond VARIANTS.md section 5:

- The turn's first step (threes in hand laid out and replaced) is part of the draw or pile
  take, so ``keep_three`` can keep one. A 3 drawn as the last stock card ends the round (R11);
  a 3 laid out that finds the stock empty ends it as the stock running out.
- A pile take names at least a natural pair of the top card's rank (more naturals of it may
  join); it counts as the turn's melding (no partner question after it).
- A first meld below the minimum (or without its clean triple) is accepted only when the
  engine finds melds of the cards left that complete the opening this turn; the turn cannot
  end before. Once open, every later action of the initial-meld turn keeps the clean triple.
- Wild cards placed on another meld while the side's wild meld stays incomplete at the end of
  the action are refused (``meld_wild_meld_open``).
- A partner's "yes" binds: while the engine finds a way out, a discard or meld that gives it
  up is refused (``must_go_out``). A question needs such a way out.
- A meld never leaves only cards that cannot be discarded (a kept 3), pile empty or not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
from ..cards import (
    IS_THREE,
    IS_WILD,
    JOKER,
    JOKER_RANK,
    RANK_OF,
    THREE,
    TWO,
    WILD_RANK,
    card_text,
    cards_text,
    rank_text,
)
from ..errors import IllegalAction, InvalidAction
from ..events import Event, Events
from ..options import Options
from ..state import (
    PERMISSION_ASKED,
    PERMISSION_NO,
    PERMISSION_YES,
    PHASE_ANSWER,
    PHASE_DRAW,
    PHASE_PLAY,
    GameState,
)
from ..table import apply_answer, begin_turn, close_round, deal_hands, phase_error, round_started
from .melds import (
    ACE,
    CANASTA,
    MAC_VALUE,
    SEVEN,
    canastas,
    dead_ranks,
    ext_of,
    incomplete_special,
    initial_minimum,
)
from .scoring import score_round
from .special import DREAM_HANDS, forms_special_hand, special_values
from .state import MacExt

TALON_STOCK = 9  # the talon is taken only while the stock holds this many cards (turn card)


def new_ext(options: Options) -> MacExt:
    return MacExt(options.players, options.teams)


# -- small facts ---------------------------------------------------------------------------------
def talon_due(st: GameState) -> int:
    """Cards of the talon the seat to move takes after its discard (0: none)."""
    ext = ext_of(st)
    return ext.talon if ext.talon and len(st.stock) >= TALON_STOCK else 0


def swad(card: int, dead: set[int]) -> bool:
    """A seven, wild card, ace or card of a dead rank (never onto an empty pile)."""
    rank = RANK_OF[card]
    return IS_WILD[card] or rank in (SEVEN, ACE) or rank in dead


def can_discard(hand: list[int], card: int, pile_empty: bool, lifted: bool, dead: set[int]) -> bool:
    """May ``card`` be discarded from ``hand`` in a turn that does not go out?"""
    if IS_THREE[card]:
        return False
    if IS_WILD[card]:
        if any(not IS_WILD[c] and not IS_THREE[c] for c in hand):
            return False
        return lifted or not pile_empty
    return lifted or not pile_empty or not swad(card, dead)


def has_legal_discard(hand: list[int], pile_empty: bool, lifted: bool, dead: set[int]) -> bool:
    return any(can_discard(hand, c, pile_empty, lifted, dead) for c in set(hand))


def opening_facts(
    opts: Options, team_melds: dict[int, list[int]], pile_top: int
) -> tuple[int, bool]:
    """Value of a side's first melds counting hand cards only, and whether they hold the
    clean triple (or, with ``clean_triple_or_wild_meld``, a wild meld of 3+ cards)."""
    value = sum(MAC_VALUE[c] for cards in team_melds.values() for c in cards)
    pile_rank = -1
    if pile_top >= 0:
        value -= MAC_VALUE[pile_top]
        pile_rank = RANK_OF[pile_top]
    clean = False
    for rank, cards in team_melds.items():
        if rank == WILD_RANK:
            if opts.initial_meld_core == "clean_triple_or_wild_meld" and len(cards) >= 3:
                clean = True
        elif not any(IS_WILD[c] for c in cards) and len(cards) - (rank == pile_rank) >= 3:
            clean = True
    return value, clean


def partial_opening(st: GameState, team: int) -> bool:
    """The side laid first melds this turn that do not open it yet."""
    return not st.opened[team] and bool(st.melds[team])


def can_keep_three(st: GameState, seat: int) -> bool:
    return st.options.special_hands != "none" and not st.melds[st.team_of(seat)]


# -- deal and turns ------------------------------------------------------------------------------
def deal_round(st: GameState, events: Events, deck: list[int] | None = None) -> None:
    opts = st.options
    players = opts.players
    seed = deal_hands(st, deck)
    st.ext = new_ext(opts)
    first = (st.dealer + 1) % players
    if events is not None:
        events.append(round_started(st, seed, first, pile_frozen=True))
    start_turn(st, first)
    if opts.red_three_reveal == "at_deal":
        for i in range(players):
            end = lay_out_threes(st, (first + i) % players, False, events)
            if end is not None:  # pragma: no cover - the stock holds 56+ cards at the deal
                end_round(st, None, end, events)
                return


def start_turn(st: GameState, seat: int) -> None:
    begin_turn(st, seat)
    ext_of(st).new_turn()


def lay_out_one(st: GameState, seat: int, card: int, keep: bool, events: Events) -> str | None:
    """A 3 leaves the hand for the side's threes area and is replaced from the stock (a 3 drawn
    as replacement likewise). Returns why the round ends, or None."""
    ext = ext_of(st)
    hand = st.hands[seat]
    team = st.team_of(seat)
    while True:
        hand.remove(card)
        st.red_threes[team].append(card)
        drawn = [st.stock.pop()] if st.stock else []
        hand.extend(drawn)
        if events is not None:
            events.append(
                Event(
                    "red_three_revealed",
                    seat,
                    {"card": card_text(card), "replacements": len(drawn)},
                    {seat: {"drawn": cards_text(drawn)}},
                )
            )
        if not drawn:
            return "stock_exhausted"
        card = drawn[0]
        if not IS_THREE[card]:
            return None
        if not st.stock:
            return "last_three"  # R11: the 3 stays in the hand
        if keep and ext.kept[seat] < 0:
            ext.kept[seat] = card
            return None


def lay_out_threes(st: GameState, seat: int, keep: bool, events: Events) -> str | None:
    """Step 1 of a turn: the threes in hand go to the threes area (one kept with ``keep``)."""
    ext = ext_of(st)
    hand = st.hands[seat]
    threes = sorted(c for c in hand if IS_THREE[c])
    kept = -1
    if keep and threes:
        kept = ext.kept[seat] if ext.kept[seat] in threes else threes[0]
    ext.kept[seat] = kept
    skipped = False
    for card in threes:
        if card == kept and not skipped:
            skipped = True
            continue
        end = lay_out_one(st, seat, card, keep, events)
        if end is not None:
            return end
    return None


# -- apply ---------------------------------------------------------------------------------------
def apply(st: GameState, action: Action, events: Events) -> None:
    if isinstance(action, Draw):
        apply_draw(st, action, events)
    elif isinstance(action, Discard):
        apply_discard(st, action, events)
    elif isinstance(action, Meld):
        apply_meld(st, action, events)
    elif isinstance(action, TakePile):
        apply_take_pile(st, action, events)
    elif isinstance(action, AskPartner):
        apply_ask(st, action, events)
    elif isinstance(action, AnswerPartner):
        apply_answer(st, action, events)
    elif isinstance(action, DeclareSpecialHand):
        apply_special_hand(st, action, events)
    else:
        raise IllegalAction(
            "wrong_phase",
            "This game has no such action: the round ends by going out, by the stock running "
            "out or by a special hand.",
        )


def apply_draw(st: GameState, action: Draw, events: Events) -> None:
    if st.phase != PHASE_DRAW:
        raise phase_error(st, "draw")
    seat = action.seat
    if action.keep_three and not can_keep_three(st, seat):
        raise IllegalAction(
            "cannot_keep_three",
            "A 3 may be kept for a Straight only while your side has not melded this round and "
            "the game plays special hands.",
        )
    end = lay_out_threes(st, seat, action.keep_three, events)
    if end is None and not st.stock:
        end = "stock_exhausted"  # the replacements used the stock up: nothing to draw
    if end is not None:
        end_round(st, None, end, events)
        return
    ext = ext_of(st)
    card = st.stock.pop()
    st.hands[seat].append(card)
    if events is not None:
        events.append(Event("card_drawn", seat, {"count": 1}, {seat: {"cards": [card_text(card)]}}))
    if IS_THREE[card]:
        if not st.stock:
            end_round(st, None, "last_three", events)
            return
        if action.keep_three and ext.kept[seat] < 0:
            ext.kept[seat] = card
        else:
            end = lay_out_one(st, seat, card, action.keep_three, events)
            if end is not None:
                end_round(st, None, end, events)
                return
    st.phase = PHASE_PLAY
    ext.drew_stock = True
    ext.fresh = True
    hand = st.hands[seat]
    ext.swad_lifted = not st.pile and not has_legal_discard(hand, True, False, dead_ranks(st))


# -- melds ---------------------------------------------------------------------------------------
@dataclass(slots=True)
class Plan:
    hand: list[int]
    melds: dict[int, list[int]]  # the side's melds after the action
    created: list[int]


def take_cards(hand: list[int], cards: tuple[int, ...] | list[int]) -> list[int]:
    rest = hand[:]
    for c in cards:
        try:
            rest.remove(c)
        except ValueError:
            name = card_text(c) if 0 <= c <= JOKER else "That card"
            raise IllegalAction("card_not_in_hand", f"{name} is not in your hand.") from None
    return rest


def check_form(groups: tuple[MeldGroup, ...]) -> None:
    for g in groups:
        if g.kind == "sequence" or g.target is not None or g.new:
            raise InvalidAction(
                "this game has no sequences, meld ids or 'new' melds: a meld names its rank "
                '(or kind "wild") and cards'
            )


def plan_melds(
    st: GameState,
    seat: int,
    groups: tuple[MeldGroup, ...],
    hand: list[int],
    trio: MeldGroup | None = None,
) -> Plan:
    """The side's melds and the hand after laying ``groups`` (and the pile trio), or the
    refusal. Nothing is changed."""
    opts = st.options
    ext = ext_of(st)
    team = st.team_of(seat)
    check_form(groups)
    ranks = [g.rank for g in groups]
    if len(set(ranks)) != len(ranks):
        raise IllegalAction("meld_duplicate_rank", "One action names the same meld rank twice.")
    rest = take_cards(hand, [c for g in groups for c in g.cards])
    before = st.melds[team]
    melds = dict(before)
    dead = dead_ranks(st)
    initial = not st.opened[team] or ext.initial_turn
    pile_top = trio.cards[0] if trio is not None else ext.pile_top
    pile_aces = pile_top >= 0 and RANK_OF[pile_top] == ACE
    created: list[int] = []
    wild_elsewhere = False
    for g in ((trio,) if trio is not None else ()) + groups:
        rank = g.rank
        name = rank_text(rank) if 0 <= rank <= TWO or rank == WILD_RANK else "that"
        if rank == WILD_RANK:
            if any(not IS_WILD[c] for c in g.cards):
                raise IllegalAction(
                    "meld_mixed_ranks", "A wild meld holds 2s and jokers only (rank W)."
                )
        else:
            if rank in (THREE, TWO, JOKER_RANK) or not 0 <= rank <= WILD_RANK:
                raise IllegalAction(
                    "meld_invalid_card",
                    f"There are no melds of rank {name}: threes are never melded, and 2s and "
                    "jokers meld only as a wild meld (rank W).",
                )
            for c in g.cards:
                if IS_THREE[c]:
                    raise IllegalAction(
                        "meld_invalid_card", f"{card_text(c)} is a 3: threes are never melded."
                    )
                if not IS_WILD[c] and RANK_OF[c] != rank:
                    raise IllegalAction(
                        "meld_mixed_ranks",
                        f"{card_text(c)} does not belong in a meld of rank {name}.",
                    )
            if rank in dead:
                raise IllegalAction(
                    "meld_dead_rank",
                    f"Rank {name} is dead (a canasta of it is complete): no meld of it may be "
                    "started or extended.",
                )
        old = melds.get(rank)
        new = (old or []) + list(g.cards)
        if old is None:
            created.append(rank)
        if len(new) > CANASTA:
            raise IllegalAction(
                "meld_too_large",
                f"Your side's {name} meld would hold {len(new)} cards: no meld exceeds seven "
                "(a canasta of seven is closed).",
            )
        if old is None and len(new) < 3:
            raise IllegalAction("meld_too_small", "A new meld needs at least three cards.")
        added_wilds = sum(1 for c in g.cards if IS_WILD[c])
        if rank != WILD_RANK:
            wilds = sum(1 for c in new if IS_WILD[c])
            naturals = len(new) - wilds
            if added_wilds:
                wild_elsewhere = True
                if rank == SEVEN:
                    raise IllegalAction(
                        "meld_wild_forbidden", "Sevens are melded natural only: no wild card."
                    )
                if rank == ACE and not (
                    any(IS_WILD[c] for c in old or ()) or (initial and not pile_aces)
                ):
                    raise IllegalAction(
                        "meld_wild_forbidden",
                        "Aces take wild cards only in a meld made from the hand in the side's "
                        "initial-meld turn: this aces meld stays natural.",
                    )
            if naturals < 2:
                raise IllegalAction("meld_needs_two_naturals", "A meld needs two natural cards.")
            if wilds > min(2, naturals):
                raise IllegalAction(
                    "meld_too_many_wilds",
                    f"The {name} meld would hold {wilds} wild cards: at most two, and never "
                    "more than its natural cards.",
                )
            if added_wilds and opts.rule_of_five and not initial and naturals < 5:
                raise IllegalAction(
                    "meld_rule_of_five",
                    f"The {name} meld would hold {naturals} natural cards: outside the "
                    "initial-meld turn a wild card needs five natural cards in the meld.",
                )
        melds[rank] = new
    wild_meld = melds.get(WILD_RANK)
    if wild_elsewhere and wild_meld is not None and len(wild_meld) < CANASTA:
        raise IllegalAction(
            "meld_wild_meld_open",
            "Your side's wild meld is incomplete: wild cards may go only onto it.",
        )
    if initial:
        for rank, cards in melds.items():
            if (
                rank != WILD_RANK
                and len(cards) >= CANASTA
                and len(before.get(rank, ())) < CANASTA
                and any(IS_WILD[c] for c in cards)
            ):
                raise IllegalAction(
                    "initial_meld_mixed_canasta",
                    "No mixed canasta may be completed in the side's initial-meld turn.",
                )
    return Plan(rest, melds, created)


def going_out_error(st: GameState, seat: int, melds: dict[int, list[int]]) -> IllegalAction | None:
    have = canastas(melds)
    if have < st.options.canastas_to_go_out:
        return IllegalAction(
            "cannot_go_out_without_canasta",
            f"Keeping one card to go out needs {st.options.canastas_to_go_out} canastas: your "
            f"side has {have}.",
        )
    if incomplete_special(melds):
        return IllegalAction(
            "cannot_go_out_incomplete_special",
            "Your side has an incomplete sevens, natural aces or wild meld: it cannot go out.",
        )
    if st.permission == PERMISSION_NO:
        return IllegalAction("partner_said_no", "Your partner said no: you may not go out now.")
    return None


def leave_error(
    st: GameState, seat: int, plan: Plan, talon: int, pile_empty: bool, lifted: bool
) -> IllegalAction | None:
    """What is wrong with the hand a meld leaves, or None."""
    hand = plan.hand
    if not hand:
        return IllegalAction(
            "go_out_needs_discard",
            "A player goes out only by discarding the last card: keep one card to discard.",
        )
    if len(hand) == 1 and not (talon and len(st.stock) >= TALON_STOCK):
        if IS_THREE[hand[0]]:
            return IllegalAction(
                "meld_leaves_no_legal_discard",
                "This meld would leave only a 3, which may not be discarded.",
            )
        return going_out_error(st, seat, plan.melds)
    dead = (
        dead_ranks(st)
        if not any(len(c) >= CANASTA for c in plan.melds.values())
        else (
            dead_ranks(st)
            | {r for r, c in plan.melds.items() if r != WILD_RANK and len(c) >= CANASTA}
        )
    )
    if not has_legal_discard(hand, pile_empty, lifted, dead):
        return IllegalAction(
            "meld_leaves_no_legal_discard",
            "This meld would leave no card you may discard"
            + (
                " onto the empty pile (sevens, wild cards, aces and dead ranks may not go there)."
                if pile_empty
                else "."
            ),
        )
    return None


def meld_check(
    st: GameState, seat: int, groups: tuple[MeldGroup, ...], require_open: bool = False
) -> tuple[Plan, bool, int]:
    """Validate a meld action: its plan, whether it opens the side, the talon it earns."""
    if st.phase != PHASE_PLAY:
        raise phase_error(st, "meld")
    ext = ext_of(st)
    team = st.team_of(seat)
    plan = plan_melds(st, seat, groups, st.hands[seat])
    opens = False
    talon = ext.talon
    value = 0
    clean = True
    if not st.opened[team]:
        value, clean = opening_facts(st.options, plan.melds, ext.pile_top)
        opens = clean and value >= initial_minimum(st.scores[team])
        if opens and ext.drew_stock:
            talon = 3 if st.opened[1 - team] else 4
    elif ext.initial_turn:
        clean = opening_facts(st.options, plan.melds, ext.pile_top)[1]
        if not clean:
            raise clean_triple_error()
    if st.options.talons is False:
        talon = 0
    err = leave_error(st, seat, plan, talon, not st.pile, ext.swad_lifted)
    if err is not None:
        raise err
    if not st.opened[team] and not opens and (require_open or not completes_later(st, seat, plan)):
        if value < initial_minimum(st.scores[team]):
            raise IllegalAction(
                "initial_meld_below_minimum",
                f"Your side's first melds are worth {value} (hand cards only) and must reach "
                f"{initial_minimum(st.scores[team])} this turn; the cards left in your hand "
                "cannot complete them.",
            )
        raise clean_triple_error()
    if st.permission == PERMISSION_YES and len(plan.hand) > 1:
        trial = st.clone()
        commit_melds(trial, seat, plan, opens, talon)
        if out_plan_hook(trial, seat) is None:
            raise must_go_out_error()
    return plan, opens, talon


def clean_triple_error() -> IllegalAction:
    return IllegalAction(
        "initial_meld_needs_clean_triple",
        "The initial meld needs a meld of three or more natural cards from your hand with no "
        "wild card.",
    )


def must_go_out_error() -> IllegalAction:
    return IllegalAction("must_go_out", "Your partner said yes: you must go out this turn.")


# The legal-action module supplies the searches (opening completion, way out); set at import.
SEARCHES: dict[str, Any] = {}


def completes_later(st: GameState, seat: int, plan: Plan) -> bool:
    trial = st.clone()
    commit_melds(trial, seat, plan, False, ext_of(st).talon)
    return bool(SEARCHES["openings"](trial, seat))


def out_plan_hook(st: GameState, seat: int) -> Meld | None:
    result: Meld | None = SEARCHES["out_plan"](st, seat)
    return result


def commit_melds(st: GameState, seat: int, plan: Plan, opens: bool, talon: int) -> None:
    team = st.team_of(seat)
    ext = ext_of(st)
    if not st.opened[team]:
        ext.initial_turn = True
    st.hands[seat] = plan.hand
    st.melds[team] = plan.melds
    st.turn_started = st.turn_started + plan.created
    st.turn_melded = True
    ext.fresh = False
    if opens:
        st.opened[team] = True
        ext.talon = talon


def meld_error(st: GameState, seat: int, groups: tuple[MeldGroup, ...]) -> IllegalAction | None:
    try:
        meld_check(st, seat, groups)
    except IllegalAction as exc:
        return exc
    return None


def apply_meld(st: GameState, action: Meld, events: Events) -> None:
    if action.merge is not None:
        raise InvalidAction("this game has no meld ids: melds are never merged")
    seat = action.seat
    plan, opens, talon = meld_check(st, seat, action.melds)
    commit_melds(st, seat, plan, opens, talon)
    if events is not None:
        events.append(Event("melded", seat, {"melds": [g.to_dict() for g in action.melds]}))


# -- the discard pile ----------------------------------------------------------------------------
def take_check(st: GameState, action: TakePile) -> None:
    """The refusals a pile take meets before its threes are laid out."""
    if st.phase != PHASE_DRAW:
        raise phase_error(st, "take the pile")
    if action.target is not None:
        raise InvalidAction("this game has no meld ids: a pile take names no 'target'")
    check_form(action.melds)
    if not st.pile:
        raise IllegalAction("pile_empty", "The discard pile is empty: there is nothing to take.")
    top = st.pile[-1]
    if IS_WILD[top]:
        raise IllegalAction(
            "pile_blocked",
            f"The pile's top card {card_text(top)} is a wild card: nobody may take the pile.",
        )
    rank = RANK_OF[top]
    name = rank_text(rank)
    if rank in dead_ranks(st):
        raise IllegalAction(
            "pile_dead_card",
            f"The top card {card_text(top)} is of a dead rank (a canasta of {name} is "
            "complete): the pile cannot be taken with it.",
        )
    seat = action.seat
    take_cards(st.hands[seat], list(action.cards) + [c for g in action.melds for c in g.cards])
    if len(action.cards) < 2 or any(RANK_OF[c] != rank or IS_WILD[c] for c in action.cards):
        raise IllegalAction(
            "pile_frozen",
            f"The pile is always frozen: take it only by melding its top card {card_text(top)} "
            f"with a natural pair of rank {name} from your hand.",
        )
    existing = st.melds[st.team_of(seat)].get(rank, [])
    if len(existing) + len(action.cards) + 1 > CANASTA:
        raise IllegalAction(
            "meld_too_large",
            f"Your side's {name} meld would hold {len(existing) + len(action.cards) + 1} "
            "cards: no meld exceeds seven.",
        )


def take_on(st: GameState, action: TakePile, events: Events) -> None:
    """The whole take on ``st`` (a copy when validating): threes laid out, trio and melds laid,
    the rest of the pile to the hand. Raises on refusal (``st`` is then to be dropped)."""
    take_check(st, action)
    seat = action.seat
    end = lay_out_threes(st, seat, False, events)
    if end is not None:
        end_round(st, None, end, events)
        return
    ext = ext_of(st)
    team = st.team_of(seat)
    top = st.pile[-1]
    rest_of_pile = st.pile[:-1]
    hand = take_cards(st.hands[seat], action.cards)
    trio = MeldGroup(RANK_OF[top], (top, *action.cards))
    plan = plan_melds(st, seat, action.melds, hand, trio)
    opens = False
    if not st.opened[team]:
        value, clean = opening_facts(st.options, plan.melds, top)
        minimum = initial_minimum(st.scores[team])
        if value < minimum:
            raise IllegalAction(
                "initial_meld_below_minimum",
                f"Taking the pile for your side's first melds must reach {minimum} in the same "
                f"action with cards from your hand (the top card never counts): these are "
                f"worth {value}.",
            )
        if not clean:
            raise clean_triple_error()
        opens = True
    lifted = not has_legal_discard(hand + rest_of_pile, True, False, dead_ranks(st))
    plan.hand = plan.hand + rest_of_pile
    err = leave_error(st, seat, plan, 0, True, lifted)
    if err is not None:
        raise err
    st.pile = []
    st.pile_freezers = 0
    ext.pile_top = top
    ext.swad_lifted = lifted
    commit_melds(st, seat, plan, opens, 0)
    st.phase = PHASE_PLAY
    if events is not None:
        events.append(
            Event(
                "pile_taken",
                seat,
                {
                    "top": card_text(top),
                    "with": [card_text(c) for c in action.cards],
                    "melds": [g.to_dict() for g in action.melds],
                    "cards_to_hand": len(rest_of_pile),
                    "red_threes": [],
                },
                {seat: {"cards": cards_text(rest_of_pile)}},
            )
        )


def copy_into(st: GameState, source: GameState) -> None:
    for name in GameState.__slots__:
        setattr(st, name, getattr(source, name))


def take_pile_error(st: GameState, action: TakePile) -> IllegalAction | None:
    try:
        take_check(st, action)
        take_on(st.clone(), action, None)
    except IllegalAction as exc:
        return exc
    return None


def apply_take_pile(st: GameState, action: TakePile, events: Events) -> None:
    take_check(st, action)
    trial = st.clone()
    trial_events: list[Event] = []
    take_on(trial, action, trial_events)
    copy_into(st, trial)
    if events is not None:
        events.extend(trial_events)


# -- discarding ----------------------------------------------------------------------------------
def discard_error(st: GameState, seat: int, card: int) -> IllegalAction | None:
    if st.phase != PHASE_PLAY:
        return phase_error(st, "discard")
    hand = st.hands[seat]
    if card not in hand:
        name = card_text(card) if 0 <= card <= JOKER else "That card"
        return IllegalAction("card_not_in_hand", f"{name} is not in your hand.")
    if IS_THREE[card]:
        return IllegalAction(
            "discard_three_forbidden", f"{card_text(card)} is a 3: threes are never discarded."
        )
    team = st.team_of(seat)
    if partial_opening(st, team):
        minimum = initial_minimum(st.scores[team])
        return IllegalAction(
            "initial_meld_incomplete",
            f"Your side's first melds do not yet make its initial meld ({minimum}, with a clean "
            "triple): meld the rest before discarding.",
        )
    if len(hand) == 1 and not talon_due(st):
        return going_out_error(st, seat, st.melds[team])
    ext = ext_of(st)
    if st.permission == PERMISSION_YES and out_plan_hook(st, seat) is not None:
        return must_go_out_error()
    if IS_WILD[card] and any(not IS_WILD[c] and not IS_THREE[c] for c in hand):
        return IllegalAction(
            "discard_wild_forbidden",
            f"{card_text(card)} is wild: a wild card may be discarded only to go out or from a "
            "hand of wild cards only.",
        )
    if not st.pile and not ext.swad_lifted and swad(card, dead_ranks(st)):
        return IllegalAction(
            "discard_swad_on_empty_pile",
            f"{card_text(card)} may not go onto the empty pile: no seven, wild card, ace or "
            "card of a dead rank there.",
        )
    return None


def apply_discard(st: GameState, action: Discard, events: Events) -> None:
    seat, card = action.seat, action.card
    err = discard_error(st, seat, card)
    if err is not None:
        raise err
    talon = talon_due(st)
    hand = st.hands[seat]
    hand.remove(card)
    st.pile.append(card)
    if IS_WILD[card]:
        st.pile_freezers += 1
    if events is not None:
        events.append(Event("card_discarded", seat, {"card": card_text(card)}))
    if not hand and not talon:
        end_round(st, seat, "went_out", events)
        return
    if talon:
        drawn = [st.stock.pop() for _ in range(talon)]
        hand.extend(drawn)
        if events is not None:
            events.append(
                Event("talon_drawn", seat, {"count": talon}, {seat: {"cards": cards_text(drawn)}})
            )
    if st.turn_melded:
        st.melded_before[seat] = True
    if not st.stock:
        if events is not None:
            events.append(Event("stock_exhausted", None, {}))
        end_round(st, None, "stock_exhausted", events)
        return
    start_turn(st, (seat + 1) % st.options.players)


# -- asking the partner, special hands -----------------------------------------------------------
def ask_error(st: GameState, seat: int) -> IllegalAction | None:
    if not st.options.can_ask_partner:
        why = (
            "this game has no partners"
            if not st.options.partnership
            else "this game's options leave the question out"
        )
    elif st.phase != PHASE_PLAY:
        why = "you ask after drawing"
    elif ext_of(st).asked[seat]:
        why = "each player asks at most once per round"
    elif st.turn_melded:
        why = "you ask before melding anything this turn"
    elif len(st.hands[seat]) < 2:
        why = "you hold a single card"
    elif out_plan_hook(st, seat) is None:
        why = "you ask only when you are able to go out"
    else:
        return None
    return IllegalAction("cannot_ask_partner", f"You cannot ask your partner to go out: {why}.")


def apply_ask(st: GameState, action: AskPartner, events: Events) -> None:
    err = ask_error(st, action.seat)
    if err is not None:
        raise err
    ext = ext_of(st)
    ext.asked[action.seat] = True
    ext.fresh = False
    st.permission = PERMISSION_ASKED
    st.phase = PHASE_ANSWER
    st.to_act = (action.seat + 2) % 4
    if events is not None:
        events.append(Event("partner_asked", action.seat, {"partner": st.to_act}))


def special_hand_error(st: GameState, seat: int, name: str) -> IllegalAction | None:
    if st.phase == PHASE_ANSWER:
        return phase_error(st, "declare a special hand")
    values = special_values(st.options.special_hands)
    ext = ext_of(st)
    if not values:
        why = "this game plays no special hands"
    elif st.phase != PHASE_PLAY or not ext.fresh:
        why = (
            "a special hand is declared right after drawing from the stock, as the turn's "
            "only other action"
        )
    elif st.melds[st.team_of(seat)]:
        why = "your side has melded this round"
    else:
        why = ""
    if why:
        return IllegalAction(
            "special_hand_not_allowed", f"You cannot declare a special hand now: {why}."
        )
    if name not in values:
        return IllegalAction(
            "special_hand_invalid",
            f"'{name[:32]}' is not a special hand of this game: choose one of {', '.join(values)}.",
        )
    if not forms_special_hand(name, st.hands[seat]):
        return IllegalAction(
            "special_hand_invalid", f"Your hand does not form the special hand '{name}'."
        )
    return None


def apply_special_hand(st: GameState, action: DeclareSpecialHand, events: Events) -> None:
    seat = action.seat
    err = special_hand_error(st, seat, action.name)
    if err is not None:
        raise err
    ext = ext_of(st)
    team = st.team_of(seat)
    hand = st.hands[seat]
    ext.special[team] = hand
    ext.special_name[team] = action.name
    ext.kept[seat] = -1
    st.hands[seat] = []
    if events is not None:
        events.append(
            Event(
                "special_hand_declared",
                seat,
                {"name": action.name, "cards": cards_text(hand)},
            )
        )
    end_round(st, None, "special_hand", events)


# -- end of a round ------------------------------------------------------------------------------
def end_round(st: GameState, went_out: int | None, reason: str, events: Events) -> None:
    parts = score_round(st, went_out)
    ext = ext_of(st)
    dream = next((t for t, name in enumerate(ext.special_name) if name in DREAM_HANDS), None)
    extra = {"special_hands": list(ext.special_name)}
    if not close_round(st, parts, went_out, reason, events, extra=extra, winner=dream):
        deal_round(st, events)
