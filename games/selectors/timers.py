"""Reads of the turn timer: its state as every viewer may see it, and its log."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from accounts.models import Player
from games.engine.history import (
    SEAT_HANDED_TO_BOT,
    TIMER_FACTS,
    TIMER_OFF_PROPOSED,
    TIMER_TURNED_OFF,
    TURN_TIMED_OUT,
    GameRecord,
)
from games.models import EventSource, Game, GameEvent, Seat, TimeoutOutcome
from games.presence import PRESENCE_WINDOW_SECONDS
from games.selectors.horizon import game_record_at, spectator_horizon
from games.selectors.seating import seat_index_of


def grace() -> timedelta:
    """How long after the shown deadline the timer waits (a move in flight still wins)."""
    return timedelta(milliseconds=getattr(settings, "TURN_TIMER_GRACE_MS", 1000))


# Quick play's tables (competition.services.matchmaking) time each turn so: a stranger who walks
# away does not stall the others. Here because the rule book (``timer_rules``) shows it too.
QUICK_PLAY_TURN_SECONDS = 60


def reclaim_grace() -> timedelta:
    """How long after its hand-off to a stand-in bot a seat goes back to its player by itself
    when one of their live connections opens (``SEAT_RECLAIM_GRACE_SECONDS``)."""
    return timedelta(seconds=getattr(settings, "SEAT_RECLAIM_GRACE_SECONDS", 300))


def reclaim_url(game_id: int) -> str:
    """The path of ``POST .../seat/reclaim/`` for ``game_id``."""
    return reverse("game-seat-reclaim", kwargs={"game_id": game_id})


def stand_ins_since(game: Game, seats: list[int]) -> dict[int, datetime]:
    """When each of ``seats`` was last handed to its stand-in bot (the log's
    ``seat_handed_to_bot``; a seat never handed over is left out). One query."""
    if not seats:
        return {}
    rows = (
        GameEvent.objects.filter(game=game, type=SEAT_HANDED_TO_BOT, seat__in=seats)
        .order_by("seq")
        .values_list("seat", "created_at")
    )
    return {seat: at for seat, at in rows if seat is not None}


def _seat_runs(game: Game, seats: list[Seat]) -> list[dict[str, Any]]:
    """Each seat's run of timeouts and stand-in, with, for a seat its stand-in bot plays, how
    its player takes it back: the endpoint, and until when a live connection does it alone."""
    stood_in = [s.index for s in seats if s.stand_in]
    since = stand_ins_since(game, stood_in)
    return [
        {
            "index": s.index,
            "timeouts": s.timeouts,
            "stand_in": s.stand_in,
            "reclaim_url": reclaim_url(game.pk) if s.stand_in else None,
            "reconnect_until": (
                since[s.index] + reclaim_grace() if s.stand_in and s.index in since else None
            ),
        }
        for s in seats
    ]


def timer_rules() -> dict[str, Any]:
    """The turn timer's rules as the rule book states them (``GET /rules/``), from the figures
    the code uses: quick play's turn, the grace, the run of timeouts, the stand-in and how to
    take the seat back, the abandonment at rated tables."""
    limit = Game._meta.get_field("timeout_limit").get_default()
    grace_ms = int(grace().total_seconds() * 1000)
    back = int(reclaim_grace().total_seconds())
    return {
        "quick_play_turn_seconds": QUICK_PLAY_TURN_SECONDS,
        "grace_ms": grace_ms,
        "timeout_limit": limit,
        "casual_timeout_outcome": TimeoutOutcome.BOT.value,
        "rated_timeout_outcome": TimeoutOutcome.ABANDON.value,
        "reclaim_grace_seconds": back,
        "reclaim_path": "/api/v1/games/{id}/seat/reclaim/",
        "presence_window_seconds": PRESENCE_WINDOW_SECONDS,
        "rules": [
            f"Quick play times every turn: {QUICK_PLAY_TURN_SECONDS} seconds for the seat to "
            f"act, shown as a deadline; a move sent before it wins (the timer fires "
            f"{grace_ms} ms after it).",
            "When the time is up the turn is completed for the seat: a partner's question is "
            "answered no, a card is drawn if none was, the least useful card is discarded. "
            "That is a timeout; the seat's own move ends its run of timeouts.",
            f"After {limit} timeouts in a row a casual table hands the seat to a stand-in "
            "bot, which plays it until its player is back; a rated table is abandoned instead, "
            "and the side whose seat ran out of time loses.",
            "Timeouts count even while the player is connected: the turn must move on.",
            f"A player whose seat a stand-in plays gets it back by coming back: opening a live "
            f"connection to the game (socket, stream, long-poll) after being away (not seen for "
            f"{PRESENCE_WINDOW_SECONDS} seconds) within {back} seconds of the hand-off; "
            "or at any time while the game is played with POST /api/v1/games/{id}/seat/"
            "reclaim/ (any other write request of theirs does it too). If it is the seat's "
            f"turn, its player then has a full turn ({QUICK_PLAY_TURN_SECONDS} seconds in quick "
            "play); a reclaim also ends a run of timeouts that has not yet led to a stand-in.",
        ],
    }


def timer_view(
    game: Game,
    seats: list[Seat] | None = None,
    *,
    now: datetime | None = None,
    upto: int | None = None,
    record: GameRecord | None = None,
) -> dict[str, Any]:
    """The timer as every viewer may see it: options, deadline, the server's time (for a
    countdown), each seat's run of timeouts and stand-in (with how to take it back), a pending
    proposal. With ``upto`` (a delayed spectator's horizon), as it stood after that event,
    without a deadline; ``record``: the log folded up to it, when the caller has it."""
    now = now or timezone.now()
    if seats is None:
        seats = list(game.seats.order_by("index"))
    humans = [s.index for s in seats if s.player_id is not None]
    turn_seconds, deadline, proposal = game.turn_seconds, game.turn_deadline, game.timer_proposal
    if upto is not None:  # as the log had it then; a deadline would tell when the turn began
        then = _timer_at(game, record or game_record_at(game, upto), upto)
        turn_seconds, deadline, proposal, runs = then.turn_seconds, None, then.proposal, then.runs
    else:
        runs = _seat_runs(game, seats)
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
    runs = [  # as it stood then: how to take a seat back is news of now, not of then
        {
            "index": s.index,
            "timeouts": s.timeouts,
            "stand_in": s.stand_in,
            "reclaim_url": None,
            "reconnect_until": None,
        }
        for s in record.seats
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
