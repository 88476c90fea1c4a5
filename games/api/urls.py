"""Routes of the game API, included under /api/v1/ by canasta_service.urls."""

from django.urls import path

from games.api import views

urlpatterns = [
    path("players/", views.PlayerCreateApi.as_view(), name="player-create"),
    path("players/me/", views.PlayerMeApi.as_view(), name="player-me"),
    path("rules/", views.RulesApi.as_view(), name="rules"),
    path("games/", views.GameListCreateApi.as_view(), name="game-list"),
    path("games/join/<str:join_code>/", views.GameJoinByCodeApi.as_view(), name="game-join-code"),
    path("games/<int:game_id>/", views.GameDetailApi.as_view(), name="game-detail"),
    path("games/<int:game_id>/join/", views.GameJoinApi.as_view(), name="game-join"),
    path("games/<int:game_id>/leave/", views.GameLeaveApi.as_view(), name="game-leave"),
    path("games/<int:game_id>/start/", views.GameStartApi.as_view(), name="game-start"),
    path("games/<int:game_id>/actions/", views.GameActionCreateApi.as_view(), name="game-actions"),
    path("games/<int:game_id>/events/", views.GameEventListApi.as_view(), name="game-events"),
    path("games/<int:game_id>/scorecard/", views.GameScorecardApi.as_view(), name="game-scorecard"),
]
