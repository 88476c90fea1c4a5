"""The view keys every rule family shares: a team's part, the pile, and the top level (round,
turn, counts, permission, the viewer's own hand, legal actions). Each family adds its own."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .actions import Action, action_to_dict
from .cards import card_text, cards_text
from .state import PERMISSION_TEXT, GameState


def viewer_seat(st: GameState, viewer: int | None) -> int | None:
    """The viewer's seat, or None for a spectator (or a number that is no seat)."""
    return viewer if viewer is not None and 0 <= viewer < st.options.players else None


def team_view(
    st: GameState,
    team: int,
    minimum: int,
    melds: list[dict[str, Any]],
    canastas: int,
    red_threes: list[int],
) -> dict[str, Any]:
    """A team's common keys: seats, score, opening, melds (as the family shows them)."""
    return {
        "team": team,
        "seats": st.seats_of(team),
        "score": st.scores[team],
        "opened": st.opened[team],
        "initial_meld_minimum": minimum,
        "melds": melds,
        "canastas": canastas,
        "red_threes": cards_text(red_threes),
    }


def pile_view(
    st: GameState, frozen: bool, blocked: bool, frozen_for_viewer: bool | None
) -> dict[str, Any]:
    """The pile as everyone sees it: its size and top card."""
    return {
        "size": len(st.pile),
        "top": card_text(st.pile[-1]) if st.pile else None,
        "frozen": frozen,
        "blocked": blocked,
        "frozen_for_viewer": frozen_for_viewer,
    }


def table_view(
    st: GameState,
    viewer: int | None,
    teams: list[dict[str, Any]],
    pile: dict[str, Any],
    legal: Callable[[GameState], Sequence[Action]] | None,
    family: str | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The top level of a view (``family`` first when given, ``extra`` before the legal
    actions). ``legal`` lists the actions of the seat to act; they are shown to that seat
    only, and only while the game runs."""
    seat = viewer_seat(st, viewer)
    view: dict[str, Any] = {} if family is None else {"family": family}
    view.update(
        {
            "round": st.round_no,
            "dealer": st.dealer,
            "turn": st.turn,
            "to_act": st.to_act,
            "phase": st.phase,
            "stock_count": len(st.stock),
            "pile": pile,
            "hand_counts": [len(h) for h in st.hands],
            "teams": teams,
            "permission": PERMISSION_TEXT[st.permission],
            "must_end_without_discard": st.no_discard,
            "winner_team": st.winner,
            "viewer": seat,
            "hand": cards_text(st.hands[seat]) if seat is not None else None,
        }
    )
    if extra:
        view.update(extra)
    view["legal_actions"] = []
    if legal is not None and seat is not None and seat == st.to_act and not st.game_over:
        view["legal_actions"] = [action_to_dict(a) for a in legal(st)]
    return view
