"""Ratings, their changes by game, the quick-play queue and tournaments."""

from competition.models.matchmaking import QueueEntry
from competition.models.ratings import (
    FORMAT_OF_PLAYERS,
    Rating,
    RatingChange,
    RatingFormat,
    UnratedReason,
    rating_format_of,
)
from competition.models.tournaments import (
    DuplicateScoring,
    EntryStatus,
    TableStatus,
    TieRule,
    Tournament,
    TournamentEntry,
    TournamentFact,
    TournamentFormat,
    TournamentInvite,
    TournamentPace,
    TournamentStatus,
    TournamentTable,
    TournamentUnit,
)

__all__ = [
    "FORMAT_OF_PLAYERS",
    "DuplicateScoring",
    "EntryStatus",
    "TableStatus",
    "TieRule",
    "Tournament",
    "TournamentEntry",
    "TournamentFact",
    "TournamentFormat",
    "TournamentInvite",
    "TournamentPace",
    "TournamentStatus",
    "TournamentTable",
    "TournamentUnit",
    "QueueEntry",
    "Rating",
    "RatingChange",
    "RatingFormat",
    "UnratedReason",
    "rating_format_of",
]
