"""What happens to a game, published to the apps above ``games`` through ``core.hooks``: how
``competition``, ``notifications`` and ``bots`` learn of a game without ``games`` importing them.

Each event is a frozen dataclass. A subscriber registers for an event class at its app's start
(``AppConfig.ready``) and is called, in the order of registration (the order of
``INSTALLED_APPS``), by ``publish``, which returns what each subscriber returned. The game's
services publish inside the transaction that holds the game row lock, so a subscriber's writes
(a rating, an outbox row) commit or roll back with the move; a subscriber with work for after the
commit registers it with ``transaction.on_commit`` itself. Queries (``RatingChangesWanted``,
``ReminderFractionWanted``) are events whose subscribers answer with a value.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from accounts.models import Player
from core.hooks import answer, publish, subscribe, subscribers, unsubscribe
from games.engine.history import ENDED_ABANDONED, ENDED_CONCEDED, ENDED_PLAYED_OUT
from games.models import Challenge, Game, Seat

# How a game ended, and the registry (core.hooks) the events go through.
__all__ = [
    "ENDED_ABANDONED",
    "ENDED_CONCEDED",
    "ENDED_PLAYED_OUT",
    "answer",
    "publish",
    "subscribe",
    "subscribers",
    "unsubscribe",
]


@dataclass(frozen=True)
class GameStarted:
    """The first round was dealt (``game.to_act`` plays first)."""

    game: Game


@dataclass(frozen=True)
class MovePlayed:
    """Seat ``acted`` made a move (``by_player``: its own player's request, not a bot or the
    timer); the game row is written. A move that ended the game is followed by ``GameEnded``."""

    game: Game
    acted: int
    action_type: str
    by_player: bool


@dataclass(frozen=True)
class GameEnded:
    """The game is over and its row is written: played out, conceded by ``losing_team`` or
    abandoned by it. ``scores`` are the teams' totals; ``skip`` the players whose own request
    ended it (they need not be told); ``seats`` the game's seats."""

    game: Game
    seats: Sequence[Seat]
    ended: str
    scores: Sequence[int]
    losing_team: int | None = None
    skip: Collection[int] = ()


@dataclass(frozen=True)
class ChatSaid:
    """Seat ``seat`` said a quick-chat phrase (table event ``event_seq``); ``hidden_from`` are
    the players who hid that seat's chat."""

    game: Game
    seat: int
    event_seq: int
    phrase: str
    text: str
    hidden_from: Collection[int] = field(default_factory=frozenset)


@dataclass(frozen=True)
class TurnReminderDue:
    """A correspondence turn's reminder is due: a subscriber that told the player to act
    answers True."""

    game: Game


@dataclass(frozen=True)
class SeatWanted:
    """``player`` asks for a seat at a table (creating or joining it), under the player's row
    lock: a subscriber may refuse by raising a ``ServiceError`` (a player waiting in quick
    play, say)."""

    player: Player


@dataclass(frozen=True)
class ChallengeIssued:
    """``challenge.challenger`` challenged ``challenge.invitee`` (the challenge row is written,
    in the issuing transaction): a subscriber may tell the invitee."""

    challenge: Challenge


# The shape of competition's answers, which the game's documents and its log's
# ``ratings_changed`` fact describe: the formats rated apart (``competition.models.RatingFormat``
# has these values) and the rated games after which a rating is no longer provisional.
RATING_FORMATS = (
    "partnership",
    "two_player",
    "three_player",
    "mac",
    "mac_two_player",
    "samba",
    "bolivia",
)
PROVISIONAL_GAMES = 10


@dataclass(frozen=True)
class RatingChangesWanted:
    """A query: each player's rating change in ``game`` (a list of lines by seat), or None."""

    game: Game


@dataclass(frozen=True)
class ReminderFractionWanted:
    """A query: the fraction of a correspondence turn after which ``player_id`` is reminded,
    or None where they chose none."""

    player_id: int


@dataclass(frozen=True)
class RevealHeld:
    """A query: True while a finished ``game``'s seed and hidden cards must stay hidden (a
    duplicate tournament's board, dealt the same at tables still playing it); None otherwise."""

    game: Game
