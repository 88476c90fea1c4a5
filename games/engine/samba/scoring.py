"""Round scores of Samba and Bolivia: melded cards, canasta bonuses (natural 500, mixed 300,
samba / escalera 1500, bolivia 2500), going out 200, cards left in hands (Bolivia: black threes
100 each, R27) and red threes (100 each, 1000 for all six; added with 2+ canastas, R29)."""

from __future__ import annotations

from ..cards import IS_BLACK_THREE, IS_RED_THREE, IS_WILD, VALUE_OF
from ..state import GameState
from .melds import CANASTA_SIZE, canasta_counts, ext_of
from .state import SEQUENCE, WILD

ALL_RED_THREES = 6
BOLIVIA_BLACK_THREE_IN_HAND = 100


def score_round(st: GameState, went_out: int | None) -> list[dict[str, int]]:
    """Every component of each side's score for the round that just ended."""
    opts = st.options
    ext = ext_of(st)
    bolivia = opts.family == "bolivia"
    out = []
    for team in range(opts.teams):
        melds = st.melds[team]
        kinds = ext.kinds[team]
        natural = mixed = sequences = wild = 0
        for num, cards in melds.items():
            if len(cards) < CANASTA_SIZE:
                continue
            kind = kinds[num]
            if kind == SEQUENCE:
                sequences += 1
            elif kind == WILD:
                wild += 1
            elif any(IS_WILD[c] for c in cards):
                mixed += 1
            else:
                natural += 1
        hand_cards = [c for s in st.seats_of(team) for c in st.hands[s]]
        penalty = 0
        for c in hand_cards:
            if bolivia and IS_BLACK_THREE[c]:
                penalty += BOLIVIA_BLACK_THREE_IN_HAND
            else:
                penalty += VALUE_OF[c]
        reds = len(st.red_threes[team]) + sum(1 for c in hand_cards if IS_RED_THREE[c])
        red_value = 1000 if reds == ALL_RED_THREES else 100 * reds
        if canasta_counts(melds, kinds)[0] < 2:
            red_value = -red_value
        parts = {
            "meld_cards": sum(VALUE_OF[c] for cards in melds.values() for c in cards),
            "hand_cards": -penalty,
            "natural_canastas": 500 * natural,
            "mixed_canastas": 300 * mixed,
            "sequence_canastas": 1500 * sequences,
            "wild_canastas": 2500 * wild,
            "red_threes": red_value,
            "going_out": 200 if went_out is not None and st.team_of(went_out) == team else 0,
            "concealed": 0,  # no concealed bonus in these families
        }
        parts["total"] = sum(parts.values())
        out.append(parts)
    return out
