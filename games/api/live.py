"""Live updates over HTTP as Django views: the long-poll of the move log and the Server-Sent
Events stream.

Serving model. Both follow the game through its feed (``games.realtime.feed``): one read per
change and process, items redacted once per kind of viewer. In production the live server's
fast path (``games.api.asgi``) serves waiting streams and long-polls from the feed without
entering Django, so a waiting client holds no thread; these views answer what it hands over
(errors, session cookies, CORS requests, a long-poll that can answer at once) and every request
under a WSGI server or a test client. Under WSGI nothing waits: a waiting client would hold one
of the server's few threads (its other users' requests queue behind it), so a long-poll is
answered at once, as with ``wait=0``, and a stream sends what there is and closes (WSGI cannot
send a body while it is produced). nginx sends every live path, with or without its trailing
slash, to the live server (deploy/nginx.conf); this is the defence for a request that reaches
the WSGI API all the same.

How a client stays in sync (also in the OpenAPI descriptions below):

1. ``GET /games/{id}/`` once: the state as you see it and its ``version``.
2. Then either long-poll ``GET /games/{id}/events/?after=<version>&wait=25`` in a loop (each
   answer carries ``version``; apply the events in ``seq`` order and ask again with
   ``after`` = the last ``seq``; ``has_more`` means ask again at once), or open the stream
   ``GET /games/{id}/stream/?after=<version>``, which resumes from ``Last-Event-ID`` after a
   reconnect.
3. Events are numbered without gaps: if one you receive is not ``last seq + 1`` (or you lost
   track), resync: fetch ``GET /games/{id}/`` again and continue from its ``version``.
"""

from __future__ import annotations

import asyncio
import contextvars
import inspect
import json
from collections.abc import AsyncIterator, Callable
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpResponseBase, StreamingHttpResponse
from django.utils.functional import classproperty
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.encoders import JSONEncoder
from rest_framework.views import APIView

from accounts import scopes
from accounts.models import Player
from core import metrics
from core.problems import problem_responses
from games.api.conditional import IF_NONE_MATCH, NOT_MODIFIED
from games.api.serializers import GameEventListSerializer
from games.api.views import EVENTS_PROBLEMS, GAME_ID, GameEventListApi, player_of
from games.models import Game
from games.realtime.feed import (
    MOVES_ONLY,
    End,
    Followed,
    Idle,
    Sync,
    db_call,
    follow,
    news_wait,
    subscribe,
)
from games.realtime.limits import Lease, connection_acquire, connection_held
from games.selectors.games import game_get_visible
from games.selectors.live import Cursor, LiveItem
from games.services.reclaim import seat_reconnect
from games.services.table import presence_touch

T = TypeVar("T")

# A long-poll that waits and a stream are live connections: over the player's cap, 429.
WAIT_PROBLEMS = (EVENTS_PROBLEMS, "too_many_live_connections")

WAIT_MAX_SECONDS = 30
STREAM_SECONDS_DEFAULT = 300
STREAM_SECONDS_MAX = 3600
KEEPALIVE_SECONDS = 15
RETRY_MILLISECONDS = 2000
CURSOR_MAX_LENGTH = 40  # the longest cursor Cursor.parse reads


# Whether the request being served may wait: only under an ASGI server (set by
# ``AsyncApiView.dispatch``; outside a view, e.g. the live server's fast path, it may).
waits_allowed: contextvars.ContextVar[bool] = contextvars.ContextVar("waits_allowed", default=True)


# ============================================================================== async plumbing
async def db(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run ``fn`` (ORM work) off the event loop, in the request's thread."""
    return await sync_to_async(fn)(*args, **kwargs)


class AsyncApiView(APIView):
    """An ``APIView`` whose handlers may be coroutines: authentication, permissions and
    throttles run in a thread (they may touch the database), the handler on the event loop;
    errors go through the central problem handler as in every other view."""

    @classproperty
    def view_is_async(cls) -> bool:  # noqa: N805 - a class property
        return True

    async def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> HttpResponseBase:  # type: ignore[override]
        self.args = args
        self.kwargs = kwargs
        drf_request = self.initialize_request(request, *args, **kwargs)
        self.request = drf_request
        self.headers = self.default_response_headers
        waiting = waits_allowed.set(isinstance(request, ASGIRequest))
        try:
            await db(self.initial, drf_request, *args, **kwargs)
            method = (drf_request.method or "").lower()
            handler = getattr(self, method, None) if method in self.http_method_names else None
            if handler is None:
                handler = self.http_method_not_allowed
            response = handler(drf_request, *args, **kwargs)
            if inspect.isawaitable(response):
                response = await response
        except Exception as exc:  # noqa: BLE001 - rendered by the central handler
            response = self.handle_exception(exc)
        finally:
            waits_allowed.reset(waiting)
        self.response = self.finalize_response(drf_request, response, *args, **kwargs)
        return self.response


class EventStreamRenderer(BaseRenderer):
    """``text/event-stream``: the stream itself is a StreamingHttpResponse; this renderer only
    lets content negotiation accept the media type (and renders problem documents as JSON)."""

    media_type = "text/event-stream"
    format = "sse"
    charset = "utf-8"

    def render(
        self, data: Any, accepted_media_type: Any = None, renderer_context: Any = None
    ) -> bytes:
        if data is None:
            return b""
        return json.dumps(data, cls=JSONEncoder).encode()


def wait_bound(seconds: int) -> int:
    """The wait actually granted: at most ``LIVE_WAIT_MAX_SECONDS`` (a setting, 30 by default;
    the test suite lowers it so that generated requests cannot hold it up); none at all under
    WSGI (``waits_allowed``), where the request would hold a thread while it waits."""
    if not waits_allowed.get():
        return 0
    return min(seconds, int(getattr(settings, "LIVE_WAIT_MAX_SECONDS", WAIT_MAX_SECONDS)))


def stream_seconds_max() -> int:
    return int(getattr(settings, "LIVE_STREAM_MAX_SECONDS", STREAM_SECONDS_MAX))


def stream_seconds(request: Request, seconds: int) -> int:
    """How long a stream stays open. Only an ASGI server sends a stream as it is produced;
    under WSGI (``make run``, WSGI test clients) Django collects the whole body first, so the
    stream sends what there is and closes, and the client reconnects after ``retry``."""
    if not isinstance(request._request, ASGIRequest):
        return 0
    return min(seconds, stream_seconds_max())


def _visible(game_id: int, player: Player, touch: bool = True) -> Game:
    """The game ``player`` opens a live connection to (404 if they may not see it); with
    ``touch``, they are at the table: their seat taken back from a stand-in bot that took it
    less than ``SEAT_RECLAIM_GRACE_SECONDS`` ago if they were away (``seat_reconnect``), and
    their presence noted."""
    game = game_get_visible(game_id=game_id, player=player)
    if touch:  # coming back is judged by the presence noted before this connection
        seat_reconnect(game_id=game.pk, player_id=player.pk, game=game)
        presence_touch(game=game, player=player)
    return game


# ============================================================================== long-poll
class GameEventWaitParamsSerializer(serializers.Serializer[Any]):
    """Query parameters of the move log with long-poll (validation only)."""

    after = serializers.IntegerField(required=False, default=0, min_value=0)
    wait = serializers.IntegerField(
        required=False, default=0, min_value=0, max_value=WAIT_MAX_SECONDS
    )


async def wait_for_news(game_id: int, player: Player, cursor: Cursor, seconds: float) -> None:
    """Wait until the game's feed has something after ``cursor`` for ``player`` (or the game is
    over), at most ``seconds``, as one of the player's live connections
    (``TooManyLiveConnections`` over the cap)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    async with connection_held(player.pk, metrics.LONG_POLL):
        sub = await subscribe(game_id, player.pk, cursor)
        try:
            while not await news_wait(sub, deadline - loop.time()) and sub.rejoin:
                sub.leave()
                sub = await subscribe(game_id, player.pk, sub.cursor)
        finally:
            sub.leave()


SYNC_TEXT = (
    "\n\n**Staying in sync.** Fetch `GET /games/{id}/` once and remember its `version`; then "
    "ask for `?after=<version>&wait=25` in a loop, applying the events in `seq` order and "
    "asking again with `after` = the last `seq` received (at once when `has_more`). The log "
    "has no gaps: seq N+1 follows seq N. If an event is not `last seq + 1`, or after any "
    "doubt, resync: fetch `GET /games/{id}/` again and continue from its `version`. The "
    "stream `GET /games/{id}/stream/` delivers the same events pushed."
)


class GameEventListWaitApi(AsyncApiView, GameEventListApi):
    """The move log of ``GameEventListApi`` plus ``wait``: hold the request until an event
    after ``after`` exists (or the game ends) or ``wait`` seconds pass."""

    @extend_schema(
        operation_id="games_events_list",
        tags=["play"],
        summary="The move log after event N, as you may see it (long-poll with `wait`)",
        description="Events with seq > `after`, oldest first. Each is redacted for you: an "
        "opponent's draw shows that cards were drawn, not which; your own hand at each deal "
        "and your own draws are included. Spectators of a game with a spectator delay see "
        "the log that many moves behind (see `/spectate/`).\n\n"
        f"With `wait=S` (1 to {WAIT_MAX_SECONDS}) the answer is held until an event after "
        "`after` exists or the game is over, at most S seconds; then it is the same list "
        "(empty on time-out). Waiting clients hold no server worker: the server is ASGI and "
        "a move wakes them (Redis pub/sub between processes)."
        "\n\nWithout `wait`, the answer has an `ETag` of your own: send it as `If-None-Match` "
        "for 304 without a body while the page is unchanged (a long-poll answers news "
        "instead: it has no tag)." + SYNC_TEXT,
        parameters=[
            GAME_ID,
            OpenApiParameter("after", int, description="Return events after this seq (0)."),
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": 500},
                description="At most this many (200, max 500).",
            ),
            OpenApiParameter(
                "wait",
                int,
                description=f"Long-poll: wait up to this many seconds (0 to {WAIT_MAX_SECONDS}; "
                "0, the default, answers at once).",
            ),
            IF_NONE_MATCH,
        ],
        responses={
            200: GameEventListSerializer,
            304: NOT_MODIFIED,
            **problem_responses(*WAIT_PROBLEMS),
        },
    )
    async def get(self, request: Request, game_id: int) -> Response:  # type: ignore[override]
        params = GameEventWaitParamsSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        asked = params.validated_data["wait"]
        wait = wait_bound(asked)
        if asked:  # a long-poll counts as being at the table, answered at once or not
            player = await db(player_of, request)
            await db(_visible, game_id, player)
        if wait:
            after = Cursor(params.validated_data["after"], MOVES_ONLY)
            await wait_for_news(game_id, player, after, wait)
        # At once (no wait asked): a conditional GET like the plain log's (ETag, 304).
        response: Response = await db_call(
            GameEventListApi.answer, self, request, game_id, conditional=not asked
        )
        return response


# ============================================================================== SSE
class GameStreamParamsSerializer(serializers.Serializer[Any]):
    """Query parameters of the event stream (validation only)."""

    after = serializers.IntegerField(required=False, default=0, min_value=0)
    table_after = serializers.IntegerField(required=False, default=0, min_value=0)
    last_event_id = serializers.CharField(required=False, max_length=CURSOR_MAX_LENGTH)
    timeout = serializers.IntegerField(
        required=False, default=STREAM_SECONDS_DEFAULT, min_value=0, max_value=STREAM_SECONDS_MAX
    )


def sse_frame(name: str, data: dict[str, Any], event_id: str | None = None) -> bytes:
    lines = [f"event: {name}"]
    if event_id is not None:
        lines.insert(0, f"id: {event_id}")
    lines.append("data: " + json.dumps(data, cls=JSONEncoder, separators=(",", ":")))
    return ("\n".join(lines) + "\n\n").encode()


SSE_RETRY = f"retry: {RETRY_MILLISECONDS}\n\n".encode()
SSE_KEEPALIVE = b": keep-alive\n\n"


def sse_of(followed: Followed) -> bytes:
    """One thing the feed gives a follower, as Server-Sent Events text."""
    if isinstance(followed, LiveItem):
        return followed.sse
    if isinstance(followed, Sync):
        return sse_frame("sync", followed.data())
    if isinstance(followed, End):
        return sse_frame("end", followed.data())
    assert isinstance(followed, Idle)
    return SSE_KEEPALIVE


def sse_messages(items: list[LiveItem]) -> list[dict[str, Any]]:
    """Items the feed sends straight to a waiting stream: one ASGI body message."""
    return [
        {"type": "http.response.body", "body": b"".join(i.sse for i in items), "more_body": True}
    ]


async def event_stream(
    game_id: int, player: Player, cursor: Cursor, seconds: int, lease: Lease | None = None
) -> AsyncIterator[bytes]:
    """The frames of one stream: ``sync`` first, then every game and table event after
    ``cursor`` in order, each exactly once, keep-alive comments while idle; ``end`` when the
    game is over and everything is sent; closed after ``seconds`` (the client reconnects with
    ``Last-Event-ID``). Pushed by the game's feed (``games.realtime.feed``). ``lease``: the
    live connection it holds, released when it ends."""
    try:
        yield SSE_RETRY
        async for followed in follow(game_id, player.pk, cursor, seconds):
            yield sse_of(followed)
    finally:
        if lease is not None:
            await lease.release()


STREAM_TEXT = (
    "A Server-Sent Events stream (`text/event-stream`) of everything you may see happen at the "
    "table, in the order it happened, each event exactly once per stream:\n\n"
    "- `game_event`: a move-log entry, redacted for you like `GET .../events/` "
    "(`data`: `{version, event}`; `version` is the game version after it, = `event.seq`);\n"
    "- `table_event`: chat, a concession, rematch news, a settings change (`data`: "
    "`{version, table_seq, event}`); chat of seats you muted is left out;\n"
    "- `sync` (first, without id): `{version, cursor, resumed}`: the game's version now "
    "(a delayed spectator: its horizon);\n"
    "- `end`: the game is over and everything was sent; the server closes the stream.\n\n"
    "Every `game_event` / `table_event` has an `id` `<move seq>-<table seq>`. Browsers' "
    "`EventSource` resend the last one as `Last-Event-ID` when they reconnect, and the "
    "stream resumes right after it; other clients send the header themselves (or "
    "`?last_event_id=`). Without either, it starts after `?after=` (moves) and "
    "`?table_after=` (table events). Comments (`: keep-alive`) come while idle; the server "
    f"closes the stream after `timeout` seconds (default {STREAM_SECONDS_DEFAULT}) and the "
    "client reconnects. Spectators of a game with a spectator delay get moves that many "
    "moves late. Authenticate with the `Authorization` header or a session cookie." + SYNC_TEXT
)

STREAM_EXAMPLE = (
    "retry: 2000\n\n"
    "event: sync\n"
    'data: {"version":12,"cursor":"12-3","resumed":true}\n\n'
    "id: 13-3\n"
    "event: game_event\n"
    'data: {"version":13,"event":{"seq":13,"type":"draw","seat":1,"source":"bot",'
    '"effects":[{"kind":"card_drawn","seat":1,"count":1}]}}\n\n'
    "id: 13-4\n"
    "event: table_event\n"
    'data: {"version":13,"table_seq":4,"event":{"seq":4,"kind":"chat","seat":1,'
    '"data":{"phrase":"good_luck","text":"Good luck!"}}}\n\n'
    ": keep-alive\n\n"
)


class EventStreamFrameSerializer(serializers.Serializer[Any]):
    """One frame of the event stream: the body is a sequence of them, each ended by a blank
    line. A frame with `retry` (milliseconds before a reconnect) opens the stream; comment
    lines (`: keep-alive`) come while it is idle."""

    id = serializers.CharField(
        required=False, help_text="`<move seq>-<table seq>`; absent on `sync` and `end`."
    )
    event = serializers.CharField(
        required=False, help_text="`sync`, `game_event`, `table_event` or `end`."
    )
    # A field named like Serializer.data (the metaclass moves it aside).
    data = serializers.CharField(  # type: ignore[assignment]
        required=False, help_text="JSON: see the operation's description."
    )
    retry = serializers.IntegerField(required=False)


class GameStreamApi(AsyncApiView):
    read_scopes = scopes.GAME_PLAY
    renderer_classes = [JSONRenderer, EventStreamRenderer]

    @extend_schema(
        operation_id="games_stream",
        tags=["live"],
        summary="Live stream of the game's events (Server-Sent Events)",
        description=STREAM_TEXT,
        parameters=[
            GAME_ID,
            OpenApiParameter(
                "Last-Event-ID",
                {"type": "string", "maxLength": CURSOR_MAX_LENGTH},
                OpenApiParameter.HEADER,
                required=False,
                description="The id of the last event you received (`<move seq>-<table seq>`); "
                "the stream resumes after it. An unreadable or longer one is ignored.",
            ),
            OpenApiParameter(
                "last_event_id",
                {"type": "string", "maxLength": CURSOR_MAX_LENGTH},
                description="The same as the header, for clients that cannot set headers "
                "(longer: 400 `invalid_request`).",
            ),
            OpenApiParameter("after", int, description="Without an id: moves after this seq."),
            OpenApiParameter(
                "table_after", int, description="Without an id: table events after this seq."
            ),
            OpenApiParameter(
                "timeout",
                int,
                description=f"Close the stream after this many seconds (default "
                f"{STREAM_SECONDS_DEFAULT}, at most {STREAM_SECONDS_MAX}).",
            ),
        ],
        responses={
            (200, "text/event-stream"): OpenApiResponse(
                response=EventStreamFrameSerializer,
                description="The event stream.",
                examples=[
                    OpenApiExample("A resumed stream", value=STREAM_EXAMPLE, response_only=True)
                ],
            ),
            **problem_responses(*WAIT_PROBLEMS),
        },
    )
    async def get(self, request: Request, game_id: int) -> StreamingHttpResponse:
        params = GameStreamParamsSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        v = params.validated_data
        player = await db(player_of, request)
        await db(_visible, game_id, player)
        cursor = (
            Cursor.parse(request.headers.get("Last-Event-ID"))
            or Cursor.parse(v.get("last_event_id"))
            or Cursor(v["after"], v["table_after"])
        )
        seconds = stream_seconds(request, v["timeout"])
        # A stream that stays open is one of the player's live connections (429 over the cap).
        lease = await connection_acquire(player.pk, metrics.STREAM) if seconds > 0 else None
        response = StreamingHttpResponse(
            event_stream(game_id, player, cursor, seconds, lease),
            content_type="text/event-stream; charset=utf-8",
        )
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"  # no proxy buffering (nginx)
        return response
