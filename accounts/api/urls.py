"""Routes of the players' API: sign-up, who am I, block and favourite lists (under /api/v1/)."""

from django.urls import include, path

from accounts.api import credentials, players
from core import converters  # noqa: F401  <id:...> (core.converters)

urlpatterns = [
    path("players/", players.PlayerCreateApi.as_view(), name="player-create"),
    path("players/me/", players.PlayerMeApi.as_view(), name="player-me"),
    path("account/sessions/", credentials.SessionsApi.as_view(), name="account-sessions"),
    path(
        "account/sessions/<slug:session_id>/",
        credentials.SessionDetailApi.as_view(),
        name="account-session",
    ),
    path(
        "account/sign-out-everywhere/",
        credentials.SignOutEverywhereApi.as_view(),
        name="account-sign-out-everywhere",
    ),
    path("account/tokens/", credentials.TokensApi.as_view(), name="account-tokens"),
    path("account/apps/", credentials.ConnectedAppsApi.as_view(), name="account-apps"),
    path(
        "account/apps/<str:client_id>/",
        credentials.ConnectedAppDetailApi.as_view(),
        name="account-app",
    ),
    path(
        "account/tokens/<id:token_id>/", credentials.TokenDetailApi.as_view(), name="account-token"
    ),
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
    path("", include("accounts.api.friends_urls")),  # friends (accounts/api/friends.py)
    path("", include("accounts.api.account_data_urls")),  # deletion, export (account_data.py)
]
