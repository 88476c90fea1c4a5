"""Turn timer options and deadlines: the validated options of a new game, the deadline every
move sets for the seat to act (with its reminder, for a correspondence turn), and the expiry
task sent for it (``games.services.timers`` applies an expiry; this module sits below the
moves, which arm the next deadline)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone

from core import tracing
from games import errors, hooks
from games.engine.history import SEAT_RETURNED
from games.models import EventSource, Game, GameStatus, Seat, TimeoutOutcome
from games.selectors.timers import grace
from games.services.facts import fact_append
from games.services.seating import seat_save
from games.services.timer_schedule import TURN_SECONDS_ETA_MAX, turn_timer_schedule

logger = logging.getLogger(__name__)

TURN_SECONDS_MIN = 1


# Up to a week per turn. A turn longer than TURN_SECONDS_ETA_MAX (games.services.timer_schedule)
# is a correspondence turn: no ETA task (the broker's visibility timeout), the beat sweep expires
# it, and the player to act is reminded before its deadline.
TURN_SECONDS_MAX = 7 * 24 * 3600

# When the player to act is reminded of a correspondence turn's deadline: this fraction of the
# turn's time has passed (NotificationSettings.reminder_fraction, this when they have none).
REMINDER_FRACTION_DEFAULT = 0.75


TIMEOUT_LIMIT_MAX = 20


@dataclass(frozen=True)
class TimerOptions:
    """A game's timer options as given at creation (``turn_seconds`` None: no timer)."""

    turn_seconds: int | None = None
    timeout_limit: int = 3
    timeout_outcome: str = TimeoutOutcome.BOT

    def fields(self) -> dict[str, Any]:
        """The validated ``Game`` field values (raises ``timer_option_invalid``)."""
        if self.turn_seconds is not None and not (
            TURN_SECONDS_MIN <= self.turn_seconds <= TURN_SECONDS_MAX
        ):
            raise errors.TimerOptionInvalid(
                f"turn_seconds must be {TURN_SECONDS_MIN} to {TURN_SECONDS_MAX} (or null: no "
                f"timer), not {self.turn_seconds}."
            )
        if not 0 <= self.timeout_limit <= TIMEOUT_LIMIT_MAX:
            raise errors.TimerOptionInvalid(
                f"timeout_limit must be 0 (never) to {TIMEOUT_LIMIT_MAX}, not {self.timeout_limit}."
            )
        if self.timeout_outcome not in TimeoutOutcome.values:
            raise errors.TimerOptionInvalid(
                f"timeout_outcome must be one of {', '.join(TimeoutOutcome.values)}."
            )
        return {
            "turn_seconds": self.turn_seconds,
            "timeout_limit": self.timeout_limit,
            "timeout_outcome": self.timeout_outcome,
        }


def turn_timer_arm(
    game: Game,
    seats: list[Seat],
    *,
    acted: int | None = None,
    source: str | None = None,
    now: datetime | None = None,
) -> None:
    """Set ``game.turn_deadline`` and ``game.reminder_at`` for the seat now to act (call before
    saving both, in the transaction that holds the row lock) and send the ETA task once the
    transaction commits.

    ``acted`` / ``source``: the seat that just acted and how. A player's own move clears that
    seat's run of timeouts and brings it back from a bot stand-in. The deadline runs per turn:
    it is kept (with its reminder) while the same seat goes on acting and renewed when another
    seat is to act. A paused game has neither.
    """
    now = now or timezone.now()
    if acted is not None and source == EventSource.PLAYER and 0 <= acted < len(seats):
        seat_back(game, seats[acted], reason="action")
    deadline: datetime | None = None
    reminder: datetime | None = None
    if (
        game.turn_seconds
        and game.status == GameStatus.ACTIVE
        and game.to_act is not None
        and game.paused_at is None
    ):
        seat = seats[game.to_act]
        if seat.player_id is not None and not seat.is_bot:
            if seat.stand_in:
                deadline = now - grace()  # its bot plays at once
            elif (
                acted == game.to_act
                and game.turn_deadline is not None
                and (game.snapshot or {}).get("phase") != "draw"  # a turn starts with a draw
            ):
                deadline, reminder = game.turn_deadline, game.reminder_at  # the same turn goes on
            else:
                deadline = now + timedelta(seconds=game.turn_seconds)
                reminder = reminder_time(game, seat, deadline, now=now)
    game.turn_deadline = deadline
    game.reminder_at = reminder
    if deadline is not None:
        game_id = game.pk
        tracing.on_commit("timers.turn_timer_schedule", lambda: turn_timer_schedule(game_id))


def reminder_time(
    game: Game, seat: Seat, deadline: datetime, *, now: datetime | None = None
) -> datetime | None:
    """When the player at ``seat`` is reminded of a correspondence turn ending at ``deadline``:
    once the fraction of the turn they chose (``NotificationSettings.reminder_fraction``) has
    passed, i.e. when the rest of it is left. None for a short turn (no reminder), a bot, a
    fraction out of (0, 1), or a time already past (a resumed turn whose reminder was due
    before the pause). Reads the player's settings: only for correspondence turns."""
    turn = game.turn_seconds
    if not turn or turn <= TURN_SECONDS_ETA_MAX or seat.player_id is None or seat.is_bot:
        return None
    chosen = hooks.answer(hooks.ReminderFractionWanted(seat.player_id))
    fraction = REMINDER_FRACTION_DEFAULT if chosen is None else chosen
    if not 0 < fraction < 1:
        return None
    at = deadline - timedelta(seconds=(1 - fraction) * turn)
    return at if at > (now or timezone.now()) else None


def seat_back(game: Game, seat: Seat, *, reason: str) -> bool:
    """The seat's player is back: no more stand-in, the run of timeouts starts again."""
    if not seat.timeouts and not seat.stand_in:
        return False
    was_stand_in = seat.stand_in
    seat.timeouts = 0
    seat.stand_in = False
    seat_save(game, seat, ["timeouts", "stand_in"])
    if was_stand_in:
        source = EventSource.SYSTEM if reason == "timer_off" else EventSource.PLAYER
        fact_append(game, SEAT_RETURNED, seat=seat.index, source=source, reason=reason)
    return was_stand_in
