"""What one seat (or a spectator) may see. The only way hidden cards leave the engine.

A seat sees its own hand; every other hand is a count; the stock is a count; the pile shows its
top card and size. The seed and the stock order are never in a view.
"""

from __future__ import annotations

from typing import Any

from .cards import IS_WILD, cards_text, rank_text
from .family import CLASSIC, family_rules
from .legal import legal_actions
from .melds import CANASTA_SIZE, initial_meld_minimum
from .rules import Event, pile_blocked, pile_frozen_for
from .state import GameState
from .table_view import pile_view, table_view, team_view, viewer_seat


def meld_view(rank: int, cards: list[int]) -> dict[str, Any]:
    wilds = sum(1 for c in cards if IS_WILD[c])
    canasta = len(cards) >= CANASTA_SIZE
    return {
        "rank": rank_text(rank),
        "cards": cards_text(cards),
        "natural_count": len(cards) - wilds,
        "wild_count": wilds,
        "is_canasta": canasta,
        "canasta_kind": ("natural" if wilds == 0 else "mixed") if canasta else None,
    }


def player_view(st: GameState, viewer: int | None, with_legal: bool = True) -> dict[str, Any]:
    """The state as ``viewer`` (a seat index, or None for a spectator) may see it."""
    opts = st.options
    if opts.family != CLASSIC:
        return family_rules(opts.family).player_view(st, viewer, with_legal)
    seat = viewer_seat(st, viewer)
    teams = [
        team_view(
            st,
            team,
            initial_meld_minimum(st.scores[team]),
            [meld_view(r, cs) for r, cs in sorted(st.melds[team].items())],
            sum(1 for cs in st.melds[team].values() if len(cs) >= CANASTA_SIZE),
            st.red_threes[team],
        )
        for team in range(opts.teams)
    ]
    frozen_for_viewer = pile_frozen_for(st, seat) if seat is not None else None
    pile = pile_view(st, st.pile_freezers > 0, pile_blocked(st), frozen_for_viewer)
    return table_view(st, viewer, teams, pile, legal_actions if with_legal else None)


def event_view(event: Event, viewer: int | None) -> dict[str, Any]:
    """One event as ``viewer`` may see it: the public part plus the viewer's private part."""
    out: dict[str, Any] = {"kind": event.kind, "seat": event.seat, **event.public}
    if viewer is not None and viewer in event.private:
        out.update(event.private[viewer])
    return out
