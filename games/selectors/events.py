"""Reads of the move log: events as a requester may see them, and the answer to a move."""

from __future__ import annotations

import json
from typing import Any

from rest_framework.utils.encoders import JSONEncoder

from accounts.models import Player
from games.engine import GameState, effects_from_json
from games.engine.view import event_view
from games.models import Game, GameEvent, GameStatus, Seat
from games.selectors.games import game_detail_get, viewer_seat_get
from games.selectors.horizon import spectator_horizon


def event_view_get(event: GameEvent, viewer: int | None) -> dict[str, Any]:
    """One log entry as ``viewer`` (a seat, or None for a spectator) may see it."""
    return {
        "seq": event.seq,
        "type": event.type,
        "seat": event.seat,
        "source": event.source,
        "created_at": event.created_at,
        "payload": event.payload,
        "effects": [event_view(e, viewer) for e in effects_from_json(event.effects)],
    }


EVENTS_PAGE_MAX = 500
ACTIVE = GameStatus.ACTIVE  # the only status with a seat to act


def game_events_list(
    *, game: Game, player: Player | None, after: int = 0, limit: int = 200
) -> dict[str, Any]:
    """Log entries with seq > ``after`` (at most ``limit``), redacted for the requester."""
    viewer = viewer_seat_get(game=game, player=player)
    limit = max(1, min(limit, EVENTS_PAGE_MAX))
    horizon = spectator_horizon(game, viewer)
    rows = list(game.events.filter(seq__gt=after, seq__lte=horizon).order_by("seq")[: limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    return {
        "game": game.pk,
        "version": horizon,
        "viewer": viewer,
        "to_act": game.to_act if horizon == game.version and game.status == ACTIVE else None,
        "events": [event_view_get(e, viewer) for e in rows],
        "has_more": more,
    }


def action_response_build(
    *,
    game: Game,
    event: GameEvent,
    player: Player,
    seats: list[Seat] | None = None,
    state: GameState | None = None,
) -> dict[str, Any]:
    """The answer to an applied action: the new event and the game as the actor now sees it
    (datetimes included as they are: ``json_ready`` makes it storable). ``seats`` and
    ``state``: the game's, when the caller has them already."""
    detail = game_detail_get(game=game, player=player, seats=seats, state=state)
    return {"event": event_view_get(event, event.seat), "game": detail}


def json_ready(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` as the API renders it (DRF's encoder: datetimes as ISO 8601 text), for storing
    in a JSON column."""
    ready: dict[str, Any] = json.loads(json.dumps(body, cls=JSONEncoder))
    return ready
