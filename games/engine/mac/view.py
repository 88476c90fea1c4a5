"""What one seat (or a spectator) may see of a Modern American Canasta game: the classic view's
keys plus the family's (threes areas split by colour, special hands, turn card, dead ranks,
talon due)."""

from __future__ import annotations

from typing import Any

from ..actions import action_to_dict
from ..cards import IS_BLACK_THREE, IS_RED_THREE, IS_WILD, card_text, cards_text, rank_text
from ..state import PERMISSION_TEXT, GameState
from .legal import legal_actions
from .melds import CANASTA, canasta_kind, canastas, dead_ranks, ext_of, initial_minimum
from .rules import talon_due

TURN_CARD_STOCK = 8  # the turn card is drawn once the stock holds this many cards or fewer


def meld_view(rank: int, cards: list[int]) -> dict[str, Any]:
    wilds = sum(1 for c in cards if IS_WILD[c])
    return {
        "rank": rank_text(rank),
        "cards": cards_text(cards),
        "natural_count": len(cards) - wilds,
        "wild_count": wilds,
        "is_canasta": len(cards) >= CANASTA,
        "canasta_kind": canasta_kind(rank, cards),
        "id": None,
        "kind": "wild" if rank == 14 else "group",
        "suit": None,
    }


def player_view(st: GameState, viewer: int | None, with_legal: bool = True) -> dict[str, Any]:
    opts = st.options
    ext = ext_of(st)
    seated = viewer is not None and 0 <= viewer < opts.players
    teams = []
    for team in range(opts.teams):
        area = st.red_threes[team]
        name = ext.special_name[team]
        teams.append(
            {
                "team": team,
                "seats": st.seats_of(team),
                "score": st.scores[team],
                "opened": st.opened[team],
                "initial_meld_minimum": initial_minimum(st.scores[team]),
                "melds": [meld_view(r, cs) for r, cs in sorted(st.melds[team].items())],
                "canastas": canastas(st.melds[team]),
                "red_threes": cards_text([c for c in area if IS_RED_THREE[c]]),
                "black_threes": cards_text([c for c in area if IS_BLACK_THREE[c]]),
                "special_hand": None
                if name is None
                else {"name": name, "cards": cards_text(ext.special[team])},
            }
        )
    hand = st.hands[viewer] if seated and viewer is not None else None
    view: dict[str, Any] = {
        "family": opts.family,
        "round": st.round_no,
        "dealer": st.dealer,
        "turn": st.turn,
        "to_act": st.to_act,
        "phase": st.phase,
        "stock_count": len(st.stock),
        "pile": {
            "size": len(st.pile),
            "top": card_text(st.pile[-1]) if st.pile else None,
            "frozen": True,
            "blocked": bool(st.pile) and IS_WILD[st.pile[-1]],
            "frozen_for_viewer": True if seated else None,
        },
        "hand_counts": [len(h) for h in st.hands],
        "teams": teams,
        "permission": PERMISSION_TEXT[st.permission],
        "must_end_without_discard": False,
        "winner_team": st.winner,
        "viewer": viewer if seated else None,
        "hand": cards_text(hand) if hand is not None else None,
        "turn_card_drawn": len(st.stock) <= TURN_CARD_STOCK,
        "dead_ranks": [rank_text(r) for r in sorted(dead_ranks(st))],
        "talon_due": talon_due(st) if not st.game_over else 0,
        "legal_actions": [],
    }
    if with_legal and seated and viewer == st.to_act and not st.game_over:
        view["legal_actions"] = [action_to_dict(a) for a in legal_actions(st)]
    return view
