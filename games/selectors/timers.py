"""Reads of the turn timer: its state as every viewer may see it, and its log."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from games.engine.history import TIMER_FACTS, TURN_TIMED_OUT
from games.models import EventSource, Game, GameEvent, Seat


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


def timer_log_get(game: Game) -> list[dict[str, Any]]:
    """The turn timer's part of the move log, numbered 1, 2, ... in order. A ``turn_timed_out``
    entry names the events the timer then played for the seat (``events``: first and last)."""
    rows = list(
        GameEvent.objects.filter(game=game)
        .filter(Q(type__in=TIMER_FACTS) | Q(source=EventSource.TIMER))
        .order_by("seq")
        .values("seq", "type", "seat", "source", "payload", "created_at")
    )
    out: list[dict[str, Any]] = []
    for i, row in enumerate(rows):
        if row["type"] not in TIMER_FACTS:
            continue
        payload = dict(row["payload"])
        if row["type"] == TURN_TIMED_OUT:
            played: list[int] = []  # the timer's moves right after it, with no other event between
            for later in rows[i + 1 :]:
                if later["type"] in TIMER_FACTS or later["seq"] != row["seq"] + len(played) + 1:
                    break
                played.append(later["seq"])
            payload["events"] = [played[0], played[-1]] if played else []
        out.append(
            {
                "seq": len(out) + 1,
                "type": row["type"],
                "seat": row["seat"],
                "at_version": row["seq"] - 1,
                "payload": payload,
                "created_at": row["created_at"],
            }
        )
    return out


def timer_detail_get(*, game: Game, after: int = 0, limit: int = 200) -> dict[str, Any]:
    """The timer and its log (entries with seq > ``after``, oldest first)."""
    rows = [e for e in timer_log_get(game) if e["seq"] > after]
    return {
        "game": game.pk,
        "version": game.version,
        "timer": timer_view(game),
        "events": rows[:limit],
        "has_more": len(rows) > limit,
    }
