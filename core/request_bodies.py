"""Request bodies as the servers hand them on: read whole when their length is not declared,
refused while they stream in when they are too large. Both entry points wrap their app in one
of these, outermost (``asgi.py`` through ``routing.py``, ``wsgi.py``).

Why before Django: a chunked body (``Transfer-Encoding: chunked``, no ``Content-Length``, as
mobile HTTP stacks send) reaches Django with no CONTENT_LENGTH, and both Django's WSGI stream
and DRF's ``Request`` take a missing length for an empty body: the request would be served as
if it had none. And Django's ASGI handler stores the whole body (in a temporary file past
``FILE_UPLOAD_MAX_MEMORY_SIZE``) before any middleware can look at it.

So, for every HTTP request, with the limit ``DATA_UPLOAD_MAX_MEMORY_SIZE``
(``MAX_REQUEST_BODY_BYTES``):

- a declared ``Content-Length`` over the limit is answered 413 (``body_too_large``) at once,
  nothing of the body read; one that is not a number, 400 (``bad_request``);
- a body without a declared length is read as it arrives, counted, and refused with 413 as
  soon as the count passes the limit; within it, the app gets the body with its
  ``Content-Length`` (and without ``Transfer-Encoding``, now that it is delimited);
- under WSGI, a server that does not end ``wsgi.input`` at the body's end
  (``wsgi.input_terminated`` unset: wsgiref, ``runserver``) leaves a chunked body unreadable:
  411 (``length_required``), never an empty body.

A request without either header has no body (HTTP/1.x framing) and passes untouched, as do
WebSocket and lifespan scopes. Under ASGI a refusal closes the connection (uvicorn stops
reading the rest); gunicorn's WSGI workers drain at most 64 KiB of an unread body and then
close it themselves.
"""

from __future__ import annotations

import io
import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from http import HTTPStatus
from typing import Any

from django.conf import settings

from core.problems import PROBLEM_CONTENT_TYPE, problem_body

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
AsgiApp = Callable[[Scope, Receive, Send], Awaitable[None]]
WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]

READ_BLOCK = 64 * 1024  # WSGI: bytes read from wsgi.input at a time
_NOT_A_NUMBER = -1


def body_limit() -> int | None:
    """The largest body accepted, in bytes (None: no limit)."""
    limit: int | None = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    return limit


def declared_length(value: str | None) -> int | None:
    """A Content-Length header's value: None when absent, ``_NOT_A_NUMBER`` when malformed."""
    if value is None:
        return None
    text = value.strip()
    return int(text) if text.isascii() and text.isdigit() else _NOT_A_NUMBER


def refusal(code: str, path: str, limit: int | None) -> tuple[int, list[tuple[str, str]], bytes]:
    """(status, headers, body) of the problem document answering ``code``."""
    if code == "body_too_large":
        detail = f"The request body is larger than {limit} bytes."
        extra = {"max_body_bytes": limit}
    elif code == "length_required":
        detail = "The server cannot read a body without Content-Length here: send one."
        extra = {}
    else:
        detail = "The Content-Length header is not a number."
        extra = {}
    document = problem_body(code=code, detail=detail, instance=path, extra=extra)
    data = json.dumps(document).encode()
    headers = [("Content-Type", PROBLEM_CONTENT_TYPE), ("Content-Length", str(len(data)))]
    return int(document["status"]), headers, data


# ============================================================================== ASGI
class AsgiBodies:
    """ASGI middleware: see the module's docstring. ``limit``: the limit (default: the
    setting's, read per request)."""

    def __init__(self, app: AsgiApp, limit: int | None = None) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = body_limit() if self.limit is None else self.limit
        headers = scope.get("headers", [])
        length = None
        chunked = False
        for name, value in headers:
            name = name.lower()
            if name == b"content-length":
                length = declared_length(value.decode("latin-1"))
            elif name == b"transfer-encoding":
                chunked = True
        if length == _NOT_A_NUMBER:
            await self._refuse(send, scope, "bad_request", limit)
        elif length is not None:
            if limit is not None and length > limit:
                await self._refuse(send, scope, "body_too_large", limit)
            else:
                await self.app(scope, receive, send)
        elif not chunked and scope.get("http_version", "1.1") in ("1.0", "1.1"):
            await self.app(scope, receive, send)  # no body
        else:
            await self._buffered(scope, receive, send, limit, chunked)

    async def _buffered(
        self, scope: Scope, receive: Receive, send: Send, limit: int | None, chunked: bool
    ) -> None:
        """Read the whole body (up to ``limit``), then run the app with it delimited."""
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client has gone: nobody to answer
            body += message.get("body", b"")
            if limit is not None and len(body) > limit:
                await self._refuse(send, scope, "body_too_large", limit)
                return
            if not message.get("more_body", False):
                break
        if body or chunked:
            kept = [
                (name, value)
                for name, value in scope.get("headers", [])
                if name.lower() not in (b"transfer-encoding", b"content-length")
            ]
            scope = {**scope, "headers": [*kept, (b"content-length", b"%d" % len(body))]}
        whole: Message | None = {"type": "http.request", "body": bytes(body), "more_body": False}
        del body

        async def replay() -> Message:
            nonlocal whole
            if whole is None:
                return await receive()  # after the body: the disconnect, when it comes
            message, whole = whole, None
            return message

        await self.app(scope, replay, send)

    @staticmethod
    async def _refuse(send: Send, scope: Scope, code: str, limit: int | None) -> None:
        status, headers, data = refusal(code, scope.get("path", ""), limit)
        sent = [(k.lower().encode(), v.encode()) for k, v in headers]
        # "connection: close": the server stops reading what is left of the body.
        sent.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": status, "headers": sent})
        await send({"type": "http.response.body", "body": data, "more_body": False})


# ============================================================================== WSGI
class WsgiBodies:
    """WSGI middleware: see the module's docstring. ``limit``: the limit (default: the
    setting's, read per request)."""

    def __init__(self, app: WsgiApp, limit: int | None = None) -> None:
        self.app = app
        self.limit = limit

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Any:
        limit = body_limit() if self.limit is None else self.limit
        length = declared_length(environ.get("CONTENT_LENGTH") or None)
        if length == _NOT_A_NUMBER:
            return self._refuse(environ, start_response, "bad_request", limit)
        if length is not None:
            if limit is not None and length > limit:
                return self._refuse(environ, start_response, "body_too_large", limit)
            return self.app(environ, start_response)
        chunked = bool(environ.get("HTTP_TRANSFER_ENCODING"))
        if not chunked and environ.get("SERVER_PROTOCOL", "HTTP/1.1") in ("HTTP/1.0", "HTTP/1.1"):
            return self.app(environ, start_response)  # no body
        if not environ.get("wsgi.input_terminated"):
            return self._refuse(environ, start_response, "length_required", limit)
        stream = environ["wsgi.input"]
        body = bytearray()
        while True:
            want = READ_BLOCK if limit is None else min(READ_BLOCK, limit + 1 - len(body))
            block = stream.read(want)
            if not block:
                break
            body += block
            if limit is not None and len(body) > limit:
                return self._refuse(environ, start_response, "body_too_large", limit)
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        environ["CONTENT_LENGTH"] = str(len(body))
        environ["wsgi.input"] = io.BytesIO(body)
        return self.app(environ, start_response)

    @staticmethod
    def _refuse(
        environ: dict[str, Any], start_response: Callable[..., Any], code: str, limit: int | None
    ) -> list[bytes]:
        status, headers, data = refusal(code, environ.get("PATH_INFO", ""), limit)
        start_response(f"{status} {HTTPStatus(status).phrase}", headers)
        return [data]
