"""Reads of a game's pause (``games.services.pause``): whether it is paused, since when, what is
left of the turn, and a pending proposal to pause it. Public: every viewer may see it."""

from __future__ import annotations

from typing import Any

from games.engine.history import GameRecord
from games.models import Game, Seat


def pause_view(
    game: Game, seats: list[Seat], *, record: GameRecord | None = None
) -> dict[str, Any]:
    """The pause as every viewer may see it. With ``record`` (the log folded up to a delayed
    spectator's horizon), as it stood then, without its times."""
    humans = [s.index for s in seats if s.player_id is not None]
    if record is not None:
        paused, proposal = record.paused, record.pause_proposal
        paused_at, remaining, proposed_at = None, None, None
    else:
        paused, proposal = game.paused_at is not None, game.pause_proposal
        paused_at, remaining = game.paused_at, game.pause_remaining
        proposed_at = (proposal or {}).get("proposed_at")
    return {
        "paused": paused,
        "paused_at": paused_at,
        "remaining_seconds": remaining if paused else None,
        "proposal": (
            {
                "proposed_by": proposal["proposed_by"],
                "accepted": list(proposal["accepted"]),
                "waiting_for": [i for i in humans if i not in proposal["accepted"]],
                "proposed_at": proposed_at,
            }
            if proposal
            else None
        ),
    }
