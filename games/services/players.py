"""A player's new display name, and every game they sit at with it (``Game.seating`` repeats each
seated player's name, and the verifier compares it with the Seat and Player rows)."""

from __future__ import annotations

from django.db import transaction

from accounts.models import Player
from accounts.services.players import display_name_clean
from games.models import Game, Seat
from games.services.seating import seats_written


def player_rename(player: Player, display_name: str) -> Player:
    """Give ``player`` a new display name, and every game they sit at the same name in its
    seating (``Game.seating`` repeats each seated player's name; the verifier compares it with
    the Seat and Player rows). The games are locked in id order, as every writer locks a game,
    so a move or a join of the same game waits for the rename or the rename for it."""
    name = display_name_clean(display_name)
    with transaction.atomic():
        game_ids = Seat.objects.filter(player_id=player.pk).values_list("game_id", flat=True)
        games = list(Game.objects.select_for_update().filter(pk__in=game_ids).order_by("pk"))
        player.display_name = name
        player.save(update_fields=["display_name"])
        for game in games:
            seats = list(Seat.objects.filter(game=game).select_related("player").order_by("index"))
            seats_written(game, seats)
    return player
