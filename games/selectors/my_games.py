"""A player's games ("my games"): every table in the lobby or game being played where the player
has a seat, those where it is their turn first.

One query whatever the number of games: the player's seat comes from the join that finds the
games, whether it is their turn is computed and sorted by the database, and the other seats
(names, bot levels) come from each game row's ``seating`` (``games.selectors.seating``).
"""

from __future__ import annotations

from typing import Any

from django.db.models import BooleanField, Case, F, Q, Value, When

from accounts.models import Player
from games.models import Game, GameStatus

# The columns a line needs (the snapshot and the options are large and not needed).
MY_GAME_COLUMNS = (
    "id",
    "preset",
    "status",
    "rated",
    "version",
    "to_act",
    "turn_deadline",
    "turn_seconds",
    "paused_at",
    "seating",
    "updated_at",
)


def my_games_get(*, player: Player) -> list[dict[str, Any]]:
    """The games ``player`` sits at in the lobby or being played: those where it is their turn
    first (the soonest deadline first), then the others by deadline (soonest first, none last)
    and the most recently changed first. It is their turn when the game is being played, not
    paused, and their seat is to act."""
    rows = (
        Game.objects.filter(seats__player=player, status__in=(GameStatus.LOBBY, GameStatus.ACTIVE))
        .annotate(
            my_seat=F("seats__index"),  # the seat of the join above (one per player and game)
            my_turn=Case(
                When(
                    Q(status=GameStatus.ACTIVE, paused_at__isnull=True, to_act=F("seats__index")),
                    then=Value(True),
                ),
                default=Value(False),
                output_field=BooleanField(),
            ),
        )
        .order_by(
            F("my_turn").desc(),
            F("turn_deadline").asc(nulls_last=True),
            F("updated_at").desc(),
            F("id").desc(),
        )
        .only(*MY_GAME_COLUMNS)
    )
    return [my_game_line(game) for game in rows]


def my_game_line(game: Game) -> dict[str, Any]:
    """One line of "my games" (the game annotated with ``my_seat`` and ``my_turn``): no card,
    no code."""
    return {
        "game_id": game.pk,
        "preset": game.preset,
        "status": game.status,
        "rated": game.rated,
        "seat": game.my_seat,  # type: ignore[attr-defined]
        "my_turn": bool(game.my_turn),  # type: ignore[attr-defined]
        "to_act": game.to_act,
        "turn_deadline": game.turn_deadline,
        "turn_seconds": game.turn_seconds,
        "paused": game.paused_at is not None,
        "players": [
            {
                "seat": entry["index"],
                "player_id": entry["player"],
                "display_name": entry["name"] if entry["player"] is not None else None,
                "bot_level": entry["bot_level"],
                "bot_account": entry.get("bot_account", False),
            }
            for entry in game.seating
        ],
        "version": game.version,
        "updated_at": game.updated_at,
    }
