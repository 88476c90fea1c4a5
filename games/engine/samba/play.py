"""Dealing and applying actions in Samba and Bolivia.

Every action is checked in full on copies before anything changes, so a refused action leaves
the state exactly as it was. Readings beside VARIANTS.md section 5:

- The initial meld may be laid over several meld actions of one turn (RULES.md section 6, as
  Classic): every card the side melds that turn counts, lay-offs on that turn's melds and
  sequences included; a meld below the minimum is accepted only when the cards left can
  complete it while the turn can still end (``opening.py``), and until the minimum is met the
  turn cannot end (``initial_meld_incomplete``). A pile take reaches it by itself, with the top
  card and cards from the hand (and the melds named in the take).
- Going out in the turn of the initial meld is allowed when the melds reach the minimum.
- A black three melded when going out counts toward the initial minimum at 5 points.
- A ``merge`` in a meld action happens before the action's groups are placed.
- Adding a wild card is refused ``meld_wild_to_canasta`` when the group held 7 or more cards
  before that group of the action (naturals and a wild card laid together on a group of 6 go).
- A pile take names a natural pair (two or more natural cards of the top card's rank), or no
  card to lay the top card off alone.
- The top card alone onto a group canasta is ``pile_to_canasta_forbidden`` also when no
  ``target`` is named and the side's only groups of the rank are canastas.
- One natural card with the top card (no wild card) on an unfrozen pile is
  ``pile_needs_two_naturals``, like one natural and a wild card.
- A partner's "yes" binds the rest of the turn: a discard or meld after which the planner finds
  no way out is refused ``must_go_out``; a "no" refuses any action leaving zero or one card.
- A turn that starts with an empty stock (red-three replacements used it up) may take the pile
  or decline it, which ends the round; with ``play_on`` a top card that the side can lay off
  alone must be taken.
"""

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
    IS_BLACK_THREE,
    IS_NATURAL,
    IS_RED_THREE,
    IS_WILD,
    RANK_OF,
    SUIT_OF,
    THREE,
    card_text,
    cards_text,
    rank_text,
)
from ..errors import IllegalAction
from ..events import Event, Events
from ..state import (
    PERMISSION_ASKED,
    PERMISSION_NO,
    PERMISSION_NONE,
    PERMISSION_YES,
    PHASE_ANSWER,
    PHASE_DRAW,
    PHASE_PLAY,
    GameState,
)
from ..table import (
    apply_answer,
    begin_turn,
    close_round,
    deal_hands,
    phase_error,
    reveal_red_threes,
    round_started,
    turn_upcard,
)
from .melds import (
    CANASTA_SIZE,
    SEQUENCE_MAX,
    MeldPlan,
    check_group,
    check_sequence,
    check_wild_meld,
    ext_of,
    go_out_error,
    group_kind,
    group_rank,
    initial_need,
    plan_melds,
    resolve_target,
    sequence_bounds,
    take_from,
)
from .opening import incomplete_error, opening_error
from .outplan import Plan, out_plan
from .scoring import score_round
from .state import GROUP, SEQUENCE, WILD, meld_name, parse_meld_name


# -- the deal ------------------------------------------------------------------------------------
def deal_round(st: GameState, events: Events, deck: list[int] | None = None) -> None:
    """Deal the next round (15 cards each, an upcard as in Classic); ``deck`` (top = last)
    replaces the seeded shuffle in set-ups."""
    opts = st.options
    players = opts.players
    seed = deal_hands(st, deck)
    ext_of(st).reset()
    turn_upcard(st)
    first = (st.dealer + 1) % players
    if events is not None:
        events.append(round_started(st, seed, first, st.pile_freezers > 0))
    if opts.red_three_reveal == "at_deal":
        for i in range(players):
            reveal_red_threes(st, (first + i) % players, events)
    start_turn(st, first, events)


def start_turn(st: GameState, seat: int, events: Events) -> None:
    begin_turn(st, seat)
    if st.options.red_three_reveal == "on_turn" and reveal_red_threes(st, seat, events):
        last_red_three(st, seat, events)


def last_red_three(st: GameState, seat: int, events: Events) -> None:
    if st.options.last_red_three == "end_now":
        end_round(st, None, "last_red_three", events)
    else:
        st.phase = PHASE_PLAY
        st.no_discard = True


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
    elif isinstance(action, DeclinePile):
        apply_decline(st, action, events)
    elif isinstance(action, EndRound):
        apply_end_round(st, action, events)
    else:
        raise IllegalAction(
            "invalid_action", "Special hands are declared only in Modern American Canasta."
        )


def apply_draw(st: GameState, action: Draw, events: Events) -> None:
    if st.phase != PHASE_DRAW:
        raise phase_error(st, "draw")
    if action.keep_three:
        raise IllegalAction(
            "cannot_keep_three", "Threes are kept for a Straight only in Modern American Canasta."
        )
    if not st.stock:
        raise IllegalAction("stock_empty", "The stock is empty, so no card can be drawn.")
    seat = action.seat
    drawn = [st.stock.pop() for _ in range(min(st.options.draw_count, len(st.stock)))]
    st.hands[seat].extend(drawn)
    st.phase = PHASE_PLAY
    if events is not None:
        events.append(
            Event("card_drawn", seat, {"count": len(drawn)}, {seat: {"cards": cards_text(drawn)}})
        )
    if any(IS_RED_THREE[c] for c in drawn) and reveal_red_threes(st, seat, events):
        last_red_three(st, seat, events)


def going_out_plan(st: GameState, seat: int) -> Plan | None:
    """A checked way for the seat to go out this turn (melds, then a discard or none); the
    melds also complete the side's first melds when they are not yet at the minimum."""
    if st.permission == PERMISSION_NO:
        return None
    team = seat % st.options.teams
    ext = ext_of(st)
    plan = out_plan(
        st, team, st.hands[seat], st.melds[team], ext.kinds[team], initial_need(st, team)
    )
    if plan is None:
        return None
    groups, discard = plan
    if groups:
        try:
            plan_melds(st, seat, groups, st.hands[seat])
        except IllegalAction:
            return None
    return plan


def discard_error(st: GameState, seat: int, card: int) -> IllegalAction | None:
    if st.phase != PHASE_PLAY:
        return phase_error(st, "discard")
    if st.no_discard:
        return IllegalAction(
            "cannot_discard",
            "The last stock card was a red three: this turn has no discard; meld if you wish, "
            "then end the round.",
        )
    hand = st.hands[seat]
    if card not in hand:
        return IllegalAction(
            "card_not_in_hand",
            f"{card_text(card) if 0 <= card <= 52 else 'That card'} is not in your hand.",
        )
    if IS_RED_THREE[card] and not st.options.red_three_discard:
        return IllegalAction(
            "red_three_discard", f"{card_text(card)} is a red three: it may not be discarded."
        )
    incomplete = incomplete_error(st, seat)
    if incomplete is not None:
        return incomplete
    if len(hand) == 1:
        team = seat % st.options.teams
        err = go_out_error(st.options, st.melds[team], ext_of(st).kinds[team])
        if err is not None:
            return err
        if st.permission == PERMISSION_NO:
            return IllegalAction("partner_said_no", "Your partner said no: you may not go out now.")
        return None
    if st.permission == PERMISSION_YES and going_out_plan(st, seat) is not None:
        return IllegalAction("must_go_out", "Your partner said yes: you must go out this turn.")
    return None


def apply_discard(st: GameState, action: Discard, events: Events) -> None:
    seat, card = action.seat, action.card
    err = discard_error(st, seat, card)
    if err is not None:
        raise err
    hand = st.hands[seat]
    hand.remove(card)
    st.pile.append(card)
    if IS_WILD[card] or IS_RED_THREE[card]:
        st.pile_freezers += 1
    if events is not None:
        events.append(Event("card_discarded", seat, {"card": card_text(card)}))
    end_turn(st, seat, went_out=not hand, events=events)


def end_turn(st: GameState, seat: int, went_out: bool, events: Events) -> None:
    if went_out:
        end_round(st, seat, "went_out", events)
        return
    if st.turn_melded:
        st.melded_before[seat] = True
    if not st.stock and st.options.stock_exhausted == "end_round":
        end_round(st, None, "stock_exhausted", events)
    else:
        start_turn(st, (seat + 1) % st.options.players, events)


def check_meld_plan(st: GameState, seat: int, plan: MeldPlan) -> None:
    """The partner's binding "yes": melds that leave no way out are refused."""
    if st.permission == PERMISSION_YES and not plan.going_out:
        team = seat % st.options.teams
        found = out_plan(st, team, plan.hand, plan.melds, plan.kinds, plan.need)
        ok = found is not None
        if found is not None and found[0]:
            try:
                trial = st.clone()
                commit_plan(trial, seat, plan)
                plan_melds(trial, seat, found[0], trial.hands[seat])
            except IllegalAction:
                ok = False
        if not ok:
            raise IllegalAction(
                "must_go_out",
                "Your partner said yes: you must go out this turn, and these melds would "
                "prevent it.",
            )


def commit_plan(st: GameState, seat: int, plan: MeldPlan) -> None:
    team = seat % st.options.teams
    ext = ext_of(st)
    st.hands[seat] = plan.hand
    st.melds[team] = plan.melds
    ext.kinds[team] = plan.kinds
    ext.next_id[team] = plan.next_id
    if not plan.need:
        st.opened[team] = True
    st.turn_melded = True


def meld_plan(st: GameState, action: Meld) -> MeldPlan:
    if st.phase != PHASE_PLAY:
        raise phase_error(st, "meld")
    plan = plan_melds(st, action.seat, action.melds, st.hands[action.seat], action.merge)
    err = opening_error(st, action.seat, plan)
    if err is not None:
        raise err
    check_meld_plan(st, action.seat, plan)
    return plan


def meld_error(st: GameState, action: Meld) -> IllegalAction | None:
    try:
        meld_plan(st, action)
    except IllegalAction as exc:
        return exc
    return None


def single_meld_ok(st: GameState, seat: int, group: MeldGroup) -> bool:
    """``meld_error(st, Meld(seat, (group,))) is None`` for a group whose cards are in the
    seat's hand, checked without planning when only the meld itself can refuse it (the side has
    opened, no binding "yes", two cards or more kept, no black threes)."""
    st_team = seat % st.options.teams
    if (
        st.phase != PHASE_PLAY
        or not st.opened[st_team]
        or st.permission == PERMISSION_YES
        or len(st.hands[seat]) - len(group.cards) < 2
        or group.rank == THREE
    ):
        return meld_error(st, Meld(seat, (group,))) is None
    opts = st.options
    kinds = ext_of(st).kinds[st_team]
    melds = st.melds[st_team]
    kind = group_kind(group)
    try:
        if kind == WILD and not opts.wild_canasta:
            return False
        num = resolve_target(st_team, melds, kinds, group, kind)
        existing = melds[num] if num is not None else []
        if kind == SEQUENCE:
            check_sequence(existing, group.cards)
        elif kind == WILD:
            check_wild_meld(opts, existing, group.cards)
        else:
            check_group(opts, group.rank, existing, group.cards)
    except IllegalAction:
        return False
    return True


def apply_meld(st: GameState, action: Meld, events: Events) -> None:
    plan = meld_plan(st, action)
    seat = action.seat
    commit_plan(st, seat, plan)
    if events is not None:
        public = {"melds": [g.to_dict() for g in action.melds], "ids": plan.ids}
        if action.merge is not None:
            events.append(
                Event("melds_merged", seat, {"into": action.merge[0], "from": action.merge[1]})
            )
        if action.melds:
            events.append(Event("melded", seat, public))
    if not plan.hand:
        end_turn(st, seat, went_out=True, events=events)


# -- the discard pile ----------------------------------------------------------------------------
def pile_blocked(st: GameState) -> bool:
    if not st.pile:
        return False
    top = st.pile[-1]
    return IS_WILD[top] or IS_RED_THREE[top] or IS_BLACK_THREE[top]


def pile_frozen_for(st: GameState, seat: int) -> bool:
    return st.pile_freezers > 0 or not st.opened[seat % st.options.teams]


def extends_sequence(cards: list[int], card: int) -> bool:
    if len(cards) >= SEQUENCE_MAX or not IS_NATURAL[card]:
        return False
    suit, low, high = sequence_bounds(cards)
    return SUIT_OF[card] == suit and RANK_OF[card] in (low - 1, high + 1)


def forms_sequence(cards: list[int]) -> bool:
    """Whether natural cards of one suit and distinct consecutive ranks (a sequence shape)."""
    if not cards or any(not IS_NATURAL[c] for c in cards):
        return False
    if any(SUIT_OF[c] != SUIT_OF[cards[0]] for c in cards):
        return False
    ranks = sorted(RANK_OF[c] for c in cards)
    return all(b == a + 1 for a, b in zip(ranks, ranks[1:], strict=False))


def lay_off_targets(st: GameState, seat: int, top: int) -> list[int]:
    """The side's melds the top card alone may go to: groups of its rank below 7 cards and
    sequences it extends."""
    team = seat % st.options.teams
    kinds = ext_of(st).kinds[team]
    out = []
    for num, cards in st.melds[team].items():
        kind = kinds[num]
        if kind == GROUP:
            if group_rank(cards) == RANK_OF[top] and len(cards) < CANASTA_SIZE:
                out.append(num)
        elif kind == SEQUENCE and extends_sequence(cards, top):
            out.append(num)
    return out


def plan_take_pile(st: GameState, action: TakePile) -> MeldPlan:
    seat = action.seat
    if st.phase != PHASE_DRAW:
        raise phase_error(st, "take the pile")
    if not st.pile:
        raise IllegalAction("pile_empty", "The discard pile is empty: there is nothing to take.")
    top = st.pile[-1]
    if pile_blocked(st):
        kind = (
            "a wild card"
            if IS_WILD[top]
            else "a red three"
            if IS_RED_THREE[top]
            else "a black three"
        )
        raise IllegalAction(
            "pile_blocked",
            f"The pile is blocked: its top card {card_text(top)} is {kind}, so nobody may take it.",
        )
    hand = st.hands[seat]
    take_from(hand, action.cards)
    rank = RANK_OF[top]
    name = rank_text(rank)
    team = seat % st.options.teams
    kinds = ext_of(st).kinds[team]
    melds = st.melds[team]
    frozen = pile_frozen_for(st, seat)
    why_frozen = (
        "it holds a wild card or red three"
        if st.pile_freezers
        else "your side has not made its first meld"
    )
    cards = action.cards
    if cards:
        naturals = sum(1 for c in cards if IS_NATURAL[c] and RANK_OF[c] == rank)
        if naturals != len(cards) or naturals < 2:
            if all(IS_WILD[c] or RANK_OF[c] == rank for c in cards):
                if frozen:
                    raise IllegalAction(
                        "pile_frozen",
                        f"The pile is frozen ({why_frozen}): its top card may be taken only with "
                        f"a natural pair of rank {name} from your hand, no wild card.",
                    )
                raise IllegalAction(
                    "pile_needs_two_naturals",
                    f"The top card {card_text(top)} is taken with a natural pair of rank {name} "
                    "from your hand, not with a wild card or a single natural card.",
                )
            if forms_sequence([top, *cards]) or any(
                kinds[n] == SEQUENCE and forms_sequence([*m, top, *cards]) for n, m in melds.items()
            ):
                raise IllegalAction(
                    "pile_sequence_forbidden",
                    f"The top card {card_text(top)} cannot start a sequence or join one together "
                    "with cards from your hand: take it with a natural pair of its rank.",
                )
            raise IllegalAction(
                "pile_cards_do_not_match",
                f"The top card {card_text(top)} is taken with a natural pair of rank {name} "
                "from your hand.",
            )
        if action.target is not None:
            t_team, num = parse_meld_name(action.target)
            if (
                t_team != team
                or num not in melds
                or kinds[num] != GROUP
                or group_rank(melds[num]) != rank
            ):
                raise IllegalAction(
                    "meld_target_invalid",
                    f"{action.target} is not one of your side's group melds of rank {name}.",
                )
            pile_group = MeldGroup(rank, (top, *cards), GROUP, action.target)
        else:
            pile_group = MeldGroup(rank, (top, *cards), GROUP, None, True)
    else:
        if frozen:
            raise IllegalAction(
                "pile_frozen",
                f"The pile is frozen ({why_frozen}): its top card may be taken only with a "
                f"natural pair of rank {name} from your hand, not laid off.",
            )
        if action.target is not None:
            t_team, num = parse_meld_name(action.target)
            if t_team != team or num not in melds:
                raise IllegalAction(
                    "meld_target_invalid", f"{action.target} is not one of your side's melds."
                )
            target_cards = melds[num]
            kind = kinds[num]
            if kind == GROUP and group_rank(target_cards) == rank:
                if len(target_cards) >= CANASTA_SIZE:
                    raise IllegalAction(
                        "pile_to_canasta_forbidden",
                        f"{action.target} is a canasta: the top card alone may not go onto a "
                        "canasta (a natural pair from your hand may take it there).",
                    )
            elif kind == SEQUENCE:
                if len(target_cards) >= SEQUENCE_MAX:
                    raise IllegalAction(
                        "meld_too_large",
                        f"{action.target} is a closed sequence of seven: nothing more goes on it.",
                    )
                if not extends_sequence(target_cards, top):
                    raise IllegalAction(
                        "sequence_invalid",
                        f"The top card {card_text(top)} does not extend {action.target} at "
                        "either end.",
                    )
            else:
                raise IllegalAction(
                    "meld_target_invalid",
                    f"The top card {card_text(top)} cannot go onto {action.target}.",
                )
        else:
            targets = lay_off_targets(st, seat, top)
            if not targets:
                if any(kinds[n] == GROUP and group_rank(m) == rank for n, m in melds.items()):
                    raise IllegalAction(
                        "pile_to_canasta_forbidden",
                        f"Your side's {name} melds are canastas: the top card alone may not go "
                        "onto a canasta.",
                    )
                raise IllegalAction(
                    "pile_no_meld_to_lay_off",
                    f"Your side has no meld to lay the top card {card_text(top)} off on: name "
                    "a natural pair of its rank from your hand.",
                )
            if len(targets) > 1:
                raise IllegalAction(
                    "meld_target_required",
                    f"Several of your side's melds could take the top card {card_text(top)}: "
                    "name one with 'target'.",
                )
            num = targets[0]
        kind = kinds[num]
        target = meld_name(team, num)
        if kind == SEQUENCE:
            pile_group = MeldGroup(rank, (top,), SEQUENCE, target)
        else:
            pile_group = MeldGroup(rank, (top,), GROUP, target)
    rest_of_pile = sum(1 for c in st.pile[:-1] if not IS_RED_THREE[c])
    plan = plan_melds(
        st, seat, action.melds, hand, None, pile_group=pile_group, extra_to_hand=rest_of_pile
    )
    check_meld_plan(st, seat, plan)
    return plan


def take_pile_error(st: GameState, action: TakePile) -> IllegalAction | None:
    try:
        plan_take_pile(st, action)
    except IllegalAction as exc:
        return exc
    return None


def apply_take_pile(st: GameState, action: TakePile, events: Events) -> None:
    plan = plan_take_pile(st, action)
    seat = action.seat
    team = seat % st.options.teams
    top = st.pile[-1]
    taken = st.pile[:-1]
    commit_plan(st, seat, plan)
    reds = [c for c in taken if IS_RED_THREE[c]]
    into_hand = [c for c in taken if not IS_RED_THREE[c]]
    st.hands[seat].extend(into_hand)
    st.red_threes[team].extend(reds)
    st.pile = []
    st.pile_freezers = 0
    st.phase = PHASE_PLAY
    if events is not None:
        events.append(
            Event(
                "pile_taken",
                seat,
                {
                    "top": card_text(top),
                    "with": [card_text(c) for c in action.cards],
                    "target": plan.ids[0],
                    "melds": [g.to_dict() for g in action.melds],
                    "ids": plan.ids,
                    "cards_to_hand": len(into_hand),
                    "red_threes": cards_text(reds),
                },
                {seat: {"cards": cards_text(into_hand)}},
            )
        )
    if not st.hands[seat]:
        end_turn(st, seat, went_out=True, events=events)


def must_take_pile(st: GameState, seat: int) -> bool:
    """With an empty stock and ``play_on``, a top card the side can lay off alone is taken."""
    if st.options.stock_exhausted != "play_on" or not st.pile or pile_blocked(st):
        return False
    if pile_frozen_for(st, seat):
        return False
    targets = lay_off_targets(st, seat, st.pile[-1])
    team = seat % st.options.teams
    return any(
        take_pile_error(st, TakePile(seat, (), (), meld_name(team, n))) is None for n in targets
    )


def apply_decline(st: GameState, action: DeclinePile, events: Events) -> None:
    if st.phase != PHASE_DRAW:
        raise phase_error(st, "decline the pile")
    if st.stock:
        raise IllegalAction(
            "wrong_phase",
            "Draw from the stock; the pile may be declined only when the stock is empty.",
        )
    if must_take_pile(st, action.seat):
        raise IllegalAction(
            "must_take_pile",
            "The stock is empty and the top card fits your side's meld: you must take the pile.",
        )
    if events is not None:
        events.append(Event("pile_declined", action.seat, {}))
    end_round(st, None, "stock_exhausted", events)


def apply_end_round(st: GameState, action: EndRound, events: Events) -> None:
    if st.phase != PHASE_PLAY or not st.no_discard:
        raise IllegalAction(
            "wrong_phase",
            "A round is ended this way only when the last stock card was a red three; "
            + (
                "draw first." if st.phase == PHASE_DRAW else "otherwise a turn ends with a discard."
            ),
        )
    incomplete = incomplete_error(st, action.seat)
    if incomplete is not None:
        raise incomplete
    if st.turn_melded:
        st.melded_before[action.seat] = True
    end_round(st, None, "last_red_three", events)


# -- asking the partner --------------------------------------------------------------------------
def ask_error(st: GameState, seat: int, plan: Plan | None | bool = True) -> IllegalAction | None:
    """Why the seat may not ask its partner now; ``plan`` is the seat's going-out plan when the
    caller has it already (True: work it out here)."""
    if not st.options.can_ask_partner:
        why = "this game's options leave the question out"
    elif st.phase != PHASE_PLAY:
        why = "you ask after drawing"
    elif st.permission != PERMISSION_NONE:
        why = "you have asked once this turn already"
    elif st.turn_melded:
        why = "you ask before melding anything this turn"
    elif st.no_discard:
        why = "the last stock card was a red three: this turn ends without going out"
    elif len(st.hands[seat]) < 2:
        why = "you hold a single card"
    elif (going_out_plan(st, seat) if plan is True else plan) is None:
        why = "you ask only when you are able to go out"
    else:
        return None
    return IllegalAction("cannot_ask_partner", f"You cannot ask your partner to go out: {why}.")


def apply_ask(st: GameState, action: AskPartner, events: Events) -> None:
    err = ask_error(st, action.seat)
    if err is not None:
        raise err
    st.permission = PERMISSION_ASKED
    st.phase = PHASE_ANSWER
    st.to_act = (action.seat + 2) % 4
    if events is not None:
        events.append(Event("partner_asked", action.seat, {"partner": st.to_act}))


# -- end of a round ------------------------------------------------------------------------------
def end_round(st: GameState, went_out: int | None, reason: str, events: Events) -> None:
    if not close_round(st, score_round(st, went_out), went_out, reason, events):
        deal_round(st, events)
