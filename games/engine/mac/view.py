"""What one seat (or a spectator) may see of a Modern American Canasta game: the classic view's
keys plus the family's (threes areas split by colour, special hands, turn card, dead ranks,
talon due)."""

from __future__ import annotations

from typing import Any

from ..cards import IS_BLACK_THREE, IS_RED_THREE, IS_WILD, cards_text, rank_text
from ..state import GameState
from ..table_view import pile_view, table_view, team_view, viewer_seat
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
    seat = viewer_seat(st, viewer)
    teams = []
    for team in range(opts.teams):
        area = st.red_threes[team]
        name = ext.special_name[team]
        part = team_view(
            st,
            team,
            initial_minimum(st.scores[team]),
            [meld_view(r, cs) for r, cs in sorted(st.melds[team].items())],
            canastas(st.melds[team]),
            [c for c in area if IS_RED_THREE[c]],
        )
        part["black_threes"] = cards_text([c for c in area if IS_BLACK_THREE[c]])
        part["special_hand"] = (
            None if name is None else {"name": name, "cards": cards_text(ext.special[team])}
        )
        teams.append(part)
    blocked = bool(st.pile) and IS_WILD[st.pile[-1]]
    pile = pile_view(st, True, blocked, True if seat is not None else None)
    extra = {
        "turn_card_drawn": len(st.stock) <= TURN_CARD_STOCK,
        "dead_ranks": [rank_text(r) for r in sorted(dead_ranks(st))],
        "talon_due": talon_due(st) if not st.game_over else 0,
    }
    legal = legal_actions if with_legal else None
    return table_view(st, viewer, teams, pile, legal, family=opts.family, extra=extra)
