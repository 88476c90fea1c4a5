"""A player's profile: their record at the tables (``games.selectors.table``) and, with it,
their rating in every format (defaults where never rated) and their latest rated games with
the rating changes."""

from __future__ import annotations

from typing import Any

from accounts.models import Player
from competition.selectors.ratings import player_rated_games, player_ratings_get
from games.selectors.table import player_record_get


def player_profile_get(*, player_id: int, viewer: Player) -> dict[str, Any]:
    """The profile of ``player_id`` as ``viewer`` sees it (``player_not_found`` if none)."""
    profile = player_record_get(player_id=player_id, viewer=viewer)
    player = Player(pk=profile["id"])
    profile["ratings"] = player_ratings_get(player=player)
    profile["rated_games"] = player_rated_games(player=player, viewer=viewer)
    return profile
