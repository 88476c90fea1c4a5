"""The game service's models, one module per concern; every model is importable from here.

A game is its options, its seed and its move log (``GameEvent``). ``Game.snapshot``, ``Meld``
and ``RoundScore`` are projections of the log, written in the same transaction as each event.
"""

from games.models.game import BotLevel, Game, GameStatus, Seat, TimeoutOutcome
from games.models.log import EventSource, GameEvent, IdempotencyRecord
from games.models.matchmaking import QueueEntry
from games.models.notifications import (
    Channel,
    Delivery,
    DeliveryStatus,
    GameMute,
    Notification,
    NotificationKind,
    NotificationPreference,
    NotificationSettings,
    PushSubscription,
    WebhookEndpoint,
)
from games.models.ops import WorkerProbe
from games.models.players import Player, PlayerRelation, RelationKind
from games.models.projections import Meld, RoundScore
from games.models.ratings import (
    FORMAT_OF_PLAYERS,
    Rating,
    RatingChange,
    RatingFormat,
    rating_format_of,
)
from games.models.reviews import GameReview, ReviewStatus
from games.models.table import ChatMute, GameTable, TableEvent, TableEventKind

__all__ = [
    "Channel",
    "Delivery",
    "DeliveryStatus",
    "GameMute",
    "Notification",
    "NotificationKind",
    "NotificationPreference",
    "NotificationSettings",
    "PushSubscription",
    "WebhookEndpoint",
    "FORMAT_OF_PLAYERS",
    "BotLevel",
    "ChatMute",
    "EventSource",
    "Game",
    "GameEvent",
    "GameReview",
    "GameStatus",
    "GameTable",
    "IdempotencyRecord",
    "Meld",
    "Player",
    "QueueEntry",
    "Rating",
    "RatingChange",
    "RatingFormat",
    "PlayerRelation",
    "RelationKind",
    "ReviewStatus",
    "RoundScore",
    "Seat",
    "TableEvent",
    "TableEventKind",
    "TimeoutOutcome",
    "WorkerProbe",
    "rating_format_of",
]
