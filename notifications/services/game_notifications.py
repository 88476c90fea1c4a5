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
A payload holds only what every seat may see at the table: never a card. Its texts are
``lazy_text``: English msgids rendered in each recipient's language when stored.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import UTC
from typing import Any

from django.utils.translation import gettext_noop

from games.engine.history import ENDED_ABANDONED, ENDED_CONCEDED
from games.models import Game, GameStatus
from notifications.models import NotificationKind
from notifications.services.notifications import lazy_text, notify


def _humans(game: Game) -> list[dict[str, Any]]:
    """The seating entries of the seats with a player."""
    return [e for e in game.seating if e["player"] is not None]


def _name(game: Game, seat: int | None) -> Any:
    """The seat's player's name, or a text naming the seat (rendered in the reader's language)."""
    if seat is None or not 0 <= seat < len(game.seating):
        return lazy_text(gettext_noop("Nobody"))
    entry = game.seating[seat]
    if entry["player"] is not None and entry["name"]:
        return str(entry["name"])
    if entry["player"] is None and entry["bot_level"]:
        return lazy_text(gettext_noop("Bot (%(level)s)"), level=entry["bot_level"])
    return lazy_text(gettext_noop("Seat %(seat)s"), seat=seat)


def _tell(game: Game, player_id: int, kind: str, title: Any, text: Any, **facts: Any) -> None:
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
            lazy_text(gettext_noop("Game #%(game)s started"), game=game.pk),
            lazy_text(gettext_noop("It is your turn."))
            if yours
            else lazy_text(gettext_noop("%(name)s plays first."), name=first),
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
            lazy_text(gettext_noop("Your partner asks to go out")),
            lazy_text(
                gettext_noop("%(name)s asks whether they may go out in game #%(game)s."),
                name=_name(game, acted),
                game=game.pk,
            ),
        )
        return
    _tell(
        game,
        entry["player"],
        NotificationKind.YOUR_TURN,
        lazy_text(gettext_noop("Your turn")),
        lazy_text(gettext_noop("It is your turn in game #%(game)s."), game=game.pk),
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
            template = gettext_noop("Game #%(game)s was abandoned.")
        elif winner is None:
            template = gettext_noop("Game #%(game)s is over.")
        elif entry["team"] == winner:
            template = (
                gettext_noop("Your team won game #%(game)s (a concession).")
                if ended == ENDED_CONCEDED
                else gettext_noop("Your team won game #%(game)s.")
            )
        else:
            template = (
                gettext_noop("Your team lost game #%(game)s (a concession).")
                if ended == ENDED_CONCEDED
                else gettext_noop("Your team lost game #%(game)s.")
            )
        _tell(
            game,
            entry["player"],
            NotificationKind.GAME_OVER,
            lazy_text(gettext_noop("Game #%(game)s is over"), game=game.pk),
            lazy_text(template, game=game.pk),
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
            payload={
                "title": lazy_text(
                    gettext_noop("%(name)s in game #%(game)s"), name=speaker, game=game.pk
                ),
                # A phrase of the fixed list (its English text is a msgid), in the reader's words.
                "text": lazy_text(text) if text else text,
                "phrase": phrase,
            },
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
        lazy_text(gettext_noop("Your turn ends soon")),
        lazy_text(
            gettext_noop("Your turn in game #%(game)s ends at %(deadline)s UTC."),
            game=game.pk,
            deadline=f"{game.turn_deadline.astimezone(UTC):%Y-%m-%d %H:%M}",
        ),
        deadline=game.turn_deadline,
    )
    return True
