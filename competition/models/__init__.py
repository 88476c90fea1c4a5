"""Ratings, their changes by game, and the quick-play queue."""

from competition.models.matchmaking import QueueEntry
from competition.models.ratings import (
    FORMAT_OF_PLAYERS,
    Rating,
    RatingChange,
    RatingFormat,
    UnratedReason,
    rating_format_of,
)

__all__ = [
    "FORMAT_OF_PLAYERS",
    "QueueEntry",
    "Rating",
    "RatingChange",
    "RatingFormat",
    "UnratedReason",
    "rating_format_of",
]
