"""Reads of the turn timer: its state as every viewer may see it, and its log."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from games.models import Game, Seat, TimerEvent


def grace() -> timedelta:
    """How long after the shown deadline the timer waits (a move in flight still wins)."""
    return timedelta(milliseconds=getattr(settings, "TURN_TIMER_GRACE_MS", 1000))


def timer_view(
    game: Game, seats: list[Seat] | None = None, *, now: datetime | None = None
) -> dict[str, Any]:
    """The timer as every viewer may see it: options, deadline, the server's time (for a
    countdown), each seat's run of timeouts and stand-in, a pending proposal."""
    now = now or timezone.now()
    if seats is None:
        seats = list(game.seats.order_by("index"))
    deadline = game.turn_deadline
    proposal = game.timer_proposal
    humans = [s.index for s in seats if s.player_id is not None]
    return {
        "enabled": game.turn_seconds is not None,
        "turn_seconds": game.turn_seconds,
        "timeout_limit": game.timeout_limit,
        "timeout_outcome": game.timeout_outcome,
        "deadline": deadline,
        "server_time": now,
        "seconds_left": max(0.0, round((deadline - now).total_seconds(), 3)) if deadline else None,
        "grace_ms": int(grace().total_seconds() * 1000),
        "seat": game.to_act if deadline is not None else None,
        "seats": [
            {"index": s.index, "timeouts": s.timeouts, "stand_in": s.stand_in} for s in seats
        ],
        "proposal": (
            {
                "proposed_by": proposal["proposed_by"],
                "accepted": proposal["accepted"],
                "waiting_for": [i for i in humans if i not in proposal["accepted"]],
                "proposed_at": proposal["proposed_at"],
            }
            if proposal
            else None
        ),
    }


def timer_event_view(event: TimerEvent) -> dict[str, Any]:
    return {
        "seq": event.seq,
        "type": event.type,
        "seat": event.seat,
        "at_version": event.at_version,
        "payload": event.payload,
        "created_at": event.created_at,
    }


def timer_detail_get(*, game: Game, after: int = 0, limit: int = 200) -> dict[str, Any]:
    """The timer and its log (entries with seq > ``after``, oldest first)."""
    rows = list(game.timer_events.filter(seq__gt=after).order_by("seq")[: limit + 1])
    return {
        "game": game.pk,
        "version": game.version,
        "timer": timer_view(game),
        "events": [timer_event_view(e) for e in rows[:limit]],
        "has_more": len(rows) > limit,
    }
