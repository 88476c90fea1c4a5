"""Seat writes: every change to a game's seats keeps ``Game.seating`` equal to the Seat rows.

Each change is made in the transaction that holds the game's row lock: a seat is saved through
``seat_save`` (which stores its entry too), and new seats are followed by ``seats_written``.
"""

from __future__ import annotations

from django.utils import timezone

from games.models import Game, Seat
from games.selectors.seating import seat_entry, seating_of


def _seating_store(game: Game) -> None:
    game.updated_at = timezone.now()
    Game.objects.filter(pk=game.pk).update(seating=game.seating, updated_at=game.updated_at)


def seats_written(game: Game, seats: list[Seat]) -> None:
    """All of ``game``'s seats were created or changed: store them on the game row."""
    game.seating = seating_of(seats)
    _seating_store(game)


def seat_save(game: Game, seat: Seat, fields: list[str]) -> None:
    """Save ``fields`` of one changed seat of ``game``, and its entry on the game row."""
    seat.save(update_fields=fields)
    entries = list(game.seating or [])
    old = entries[seat.index] if seat.index < len(entries) else None
    if old is None:
        raise ValueError(f"game {game.pk} has no seat {seat.index} in its seating")
    same = old["player"] == seat.player_id
    known = old["name"] if same else None
    bot_account = old.get("bot_account", False) if same else None
    entries[seat.index] = seat_entry(seat, known, bot_account)
    game.seating = entries
    _seating_store(game)
