"""What one seat (or a spectator) may see. The only way hidden cards leave the engine.

A seat sees its own hand; every other hand is a count; the stock is a count; the pile shows its
top card and size. The seed and the stock order are never in a view.
"""

from __future__ import annotations

from typing import Any

from .actions import action_to_dict
from .cards import IS_WILD, card_text, cards_text, rank_text
from .family import CLASSIC, family_rules
from .legal import legal_actions
from .melds import CANASTA_SIZE, initial_meld_minimum
from .rules import Event, pile_blocked, pile_frozen_for
from .state import PERMISSION_TEXT, GameState


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
    seated = viewer is not None and 0 <= viewer < opts.players
    teams = []
    for team in range(opts.teams):
        teams.append(
            {
                "team": team,
                "seats": st.seats_of(team),
                "score": st.scores[team],
                "opened": st.opened[team],
                "initial_meld_minimum": initial_meld_minimum(st.scores[team]),
                "melds": [meld_view(r, cs) for r, cs in sorted(st.melds[team].items())],
                "canastas": sum(1 for cs in st.melds[team].values() if len(cs) >= CANASTA_SIZE),
                "red_threes": cards_text(st.red_threes[team]),
            }
        )
    view: dict[str, Any] = {
        "round": st.round_no,
        "dealer": st.dealer,
        "turn": st.turn,
        "to_act": st.to_act,
        "phase": st.phase,
        "stock_count": len(st.stock),
        "pile": {
            "size": len(st.pile),
            "top": card_text(st.pile[-1]) if st.pile else None,
            "frozen": st.pile_freezers > 0,
            "blocked": pile_blocked(st),
            "frozen_for_viewer": pile_frozen_for(st, viewer)
            if seated and viewer is not None
            else None,
        },
        "hand_counts": [len(h) for h in st.hands],
        "teams": teams,
        "permission": PERMISSION_TEXT[st.permission],
        "must_end_without_discard": st.no_discard,
        "winner_team": st.winner,
        "viewer": viewer if seated else None,
        "hand": cards_text(st.hands[viewer]) if seated and viewer is not None else None,
        "legal_actions": [],
    }
    if with_legal and seated and viewer == st.to_act and not st.game_over:
        view["legal_actions"] = [action_to_dict(a) for a in legal_actions(st)]
    return view


def event_view(event: Event, viewer: int | None) -> dict[str, Any]:
    """One event as ``viewer`` may see it: the public part plus the viewer's private part."""
    out: dict[str, Any] = {"kind": event.kind, "seat": event.seat, **event.public}
    if viewer is not None and viewer in event.private:
        out.update(event.private[viewer])
    return out
