"""Taking a seat back from its stand-in bot: "I'm back".

After ``timeout_limit`` timeouts in a row a casual table hands the seat to a stand-in bot
(``games.services.timers``). Its player takes it back:

* explicitly, at any time while the game is played: ``POST /games/{id}/seat/reclaim/``
  (``seat_reclaim``, reason ``reclaimed``). It also ends a run of timeouts that has not yet led
  to a stand-in, so a returning player gets every strike back;
* by coming back: when one of their live connections to the game opens (the socket, the stream,
  a long-poll) after they were away (not seen at the game for ``PRESENCE_WINDOW_SECONDS``),
  within ``SEAT_RECLAIM_GRACE_SECONDS`` of the hand-off (``seat_reconnect``, reason
  ``reconnected``): a phone that backgrounded the app for a few minutes finds its seat. A client
  that stayed connected while its seat was handed over (an idle tab polling on) is not coming
  back: its player reclaims. A run of timeouts without a stand-in is left as it is: a
  connection is not a move, and timeouts count even while the player is connected;
* by any other write request of theirs (``game_touch``, reason ``request``), a move among them.

Either way the seat's ``seat_returned`` fact is written in the move log (source ``player``), so
the log replays to the same seats. Under the game row lock: the stand-in is cleared, and if it
is the seat's turn the stand-in's deadline (already passed: it plays at once) is replaced by a
full turn for the player. The stand-in plays through ``turn_timer_expire_apply``, which re-checks
under the same lock that the game is at the version its task was sent for, that the deadline
has passed and that the seat still has a stand-in: after a reclaim the version has moved and the
deadline is a turn away, so it does nothing. If the stand-in took the lock first, it has played
the whole turn when the reclaim runs: the seat is the player's from their next turn. Either way
exactly one of them plays that turn.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from games import errors
from games.engine.history import SEAT_RETURNED
from games.models import EventSource, Game, GameStatus, Seat
from games.presence import PRESENCE_WINDOW_SECONDS, presence_seen
from games.selectors.timers import reclaim_grace, stand_ins_since
from games.services.deadlines import turn_timer_arm
from games.services.facts import fact_append
from games.services.seating import seat_save

RECLAIMED = "reclaimed"  # POST .../seat/reclaim/
RECONNECTED = "reconnected"  # a live connection opened within the grace


def seat_reclaim(
    *, game_id: int, player_id: int, reason: str = RECLAIMED, now: datetime | None = None
) -> Game:
    """``player_id`` takes their seat back from its stand-in bot (or ends their run of
    timeouts); returns the game as it is then.

    Refusals, with nothing written: 404 ``not_found`` (no such game), 409 ``game_over`` (it
    finished), 409 ``game_not_active`` (not started, or abandoned), 403 ``not_seated``, 409
    ``seat_not_stood_in`` (no stand-in and no run of timeouts: nothing to take back; a second
    reclaim finds this). With ``reason`` ``reconnected`` only a stand-in handed over within the
    grace is taken back (else ``seat_not_stood_in`` too).
    """
    now = now or timezone.now()
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None:
            raise errors.GameNotFound()
        if game.status == GameStatus.FINISHED:
            raise errors.GameOver()
        if game.status != GameStatus.ACTIVE:
            raise errors.GameNotActive()
        seats = list(game.seats.order_by("index"))
        mine = next((s for s in seats if s.player_id == player_id), None)
        if mine is None:
            raise errors.NotSeated()
        if reason == RECONNECTED and not _within_grace(game, mine, now):
            raise errors.SeatNotStoodIn(
                "No stand-in bot took your seat within the grace: reclaim it with "
                "POST .../seat/reclaim/."
            )
        if not mine.stand_in and not mine.timeouts:
            raise errors.SeatNotStoodIn()
        stood_in = mine.stand_in
        mine.stand_in, mine.timeouts = False, 0
        seat_save(game, mine, ["timeouts", "stand_in"])
        fact_append(game, SEAT_RETURNED, seat=mine.index, source=EventSource.PLAYER, reason=reason)
        if stood_in and game.to_act == mine.index:
            _turn_give_back(game, seats, now)
    return game


def _turn_give_back(game: Game, seats: list[Seat], now: datetime) -> None:
    """The seat to act is its player's again: a full turn instead of the stand-in's deadline
    (which had passed, so that the bot played at once). A paused game keeps no deadline; its
    resume then gives the player a whole turn rather than what the stand-in had left."""
    if game.paused_at is not None:
        game.pause_remaining = None
        game.save(update_fields=["pause_remaining", "updated_at"])
        return
    game.turn_deadline = None
    turn_timer_arm(game, seats, now=now)
    game.save(update_fields=["turn_deadline", "reminder_at", "updated_at"])


def _within_grace(game: Game, seat: Seat, now: datetime) -> bool:
    if not seat.stand_in:
        return False
    handed = stand_ins_since(game, [seat.index]).get(seat.index)
    return handed is not None and now <= handed + reclaim_grace()


def seat_reconnect(
    *, game_id: int, player_id: int, game: Game | None = None, now: datetime | None = None
) -> bool:
    """A live connection of ``player_id`` to ``game_id`` opens (call it before noting their
    presence): if they come back, i.e. were not seen at the game for ``PRESENCE_WINDOW_SECONDS``,
    and a stand-in bot took their seat less than ``SEAT_RECLAIM_GRACE_SECONDS`` ago, the seat is
    theirs again (reason ``reconnected``). True when it was.

    A player seen lately was connected all along (an open tab whose long-poll or stream comes
    back every few seconds, another device): that is not a return, and the seat stays with its
    stand-in until they reclaim it or act. Reads the game's seating only (``game``, when the
    caller has the row) unless the player's seat has a stand-in; never raises (a connection
    opens whatever happens here)."""
    seating = game.seating if game is not None else _seating(game_id)
    if not any(e["player"] == player_id and e["stand_in"] for e in seating or []):
        return False
    now = now or timezone.now()
    seen = presence_seen(game_id, [player_id]).get(player_id)
    if seen is not None and (now - seen).total_seconds() < PRESENCE_WINDOW_SECONDS:
        return False
    try:
        seat_reclaim(game_id=game_id, player_id=player_id, reason=RECONNECTED, now=now)
    except errors.ServiceError:  # back too late, taken back meanwhile, the game ended
        return False
    return True


def _seating(game_id: int) -> list[dict[str, Any]]:
    row = (
        Game.objects.filter(pk=game_id, status=GameStatus.ACTIVE)
        .values_list("seating", flat=True)
        .first()
    )
    return list(row or [])
