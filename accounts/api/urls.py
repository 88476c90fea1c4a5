"""Routes of the players' API: sign-up, who am I, block and favourite lists (under /api/v1/)."""

from django.urls import path

from accounts.api import players
from core import converters  # noqa: F401  <id:...> (core.converters)

urlpatterns = [
    path("players/", players.PlayerCreateApi.as_view(), name="player-create"),
    path("players/me/", players.PlayerMeApi.as_view(), name="player-me"),
    path("players/me/relations/", players.RelationsApi.as_view(), name="player-relations"),
    path(
        "players/me/blocked/<id:player_id>/",
        players.PlayerBlockApi.as_view(),
        name="player-block",
    ),
    path(
        "players/me/favourites/<id:player_id>/",
        players.PlayerFavouriteApi.as_view(),
        name="player-favourite",
    ),
]
