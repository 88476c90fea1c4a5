"""Table bookkeeping every rule family shares: dealing the hands, turning the upcard, the
``round_started`` event, a new turn, laying red threes out, the wrong-phase refusal, the
partner's answer, and closing a round (scores added, the round record, ``round_ended``, the
game's end)."""

from __future__ import annotations

import random
from typing import Any

from .actions import AnswerPartner
from .cards import IS_BLACK_THREE, IS_RED_THREE, IS_WILD, card_text, cards_text, deck_of
from .errors import IllegalAction
from .events import Event, Events
from .state import (
    PERMISSION_NO,
    PERMISSION_NONE,
    PERMISSION_YES,
    PHASE_ANSWER,
    PHASE_DRAW,
    PHASE_GAME_OVER,
    PHASE_PLAY,
    GameState,
    round_seed,
    seed_commitment,
)


def deal_hands(st: GameState, deck: list[int] | None) -> str:
    """Start the next round: the next dealer, the stock (``deck``, top = last, or the family's
    deck shuffled from the round's seed), the hands dealt from the dealer's left, the table
    cleared. Returns the round's seed."""
    opts = st.options
    players = opts.players
    st.round_no += 1
    st.dealer = (st.dealer + 1) % players if st.round_no > 1 else players - 1
    seed = round_seed(st.seed, st.round_no)
    if deck is None:
        deck = list(deck_of(opts.family))
        random.Random(seed).shuffle(deck)
    st.stock = deck
    st.hands = [[] for _ in range(players)]
    for _ in range(opts.hand_size):
        for i in range(players):
            st.hands[(st.dealer + 1 + i) % players].append(st.stock.pop())
    st.melds = [{} for _ in range(opts.teams)]
    st.red_threes = [[] for _ in range(opts.teams)]
    st.opened = [False] * opts.teams
    st.melded_before = [False] * players
    st.pile = []
    st.pile_freezers = 0
    return seed


def turn_upcard(st: GameState) -> None:
    """Start the pile from the stock: wild cards and red threes freeze it and another card is
    turned; so is a black three with ``first_upcard_black_three_turns``."""
    while True:
        card = st.stock.pop()
        st.pile.append(card)
        if IS_WILD[card] or IS_RED_THREE[card]:
            st.pile_freezers += 1
            continue
        if IS_BLACK_THREE[card] and st.options.first_upcard_black_three_turns:
            continue
        break


def round_started(st: GameState, seed: str, first: int, pile_frozen: bool) -> Event:
    """The ``round_started`` event: the table in public, each hand only to its seat."""
    return Event(
        "round_started",
        None,
        {
            "round": st.round_no,
            "dealer": st.dealer,
            "first_seat": first,
            "upcards": [card_text(c) for c in st.pile],
            "pile_frozen": pile_frozen,
            "stock_count": len(st.stock),
            "hand_counts": [len(h) for h in st.hands],
            "seed_commitment": seed_commitment(seed),
        },
        {s: {"hand": cards_text(st.hands[s])} for s in range(st.options.players)},
    )


def begin_turn(st: GameState, seat: int) -> None:
    """The seat's turn starts at the draw, with nothing laid, asked or refused yet."""
    st.turn = seat
    st.to_act = seat
    st.phase = PHASE_DRAW
    st.turn_melded = False
    st.turn_started = []
    st.turn_laid = {}
    st.permission = PERMISSION_NONE
    st.no_discard = False


def reveal_red_threes(st: GameState, seat: int, events: Events) -> bool:
    """Move red threes from the hand to the team's area, replacing each from the stock.

    Returns True when a red three needed a replacement and the stock was empty (the red three
    was the last stock card).
    """
    hand = st.hands[seat]
    team = seat % st.options.teams
    exhausted = False
    while True:
        reds = [c for c in hand if IS_RED_THREE[c]]
        if not reds:
            return exhausted
        for card in reds:
            hand.remove(card)
            st.red_threes[team].append(card)
            drawn: list[int] = []
            if st.stock:
                drawn.append(st.stock.pop())
                hand.extend(drawn)
            else:
                exhausted = True
            if events is not None:
                events.append(
                    Event(
                        "red_three_revealed",
                        seat,
                        {"card": card_text(card), "replacements": len(drawn)},
                        {seat: {"drawn": cards_text(drawn)}},
                    )
                )


def close_round(
    st: GameState,
    parts: list[dict[str, int]],
    went_out: int | None,
    reason: str,
    events: Events,
    concealed: bool = False,
    extra: dict[str, Any] | None = None,
    winner: int | None = None,
) -> bool:
    """Add the round's ``parts`` (each team's score components, ``total`` included) to the
    scores, record the round (``extra`` keys after the common ones) and tell it; end the game
    when ``winner`` is given or one team alone leads at the target score. True when the game
    is over (otherwise the caller deals the next round)."""
    for team, p in enumerate(parts):
        st.scores[team] += p["total"]
    record: dict[str, Any] = {
        "round": st.round_no,
        "dealer": st.dealer,
        "reason": reason,
        "went_out": went_out,
        "concealed": concealed,
        "teams": parts,
        "scores": list(st.scores),
    }
    if extra:
        record.update(extra)
    st.rounds = st.rounds + [record]
    st.turn_laid = {}
    if events is not None:
        events.append(
            Event("round_ended", went_out, dict(record, hands=[cards_text(h) for h in st.hands]))
        )
    best = max(st.scores)
    leaders = [t for t, s in enumerate(st.scores) if s == best]
    if winner is None and best >= st.options.target_score and len(leaders) == 1:
        winner = leaders[0]
    if winner is None:
        return False
    st.winner = winner
    st.phase = PHASE_GAME_OVER
    st.to_act = -1
    if events is not None:
        events.append(
            Event("game_ended", None, {"winner_team": st.winner, "scores": list(st.scores)})
        )
    return True


def phase_error(st: GameState, what: str) -> IllegalAction:
    """Refusal of an action made at the wrong point of the turn, saying what the turn awaits."""
    if st.phase == PHASE_DRAW:
        hint = "the turn starts by drawing from the stock or taking the pile"
    elif st.phase == PHASE_ANSWER:
        hint = "the partner's answer to the question about going out comes first"
    elif st.no_discard:
        hint = "you have drawn this turn; meld if you wish, then end the round"
    else:
        hint = "you have drawn this turn; meld if you wish, then discard"
    if what == "answer" and st.phase != PHASE_ANSWER:
        hint = "nobody has asked for permission to go out"
    return IllegalAction("wrong_phase", f"You cannot {what} now: {hint}.")


def apply_answer(st: GameState, action: AnswerPartner, events: Events) -> None:
    """The partner's yes or no to going out; the turn goes back to the asker."""
    if st.phase != PHASE_ANSWER:
        raise phase_error(st, "answer")
    st.permission = PERMISSION_YES if action.allow else PERMISSION_NO
    st.phase = PHASE_PLAY
    st.to_act = st.turn
    if events is not None:
        events.append(Event("partner_answered", action.seat, {"allow": action.allow}))
