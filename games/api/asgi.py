"""The live server's ASGI application: WebSockets, and the event stream and long-poll waits
served straight from the game's feed; every other request goes to Django.

Why not through Django's ASGI handler: it runs each request in a context with a thread of its
own (for the synchronous parts: signals, sync middleware), so a waiting client would park a
thread (0.1 to 0.3 MiB) for as long as it waits. Here a waiting stream or long-poll is a
coroutine and a ``Subscriber`` of its game's feed: no thread, no database connection, a few
KiB. The fast path takes only what it fully understands: a ``GET`` with a token in the
``Authorization`` header, no ``Origin`` (CORS is Django's), known query parameters with valid
values, a game the player may see. Anything else (an error to report, a session cookie, a
long-poll that can answer at once) is handed to Django unchanged, which answers it exactly as
before: the same views, the same problem documents.

Paths are taken with or without their trailing slash (nginx sends both here). A waiting stream
or long-poll holds one of its player's live connections (``games.realtime.limits``); over the
cap it is answered 429 ``too_many_live_connections`` with ``Retry-After``.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from django.utils import translation

from accounts import scopes
from accounts.api.authentication import KeyAuthentication, authorization_key
from accounts.api.scopes import scopes_held
from accounts.scopes import scopes_grant
from core import metrics
from core.i18n import language_negotiate, language_tag
from core.problems import PROBLEM_CONTENT_TYPE, problem_body
from games import errors
from games.api.live import SSE_RETRY, sse_messages, sse_of, stream_seconds_max, wait_bound
from games.realtime.feed import MOVES_ONLY, db_call, feed_get, follow, news_wait
from games.realtime.limits import Lease, connection_acquire
from games.selectors.live import Cursor, json_text

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

STREAM_PATH = re.compile(r"^/api/v1/games/(\d{1,18})/stream/?$")
EVENTS_PATH = re.compile(r"^/api/v1/games/(\d{1,18})/events/?$")
STREAM_PARAMS = {"after", "table_after", "last_event_id", "timeout"}
EVENTS_PARAMS = {"after", "wait"}
EVENTS_PAGE_DEFAULT = 200  # as GET .../events/ without ``limit``


class Handoff(Exception):
    """The fast path does not take this request: Django answers it."""


def _headers(scope: Scope) -> dict[bytes, bytes]:
    return {k.lower(): v for k, v in scope.get("headers", [])}


def _params(scope: Scope, allowed: set[str]) -> dict[str, str]:
    """The query parameters, one value each, only known names (else ``Handoff``)."""
    try:
        parsed = parse_qs(scope.get("query_string", b"").decode(), strict_parsing=False)
    except (UnicodeDecodeError, ValueError) as exc:
        raise Handoff() from exc
    if not set(parsed) <= allowed or any(len(v) != 1 for v in parsed.values()):
        raise Handoff()
    return {k: v[0] for k, v in parsed.items()}


def _int(params: dict[str, str], name: str, default: int, top: int) -> int:
    text = params.get(name)
    if text is None:
        return default
    if not text.isdigit() or len(text) > 18 or int(text) > top:
        raise Handoff()
    return int(text)


# Following a game live: what the live views of games.api.live declare.
LIVE_SCOPES = scopes.GAME_PLAY


def _token_holder(key: str) -> tuple[int, str]:
    """The player id a token stands for and the player's language setting ("" when none;
    ``Handoff`` when it is not a valid token's)."""
    try:
        user, auth = KeyAuthentication().authenticate_key(key)
    except Exception as exc:  # noqa: BLE001 - Django answers with the right problem
        raise Handoff() from exc
    player = getattr(user, "player", None)
    if player is None or not scopes_grant(scopes_held(auth), LIVE_SCOPES):
        raise Handoff()
    return int(player.pk), str(getattr(player, "language", "") or "")


async def holder_by_token(headers: dict[bytes, bytes]) -> tuple[int, str]:
    """The player a request's token stands for, and their language setting ("" when none)."""
    key = authorization_key(headers.get(b"authorization", b"").decode("latin-1"))
    if key is None or b"origin" in headers:
        raise Handoff()
    return await db_call(_token_holder, key)


async def answer_language(headers: dict[bytes, bytes]) -> tuple[int, str]:
    """The player a request's token stands for, and the language of the answer to them (the
    account's setting, else ``Accept-Language``: ``core.i18n.language_negotiate``)."""
    player_id, setting = await holder_by_token(headers)
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    return player_id, language_negotiate(accept, setting)


async def _start(
    send: Send, status: int, content_type: bytes, extra: list[Any], language: str
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", content_type),
                (b"content-language", language_tag(language).encode()),
                (b"cache-control", b"no-cache"),
                (b"vary", b"Accept, Accept-Language, Authorization"),
                (b"x-content-type-options", b"nosniff"),
                *extra,
            ],
        }
    )


class Refused(Exception):
    """The fast path answered the request with a refusal already."""


async def _lease(player_id: int, scope: Scope, send: Send, transport: str, language: str) -> Lease:
    """One of the player's live connections, or ``Refused`` once the 429 is sent."""
    try:
        return await connection_acquire(player_id, transport)
    except errors.TooManyLiveConnections as exc:
        with translation.override(language):
            problem = problem_body(
                code=exc.code, detail=exc.message, instance=scope.get("path"), extra=exc.extra
            )
        body = json_text(problem).encode()
        await _start(
            send,
            exc.status,
            PROBLEM_CONTENT_TYPE.encode(),
            [
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(exc.extra["retry_after"]).encode()),
            ],
            language,
        )
        await send({"type": "http.response.body", "body": body, "more_body": False})
        raise Refused() from exc


def _cancel_on_disconnect(receive: Receive, gone: asyncio.Event) -> asyncio.Task[None]:
    """A watcher that cancels the current task when the client goes away (then sets
    ``gone``): a waiting client that left stops waiting at once, at no cost per frame."""
    main = asyncio.current_task()
    assert main is not None

    async def watch() -> None:
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                gone.set()
                main.cancel()
                return

    return asyncio.get_running_loop().create_task(watch())


class LiveHttp:
    """The HTTP side: the fast paths above, Django for the rest."""

    def __init__(self, django: App) -> None:
        self.django = django

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("method") == "GET":
            path = scope.get("path", "")
            for pattern, serve in ((STREAM_PATH, self.stream), (EVENTS_PATH, self.long_poll)):
                found = pattern.match(path)
                if found:
                    try:
                        await serve(int(found.group(1)), scope, receive, send)
                    except Handoff:
                        break
                    except Refused:
                        pass
                    return
        await self.django(scope, receive, send)

    # ------------------------------------------------------------------ the event stream
    async def stream(self, game_id: int, scope: Scope, receive: Receive, send: Send) -> None:
        params = _params(scope, STREAM_PARAMS)
        headers = _headers(scope)
        seconds = min(_int(params, "timeout", 300, 3600), stream_seconds_max())
        top = 1 << 62
        after = Cursor(_int(params, "after", 0, top), _int(params, "table_after", 0, top))
        if len(params.get("last_event_id", "")) > 40:
            raise Handoff()
        cursor = (
            Cursor.parse(headers.get(b"last-event-id", b"").decode("latin-1"))
            or Cursor.parse(params.get("last_event_id"))
            or after
        )
        player_id, language = await answer_language(headers)
        lease = await _lease(player_id, scope, send, metrics.STREAM, language)
        try:
            frames = follow(game_id, player_id, cursor, seconds, direct=(send, sse_messages))
            try:
                first = await anext(frames)
            except errors.GameNotFound as exc:
                raise Handoff() from exc
            await _start(
                send,
                200,
                b"text/event-stream; charset=utf-8",
                [(b"x-accel-buffering", b"no")],
                language,
            )
            opening = [SSE_RETRY, sse_of(first)]
            await self._pump(receive, send, frames, opening, lambda f: sse_of(f))
        finally:
            await lease.release()

    async def _pump(
        self,
        receive: Receive,
        send: Send,
        frames: Any,
        opening: list[bytes],
        encode: Callable[[Any], bytes],
    ) -> None:
        """Send ``opening`` and then every frame until the generator ends or the client goes
        away (a watcher cancels the send loop: nothing per frame for that)."""
        gone = asyncio.Event()
        watcher = _cancel_on_disconnect(receive, gone)
        try:
            await send({"type": "http.response.body", "body": b"".join(opening), "more_body": True})
            async for followed in frames:
                await send(
                    {"type": "http.response.body", "body": encode(followed), "more_body": True}
                )
            await send({"type": "http.response.body", "body": b"", "more_body": False})
        except asyncio.CancelledError:
            if not gone.is_set():
                raise
        except OSError:
            pass  # the client went away while a frame was sent
        finally:
            watcher.cancel()
            with contextlib.suppress(BaseException):
                await frames.aclose()

    # ------------------------------------------------------------------ the long-poll
    async def long_poll(self, game_id: int, scope: Scope, receive: Receive, send: Send) -> None:
        params = _params(scope, EVENTS_PARAMS)
        after = _int(params, "after", 0, 1 << 62)
        wait = wait_bound(_int(params, "wait", 0, 30))
        if wait <= 0:
            raise Handoff()
        player_id, language = await answer_language(_headers(scope))
        feed = feed_get(game_id)
        await feed.ready.wait()
        now = feed.now
        if now is None or not now.exists or not now.may_see(player_id) or now.over:
            raise Handoff()
        viewer = now.viewer(player_id)
        if after < feed.position(viewer).move:
            raise Handoff()  # there is news already: Django answers at once
        lease = await _lease(player_id, scope, send, metrics.LONG_POLL, language)
        try:
            try:
                sub = await feed.join(player_id, Cursor(after, MOVES_ONLY))
            except errors.GameNotFound as exc:
                raise Handoff() from exc
            gone = asyncio.Event()
            watcher = _cancel_on_disconnect(receive, gone)
            try:
                items = await news_wait(sub, wait)
            except asyncio.CancelledError:
                if not gone.is_set():
                    raise
                return  # the client went away: nobody to answer
            finally:
                watcher.cancel()
                sub.leave()
        finally:
            await lease.release()
        if sub.rejoin:
            raise Handoff()  # the player's seat changed: let Django read it afresh
        more = len(items) > EVENTS_PAGE_DEFAULT
        items = items[:EVENTS_PAGE_DEFAULT]
        version = max([sub.feed.position(viewer).move, *(i.cursor.move for i in items)])
        latest = sub.feed.now.latest() if sub.feed.now is not None else None
        to_act = latest[1] if latest is not None and latest[0] == version else None
        head = json_text({"game": game_id, "version": version, "viewer": viewer, "to_act": to_act})
        events = ",".join(i.event_json for i in items)
        tail = "true" if more else "false"
        body = f'{head[:-1]},"events":[{events}],"has_more":{tail}}}'.encode()
        await _start(
            send,
            200,
            b"application/json",
            [(b"content-length", str(len(body)).encode())],
            language,
        )
        await send({"type": "http.response.body", "body": body, "more_body": False})
