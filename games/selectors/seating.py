"""A game's seats as moves and views read them: from ``Game.seating``, no query.

The ``Seat`` rows are the record (their constraints keep one player per seat and one seat per
player; "my games" are found through them). ``Game.seating`` repeats, per seat, what a move and
a view need: who sits there (the player's id and display name, or a bot level), the team, the
turn timer's count of timeouts and its stand-in flag. A move then reads its game with one query
instead of two (the seats cannot be joined to the locked game row: a join would show them as
they were before the lock was granted). Writes go through ``games.services.seating``; the
replay verifier compares the two for every game it checks.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from accounts.models import Player
from games.models import Game, Seat


def seat_entry(
    seat: Seat, name: str | None = None, bot_account: bool | None = None
) -> dict[str, Any]:
    """One seat as ``Game.seating`` holds it (``name``, ``bot_account``: the player's display
    name and bot-account flag, when the caller knows them without loading the player). The
    ``bot_account`` key is there only for a bot account's seat, so the seatings written before
    bot accounts existed stay as they are."""
    if seat.player_id is not None and name is None:
        name = seat.player.display_name if seat.player is not None else None
    if seat.player_id is not None and bot_account is None:
        bot_account = seat.player.is_bot if seat.player is not None else False
    entry = {
        "id": seat.pk,
        "index": seat.index,
        "team": seat.team,
        "player": seat.player_id,
        "name": name if seat.player_id is not None else None,
        "bot_level": seat.bot_level,
        "joined_at": seat.joined_at.isoformat() if seat.joined_at else None,
        "timeouts": seat.timeouts,
        "stand_in": seat.stand_in,
    }
    if seat.player_id is not None and bot_account:
        entry["bot_account"] = True
    return entry


def seating_of(seats: list[Seat]) -> list[dict[str, Any]]:
    return [seat_entry(s) for s in sorted(seats, key=lambda s: s.index)]


def seat_index_of(game: Game, player_id: int) -> int | None:
    """The seat ``player_id`` occupies at ``game`` (None: not seated), from its seating."""
    return next((e["index"] for e in game.seating if e["player"] == player_id), None)


def seats_of(game: Game) -> list[Seat]:
    """``game``'s seats in order, built from ``game.seating`` (each with its player's id and
    display name loaded, and the game itself): no query."""
    seats = []
    for entry in game.seating:
        joined = datetime.fromisoformat(entry["joined_at"]) if entry["joined_at"] else None
        seat = Seat.from_db(
            Seat.objects.db,
            ["id", "game_id", "index", "team", "player_id", "bot_level", "joined_at", "timeouts"]
            + ["stand_in"],
            [
                entry["id"],
                game.pk,
                entry["index"],
                entry["team"],
                entry["player"],
                entry["bot_level"],
                joined,
                entry["timeouts"],
                entry["stand_in"],
            ],
        )
        seat.game = game
        if entry["player"] is not None:
            seat.player = Player.from_db(
                Seat.objects.db,
                ["id", "display_name", "is_bot"],
                [entry["player"], entry["name"], entry.get("bot_account", False)],
            )
        seats.append(seat)
    return seats
