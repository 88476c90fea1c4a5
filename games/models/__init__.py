"""The game's models, one module per concern; every model is importable from here.

A game is its options, its seed and its move log (``GameEvent``). ``Game.snapshot``, ``Meld``
and ``RoundScore`` are projections of the log, written in the same transaction as each event.
"""

from games.models.challenges import Challenge, ChallengeStatus
from games.models.game import BotLevel, Game, GameStatus, Seat, TimeoutOutcome
from games.models.log import EventSource, GameEvent, IdempotencyRecord
from games.models.ops import WorkerProbe
from games.models.projections import Meld, RoundScore
from games.models.table import ChatMute, GameTable, TableEvent, TableEventKind

__all__ = [
    "BotLevel",
    "Challenge",
    "ChallengeStatus",
    "ChatMute",
    "EventSource",
    "Game",
    "GameEvent",
    "GameStatus",
    "GameTable",
    "IdempotencyRecord",
    "Meld",
    "RoundScore",
    "Seat",
    "TableEvent",
    "TableEventKind",
    "TimeoutOutcome",
    "WorkerProbe",
]
