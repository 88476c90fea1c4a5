"""Round scoring of Modern American Canasta (VARIANTS 1.10): melds, canasta bonuses, the
penalties of incomplete sevens, natural aces and wild melds, hands (with the 1500 aces/sevens
charge per player, R15), the threes area by canasta count, going out and special hands."""

from __future__ import annotations

from ..cards import IS_RED_THREE, RANK_OF, WILD_RANK
from ..state import GameState
from .melds import (
    ACE,
    CANASTA,
    CANASTA_BONUS,
    MAC_VALUE,
    SEVEN,
    THREE_AREA_VALUE,
    canasta_kind,
    ext_of,
    is_special_meld,
    wild_canasta_bonus,
)
from .special import special_values

SCORE_PARTS = (
    "meld_cards",
    "hand_cards",
    "hand_penalties",
    "natural_canastas",
    "mixed_canastas",
    "sevens_canastas",
    "aces_canastas",
    "wild_canastas",
    "incomplete_melds",
    "threes",
    "going_out",
    "special_hand",
)
HAND_PENALTY = 1500  # a player left holding three or more aces (or sevens)


def threes_value(area: list[int]) -> int:
    red = sum(1 for c in area if IS_RED_THREE[c])
    return THREE_AREA_VALUE[red] + THREE_AREA_VALUE[len(area) - red]


def score_round(st: GameState, went_out: int | None) -> list[dict[str, int]]:
    """Every component of each side's score for the round that just ended."""
    ext = ext_of(st)
    values = special_values(st.options.special_hands)
    result = []
    for team in range(st.options.teams):
        parts = dict.fromkeys(SCORE_PARTS, 0)
        name = ext.special_name[team]
        if name is not None:
            parts["special_hand"] = values.get(name, 0)
            parts["total"] = parts["special_hand"]
            result.append(parts)
            continue
        melds = st.melds[team]
        done = 0
        for rank, cards in melds.items():
            kind = canasta_kind(rank, cards)
            if kind is None:
                if is_special_meld(rank, cards):
                    parts["incomplete_melds"] -= 2000 if rank == WILD_RANK else 2500
                continue
            done += 1
            if kind == "wild":
                parts["wild_canastas"] += wild_canasta_bonus(cards)
            elif kind == "natural_sevens":
                parts["sevens_canastas"] += CANASTA_BONUS[kind]
            elif kind == "natural_aces":
                parts["aces_canastas"] += CANASTA_BONUS[kind]
            else:
                parts[f"{kind}_canastas"] += CANASTA_BONUS[kind]
        shown = sum(MAC_VALUE[c] for cards in melds.values() for c in cards)
        parts["meld_cards"] = shown if done >= 1 else -shown
        for seat in st.seats_of(team):
            hand = st.hands[seat]
            parts["hand_cards"] -= sum(MAC_VALUE[c] for c in hand)
            for rank in (ACE, SEVEN):
                if sum(1 for c in hand if RANK_OF[c] == rank) >= 3:
                    parts["hand_penalties"] -= HAND_PENALTY
        threes = threes_value(st.red_threes[team])
        parts["threes"] = threes if done >= 2 else 0 if done == 1 else -threes
        if went_out is not None and st.team_of(went_out) == team:
            parts["going_out"] = 100
        parts["total"] = sum(parts[k] for k in SCORE_PARTS)
        result.append(parts)
    return result


__all__ = ["CANASTA", "SCORE_PARTS", "score_round", "threes_value"]
