"""The WebSocket of a game (``/api/v1/games/{id}/socket/``): the events of the stream pushed
from the game's feed, and actions sent back on the same socket (docs/live.md).

A Channels consumer. Authentication: the ``Authorization: Token`` header, the session cookie,
or a first ``auth`` message (browsers cannot set headers on a socket). Once authenticated, a
seated player coming back (not seen lately) whose seat a stand-in bot took less than
``SEAT_RECLAIM_GRACE_SECONDS`` ago has it back (``games.services.reclaim.seat_reconnect``).
Actions go through the same service, validation, throttle and error catalogue as
``POST .../actions/``: the same version and idempotency rules, the same answers (status and
body).

Limits (``games.realtime.limits``): the socket counts as one of its player's live connections
(over the cap: closed with 4429); its messages are metered by a token bucket (over it: an
``error`` ``socket_rate_limited``, and after ``REFUSALS_BEFORE_CLOSE`` refusals in a row the
socket is closed with 4429); one action at a time (another meanwhile: an ``action_result``
429 ``action_in_flight``, nothing queued). A client that leaves mid-action is expected: what
could not be sent to it is dropped quietly (logged at debug level).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from importlib import import_module
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qs

from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.contrib import auth
from django.http.cookie import parse_cookie
from django.utils import timezone, translation
from rest_framework.exceptions import Throttled

from accounts.models import Player
from core import messages as message_limits
from core import metrics
from core.exceptions import problem_exception_handler
from core.i18n import language_negotiate
from core.parsers import nul_found
from core.problems import problem_body
from core.throttling import ClientScopedRateThrottle
from games import errors
from games.api.answers import action_answer_body
from games.api.asgi import Handoff, holder_by_token
from games.api.views import action_request_read
from games.realtime.feed import ClientGone, End, Followed, Idle, Sync, db_call, follow
from games.realtime.limits import Lease, TokenBucket, connection_acquire, socket_bucket
from games.selectors.live import Cursor, LiveItem, json_text
from games.services.actions import game_action_apply
from games.services.reclaim import seat_reconnect

logger = logging.getLogger(__name__)

AUTH_SECONDS = 10
MESSAGE_MAX_BYTES = message_limits.MESSAGE_MAX_BYTES  # a text message, JSON
REQUEST_ID_MAX = 100
KEY_MAX = 255

CLOSE_BAD_REQUEST = 4400
CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
CLOSE_TOO_MANY = 4429  # over the player's live connections, or messages over the rate
REFUSALS_BEFORE_CLOSE = 20  # messages over the rate in a row before the socket is closed


def socket_message(followed: Followed) -> str:
    """What the feed gives a follower, as a socket message."""
    if isinstance(followed, LiveItem):
        return followed.socket
    if isinstance(followed, Sync):
        return json_text({"type": "sync", **followed.data()})
    if isinstance(followed, End):
        return json_text({"type": "end", **followed.data()})
    assert isinstance(followed, Idle)
    return json_text({"type": "heartbeat", "at": timezone.now()})


def socket_messages(items: list[LiveItem]) -> list[dict[str, Any]]:
    """Items the feed sends straight to a waiting socket: one message each."""
    return [{"type": "websocket.send", "text": item.socket} for item in items]


def _cursor(query: bytes) -> Cursor | None:
    params = {k: v[0] for k, v in parse_qs(query.decode("latin-1")).items()}
    if "cursor" in params:
        return Cursor.parse(params["cursor"])
    after, table = params.get("after", "0"), params.get("table_after", "0")
    if not (after.isdigit() and table.isdigit()) or len(after) > 18 or len(table) > 18:
        return None
    return Cursor(int(after), int(table))


def _session_player(cookie_header: bytes | None) -> int | None:
    """The player of the Django session the ``Cookie`` header names (a browser signed in to
    this site), or None. Read here, once, instead of through Channels' session middleware,
    which would wrap every message the socket sends."""
    if not cookie_header:
        return None
    key = parse_cookie(cookie_header.decode("latin-1")).get(settings.SESSION_COOKIE_NAME)
    if not key:
        return None
    session = import_module(settings.SESSION_ENGINE).SessionStore(key)
    user = auth.get_user(SimpleNamespace(session=session))  # type: ignore[arg-type]
    if not user.is_authenticated:
        return None
    player = getattr(user, "player", None)
    return None if player is None else int(player.pk)


def _player(player_id: int) -> Player:
    return Player.objects.select_related("user").get(pk=player_id)


# The answer's ``body.outcome``: what it is (``LiveActionAnswer``'s discriminator).
OUTCOME_APPLIED = "applied"  # the full answer (as POST .../actions/)
OUTCOME_MINIMAL = "minimal"  # "return": "minimal" (as Prefer: return=minimal)
OUTCOME_PROBLEM = "problem"  # refused: the problem document
RETURNS = ("full", "minimal")  # the action message's "return"


def refused(status: int, body: dict[str, Any]) -> dict[str, Any]:
    """An ``action_result`` that refuses: status, body (the problem, ``outcome`` problem)."""
    return {"status": status, "replayed": False, "body": {"outcome": OUTCOME_PROBLEM, **body}}


def action_answer(
    game_id: int, player: Player, message: dict[str, Any], language: str = "en"
) -> dict[str, Any]:
    """Apply an ``action`` message as ``POST .../actions/`` would: status, body, replayed.
    ``"return": "minimal"`` answers as ``Prefer: return=minimal`` does; ``body.outcome`` says
    which answer it is. A refusal is in ``language`` (the socket's: ``core.i18n``)."""
    with translation.override(language):
        return _action_answer(game_id, player, message)


def _action_answer(game_id: int, player: Player, message: dict[str, Any]) -> dict[str, Any]:
    try:
        throttle = ClientScopedRateThrottle()  # the HTTP endpoint's count, atomic
        request = SimpleNamespace(user=player.user, META={})
        view = SimpleNamespace(throttle_scope="actions")
        if not throttle.allow_request(request, view):  # type: ignore[arg-type]
            raise Throttled(wait=throttle.wait())
        action, expected_version = action_request_read(
            {k: message[k] for k in ("action", "expected_version") if k in message}
        )
        result = game_action_apply(
            game_id=game_id,
            seat=None,
            action=action,
            expected_version=expected_version,
            player=player,
            idempotency_key=message.get("idempotency_key"),
        )
    except Exception as exc:  # noqa: BLE001 - answered as the HTTP endpoint answers
        response = problem_exception_handler(exc, {})
        if response is None:
            raise
        return refused(response.status_code, response.data)
    minimal = message.get("return") == "minimal"
    body = action_answer_body(result.body, result.game, player, minimal=minimal)
    outcome = OUTCOME_MINIMAL if minimal else OUTCOME_APPLIED
    answer = {"outcome": outcome, **body}
    return {"status": result.status, "replayed": result.replayed, "body": answer}


class GameSocketConsumer(AsyncWebsocketConsumer):
    """One client's socket on one game."""

    closed = False  # closed by either side: nothing more is sent
    lease: Lease | None = None

    async def connect(self) -> None:
        self.game_id = int(self.scope["url_route"]["kwargs"]["game_id"])
        self.player_id: int | None = None
        self.player: Player | None = None
        self.pump: asyncio.Task[None] | None = None
        self.auth_timer: asyncio.TimerHandle | None = None
        self.acting: set[asyncio.Task[None]] = set()
        self.bucket: TokenBucket | None = socket_bucket()
        self.refusals = 0
        headers = {k.lower(): v for k, v in self.scope.get("headers", [])}
        # The language of its problems: the account's (once known), else Accept-Language's.
        self.accept_language = headers.get(b"accept-language", b"").decode("latin-1")
        self.language = language_negotiate(self.accept_language)
        await self.accept()
        cursor = _cursor(self.scope.get("query_string", b""))
        if cursor is None:
            await self.close(CLOSE_BAD_REQUEST)
            return
        self.cursor = cursor
        player_id: int | None = None
        if b"authorization" in headers:
            with contextlib.suppress(Handoff):
                player_id = await self._holder({b"authorization": headers[b"authorization"]})
            if player_id is None:
                await self.close(CLOSE_UNAUTHENTICATED)
                return
        else:
            player_id = await db_call(_session_player, headers.get(b"cookie"))
        if player_id is not None:
            await self.start(player_id)
            return
        loop = asyncio.get_running_loop()
        self.auth_timer = loop.call_later(
            AUTH_SECONDS, lambda: loop.create_task(self.close(CLOSE_UNAUTHENTICATED))
        )

    async def start(self, player_id: int) -> None:
        """Follow the game: ``sync`` now, then everything the feed pushes."""
        if self.auth_timer is not None:
            self.auth_timer.cancel()
        try:
            lease = await connection_acquire(player_id, metrics.SOCKET)
        except errors.TooManyLiveConnections:
            await self.close(CLOSE_TOO_MANY, "too_many_live_connections")
            return
        if self.closed:  # the client left while the lease was taken
            await lease.release()
            return
        self.lease = lease
        self.player_id = player_id
        await self._seat_back(player_id)
        frames = follow(
            self.game_id,
            player_id,
            self.cursor,
            float("inf"),
            direct=(self.base_send, socket_messages),
        )
        try:
            first = await anext(frames)
        except errors.GameNotFound:
            await self.close(CLOSE_NOT_FOUND)
            return
        await self.send(text_data=socket_message(first))
        self.pump = asyncio.get_running_loop().create_task(self._pump(frames))

    async def _seat_back(self, player_id: int) -> None:
        """The player comes back: if they were away and a stand-in bot took their seat within
        the grace, it is theirs again (``seat_reconnect``), before the feed is followed (which
        notes their presence), so the ``seat_returned`` event comes with the rest. A failure
        here leaves the socket open."""
        try:
            await db_call(seat_reconnect, game_id=self.game_id, player_id=player_id)
        except Exception:  # the seat stays with its stand-in; the reclaim endpoint remains
            logger.exception("socket %s: taking the seat back failed", self.game_id)

    async def _pump(self, frames: Any) -> None:
        try:
            async for followed in frames:  # straight to the server: no consumer layers
                if self.closed:
                    return
                try:
                    await self.base_send(
                        {"type": "websocket.send", "text": socket_message(followed)}
                    )
                except (OSError, RuntimeError) as exc:  # as in ``send``: the client left
                    logger.debug("socket %s: the client left before a send: %r", self.game_id, exc)
                    return
                if isinstance(followed, End):
                    await self.close(1000)
                    return
        except ClientGone:
            pass  # the socket closed under a direct send; disconnect() follows
        finally:
            with contextlib.suppress(BaseException):
                await frames.aclose()

    async def disconnect(self, code: int) -> None:
        self.closed = True
        if self.auth_timer is not None:
            self.auth_timer.cancel()
        if self.pump is not None:
            self.pump.cancel()
        for task in list(self.acting):
            task.cancel()
        if self.lease is not None:
            await self.lease.release()

    async def send(
        self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False
    ) -> None:
        """Send, unless the socket is closed; a client that left meanwhile is expected (the
        server raises on a send after the close), not an error."""
        if self.closed:
            logger.debug("socket %s: closed, a message dropped", self.game_id)
            return
        try:
            await super().send(text_data, bytes_data, close)
        except (OSError, RuntimeError) as exc:  # uvicorn: ClientDisconnected, or after close
            self.closed = True
            logger.debug("socket %s: the client left before a send: %r", self.game_id, exc)

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            await super().close(code, reason)
        except (OSError, RuntimeError) as exc:  # the client left first
            logger.debug("socket %s: the client left before the close: %r", self.game_id, exc)

    async def _holder(self, authorization: dict[bytes, bytes]) -> int:
        """The player a token stands for; their language setting becomes the socket's."""
        player_id, setting = await holder_by_token(authorization)
        self.language = language_negotiate(self.accept_language, setting)
        return player_id

    async def _error(self, code: str, detail: str) -> None:
        with translation.override(self.language):
            body = problem_body(code=code, detail=detail, instance=None)
        await self.send(text_data=json_text({"type": "error", "problem": body}))

    async def _over_rate(self) -> bool:
        """True when this message is over the socket's rate (and was answered so)."""
        if self.bucket is None or self.bucket.take():
            self.refusals = 0
            return False
        self.refusals += 1
        if self.refusals >= REFUSALS_BEFORE_CLOSE:
            await self.close(CLOSE_TOO_MANY, "socket_rate_limited")
        else:
            await self._error("socket_rate_limited", "Too many messages: this one was dropped.")
        return True

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if self.closed or await self._over_rate():
            return
        if text_data is None or len(text_data) > MESSAGE_MAX_BYTES:
            await self._error("invalid_request", "Send JSON text messages of at most 64 KiB.")
            return
        try:
            message = json.loads(text_data)
        except ValueError:
            message = None
        if not isinstance(message, dict) or not isinstance(message.get("type"), str):
            await self._error("invalid_request", "A message is a JSON object with a `type`.")
            return
        nul = nul_found(message)
        if nul is not None:  # as an HTTP body: PostgreSQL's text and jsonb refuse NUL
            await self._error("invalid_request", f"{nul[0] or 'message'}: {nul[1]}")
            return
        kind = message["type"]
        if self.player_id is None:
            await self._authenticate(message)
            return
        request_id = message.get("request_id")
        if request_id is not None and (
            not isinstance(request_id, str | int) or len(str(request_id)) > REQUEST_ID_MAX
        ):
            await self._error("invalid_request", "`request_id`: a string of at most 100.")
            return
        if kind == "ping":
            await self.send(text_data=json_text({"type": "pong", "request_id": request_id}))
        elif kind == "action":
            key = message.get("idempotency_key")
            if key is not None and (not isinstance(key, str) or not 0 < len(key) <= KEY_MAX):
                await self._error("invalid_request", "`idempotency_key`: 1 to 255 characters.")
                return
            if message.get("return", "full") not in RETURNS:
                await self._error("invalid_request", "`return`: `full` or `minimal`.")
                return
            if self.acting:  # one at a time: refused, not queued
                with translation.override(self.language):
                    body = problem_body(
                        code="action_in_flight",
                        detail="The previous action on this socket has not been answered yet.",
                        instance=None,
                    )
                answer = refused(body["status"], body)
                await self.send(
                    text_data=json_text(
                        {"type": "action_result", "request_id": request_id, **answer}
                    )
                )
                return
            task = asyncio.get_running_loop().create_task(self._act(request_id, message))
            self.acting.add(task)
            task.add_done_callback(self.acting.discard)
        elif kind == "auth":
            await self._error("invalid_request", "Already authenticated.")
        else:
            await self._error("invalid_request", f"Unknown message type `{kind[:40]}`.")

    async def _authenticate(self, message: dict[str, Any]) -> None:
        token = message.get("token")
        if message.get("type") != "auth":
            await self.close(CLOSE_BAD_REQUEST)
            return
        if not isinstance(token, str) or len(token) > 200:
            await self.close(CLOSE_UNAUTHENTICATED)
            return
        try:
            player_id = await self._holder({b"authorization": f"Token {token}".encode()})
        except Handoff:
            await self.close(CLOSE_UNAUTHENTICATED)
            return
        await self.start(player_id)

    async def _act(self, request_id: Any, message: dict[str, Any]) -> None:
        assert self.player_id is not None
        if self.player is None:  # loaded at the first action (most sockets only listen)
            self.player = await db_call(_player, self.player_id)
            if self.player.language:  # a session's socket learns the setting here
                self.language = language_negotiate(self.accept_language, self.player.language)
        answer = await db_call(action_answer, self.game_id, self.player, message, self.language)
        await self.send(
            text_data=json_text({"type": "action_result", "request_id": request_id, **answer})
        )


class NoSuchSocket(AsyncWebsocketConsumer):
    """A socket on a path that names no socket: refused (4404) before it is accepted, instead
    of an exception of the router in the server's log."""

    async def connect(self) -> None:
        await self.close(CLOSE_NOT_FOUND)
