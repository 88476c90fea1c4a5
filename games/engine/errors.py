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
    # Modern American Canasta (docs/rules.md, "Modern American Canasta")
    "discard_three_forbidden": "Threes are never discarded.",
    "discard_wild_forbidden": "A wild card may be discarded only to go out or from a hand of "
    "wild cards only.",
    "discard_swad_on_empty_pile": "No seven, wild card, ace or card of a dead rank may be "
    "discarded onto an empty pile.",
    "meld_leaves_no_legal_discard": "With the pile empty, this meld would leave no card that "
    "may be discarded.",
    "pile_dead_card": "The top card's rank is dead (a canasta of it is complete): the pile "
    "cannot be taken with it.",
    "meld_too_large": "The meld would exceed its largest size (seven cards for melds of this "
    "game, sequences and wild melds).",
    "meld_dead_rank": "No meld of a dead rank may be started or extended.",
    "meld_wild_forbidden": "This meld may hold no wild card (sevens, natural aces, sequences).",
    "meld_rule_of_five": "Outside the initial-meld turn a wild card goes only onto a meld that "
    "then holds five natural cards.",
    "meld_wild_meld_open": "The side's wild meld is incomplete: wild cards may go only there.",
    "initial_meld_needs_clean_triple": "The initial meld needs a meld of three or more natural "
    "cards from the hand with no wild card.",
    "initial_meld_mixed_canasta": "No mixed canasta may be completed in the initial-meld turn.",
    "go_out_needs_discard": "A player goes out only by discarding the last card.",
    "cannot_go_out_incomplete_special": "An incomplete sevens, natural aces or wild meld keeps "
    "the side from going out.",
    "special_hand_not_allowed": "A special hand can be declared only right after drawing from "
    "the stock, by a side that has not melded, when the game allows special hands.",
    "special_hand_invalid": "The hand does not form the special hand named (or the name is not "
    "one this game allows).",
    "cannot_keep_three": "A three may be kept (for a Straight) only while the side has not "
    "melded and special hands are played.",
    # Samba and Bolivia
    "sequence_invalid": "A sequence is three to seven natural cards of one suit in consecutive "
    "ranks from 4 to ace, each rank once (no three, no repeat).",
    "pile_sequence_forbidden": "The pile's top card cannot start a sequence or join one together "
    "with cards from the hand.",
    "meld_target_required": "Several melds could take these cards: name one with 'target' (or "
    "'new' for a new meld).",
    "meld_target_invalid": "'target' is not one of the side's melds, or a meld of another kind.",
    "meld_merge_invalid": "Only two group melds of one rank of the acting side can be merged.",
    "meld_wild_to_canasta": "No wild card may be added to a group canasta.",
    "cannot_go_out_without_escalera": "Going out needs two canastas, one of them an escalera "
    "(a sequence canasta).",
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
