"""At the table over HTTP: settings, quick chat and mutes, concession, taking a seat back from
its stand-in bot, rematch, spectators, presence and block / favourite lists (a player's profile,
which shows ratings too, is competition's: ``competition.api.profiles``). Thin views: parse,
authorise, call ``games.services.table`` (``games.services.reclaim`` for a seat taken back),
render; refusals are problem documents from the central handler.

Asking the partner to go out needs no endpoint of its own: it is the actions ``ask_partner``
and ``answer_partner`` of ``POST /games/{id}/actions/`` (a bot partner answers by itself), and
both appear in the move log and the live stream as ``partner_asked`` / ``partner_answered``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts import scopes
from core.problems import AUTH, BODY, problem_responses
from games.api.live import (
    WAIT_MAX_SECONDS,
    AsyncApiView,
    db,
    wait_bound,
    wait_for_news,
)
from games.api.serializers import (
    GameDetailSerializer,
    PlayerRefSerializer,
    SeatSerializer,
    TableViewSerializer,
)
from games.api.views import GAME_ID, game_detail_response, game_for_write, player_of
from games.models import GameStatus, TableEventKind
from games.presence import PRESENCE_WINDOW_SECONDS
from games.realtime.feed import TABLE_ONLY, db_call
from games.selectors.games import game_get_visible
from games.selectors.live import Cursor
from games.selectors.table import (
    CHAT_BURST,
    CHAT_WINDOW_SECONDS,
    QUICK_CHAT,
    SPECTATOR_DELAY_MAX,
    muted_seats_get,
    presence_get,
    rematch_status_get,
    spectator_view_get,
    table_event_view,
    table_events_list,
    table_settings_get,
)
from games.services.reclaim import seat_reclaim
from games.services.table import (
    chat_mute_set,
    chat_send,
    game_concede,
    presence_touch,
    rematch_accept,
    table_settings_update,
)

Base = serializers.Serializer[Any]


# ============================================================================== problems
# The codes the at-the-table operations may answer (documented by ``problem_responses``).
SEEN = (AUTH, "not_found")  # reads of a game you may see
SEATED = (AUTH, "not_seated", "not_found")  # writes by a player at the table


# ============================================================================== serializers
@extend_schema_field(OpenApiTypes.OBJECT)
class TableEventDataField(serializers.JSONField):
    """What happened, by kind (see TableEvent)."""


class TableEventSerializer(Base):
    """A table happening (not a card move): chat, a concession, rematch news, a settings
    change. Kinds and their `data`: `chat` (phrase, text), `conceded` (team, winner_team,
    version), `rematch_accepted` (-), `rematch_created` (game: the new game's id),
    `settings_changed` (the changed settings)."""

    seq = serializers.IntegerField(help_text="Numbered 1, 2, ... per game, apart from moves.")
    kind = serializers.ChoiceField(
        choices=TableEventKind.choices, help_text="What happened; it decides `data`."
    )
    seat = serializers.IntegerField(
        allow_null=True, help_text="The seat that did it (spoke, conceded); null for the table."
    )
    player = PlayerRefSerializer(
        allow_null=True, help_text="The player who did it; null for the table."
    )
    data = TableEventDataField(  # type: ignore[assignment]  # a field, not .data (metaclass)
        help_text="The details, by `kind` (see above)."
    )
    created_at = serializers.DateTimeField(help_text="When it happened.")


class TableEventListSerializer(Base):
    game = serializers.IntegerField(help_text="The game's id.")
    table_seq = serializers.IntegerField(help_text="Ask again with `after` = this.")
    events = TableEventSerializer(many=True, help_text="Table events after `after`, oldest first.")
    has_more = serializers.BooleanField(help_text="More events follow: ask again at once.")


class TableEventParamsSerializer(Base):
    after = serializers.IntegerField(required=False, default=0, min_value=0)
    limit = serializers.IntegerField(required=False, default=200, min_value=1, max_value=500)
    wait = serializers.IntegerField(
        required=False, default=0, min_value=0, max_value=WAIT_MAX_SECONDS
    )


class ChatPhraseSerializer(Base):
    id = serializers.CharField(help_text="What to send as `phrase`.")
    text = serializers.CharField(help_text="The phrase in English (or an emoji).")


class TableSettingsSerializer(Base):
    game = serializers.IntegerField(help_text="The game's id.")
    table_talk = serializers.BooleanField(help_text="False: a 'no table talk' game, no chat.")
    spectator_delay = serializers.IntegerField(help_text="Spectators see this many moves late.")
    hints = serializers.BooleanField(
        help_text="Hints on: the seat to act may ask for a suggested move (casual tables only)."
    )
    rematch_of = serializers.IntegerField(
        allow_null=True, help_text="The game this one is a rematch of; null if none."
    )
    conceded_seat = serializers.IntegerField(
        allow_null=True, help_text="The seat that conceded the game; null if none did."
    )
    conceded_team = serializers.IntegerField(
        allow_null=True, help_text="The team that conceded (and lost); null if none did."
    )
    table_seq = serializers.IntegerField(help_text="The seq of the last table event.")
    muted_seats = serializers.ListField(
        child=serializers.IntegerField(), help_text="Seats whose chat you muted."
    )


class TableSettingsUpdateSerializer(Base):
    table_talk = serializers.BooleanField(
        required=False, help_text="False: a 'no table talk' game, quick chat refused."
    )
    spectator_delay = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=SPECTATOR_DELAY_MAX,
        help_text="Spectators see the game this many moves late.",
    )
    hints = serializers.BooleanField(
        required=False,
        help_text="Hints on or off: the seat to act may ask for a suggested move (`GET "
        "/games/{id}/hint/`). Never on at a rated table (422 `rated_no_hints`).",
    )


class ChatSendSerializer(Base):
    phrase = serializers.ChoiceField(
        choices=list(QUICK_CHAT), help_text="A phrase id from `GET /chat/phrases/`."
    )


class ChatMuteSerializer(Base):
    seat = serializers.IntegerField(min_value=0, max_value=3, help_text="The seat to (un)mute.")
    muted = serializers.BooleanField(default=True, help_text="False: unmute it.")


class ChatMutedSerializer(Base):
    muted_seats = serializers.ListField(
        child=serializers.IntegerField(help_text="A seat number."),
        help_text="Seats whose chat you muted.",
    )


class RematchStatusSerializer(Base):
    of_game = serializers.IntegerField(help_text="The finished game.")
    accepted_by = serializers.ListField(
        child=serializers.IntegerField(help_text="A player id."),
        help_text="Player ids who accepted.",
    )
    waiting_for = serializers.ListField(
        child=serializers.IntegerField(help_text="A player id."),
        help_text="Player ids still to accept.",
    )
    game = serializers.IntegerField(
        allow_null=True, help_text="The new game, once everyone accepted."
    )


class SpectatorViewSerializer(Base):
    game = serializers.IntegerField(help_text="The game's id.")
    status = serializers.ChoiceField(
        choices=GameStatus.choices,
        help_text="`lobby` (waiting for players), `active` (being played), `finished` or "
        "`abandoned`.",
    )
    version = serializers.IntegerField(help_text="The version shown (live minus the delay).")
    live_version = serializers.IntegerField(
        help_text="The game's version as a spectator may know it: `version` while the delay "
        "holds, the live version once the game is over."
    )
    spectator_delay = serializers.IntegerField(help_text="How many moves late you see it.")
    seats = SeatSerializer(many=True, help_text="Every seat, in order.")
    winner_team = serializers.IntegerField(
        allow_null=True, help_text="The winning team once the game is finished; else null."
    )
    state = TableViewSerializer(allow_null=True, help_text="No hand: a spectator's view.")


class PresenceSeatSerializer(SeatSerializer):
    last_seen = serializers.DateTimeField(
        allow_null=True, help_text="When its player last made a request; null: not seen."
    )
    connected = serializers.BooleanField(
        help_text="Seen within `window_seconds` (a live connection refreshes it); bots always."
    )


class PresenceSerializer(Base):
    game = serializers.IntegerField(help_text="The game's id.")
    window_seconds = serializers.IntegerField(
        help_text="A seat seen within this many seconds counts as connected."
    )
    seats = PresenceSeatSerializer(many=True, help_text="Every seat, in order.")


# ============================================================================== views
PLAYER_ID = OpenApiParameter(
    "player_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="Player id"
)


def _game(request: Request, game_id: int, write: bool = False) -> Any:
    player = player_of(request)
    if write:
        return player, game_for_write(game_id, player)
    return player, game_get_visible(game_id=game_id, player=player)


def _settings_body(game: Any, player: Any) -> dict[str, Any]:
    body = table_settings_get(game)
    body["muted_seats"] = muted_seats_get(game=game, player=player)
    return body


class ChatPhrasesApi(APIView):
    read_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="chat_phrases",
        tags=["table"],
        summary="The quick-chat phrases",
        description="The fixed list of phrases and emoji a player may say at the table (no "
        "free text, so nothing needs moderating). Clients may show their own translation.",
        responses={200: ChatPhraseSerializer(many=True), **problem_responses(AUTH)},
    )
    def get(self, request: Request) -> Response:
        rows = [{"id": k, "text": v} for k, v in QUICK_CHAT.items()]
        return Response(ChatPhraseSerializer(rows, many=True).data)


class TableSettingsApi(APIView):
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_table_retrieve",
        tags=["table"],
        summary="The table's settings",
        description="Quick chat on or off ('no table talk'), the spectator delay, the game this "
        "one is a rematch of, a concession, and the seats whose chat you muted.",
        parameters=[GAME_ID],
        responses={200: TableSettingsSerializer, **problem_responses(SEEN)},
    )
    def get(self, request: Request, game_id: int) -> Response:
        player, game = _game(request, game_id)
        return Response(TableSettingsSerializer(_settings_body(game, player)).data)

    @extend_schema(
        operation_id="games_table_update",
        tags=["table"],
        summary="Change the table's settings (creator, in the lobby)",
        description="`table_talk: false` makes a 'no table talk' game (quick chat refused "
        f"with 403 `table_talk_off`). `spectator_delay` (0 to {SPECTATOR_DELAY_MAX}): "
        "spectators see the game that many moves late. `hints` turns hints on or off (casual "
        "tables only: 422 `rated_no_hints`). Fixed once the game starts.",
        parameters=[GAME_ID],
        request=TableSettingsUpdateSerializer,
        responses={
            200: TableSettingsSerializer,
            **problem_responses(
                BODY,
                "spectator_delay_invalid",
                "rated_no_hints",
                AUTH,
                "not_game_creator",
                "not_found",
                "game_already_started",
            ),
        },
        examples=[
            OpenApiExample(
                "No table talk, spectators 4 moves behind",
                value={"table_talk": False, "spectator_delay": 4},
                request_only=True,
            )
        ],
    )
    def patch(self, request: Request, game_id: int) -> Response:
        data = TableSettingsUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player, game = _game(request, game_id, write=True)
        game = table_settings_update(
            game_id=game.pk,
            player=player,
            table_talk=data.validated_data.get("table_talk"),
            spectator_delay=data.validated_data.get("spectator_delay"),
            hints=data.validated_data.get("hints"),
        )
        return Response(TableSettingsSerializer(_settings_body(game, player)).data)


class ChatSendApi(APIView):
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.GAME_PLAY
    # Besides the per-game limit of the service, the HTTP rate of the "chat" scope (settings).
    throttle_scope = "chat"

    @extend_schema(
        operation_id="games_chat_create",
        tags=["table"],
        summary="Say a quick-chat phrase",
        description="Seated players only. The message is a `chat` table event: everyone at "
        "the table and the spectators get it in the stream and in `.../table/events/` "
        "(except who muted your seat). Refused in a 'no table talk' game (403 "
        f"`table_talk_off`); at most {CHAT_BURST} messages per "
        f"{CHAT_WINDOW_SECONDS} seconds (429 `chat_rate_limited` with `retry_after`).",
        parameters=[GAME_ID],
        request=ChatSendSerializer,
        responses={
            201: TableEventSerializer,
            **problem_responses(
                "chat_phrase_unknown",
                BODY,
                SEATED,
                "table_talk_off",
                "chat_rate_limited",
                "throttled",
            ),
        },
        examples=[OpenApiExample("Good luck", value={"phrase": "good_luck"}, request_only=True)],
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = ChatSendSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player, game = _game(request, game_id, write=True)
        event = chat_send(game_id=game.pk, player=player, phrase=data.validated_data["phrase"])
        body = TableEventSerializer(table_event_view(event)).data
        return Response(body, status=status.HTTP_201_CREATED)


class ChatMuteApi(APIView):
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_chat_mute",
        tags=["table"],
        summary="Mute (or unmute) a seat's chat for yourself",
        description="Muted seats' chat is left out of what you receive (stream and table "
        "events). Players and spectators may mute; nobody else is told.",
        parameters=[GAME_ID],
        request=ChatMuteSerializer,
        responses={200: ChatMutedSerializer, **problem_responses(BODY, "invalid_seat", SEEN)},
        examples=[
            OpenApiExample("Mute seat 1", value={"seat": 1, "muted": True}, request_only=True)
        ],
    )
    def post(self, request: Request, game_id: int) -> Response:
        data = ChatMuteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player, game = _game(request, game_id, write=True)
        muted = chat_mute_set(
            game=game,
            player=player,
            seat=data.validated_data["seat"],
            muted=data.validated_data["muted"],
        )
        return Response(ChatMutedSerializer({"muted_seats": muted}).data)


class TableEventListApi(AsyncApiView):
    read_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_table_events_list",
        tags=["table"],
        summary="Table events after N (chat, concession, rematch), long-poll with `wait`",
        description="Table events with seq > `after`, oldest first, without the chat of seats "
        f"you muted. With `wait=S` (up to {WAIT_MAX_SECONDS}) the answer is held until there "
        "is one or S seconds pass. Table events are numbered apart from the move log; the "
        "stream `GET /games/{id}/stream/` carries both, in order.",
        parameters=[
            GAME_ID,
            OpenApiParameter("after", int, description="Events after this table seq (0)."),
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": 500},
                description="At most this many (200, max 500).",
            ),
            OpenApiParameter("wait", int, description="Long-poll: wait up to S seconds."),
        ],
        responses={
            200: TableEventListSerializer,
            **problem_responses("invalid_request", SEEN, "too_many_live_connections"),
        },
    )
    async def get(self, request: Request, game_id: int) -> Response:
        params = TableEventParamsSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        v = params.validated_data
        player, game = await db(_game, request, game_id)

        if v["wait"]:
            await db(presence_touch, game=game, player=player)
            after = Cursor(TABLE_ONLY, v["after"])
            await wait_for_news(game.pk, player, after, wait_bound(v["wait"]))
        body = await db_call(
            table_events_list, game=game, player=player, after=v["after"], limit=v["limit"]
        )
        return Response(TableEventListSerializer(body).data)


class GameConcedeApi(APIView):
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_concede",
        tags=["table"],
        summary="Concede: your side loses and the game is over",
        description="Your team (your seat in a game without partners) loses; with two teams "
        "the other wins, with three the leading other one. Recorded as a `conceded` table "
        "event and in the table settings; the game is `finished`, so a rematch may follow. "
        "The move log keeps the card moves only.",
        parameters=[GAME_ID],
        request=None,
        responses={
            200: GameDetailSerializer,
            **problem_responses(SEATED, "game_not_active", "game_over"),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        player, game = _game(request, game_id, write=True)
        game = game_concede(game_id=game.pk, player=player)
        return game_detail_response(game, player)


class SeatReclaimApi(APIView):
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_seat_reclaim",
        tags=["table"],
        summary="I'm back: take my seat back from its stand-in bot",
        description="After `timeout_limit` timeouts in a row a casual table's turn timer hands "
        "the seat to a stand-in bot, which plays it until its player is back (the game's "
        "`timer.seats[i].stand_in`, with this endpoint as `reclaim_url`). This takes it back "
        "at any time while the game is played: at once when another seat is to act; when it "
        "is your turn, the stand-in's move is stopped and you get a full turn (a fresh "
        "`deadline`). If the stand-in was already playing your turn, it finishes that turn "
        "and the seat is yours from the next one: never both. A reclaim also ends your run "
        "of timeouts when no stand-in took over yet, so you get every strike back. Logged as "
        "a `seat_returned` event (reason `reclaimed`, source `player`) in the move log, the "
        "timer's log and the live feed. Coming back (a live connection opened after "
        "being away: socket, stream, long-poll) within `SEAT_RECLAIM_GRACE_SECONDS` (see `GET "
        "/rules/`, `timers`) of the hand-off does the same by itself (reason `reconnected`), "
        "as does any other write request of yours (reason `request`). A second reclaim finds "
        "nothing to take back: 409 `seat_not_stood_in`, nothing changed. No "
        "`Idempotency-Key`: repeating it is harmless. Answers the game as you see it.",
        parameters=[GAME_ID],
        request=None,
        responses={
            200: GameDetailSerializer,
            **problem_responses(SEATED, "game_not_active", "game_over", "seat_not_stood_in"),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        player = player_of(request)
        game = game_get_visible(game_id=game_id, player=player)
        seat_reclaim(game_id=game.pk, player_id=player.pk)
        # then the timer's due work of the other seats, as every write applies it
        game = game_for_write(game.pk, player)
        return game_detail_response(game, player)


class RematchApi(APIView):
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.GAME_PLAY

    def get_throttles(self) -> list[BaseThrottle]:
        # Accepting may create a table: the creation limit; reading is not limited.
        self.throttle_scope = "game_create" if self.request.method == "POST" else ""
        return super().get_throttles()

    @extend_schema(
        operation_id="games_rematch_retrieve",
        tags=["table"],
        summary="Who accepted a rematch, and the new game",
        parameters=[GAME_ID],
        responses={200: RematchStatusSerializer, **problem_responses(SEEN)},
    )
    def get(self, request: Request, game_id: int) -> Response:
        _, game = _game(request, game_id)
        return Response(RematchStatusSerializer(rematch_status_get(game)).data)

    @extend_schema(
        operation_id="games_rematch_accept",
        tags=["table"],
        summary="Accept a rematch of a finished game",
        description="When every human at the table has accepted, a new game is created with "
        "the same seats (players and bots), options and table settings, linked to this one "
        "(`rematch_of`), and dealt at once; its id is in `game` and in a `rematch_created` "
        "table event. Accepting twice changes nothing. A rematch where only bots play with its "
        "creator counts towards the creator's unfinished bot tables (409 `bot_tables_limit`).",
        parameters=[GAME_ID],
        request=None,
        responses={
            200: RematchStatusSerializer,
            **problem_responses(SEATED, "game_not_finished", "bot_tables_limit", "throttled"),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        player, game = _game(request, game_id, write=True)
        body = rematch_accept(game_id=game.pk, player=player)
        return Response(RematchStatusSerializer(body).data)


class SpectatorViewApi(APIView):
    read_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_spectate",
        tags=["table"],
        summary="Watch a game: the spectator view, optionally delayed",
        description="Public games can be watched by anyone (private ones by who is at the "
        "table). No hand is shown; with a `spectator_delay` of N the table is shown as it was "
        "N events ago (`version`); `live_version` equals `version` while the delay holds (the "
        "live move count is not shown either), and every other read (game, scorecard, timer, "
        "replay, export, lobby entry, live sync) holds spectators to the same horizon until the "
        "game is over. Follow it with the socket, the stream or the long-poll.",
        parameters=[GAME_ID],
        responses={200: SpectatorViewSerializer, **problem_responses(SEEN)},
    )
    def get(self, request: Request, game_id: int) -> Response:
        _, game = _game(request, game_id)
        return Response(SpectatorViewSerializer(spectator_view_get(game=game)).data)


class PresenceApi(APIView):
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_presence_retrieve",
        tags=["table"],
        summary="Which seats are connected (last seen)",
        description="Each seat with `last_seen` and `connected` (seen within "
        f"{PRESENCE_WINDOW_SECONDS} s). An open stream or long-poll keeps a seat "
        "connected; other clients send `POST` now and then.",
        parameters=[GAME_ID],
        responses={200: PresenceSerializer, **problem_responses(SEEN)},
    )
    def get(self, request: Request, game_id: int) -> Response:
        _, game = _game(request, game_id)
        return Response(PresenceSerializer(presence_get(game=game)).data)

    @extend_schema(
        operation_id="games_presence_touch",
        tags=["table"],
        summary="I am here (heartbeat)",
        parameters=[GAME_ID],
        request=None,
        responses={200: PresenceSerializer, **problem_responses(SEEN)},
    )
    def post(self, request: Request, game_id: int) -> Response:
        player, game = _game(request, game_id, write=True)
        presence_touch(game=game, player=player)
        return Response(PresenceSerializer(presence_get(game=game)).data)
