"""Routes of the game API (tables, moves, the log, replay, timers, the table, live), included under
/api/v1/ by canasta_service.urls."""

from django.urls import include, path, register_converter

from core import converters  # noqa: F401  <id:...> (core.converters)
from games.api import correspondence, live, live_messages, replay, table, timers, views


class JoinCodeConverter:
    """A join code as the schema bounds it: 1 to 16 characters (longer: no such URL, 404)."""

    regex = f"[^/]{{1,{views.JOIN_CODE_MAX_LENGTH}}}"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(JoinCodeConverter, "join_code")

urlpatterns = [
    # Correspondence play: my games, pausing by agreement (games/api/correspondence.py).
    path("players/me/games/", correspondence.MyGamesApi.as_view(), name="player-my-games"),
    path("rules/", views.RulesApi.as_view(), name="rules"),
    path("games/", views.GameListCreateApi.as_view(), name="game-list"),
    path("join/<join_code:join_code>/", views.GameJoinByCodeApi.as_view(), name="game-join-code"),
    # The join link's former path: still served, not in the schema (see GameJoinByCodeFormerApi).
    path(
        "games/join/<str:join_code>/",
        views.GameJoinByCodeFormerApi.as_view(),
        name="game-join-code-former",
    ),
    path("games/import/", replay.GameImportApi.as_view(), name="game-import"),
    path("games/<id:game_id>/", views.GameDetailApi.as_view(), name="game-detail"),
    path("games/<id:game_id>/join/", views.GameJoinApi.as_view(), name="game-join"),
    path("games/<id:game_id>/leave/", views.GameLeaveApi.as_view(), name="game-leave"),
    path("games/<id:game_id>/start/", views.GameStartApi.as_view(), name="game-start"),
    path("games/<id:game_id>/actions/", views.GameActionCreateApi.as_view(), name="game-actions"),
    # The move log, with long-poll (``wait``): an async view (games/api/live.py).
    path("games/<id:game_id>/events/", live.GameEventListWaitApi.as_view(), name="game-events"),
    path("games/<id:game_id>/scorecard/", views.GameScorecardApi.as_view(), name="game-scorecard"),
    path("games/<id:game_id>/replay/", replay.GameReplayApi.as_view(), name="game-replay"),
    path(
        "games/<id:game_id>/replay/steps/",
        replay.GameReplayStepsApi.as_view(),
        name="game-replay-steps",
    ),
    path("games/<id:game_id>/export/", replay.GameExportApi.as_view(), name="game-export"),
    path("games/<id:game_id>/fairness/", replay.GameFairnessApi.as_view(), name="game-fairness"),
    path("games/<id:game_id>/timer/", timers.GameTimerApi.as_view(), name="game-timer"),
    path(
        "games/<id:game_id>/timer/off/propose/",
        timers.GameTimerOffProposeApi.as_view(),
        name="game-timer-off-propose",
    ),
    path(
        "games/<id:game_id>/timer/off/accept/",
        timers.GameTimerOffAcceptApi.as_view(),
        name="game-timer-off-accept",
    ),
    path(
        "games/<id:game_id>/timer/off/decline/",
        timers.GameTimerOffDeclineApi.as_view(),
        name="game-timer-off-decline",
    ),
    path("games/<id:game_id>/pause/", correspondence.GamePauseApi.as_view(), name="game-pause"),
    path(
        "games/<id:game_id>/pause/decline/",
        correspondence.GamePauseDeclineApi.as_view(),
        name="game-pause-decline",
    ),
    path("games/<id:game_id>/resume/", correspondence.GameResumeApi.as_view(), name="game-resume"),
    # At the table (games/api/table.py) and the live stream (games/api/live.py).
    path("chat/phrases/", table.ChatPhrasesApi.as_view(), name="chat-phrases"),
    path("games/<id:game_id>/stream/", live.GameStreamApi.as_view(), name="game-stream"),
    # The WebSocket is served by the ASGI application (games/api/socket.py); over plain HTTP
    # its path answers 426 and carries its documentation.
    path(
        "games/<id:game_id>/socket/",
        live_messages.GameSocketApi.as_view(),
        name="game-socket",
    ),
    path("games/<id:game_id>/table/", table.TableSettingsApi.as_view(), name="game-table"),
    path(
        "games/<id:game_id>/table/events/",
        table.TableEventListApi.as_view(),
        name="game-table-events",
    ),
    path("games/<id:game_id>/chat/", table.ChatSendApi.as_view(), name="game-chat"),
    path("games/<id:game_id>/chat/mute/", table.ChatMuteApi.as_view(), name="game-chat-mute"),
    path("games/<id:game_id>/concede/", table.GameConcedeApi.as_view(), name="game-concede"),
    path(
        "games/<id:game_id>/seat/reclaim/",
        table.SeatReclaimApi.as_view(),
        name="game-seat-reclaim",
    ),
    path("games/<id:game_id>/rematch/", table.RematchApi.as_view(), name="game-rematch"),
    path("games/<id:game_id>/spectate/", table.SpectatorViewApi.as_view(), name="game-spectate"),
    path("games/<id:game_id>/presence/", table.PresenceApi.as_view(), name="game-presence"),
    path("", include("games.api.challenges_urls")),  # challenges (games/api/challenges.py)
]
