"""Refusals as values: every refused action carries a stable snake_case code and a message.

Messages never name a card the acting seat could not see: they speak only of the actor's own
hand, the table and the rules.
"""

from __future__ import annotations

# code -> what it means; the service documents this catalogue in its OpenAPI schema.
ERROR_CODES: dict[str, str] = {
    "invalid_option": "An option is unknown or its value is out of range.",
    "invalid_action": "The action is malformed (unknown type, missing or unreadable field).",
    "game_over": "The game has ended; no further actions are accepted.",
    "not_your_turn": "It is not this seat's turn to act.",
    "wrong_phase": "This kind of action is not allowed at this point of the turn.",
    "card_not_in_hand": "A named card is not in the acting player's hand.",
    "stock_empty": "The stock is empty, so no card can be drawn.",
    "pile_empty": "The discard pile is empty.",
    "pile_blocked": "The top of the pile is a black three, wild card or red three.",
    "pile_frozen": "The pile is frozen: its top card may only be taken with a natural pair.",
    "pile_needs_two_naturals": "A new meld with the pile's top card needs a natural pair.",
    "pile_cards_do_not_match": "The cards named do not form a meld with the pile's top card.",
    "pile_no_meld_to_lay_off": "The team has no meld of the top card's rank to lay it off on.",
    "pile_to_canasta_forbidden": "The top card may not be laid off on a completed canasta.",
    "pile_one_card_restriction": "A player holding one card may not take a one-card pile.",
    "must_take_pile": "The stock is empty and the top card fits the team's meld: take the pile.",
    "meld_too_small": "A new meld needs at least three cards (black threes: three or four).",
    "meld_mixed_ranks": "A meld holds cards of one rank only (black threes only with black "
    "threes; a wild meld only wild cards).",
    "meld_needs_two_naturals": "A meld needs at least two natural cards.",
    "meld_too_many_wilds": "The meld would hold more wild cards than the rules allow.",
    "meld_invalid_card": "This card cannot be melded here: red threes never, black threes never "
    "with wild cards or onto a meld, 2s and jokers not as a rank of their own.",
    "meld_black_threes_only_going_out": "Black threes may be melded only when going out.",
    "meld_wild_canasta_disabled": "A meld of wild cards alone needs the wild_canasta option.",
    "meld_duplicate_rank": "One action names the same meld rank twice.",
    "initial_meld_below_minimum": "The side's first melds must reach the initial-meld minimum "
    "this turn: a meld below it needs cards left in hand that complete it (a pile take must "
    "reach it by itself).",
    "initial_meld_incomplete": "The side's first melds are still below the initial-meld minimum: "
    "meld the rest before ending the turn.",
    "cannot_go_out_without_canasta": "Going out (or keeping one card to discard) needs the "
    "required canastas.",
    "partner_said_no": "The partner refused permission to go out this turn.",
    "must_go_out": "The partner allowed going out, so this turn must end by going out.",
    "cannot_ask_partner": "Permission to go out can be asked only in a partnership game, after "
    "drawing, before melding, once per turn, when going out is possible.",
    "red_three_discard": "Red threes may not be discarded.",
    "cannot_discard": "No discard is allowed now (the turn ends without one).",
}


class EngineError(Exception):
    """Base of every refusal raised by the engine."""

    code = "invalid_action"

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class IllegalAction(EngineError):
    """The action is well formed but the rules refuse it in this position."""


class InvalidAction(EngineError):
    """The action could not be read (unknown type, bad card text, missing field)."""

    def __init__(self, message: str) -> None:
        super().__init__("invalid_action", message)


class InvalidOptions(EngineError):
    """An option name or value was refused; ``option`` names it."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__("invalid_option", message)
        self.option = option
