"""Which notification each happening of a game causes, and for whom (the outbox,
``notifications.services.notifications.notify``, writes and delivers them).

Called inside the transaction of the happening, holding the game row lock, so a rolled-back
move notifies nobody and a committed one is never forgotten. Who is told:

- the game started: every seat with a player;
- your turn: the player now to act, after any move (their own, a bot's, the timer's) that
  handed the turn to another seat; not a seat a stand-in bot plays (it plays at once);
- your partner asks to go out: the asked partner (instead of "your turn");
- a chat message: the other seated players, except those who hid that seat's chat;
- a reminder of the deadline: the player to act (``games.services.timers`` sends it);
- game over: every seat with a player, but the one whose own request ended it (the last move,
  a concession).

Bots are never told, and nobody is told of what they did themselves. Everything here reads the
game row (its ``seating``): no query but the outbox's, and none at all when nobody is to be told.
A payload holds only what every seat may see at the table: never a card.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC
from typing import Any

from games.engine.history import ENDED_ABANDONED, ENDED_CONCEDED
from games.models import Game, GameStatus
from notifications.models import NotificationKind
from notifications.services.notifications import notify


def _humans(game: Game) -> list[dict[str, Any]]:
    """The seating entries of the seats with a player."""
    return [e for e in game.seating if e["player"] is not None]


def _name(game: Game, seat: int | None) -> str:
    if seat is None or not 0 <= seat < len(game.seating):
        return "Nobody"
    entry = game.seating[seat]
    if entry["player"] is not None:
        return str(entry["name"] or f"Seat {seat}")
    return f"Bot ({entry['bot_level']})" if entry["bot_level"] else f"Seat {seat}"


def _tell(game: Game, player_id: int, kind: str, title: str, text: str, **facts: Any) -> None:
    """One notification of the game's current version (the outbox adds the link to the game
    and the common fields)."""
    notify(
        player_id=player_id,
        kind=kind,
        game=game,
        event_seq=game.version,
        payload={"title": title, "text": text, **facts},
    )


def game_started_notify(game: Game) -> None:
    """The game was dealt: every seat with a player is told (and who plays first)."""
    first = _name(game, game.to_act)
    for entry in _humans(game):
        yours = game.to_act == entry["index"]
        _tell(
            game,
            entry["player"],
            NotificationKind.GAME_STARTED,
            f"Game #{game.pk} started",
            "It is your turn." if yours else f"{first} plays first.",
        )


def move_notify(game: Game, *, acted: int, action_type: str, by_player: bool) -> None:
    """After a move of seat ``acted`` (``by_player``: the seat's player's own request): the game
    turn (a go-out question) to the seat now to act if another. A move that ended the game
    tells nobody here: the game's end is told by ``game_over_notify``."""
    if game.status != GameStatus.ACTIVE:
        return
    seat = game.to_act
    if seat is None or seat == acted or not 0 <= seat < len(game.seating):
        return
    entry = game.seating[seat]
    if entry["player"] is None or entry["stand_in"]:
        return
    if action_type == "ask_partner":
        _tell(
            game,
            entry["player"],
            NotificationKind.GO_OUT_ASKED,
            "Your partner asks to go out",
            f"{_name(game, acted)} asks whether they may go out in game #{game.pk}.",
        )
        return
    _tell(
        game,
        entry["player"],
        NotificationKind.YOUR_TURN,
        "Your turn",
        f"It is your turn in game #{game.pk}.",
        deadline=game.turn_deadline,
    )


def game_over_notify(game: Game, *, ended: str, skip: Collection[int] = ()) -> None:
    """The game is over (played out, conceded or abandoned): every seat with a player is told
    but the players in ``skip`` (whose own request ended it)."""
    winner = game.winner_team
    for entry in _humans(game):
        if entry["player"] in skip:
            continue
        if ended == ENDED_ABANDONED:
            text = f"Game #{game.pk} was abandoned."
        elif winner is None:
            text = f"Game #{game.pk} is over."
        else:
            result = "won" if entry["team"] == winner else "lost"
            how = " (a concession)" if ended == ENDED_CONCEDED else ""
            text = f"Your team {result} game #{game.pk}{how}."
        _tell(
            game,
            entry["player"],
            NotificationKind.GAME_OVER,
            f"Game #{game.pk} is over",
            text,
            winner_team=winner,
        )


def chat_notify(
    game: Game,
    *,
    seat: int,
    event_seq: int,
    phrase: str,
    text: str,
    hidden_from: Collection[int] = (),
) -> None:
    """A seat said a quick-chat phrase (table event ``event_seq``): the other seated players
    are told, but those in ``hidden_from`` (who hid that seat's chat)."""
    speaker = _name(game, seat)
    for entry in _humans(game):
        if entry["index"] == seat or entry["player"] in hidden_from:
            continue
        notify(
            player_id=entry["player"],
            kind=NotificationKind.CHAT,
            game=game,
            event_seq=event_seq,
            payload={"title": f"{speaker} in game #{game.pk}", "text": text, "phrase": phrase},
        )


def reminder_notify(game: Game) -> bool:
    """The player to act is reminded of their deadline (once per turn: the caller clears
    ``reminder_at``); False when nobody is (a bot, a stand-in, no deadline)."""
    seat = game.to_act
    if seat is None or game.turn_deadline is None or not 0 <= seat < len(game.seating):
        return False
    entry = game.seating[seat]
    if entry["player"] is None or entry["stand_in"]:
        return False
    _tell(
        game,
        entry["player"],
        NotificationKind.REMINDER,
        "Your turn ends soon",
        f"Your turn in game #{game.pk} ends at "
        f"{game.turn_deadline.astimezone(UTC):%Y-%m-%d %H:%M} UTC.",
        deadline=game.turn_deadline,
    )
    return True
