"""Reads of the turn timer: its state as every viewer may see it, and its log."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from accounts.models import Player
from games.engine.history import (
    TIMER_FACTS,
    TIMER_OFF_PROPOSED,
    TIMER_TURNED_OFF,
    TURN_TIMED_OUT,
    GameRecord,
)
from games.models import EventSource, Game, GameEvent, Seat
from games.selectors.horizon import game_record_at, spectator_horizon
from games.selectors.seating import seat_index_of


def grace() -> timedelta:
    """How long after the shown deadline the timer waits (a move in flight still wins)."""
    return timedelta(milliseconds=getattr(settings, "TURN_TIMER_GRACE_MS", 1000))


def timer_view(
    game: Game,
    seats: list[Seat] | None = None,
    *,
    now: datetime | None = None,
    upto: int | None = None,
    record: GameRecord | None = None,
) -> dict[str, Any]:
    """The timer as every viewer may see it: options, deadline, the server's time (for a
    countdown), each seat's run of timeouts and stand-in, a pending proposal. With ``upto`` (a
    delayed spectator's horizon), as it stood after that event, without a deadline; ``record``:
    the log folded up to it, when the caller has it."""
    now = now or timezone.now()
    if seats is None:
        seats = list(game.seats.order_by("index"))
    humans = [s.index for s in seats if s.player_id is not None]
    turn_seconds, deadline, proposal = game.turn_seconds, game.turn_deadline, game.timer_proposal
    runs = [{"index": s.index, "timeouts": s.timeouts, "stand_in": s.stand_in} for s in seats]
    if upto is not None:  # as the log had it then; a deadline would tell when the turn began
        then = _timer_at(game, record or game_record_at(game, upto), upto)
        turn_seconds, deadline, proposal, runs = then.turn_seconds, None, then.proposal, then.runs
    return {
        "enabled": turn_seconds is not None,
        "turn_seconds": turn_seconds,
        "timeout_limit": game.timeout_limit,
        "timeout_outcome": game.timeout_outcome,
        "deadline": deadline,
        "server_time": now,
        "seconds_left": max(0.0, round((deadline - now).total_seconds(), 3)) if deadline else None,
        "grace_ms": int(grace().total_seconds() * 1000),
        "seat": game.to_act if deadline is not None else None,
        "seats": runs,
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


@dataclass(frozen=True)
class TimerThen:
    """The parts of the timer that the log, not the game row, says as of an earlier event."""

    turn_seconds: int | None
    proposal: dict[str, Any] | None
    runs: list[dict[str, Any]]


def _timer_at(game: Game, record: GameRecord, upto: int) -> TimerThen:
    """The timer's switch, proposal and seats after event ``upto`` (``record``: the log folded
    up to it)."""
    turn_seconds = game.turn_seconds if record.timer_on else None
    if record.timer_on and turn_seconds is None:  # turned off after ``upto``
        off = (
            game.events.filter(seq__gt=upto, type=TIMER_TURNED_OFF)
            .values_list("payload", flat=True)
            .first()
        )
        turn_seconds = (off or {}).get("turn_seconds")
    proposal = None
    if record.proposal:
        proposed_at = (
            game.events.filter(seq__lte=upto, type=TIMER_OFF_PROPOSED)
            .order_by("-seq")
            .values_list("created_at", flat=True)
            .first()
        )
        proposal = {**record.proposal, "proposed_at": proposed_at}
    runs = [
        {"index": s.index, "timeouts": s.timeouts, "stand_in": s.stand_in} for s in record.seats
    ]
    return TimerThen(turn_seconds, proposal, runs)


def timer_log_get(game: Game, upto: int | None = None) -> list[dict[str, Any]]:
    """The turn timer's part of the move log (up to event ``upto``), numbered 1, 2, ... in
    order. A ``turn_timed_out`` entry names the events the timer then played for the seat
    (``events``: first and last)."""
    rows_qs = GameEvent.objects.filter(game=game).filter(
        Q(type__in=TIMER_FACTS) | Q(source=EventSource.TIMER)
    )
    if upto is not None:
        rows_qs = rows_qs.filter(seq__lte=upto)
    rows = list(
        rows_qs.order_by("seq").values("seq", "type", "seat", "source", "payload", "created_at")
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


def timer_detail_get(
    *, game: Game, player: Player | None = None, after: int = 0, limit: int = 200
) -> dict[str, Any]:
    """The timer and its log (entries with seq > ``after``, oldest first), as ``player`` may
    see them: a delayed spectator sees both as they stood at its horizon."""
    viewer = seat_index_of(game, player.pk) if player is not None else None
    horizon = spectator_horizon(game, viewer)
    if horizon < game.version:
        timer = timer_view(game, upto=horizon)
        log = timer_log_get(game, horizon)
    else:
        timer, log = timer_view(game), timer_log_get(game)
    rows = [e for e in log if e["seq"] > after]
    return {
        "game": game.pk,
        "version": horizon,
        "timer": timer,
        "events": rows[:limit],
        "has_more": len(rows) > limit,
    }
