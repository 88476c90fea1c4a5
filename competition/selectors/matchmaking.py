"""Quick play as players see it: their queue status, and the rating window the pairing uses.

The window is the one rule of who may be paired with whom in a rated queue, shared by the
pairing run (``competition.services.matchmaking``) and the status a player reads: a group may be
paired when the spread of its ratings (highest minus lowest, in shown-rating points) is within
the window of its longest wait. It starts at ±``WINDOW_START`` points, widens by
``WINDOW_STEP`` points every ``WINDOW_STEP_SECONDS`` waited and is unlimited (None) after
``WINDOW_UNLIMITED_SECONDS``: a player who waits long enough always finds a match. Casual
queues have no window (ratings only order who sits with whom).

Ratings in a queue are the players' ``mu`` when they queued (``QueueEntry.rating``), compared
on the shown scale (``rating_points``: 40 points per unit of mu, as ``rating_shown``), so the
window reads in the same points players see on the leaderboards.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from django.utils import timezone

from accounts.models import Player
from competition import errors
from competition.models import QueueEntry
from competition.selectors.ratings import rating_shown
from games.models import GameStatus

WINDOW_START = 100
WINDOW_STEP = 50
WINDOW_STEP_SECONDS = 10
WINDOW_UNLIMITED_SECONDS = 120

# A matched entry whose game is over is history: the player is not queued any more.
GAME_OVER = (GameStatus.FINISHED, GameStatus.ABANDONED)

QueueState = Literal["waiting", "matched"]


def rating_window(waited_seconds: float) -> int | None:
    """The rating window after ``waited_seconds`` in a rated queue, in shown-rating points
    (None: unlimited)."""
    if waited_seconds >= WINDOW_UNLIMITED_SECONDS:
        return None
    steps = int(max(waited_seconds, 0.0) // WINDOW_STEP_SECONDS)
    return WINDOW_START + WINDOW_STEP * steps


def rating_points(mu: float) -> int:
    """``mu`` on the shown scale (``rating_shown`` without the uncertainty): differences of
    these are what the window bounds."""
    return rating_shown(mu, 0.0)


def bots_due_at(entry: QueueEntry) -> datetime | None:
    """When a casual entry's table may be filled with bots (None: never, or rated)."""
    if entry.rated or entry.bots_after_seconds is None:
        return None
    return entry.joined_at + timedelta(seconds=entry.bots_after_seconds)


@dataclass(frozen=True)
class QueueStatus:
    """A player's place in quick play (the API's QueueStatus)."""

    status: QueueState
    preset: str
    format: str
    rated: bool
    joined_at: datetime
    waited_seconds: int
    rating_window: int | None
    bots_at: datetime | None
    game_id: int | None

    @property
    def settled(self) -> bool:
        """Nothing more will happen to it: matched, and the table is dealt."""
        return self.status == "matched" and self.game_id is not None


def queue_entry_current(player: Player) -> QueueEntry | None:
    """The player's queue entry, unless it is the history of a match whose game is over."""
    entry = QueueEntry.objects.select_related("game").filter(player=player).first()
    if entry is None:
        return None
    if entry.game is not None and entry.game.status in GAME_OVER:
        return None
    return entry


def queue_status_of(entry: QueueEntry, now: datetime | None = None) -> QueueStatus:
    """The status of ``entry``: a waiting entry's wait runs on; a matched one's stopped when
    it was matched (and its window is the one it was matched with)."""
    now = now or timezone.now()
    matched = entry.match is not None
    until = entry.matched_at if matched and entry.matched_at is not None else now
    waited = max(0.0, (until - entry.joined_at).total_seconds())
    return QueueStatus(
        status="matched" if matched else "waiting",
        preset=entry.preset,
        format=entry.format,
        rated=entry.rated,
        joined_at=entry.joined_at,
        waited_seconds=int(waited),
        rating_window=rating_window(waited) if entry.rated else None,
        bots_at=bots_due_at(entry),
        game_id=entry.game_id,
    )


def queue_status_get(player: Player, now: datetime | None = None) -> QueueStatus:
    """``player``'s queue status; 404 ``not_queued`` when they are in no queue."""
    entry = queue_entry_current(player)
    if entry is None:
        raise errors.NotQueued()
    return queue_status_of(entry, now)
