"""The rules: dealing, validating and applying actions, ending rounds and the game.

``apply`` validates an action completely before it changes anything, so a refused action leaves
the state exactly as it was. Events describing what happened are appended to ``events`` when a
list is given: each has a public part and, where cards are hidden, private parts per seat.

Readings chosen where the rule book (docs/rules.md, "Readings") leaves room:

- Initial meld: the minimum may be reached by several ``meld`` actions in one turn. Every card
  the side melds that turn counts (lay-offs on that turn's melds included). A meld below the
  minimum is accepted only when the cards left in hand can complete it while the turn can
  still end (a way out, or melds keeping a card to discard and one more); until the minimum is
  met the turn cannot end (``initial_meld_incomplete``). A ``take_pile`` must reach it by itself,
  with the top card and cards from the hand, before the rest of the pile is taken.
- Frozen pile: a natural pair with the top card may go onto the team's existing meld of that
  rank (the pair is shown, then merged: one meld per rank); a plain lay-off may not.
- ``pile_to_canasta=False`` refuses any take whose top card would join a completed canasta,
  whether laid off alone or with a pair (the team has one meld per rank).
- Black threes count 5 each toward the initial minimum like any melded card.
- A partner's "yes" binds the rest of the turn: a discard or meld that would leave the player
  unable to go out is refused (``must_go_out``). Asking needs at least two cards in hand.
- Concealed going out: no melds or lay-offs of the player's own on earlier turns, and (with
  ``concealed_requires_canasta``) a canasta among the melds started this turn (laying off on
  the partner's melds in that turn is then tolerated), or the cards the player laid this turn,
  taken alone, making valid melds with a canasta among them: a canasta of a rank the partner
  had melded joins the partner's meld and still counts.
- Red threes never stay in a hand during its owner's turn (they are revealed at once), so
  ``red_three_discard`` only matters in positions set up with a red three in hand; a discarded
  red three freezes and blocks the pile and goes to the taker's red-three area.
- A red three revealed at the start of a turn (``on_turn``) that finds the stock empty is
  treated as the last stock card (``last_red_three``). A turn that starts with an empty stock
  (replacements used it up) may take the pile or decline it, which ends the round.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
    action_to_dict,
    uses_family_fields,
)
from .cards import (
    IS_BLACK_THREE,
    IS_RED_THREE,
    IS_WILD,
    JOKER,
    JOKER_RANK,
    RANK_OF,
    THREE,
    TWO,
    VALUE_OF,
    WILD_RANK,
    card_text,
    cards_text,
    rank_text,
)
from .errors import IllegalAction, InvalidAction
from .events import Event as Event
from .events import Events as Events
from .family import CLASSIC, family_rules
from .going_out import completion, going_out_possible, out_plan
from .melds import CANASTA_SIZE, canasta_count, initial_meld_minimum, initial_meld_need, wild_cap
from .options import Options
from .state import (
    PERMISSION_ASKED,
    PERMISSION_NO,
    PERMISSION_NONE,
    PERMISSION_YES,
    PHASE_ANSWER,
    PHASE_DRAW,
    PHASE_GAME_OVER,
    PHASE_PLAY,
    GameState,
)
from .table import (
    apply_answer,
    begin_turn,
    close_round,
    deal_hands,
    phase_error,
    reveal_red_threes,
    round_started,
    turn_upcard,
)


# -- game set-up ---------------------------------------------------------------------------------
def new_game(options: Options, seed: str, events: Events = None) -> GameState:
    """A new game with the first round dealt."""
    st = GameState(options, seed)
    deal_round(st, events)
    return st


def deal_round(st: GameState, events: Events, deck: list[int] | None = None) -> None:
    """Deal the next round; ``deck`` (top = last) replaces the seeded shuffle in set-ups."""
    opts = st.options
    if opts.family != CLASSIC:
        family_rules(opts.family).deal_round(st, events, deck)
        return
    players = opts.players
    seed = deal_hands(st, deck)
    turn_upcard(st)
    first = (st.dealer + 1) % players
    if events is not None:
        events.append(round_started(st, seed, first, st.pile_freezers > 0))
    if opts.red_three_reveal == "at_deal":
        for i in range(players):
            seat = (first + i) % players
            reveal_red_threes(st, seat, events)
    _start_turn(st, first, events)


def _start_turn(st: GameState, seat: int, events: Events) -> None:
    begin_turn(st, seat)
    if st.options.red_three_reveal == "on_turn" and reveal_red_threes(st, seat, events):
        _last_red_three(st, seat, events)


def _last_red_three(st: GameState, seat: int, events: Events) -> None:
    """A red three was the last stock card: no replacement; the round ends (now or after melds)."""
    if st.options.last_red_three == "end_now":
        _end_round(st, None, "last_red_three", events)
    else:
        st.phase = PHASE_PLAY
        st.no_discard = True


# -- apply ---------------------------------------------------------------------------------------
def apply(st: GameState, action: Action, events: Events = None) -> None:
    """Validate and apply ``action`` in place; raise IllegalAction (state unchanged) if refused."""
    if st.phase == PHASE_GAME_OVER:
        raise IllegalAction("game_over", "The game is over.")
    if action.seat != st.to_act:
        raise IllegalAction("not_your_turn", "It is not your turn to act.")
    if st.options.family != CLASSIC:
        family_rules(st.options.family).apply(st, action, events)
        st.action_count += 1
        return
    if uses_family_fields(action):
        raise InvalidAction(
            "this action uses a field of another rule family (keep_three, kind, target, new, "
            "merge or a special hand), which this game's rules do not have"
        )
    if isinstance(action, Draw):
        _apply_draw(st, action, events)
    elif isinstance(action, Discard):
        _apply_discard(st, action, events)
    elif isinstance(action, Meld):
        _apply_meld(st, action, events)
    elif isinstance(action, TakePile):
        _apply_take_pile(st, action, events)
    elif isinstance(action, AskPartner):
        _apply_ask(st, action, events)
    elif isinstance(action, AnswerPartner):
        apply_answer(st, action, events)
    elif isinstance(action, DeclinePile):
        _apply_decline(st, action, events)
    elif isinstance(action, EndRound):
        _apply_end_round(st, action, events)
    else:  # pragma: no cover - the Action union is closed
        raise IllegalAction("invalid_action", "Unknown action.")
    st.action_count += 1


def _need_phase(st: GameState, phase: str, what: str) -> None:
    if st.phase != phase:
        raise phase_error(st, what)


def _apply_draw(st: GameState, action: Draw, events: Events) -> None:
    _need_phase(st, PHASE_DRAW, "draw")
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
        _last_red_three(st, seat, events)


def discard_error(st: GameState, seat: int, card: int) -> IllegalAction | None:
    """Why discarding ``card`` is refused now, or None when it is allowed."""
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
        return IllegalAction("card_not_in_hand", f"{_card_name(card)} is not in your hand.")
    if IS_RED_THREE[card] and not st.options.red_three_discard:
        return IllegalAction(
            "red_three_discard",
            f"{card_text(card)} is a red three: red threes may not be discarded in this game.",
        )
    incomplete = initial_meld_incomplete(st, seat)
    if incomplete is not None:
        return incomplete
    if len(hand) == 1:
        return _going_out_error(st, seat)
    if st.permission == PERMISSION_YES and going_out_possible(st, seat):
        return IllegalAction("must_go_out", "Your partner said yes: you must go out this turn.")
    return None


def _apply_discard(st: GameState, action: Discard, events: Events) -> None:
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
    _end_turn(st, seat, went_out=not hand, events=events)


def _end_turn(st: GameState, seat: int, went_out: bool, events: Events) -> None:
    if went_out:  # melded_before keeps describing earlier turns (for the concealed bonus)
        _end_round(st, seat, "went_out", events)
        return
    if st.turn_melded:
        st.melded_before[seat] = True
    if not st.stock and st.options.stock_exhausted == "end_round":
        _end_round(st, None, "stock_exhausted", events)
    else:
        _start_turn(st, (seat + 1) % st.options.players, events)


def _going_out_error(st: GameState, seat: int) -> IllegalAction | None:
    """Why the seat may not get rid of its last card now, or None when it may."""
    team = seat % st.options.teams
    need = st.options.canastas_to_go_out
    if canasta_count(st.melds[team]) < need:
        word = "canasta" if need == 1 else "canastas"
        return IllegalAction(
            "cannot_go_out_without_canasta",
            f"Discarding your last card would go out, and your side needs {need} {word} "
            f"before it can go out (it has {canasta_count(st.melds[team])}).",
        )
    if st.permission == PERMISSION_NO:
        return IllegalAction("partner_said_no", "Your partner said no: you may not go out now.")
    return None


# -- melds ---------------------------------------------------------------------------------------
def _card_name(code: int) -> str:
    return card_text(code) if 0 <= code <= JOKER else "That card"


def _rank_name(rank: int) -> str:
    return rank_text(rank) if 0 <= rank <= WILD_RANK else "same"


def _take_from(hand: list[int], cards: tuple[int, ...] | list[int]) -> list[int]:
    rest = hand[:]
    for c in cards:
        try:
            rest.remove(c)
        except ValueError:
            held = hand.count(c)
            raise IllegalAction(
                "card_not_in_hand",
                f"{_card_name(c)} is named more often than your hand holds it ({held})."
                if held
                else f"{_card_name(c)} is not in your hand.",
            ) from None
    return rest


def _check_meld_cards(opts: Options, rank: int, cards: list[int], existing: list[int]) -> None:
    """Refuse unless ``existing + cards`` is a valid meld of ``rank``, naming the first reason:
    a red three, then a card of another rank, then the meld's size and wild cards."""
    for c in cards:
        if IS_RED_THREE[c]:
            raise IllegalAction(
                "meld_invalid_card",
                f"{card_text(c)} is a red three: red threes are never melded (they go to your "
                "side's red-three area).",
            )
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
                    f"A meld holds cards of one rank: {card_text(c)} is not a three.",
                )
        if existing:
            raise IllegalAction(
                "meld_invalid_card",
                "Black threes are melded once, three or four together: none can be added.",
            )
        if len(cards) < 3:
            raise IllegalAction(
                "meld_too_small", "Black threes are melded three or four together, not fewer."
            )
        return
    if rank == WILD_RANK:
        if not opts.wild_canasta:
            raise IllegalAction(
                "meld_wild_canasta_disabled",
                "Melds of wild cards alone need the wild_canasta option, which is off.",
            )
        for c in cards:
            if not IS_WILD[c]:
                raise IllegalAction(
                    "meld_mixed_ranks",
                    f"A meld of wild cards holds wild cards only: {card_text(c)} is not wild.",
                )
        if len(existing) + len(cards) < 3:
            raise IllegalAction(
                "meld_too_small", "A new meld of wild cards needs at least three cards."
            )
        return
    if rank in (TWO, JOKER_RANK) or not 1 <= rank <= 11:
        raise IllegalAction(
            "meld_invalid_card",
            "2s and jokers are wild, not a rank: meld them with natural cards of 4 to A"
            + (", or as a wild meld (rank W)." if opts.wild_canasta else "."),
        )
    naturals = wilds = 0
    for c in existing:
        if IS_WILD[c]:
            wilds += 1
        else:
            naturals += 1
    name = rank_text(rank)
    for c in cards:
        if IS_WILD[c]:
            wilds += 1
        elif RANK_OF[c] == rank:
            naturals += 1
        elif RANK_OF[c] == THREE:
            raise IllegalAction(
                "meld_mixed_ranks",
                f"A meld holds cards of one rank: {card_text(c)} is a black three, not of rank "
                f"{name} (black threes are melded only together, when going out).",
            )
        else:
            raise IllegalAction(
                "meld_mixed_ranks",
                f"A meld holds cards of one rank: {card_text(c)} is not of rank {name}.",
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
            f"natural cards; at most {opts.max_wilds_per_meld} wild cards, and "
            + (
                "fewer than the natural cards."
                if opts.wild_ratio == "naturals_exceed_wilds"
                else "no more than the natural cards."
            ),
        )


def initial_meld_incomplete(st: GameState, seat: int) -> IllegalAction | None:
    """Refusal of ending the turn while the side's first melds are still below the minimum."""
    team = seat % st.options.teams
    if st.opened[team] or not st.melds[team]:
        return None
    minimum = initial_meld_minimum(st.scores[team])
    shown = minimum - initial_meld_need(st, team)
    return IllegalAction(
        "initial_meld_incomplete",
        f"Your side's first melds are worth {shown} of the {minimum} points it needs this "
        "turn: meld the rest of them before you end your turn.",
    )


@dataclass(slots=True)
class _MeldPlan:
    hand: list[int]  # the hand after the action
    melds: dict[int, list[int]]  # the team's melds after the action (new dict)
    started: list[int]  # ranks of melds newly started
    laid: list[MeldGroup]  # the groups laid by the player (the pile's top card included)
    need: int  # points the side's initial meld still lacks after the action (0: met)


def _plan_melds(
    st: GameState,
    seat: int,
    groups: tuple[MeldGroup, ...],
    hand: list[int],
    pile_group: MeldGroup | None = None,
    extra_to_hand: int = 0,
) -> _MeldPlan:
    """Check ``groups`` (and the pile's top meld) against the rules; return what would result."""
    opts = st.options
    team = seat % st.options.teams
    current = st.melds[team]
    melds = dict(current)
    started: list[int] = []
    opening = not st.opened[team]
    value = 0
    seen: set[int] = set()
    if pile_group is None and not groups:
        raise IllegalAction("invalid_action", "Name at least one meld.")
    all_groups = ((pile_group,) if pile_group else ()) + groups
    for group in groups:
        if not group.cards:
            raise IllegalAction("invalid_action", "Each meld must name at least one card.")
    used = [c for g in groups for c in g.cards]
    if pile_group is not None:
        used += pile_group.cards[1:]  # the first card of the pile group is the pile's top
    rest = _take_from(hand, used)
    for group in all_groups:
        if group.rank in seen:
            raise IllegalAction(
                "meld_duplicate_rank", f"The action names the {_rank_name(group.rank)} meld twice."
            )
        seen.add(group.rank)
        existing = current.get(group.rank, [])
        cards = list(group.cards)
        _check_meld_cards(opts, group.rank, cards, existing)
        melds[group.rank] = existing + cards
        if not existing:
            started.append(group.rank)
        if opening:
            value += sum(VALUE_OF[c] for c in cards)
    need = 0
    if opening:
        before = initial_meld_need(st, team)
        need = max(0, before - value)
        if need:
            minimum = initial_meld_minimum(st.scores[team])
            shown = minimum - before
            if pile_group is not None:
                raise IllegalAction(
                    "initial_meld_below_minimum",
                    f"Taking the pile for your side's first meld needs {minimum} points shown "
                    f"with it, counting the top card and cards from your hand only (these are "
                    f"worth {value}).",
                )
            if completion(st, seat, rest, melds, need) is None:
                raise IllegalAction(
                    "initial_meld_below_minimum",
                    f"Your side's first melds must be worth at least {minimum} points this "
                    f"turn: with these they are worth {shown + value}, and the cards left in "
                    "your hand cannot make up the rest"
                    + (" while keeping a card to discard." if rest else "."),
                )
    left = len(rest) + extra_to_hand
    going_out = left == 0 or (left == 1 and not st.no_discard)
    if THREE in seen and not going_out:
        raise IllegalAction(
            "meld_black_threes_only_going_out",
            f"Black threes may be melded only when going out (this would leave you {left} cards).",
        )
    if going_out:
        required = opts.canastas_to_go_out
        have = canasta_count(melds)
        if have < required:
            word = "canasta" if required == 1 else "canastas"
            raise IllegalAction(
                "cannot_go_out_without_canasta",
                f"Your side needs {required} {word} before you can go out or keep one card "
                f"(it would have {have}).",
            )
        if st.permission == PERMISSION_NO:
            raise IllegalAction(
                "partner_said_no",
                "Your partner said no: you may not go out this turn, nor keep only one card.",
            )
    elif st.permission == PERMISSION_YES and out_plan(st, team, rest, melds, need) is None:
        raise IllegalAction(
            "must_go_out",
            "Your partner said yes: you must go out this turn, and these melds would prevent it.",
        )
    return _MeldPlan(rest, melds, started, list(all_groups), need)


def _commit_melds(st: GameState, seat: int, plan: _MeldPlan) -> None:
    team = seat % st.options.teams
    st.hands[seat] = plan.hand
    st.melds[team] = plan.melds
    st.turn_started.extend(plan.started)
    laid = dict(st.turn_laid)
    for group in plan.laid:
        laid[group.rank] = laid.get(group.rank, []) + list(group.cards)
    st.turn_laid = laid
    if plan.need == 0:
        st.opened[team] = True
    st.turn_melded = True


def meld_error(st: GameState, seat: int, groups: tuple[MeldGroup, ...]) -> IllegalAction | None:
    if st.phase != PHASE_PLAY:
        return phase_error(st, "meld")
    try:
        _plan_melds(st, seat, groups, st.hands[seat])
    except IllegalAction as exc:
        return exc
    return None


def single_meld_ok(st: GameState, seat: int, group: MeldGroup) -> bool:
    """``meld_error(st, seat, (group,)) is None`` for a group whose cards are in the hand,
    computed without building the resulting melds (legal-action listing calls this a lot)."""
    team = seat % st.options.teams
    rank = group.rank
    if (
        st.phase != PHASE_PLAY
        or not st.opened[team]
        or st.permission == PERMISSION_YES
        or not 1 <= rank <= WILD_RANK
        or rank in (TWO, JOKER_RANK)
    ):
        return meld_error(st, seat, (group,)) is None
    opts = st.options
    existing = st.melds[team].get(rank)
    size = len(group.cards)
    if rank == WILD_RANK:
        if not opts.wild_canasta:
            return False
        for c in group.cards:
            if not IS_WILD[c]:
                return False
        naturals, wilds = 0, size
        if existing is not None:
            wilds += len(existing)
        if wilds < 3:
            return False
    else:
        naturals = wilds = 0
        if existing is not None:
            for c in existing:
                if IS_WILD[c]:
                    wilds += 1
            naturals = len(existing) - wilds
        for c in group.cards:
            if IS_WILD[c]:
                wilds += 1
            elif RANK_OF[c] == rank:
                naturals += 1
            else:
                return False
        if naturals + wilds < 3 or naturals < 2 or wilds > wild_cap(opts, naturals):
            return False
    left = len(st.hands[seat]) - size
    if left == 0 or (left == 1 and not st.no_discard):
        if st.permission == PERMISSION_NO:
            return False
        canastas = canasta_count(st.melds[team])
        before = 0 if existing is None else len(existing)
        if before < CANASTA_SIZE <= naturals + wilds:
            canastas += 1
        return canastas >= opts.canastas_to_go_out
    return True


def _apply_meld(st: GameState, action: Meld, events: Events) -> None:
    _need_phase(st, PHASE_PLAY, "meld")
    seat = action.seat
    plan = _plan_melds(st, seat, action.melds, st.hands[seat])
    _commit_melds(st, seat, plan)
    if events is not None:
        events.append(Event("melded", seat, {"melds": [g.to_dict() for g in action.melds]}))
    if not plan.hand:
        _end_turn(st, seat, went_out=True, events=events)


# -- the discard pile ----------------------------------------------------------------------------
def pile_frozen_for(st: GameState, seat: int) -> bool:
    return st.pile_freezers > 0 or not st.opened[st.team_of(seat)]


def pile_blocked(st: GameState) -> bool:
    if not st.pile:
        return False
    top = st.pile[-1]
    return IS_WILD[top] or IS_RED_THREE[top] or IS_BLACK_THREE[top]


def _plan_take_pile(st: GameState, action: TakePile) -> _MeldPlan:
    opts = st.options
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
    if opts.one_card_pile_restriction and len(hand) == 1 and len(st.pile) == 1:
        raise IllegalAction(
            "pile_one_card_restriction",
            "Holding one card, you may not take a pile of one card (this game's rule).",
        )
    _take_from(hand, action.cards)
    rank = RANK_OF[top]
    name = rank_text(rank)
    team = seat % st.options.teams
    frozen = pile_frozen_for(st, seat)
    why_frozen = (
        "it holds a wild card or red three"
        if st.pile_freezers
        else "your side has not made its first meld"
    )
    existing = st.melds[team].get(rank)
    naturals = sum(1 for c in action.cards if RANK_OF[c] == rank)
    wilds = sum(1 for c in action.cards if IS_WILD[c])
    if naturals + wilds != len(action.cards):
        other = next(c for c in action.cards if RANK_OF[c] != rank and not IS_WILD[c])
        raise IllegalAction(
            "pile_cards_do_not_match",
            f"The cards taken with the top card {card_text(top)} must be of rank {name} or wild: "
            f"{card_text(other)} is not.",
        )
    if not action.cards:
        if frozen:
            raise IllegalAction(
                "pile_frozen",
                f"The pile is frozen ({why_frozen}): its top card may be taken only with a "
                f"natural pair of rank {name} from your hand, not laid off.",
            )
        if existing is None:
            raise IllegalAction(
                "pile_no_meld_to_lay_off",
                f"Your side has no meld of rank {name} to lay the top card {card_text(top)} off "
                "on: name the cards from your hand that meld with it.",
            )
    elif frozen:
        if naturals < 2 or wilds:
            raise IllegalAction(
                "pile_frozen",
                f"The pile is frozen ({why_frozen}): its top card may be taken only with a "
                f"natural pair of rank {name} from your hand, no wild card.",
            )
    elif existing is None:
        if opts.pile_new_meld_needs_two_naturals and naturals < 2:
            raise IllegalAction(
                "pile_needs_two_naturals",
                f"A new meld with the top card {card_text(top)} needs a natural pair of rank "
                f"{name} from your hand in this game, not a wild card.",
            )
        if naturals < 1:
            raise IllegalAction(
                "pile_cards_do_not_match",
                f"A new meld with the top card {card_text(top)} needs at least one more natural "
                f"card of rank {name} from your hand.",
            )
    if existing is not None and len(existing) >= CANASTA_SIZE and not opts.pile_to_canasta:
        raise IllegalAction(
            "pile_to_canasta_forbidden",
            f"Your side's {name} meld is a completed canasta, and in this game the top card may "
            "not go onto a canasta.",
        )
    pile_group = MeldGroup(rank, (top, *action.cards))
    rest_of_pile = sum(1 for c in st.pile[:-1] if not IS_RED_THREE[c])
    return _plan_melds(st, seat, action.melds, hand, pile_group, extra_to_hand=rest_of_pile)


def take_pile_error(st: GameState, action: TakePile) -> IllegalAction | None:
    try:
        _plan_take_pile(st, action)
    except IllegalAction as exc:
        return exc
    return None


def _apply_take_pile(st: GameState, action: TakePile, events: Events) -> None:
    plan = _plan_take_pile(st, action)
    seat = action.seat
    team = seat % st.options.teams
    top = st.pile[-1]
    taken = st.pile[:-1]
    _commit_melds(st, seat, plan)
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
                    "melds": [g.to_dict() for g in action.melds],
                    "cards_to_hand": len(into_hand),
                    "red_threes": cards_text(reds),
                },
                {seat: {"cards": cards_text(into_hand)}},
            )
        )
    if not st.hands[seat]:
        _end_turn(st, seat, went_out=True, events=events)


def must_take_pile(st: GameState, seat: int) -> bool:
    """With an empty stock and ``play_on``, a top card that fits the team's meld must be taken."""
    if st.options.stock_exhausted != "play_on" or not st.pile or pile_blocked(st):
        return False
    if pile_frozen_for(st, seat):
        return False
    return take_pile_error(st, TakePile(seat)) is None


def _apply_decline(st: GameState, action: DeclinePile, events: Events) -> None:
    _need_phase(st, PHASE_DRAW, "decline the pile")
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
    _end_round(st, None, "stock_exhausted", events)


def _apply_end_round(st: GameState, action: EndRound, events: Events) -> None:
    if st.phase != PHASE_PLAY or not st.no_discard:
        raise IllegalAction(
            "wrong_phase",
            "A round is ended this way only when the last stock card was a red three; "
            + (
                "draw first." if st.phase == PHASE_DRAW else "otherwise a turn ends with a discard."
            ),
        )
    incomplete = initial_meld_incomplete(st, action.seat)
    if incomplete is not None:
        raise incomplete
    if st.turn_melded:
        st.melded_before[action.seat] = True
    _end_round(st, None, "last_red_three", events)


# -- asking the partner --------------------------------------------------------------------------
def _apply_ask(st: GameState, action: AskPartner, events: Events) -> None:
    seat = action.seat
    if not st.options.can_ask_partner:
        why = (
            "this game has no partners"
            if not st.options.partnership
            else "this game's options leave the question out"
        )
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
    elif not going_out_possible(st, seat):
        why = "you ask only when you are able to go out"
    else:
        why = ""
    if why:
        raise IllegalAction("cannot_ask_partner", f"You cannot ask your partner to go out: {why}.")
    st.permission = PERMISSION_ASKED
    st.phase = PHASE_ANSWER
    st.to_act = (seat + 2) % 4
    if events is not None:
        events.append(Event("partner_asked", seat, {"partner": st.to_act}))


# -- end of a round ------------------------------------------------------------------------------
def score_round(st: GameState, went_out: int | None) -> list[dict[str, int]]:
    """Every component of each team's score for the round that just ended (docs/rules.md,
    "Scoring")."""
    opts = st.options
    result = []
    concealed = went_out is not None and _went_out_concealed(st, went_out)
    for team in range(opts.teams):
        melds = st.melds[team]
        meld_cards = sum(VALUE_OF[c] for cards in melds.values() for c in cards)
        natural = mixed = wild = 0
        for rank, cards in melds.items():
            if len(cards) >= CANASTA_SIZE:
                if rank == WILD_RANK:
                    wild += 1
                elif any(IS_WILD[c] for c in cards):
                    mixed += 1
                else:
                    natural += 1
        hand_cards = [c for s in st.seats_of(team) for c in st.hands[s]]
        penalty = sum(VALUE_OF[c] for c in hand_cards)
        reds = len(st.red_threes[team]) + sum(1 for c in hand_cards if IS_RED_THREE[c])
        red_value = 800 if reds == 4 else 100 * reds
        if not melds:
            red_value = -red_value
        out_bonus = 100 if went_out is not None and st.team_of(went_out) == team else 0
        concealed_bonus = 100 if out_bonus and concealed else 0
        parts = {
            "meld_cards": meld_cards,
            "hand_cards": -penalty,
            "natural_canastas": 500 * natural,
            "mixed_canastas": 300 * mixed,
            "wild_canastas": 1000 * wild,
            "red_threes": red_value,
            "going_out": out_bonus,
            "concealed": concealed_bonus,
        }
        parts["total"] = sum(parts.values())
        result.append(parts)
    return result


def _went_out_concealed(st: GameState, seat: int) -> bool:
    if st.melded_before[seat]:
        return False
    if not st.options.concealed_requires_canasta:
        return True
    team = seat % st.options.teams
    if any(len(st.melds[team][r]) >= CANASTA_SIZE for r in st.turn_started):
        return True
    return _laid_alone_go_out(st.options, st.turn_laid)


def _laid_alone_go_out(opts: Options, laid: dict[int, list[int]]) -> bool:
    """Whether the cards a player laid this turn, taken alone (without the partner's melds they
    joined), form valid melds with a canasta among them."""
    canasta = False
    for rank, cards in laid.items():
        try:
            _check_meld_cards(opts, rank, cards, [])
        except IllegalAction:
            return False
        canasta = canasta or len(cards) >= CANASTA_SIZE
    return canasta


def _end_round(st: GameState, went_out: int | None, reason: str, events: Events) -> None:
    parts = score_round(st, went_out)
    concealed = bool(went_out is not None and parts[st.team_of(went_out)]["concealed"])
    if not close_round(st, parts, went_out, reason, events, concealed):
        deal_round(st, events)


def replay(options: Options, seed: str, actions: list[Action]) -> GameState:
    """The state reached by playing ``actions`` from a new game (the log is the truth)."""
    st = new_game(options, seed)
    for action in actions:
        apply(st, action)
    return st


def action_dicts(actions: list[Action]) -> list[dict[str, Any]]:
    return [dict(action_to_dict(a), seat=a.seat) for a in actions]
