"""Routes of the game API, included under /api/v1/ by canasta_service.urls."""

from django.urls import path

from games.api import replay, timers, views

urlpatterns = [
    path("players/", views.PlayerCreateApi.as_view(), name="player-create"),
    path("players/me/", views.PlayerMeApi.as_view(), name="player-me"),
    path("rules/", views.RulesApi.as_view(), name="rules"),
    path("games/", views.GameListCreateApi.as_view(), name="game-list"),
    path("games/join/<str:join_code>/", views.GameJoinByCodeApi.as_view(), name="game-join-code"),
    path("games/import/", replay.GameImportApi.as_view(), name="game-import"),
    path("games/<int:game_id>/", views.GameDetailApi.as_view(), name="game-detail"),
    path("games/<int:game_id>/join/", views.GameJoinApi.as_view(), name="game-join"),
    path("games/<int:game_id>/leave/", views.GameLeaveApi.as_view(), name="game-leave"),
    path("games/<int:game_id>/start/", views.GameStartApi.as_view(), name="game-start"),
    path("games/<int:game_id>/actions/", views.GameActionCreateApi.as_view(), name="game-actions"),
    path("games/<int:game_id>/events/", views.GameEventListApi.as_view(), name="game-events"),
    path("games/<int:game_id>/scorecard/", views.GameScorecardApi.as_view(), name="game-scorecard"),
    path("games/<int:game_id>/replay/", replay.GameReplayApi.as_view(), name="game-replay"),
    path(
        "games/<int:game_id>/replay/steps/",
        replay.GameReplayStepsApi.as_view(),
        name="game-replay-steps",
    ),
    path("games/<int:game_id>/export/", replay.GameExportApi.as_view(), name="game-export"),
    path("games/<int:game_id>/fairness/", replay.GameFairnessApi.as_view(), name="game-fairness"),
    path("games/<int:game_id>/timer/", timers.GameTimerApi.as_view(), name="game-timer"),
    path(
        "games/<int:game_id>/timer/off/propose/",
        timers.GameTimerOffProposeApi.as_view(),
        name="game-timer-off-propose",
    ),
    path(
        "games/<int:game_id>/timer/off/accept/",
        timers.GameTimerOffAcceptApi.as_view(),
        name="game-timer-off-accept",
    ),
    path(
        "games/<int:game_id>/timer/off/decline/",
        timers.GameTimerOffDeclineApi.as_view(),
        name="game-timer-off-decline",
    ),
]
