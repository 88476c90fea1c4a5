"""Request bodies as the real servers deliver them: a chunked body (no Content-Length) is read,
never taken for an empty one, and a body over the limit is refused with 413 while it streams
in, before it reaches memory or disk, under every serving of the app: gunicorn gthread on the
WSGI app (the REST API), gunicorn with the live worker on the ASGI app (the live server) and
plain uvicorn on the ASGI app (``make run``); then nginx's own refusal in front of them.

The servers run as subprocesses on free loopback ports, each on a copy of one migrated SQLite
database, with a small body limit (``MAX_REQUEST_BODY_BYTES``). The wrappers themselves
(core/request_bodies.py) are checked first with a fake ASGI receive and a fake WSGI
environ.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import io
import json
import os
import re
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bench import harness
from core.problems import PROBLEM_CONTENT_TYPE, problem_body
from core.request_bodies import AsgiBodies, WsgiBodies
from tests.conftest import in_ci

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
LIMIT = 256 * 1024  # MAX_REQUEST_BODY_BYTES of the servers started here
PRIVATE_GAME = {"preset": "two_player", "is_public": False, "seat": 1}


def padded(document: dict[str, Any], size: int) -> bytes:
    """``document`` as JSON, padded with spaces to exactly ``size`` bytes."""
    text = json.dumps(document).encode()
    assert len(text) <= size
    return text + b" " * (size - len(text))


# ============================================================================== the wrappers
class FakeReceive:
    """An ASGI receive that gives ``messages`` in order, then waits (a client that stays)."""

    def __init__(self, *messages: dict[str, Any]) -> None:
        self.messages = list(messages)
        self.calls = 0

    async def __call__(self) -> dict[str, Any]:
        self.calls += 1
        if self.messages:
            return self.messages.pop(0)
        await asyncio.sleep(3600)
        raise AssertionError("unreachable")


def body_part(data: bytes, more: bool = True) -> dict[str, Any]:
    return {"type": "http.request", "body": data, "more_body": more}


class Inner:
    """The wrapped ASGI app: records what it was given, reads the body, answers 200."""

    def __init__(self) -> None:
        self.scope: dict[str, Any] | None = None
        self.body = b""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.scope = scope
        if scope["type"] == "http":
            while True:
                message = await receive()
                self.body += message.get("body", b"")
                if not message.get("more_body"):
                    break
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"ok"})


def http_scope(*headers: tuple[bytes, bytes], method: str = "POST") -> dict[str, Any]:
    return {
        "type": "http",
        "http_version": "1.1",
        "method": method,
        "path": "/api/v1/games/",
        "headers": [(b"host", b"localhost"), *headers],
    }


def asgi_run(
    scope: dict[str, Any], receive: FakeReceive, limit: int = 100
) -> tuple[Inner, list[dict[str, Any]]]:
    inner, sent = Inner(), []

    async def send(message: Any) -> None:
        sent.append(message)

    asyncio.run(asyncio.wait_for(AsgiBodies(inner, limit=limit)(scope, receive, send), 5))
    return inner, sent


def asgi_problem(sent: list[dict[str, Any]], status: int, code: str) -> dict[str, Any]:
    start, body = sent
    assert start["status"] == status
    headers = dict(start["headers"])
    assert headers[b"content-type"] == PROBLEM_CONTENT_TYPE.encode()
    assert headers[b"connection"] == b"close"
    document: dict[str, Any] = json.loads(body["body"])
    assert (document["status"], document["code"]) == (status, code)
    assert int(headers[b"content-length"]) == len(body["body"])
    return document


def test_asgi_a_chunked_body_is_read_and_given_its_length() -> None:
    receive = FakeReceive(body_part(b'{"a"'), body_part(b": 1}", more=False))
    inner, sent = asgi_run(http_scope((b"transfer-encoding", b"chunked")), receive)
    assert inner.body == b'{"a": 1}'
    assert inner.scope is not None
    headers = inner.scope["headers"]
    assert (b"content-length", b"8") in headers
    assert not [name for name, _ in headers if name == b"transfer-encoding"]
    assert sent[0]["status"] == 200


def test_asgi_a_body_of_exactly_the_limit_passes() -> None:
    receive = FakeReceive(body_part(b"x" * 60), body_part(b"y" * 40, more=False))
    inner, sent = asgi_run(http_scope((b"transfer-encoding", b"chunked")), receive)
    assert inner.body == b"x" * 60 + b"y" * 40
    assert sent[0]["status"] == 200


def test_asgi_a_chunked_body_over_the_limit_is_refused_as_it_streams() -> None:
    receive = FakeReceive(*[body_part(b"x" * 30) for _ in range(10)])
    inner, sent = asgi_run(http_scope((b"transfer-encoding", b"chunked")), receive)
    assert inner.scope is None, "the app never saw the request"
    assert receive.calls == 4, "reading stopped at the first part past the limit"
    document = asgi_problem(sent, 413, "body_too_large")
    assert document["max_body_bytes"] == 100
    assert document["instance"] == "/api/v1/games/"


def test_asgi_a_declared_length_over_the_limit_is_refused_unread() -> None:
    receive = FakeReceive(body_part(b"x" * 101, more=False))
    inner, sent = asgi_run(http_scope((b"content-length", b"101")), receive)
    assert inner.scope is None and receive.calls == 0
    asgi_problem(sent, 413, "body_too_large")


def test_asgi_a_declared_length_within_the_limit_passes_untouched() -> None:
    scope = http_scope((b"content-length", b"5"))
    inner, sent = asgi_run(scope, FakeReceive(body_part(b"hello", more=False)))
    assert inner.scope is scope and inner.body == b"hello"
    assert sent[0]["status"] == 200


def test_asgi_a_content_length_that_is_not_a_number_is_refused() -> None:
    for value in (b"5, 5", b"-1", b"\xb2"):  # (\xb2: a superscript two in latin-1)
        inner, sent = asgi_run(http_scope((b"content-length", value)), FakeReceive())
        assert inner.scope is None
        asgi_problem(sent, 400, "bad_request")


def test_asgi_a_request_without_a_body_and_other_scopes_pass_untouched() -> None:
    get = http_scope(method="GET")
    receive = FakeReceive(body_part(b"", more=False))
    inner, _ = asgi_run(get, receive)
    assert inner.scope is get
    for kind in ("websocket", "lifespan"):
        scope = {"type": kind}
        receive = FakeReceive()
        inner, sent = asgi_run(scope, receive)
        assert inner.scope is scope and receive.calls == 0 and sent == []


def test_asgi_after_the_body_the_app_hears_the_client_leave() -> None:
    """Django's handler and the live fast path wait on receive() for the disconnect."""
    heard: list[dict[str, Any]] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        heard.append(await receive())
        heard.append(await receive())

    receive = FakeReceive(body_part(b"{}", more=False), {"type": "http.disconnect"})

    async def send(message: Any) -> None:
        raise AssertionError(message)

    scope = http_scope((b"transfer-encoding", b"chunked"))
    asyncio.run(AsgiBodies(app, limit=100)(scope, receive, send))
    assert heard == [body_part(b"{}", more=False), {"type": "http.disconnect"}]


class CountingInput(io.BytesIO):
    """A wsgi.input that counts what was read from it."""

    taken = 0

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        self.taken += len(data)
        return data


def wsgi_run(environ: dict[str, Any], limit: int = 100) -> tuple[dict[str, Any] | None, str, bytes]:
    seen: dict[str, Any] = {}

    def app(env: dict[str, Any], start_response: Any) -> list[bytes]:
        seen.update(env)
        seen["body"] = env["wsgi.input"].read(int(env.get("CONTENT_LENGTH") or 0))
        start_response("200 OK", [])
        return [b"ok"]

    answered: list[Any] = []

    def start_response(status: str, headers: list[tuple[str, str]]) -> None:
        answered.extend([status, dict(headers)])

    body = b"".join(WsgiBodies(app, limit=limit)(environ, start_response))
    if answered[0] != "200 OK":
        assert answered[1]["Content-Type"] == PROBLEM_CONTENT_TYPE
        assert int(answered[1]["Content-Length"]) == len(body)
    return (seen or None), answered[0], body


def wsgi_environ(data: bytes, **extra: Any) -> dict[str, Any]:
    return {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/api/v1/games/",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "wsgi.input": CountingInput(data),
        "wsgi.input_terminated": True,
        **extra,
    }


def test_wsgi_a_chunked_body_is_read_and_given_its_length() -> None:
    seen, status, _ = wsgi_run(wsgi_environ(b'{"a": 1}', HTTP_TRANSFER_ENCODING="chunked"))
    assert status == "200 OK" and seen is not None
    assert seen["CONTENT_LENGTH"] == "8" and seen["body"] == b'{"a": 1}'
    assert "HTTP_TRANSFER_ENCODING" not in seen
    seen, status, _ = wsgi_run(wsgi_environ(b"x" * 100, HTTP_TRANSFER_ENCODING="chunked"))
    assert status == "200 OK" and seen is not None and seen["body"] == b"x" * 100


def test_wsgi_a_chunked_body_over_the_limit_is_refused_after_limit_plus_one_bytes() -> None:
    environ = wsgi_environ(b"x" * 10_000, HTTP_TRANSFER_ENCODING="chunked")
    seen, status, body = wsgi_run(environ)
    assert seen is None and status.startswith("413 ")
    assert environ["wsgi.input"].taken == 101
    document = json.loads(body)
    assert (document["code"], document["max_body_bytes"]) == ("body_too_large", 100)


def test_wsgi_a_declared_length_over_the_limit_is_refused_unread() -> None:
    environ = wsgi_environ(b"x" * 101, CONTENT_LENGTH="101")
    seen, status, body = wsgi_run(environ)
    assert seen is None and status.startswith("413 ") and environ["wsgi.input"].taken == 0
    assert json.loads(body)["code"] == "body_too_large"
    seen, status, _ = wsgi_run(wsgi_environ(b"x" * 100, CONTENT_LENGTH="100"))
    assert status == "200 OK" and seen is not None and seen["body"] == b"x" * 100


def test_wsgi_a_content_length_that_is_not_a_number_is_refused() -> None:
    seen, status, body = wsgi_run(wsgi_environ(b"", CONTENT_LENGTH="-1"))
    assert seen is None and status.startswith("400 ")
    assert json.loads(body)["code"] == "bad_request"


def test_wsgi_a_body_the_server_cannot_delimit_is_refused_not_taken_for_empty() -> None:
    """A server that does not end wsgi.input at the body's end (wsgiref, runserver) gives no
    way to read a chunked body: 411, never an empty body."""
    environ = wsgi_environ(b"{}", HTTP_TRANSFER_ENCODING="chunked", **{"wsgi.input_terminated": 0})
    seen, status, body = wsgi_run(environ)
    assert seen is None and status == "411 Length Required"
    assert environ["wsgi.input"].taken == 0
    assert json.loads(body)["code"] == "length_required"


def test_wsgi_a_request_without_a_body_passes_untouched() -> None:
    environ = wsgi_environ(b"", REQUEST_METHOD="GET")
    seen, status, _ = wsgi_run(environ)
    assert status == "200 OK" and seen is not None and "CONTENT_LENGTH" not in seen
    assert seen["wsgi.input"] is environ["wsgi.input"]


# ============================================================================== real servers
SERVINGS = {
    # docker-compose's api service: the REST API
    "gunicorn-wsgi": [
        "-m",
        "gunicorn",
        "canasta_service.wsgi:application",
        "--worker-class=gthread",
        "--threads=2",
        "--workers=1",
        "--bind={host}:{port}",
    ],
    # docker-compose's live service: the live endpoints (and anything else sent there)
    "gunicorn-asgi": [
        "-m",
        "gunicorn",
        "canasta_service.asgi:application",
        f"--worker-class={harness.LIVE_WORKER}",
        "--workers=1",
        "--bind={host}:{port}",
    ],
    # make run
    "uvicorn": [
        "-m",
        "uvicorn",
        "canasta_service.asgi:application",
        "--host={host}",
        "--port={port}",
        "--ws-per-message-deflate=false",
    ],
}


def server_env(database: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": "bodies-test-only",
        "ALLOWED_HOSTS": HOST,
        "DATABASE_URL": f"sqlite:///{database}",
        "DATABASE_CONN_MAX_AGE": "0",
        "THROTTLE_SIGNUP": "off",
        "THROTTLE_ACTIONS": "off",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
        "MAX_REQUEST_BODY_BYTES": str(LIMIT),
    }
    for name in ("DJANGO_SETTINGS_MODULE", "REDIS_URL", "CACHE_URL", "CELERY_BROKER_URL"):
        env.pop(name, None)
    return env


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    database = tmp_path_factory.mktemp("bodies") / "template.sqlite3"
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=server_env(database),
        check=True,
    )
    return database


@dataclass
class Served:
    name: str
    port: int
    pid: int
    database: Path
    tmpdir: Path  # the server's TMPDIR

    def games(self) -> int:
        with contextlib.closing(sqlite3.connect(self.database)) as db:
            count: int = db.execute("SELECT COUNT(*) FROM games_game").fetchone()[0]
            return count

    def temp_files(self) -> list[str]:
        """Files the server's processes hold open under its TMPDIR (a spooled body: open,
        already unlinked)."""
        held = []
        for pid in harness.process_tree(self.pid):
            with contextlib.suppress(OSError):
                for fd in Path(f"/proc/{pid}/fd").iterdir():
                    with contextlib.suppress(OSError):
                        target = os.readlink(fd)
                        if target.startswith(str(self.tmpdir)):
                            held.append(target)
        return held


@pytest.fixture(scope="module", params=list(SERVINGS))
def server(request: pytest.FixtureRequest, migrated: Path) -> Iterator[Served]:
    name = request.param
    with tempfile.TemporaryDirectory(prefix="canasta-bodies-") as tmp:
        database = Path(tmp) / "db.sqlite3"
        shutil.copy(migrated, database)
        tmpdir = Path(tmp) / "tmp"
        tmpdir.mkdir()
        port = harness.free_port()
        args = [a.format(host=HOST, port=port) for a in SERVINGS[name]]
        env = {**server_env(database), "TMPDIR": str(tmpdir)}
        log_path = Path(tmp) / "server.log"
        with harness.listening_process([sys.executable, *args], env, log_path, port, name) as p:
            yield Served(name, port, p.pid, database, tmpdir)


@pytest.fixture(scope="module")
def token(server: Served) -> str:
    conn = http.client.HTTPConnection(HOST, server.port, timeout=30)
    conn.request(
        "POST",
        "/api/v1/players/",
        body=json.dumps({"display_name": "Ada"}),
        headers={"Content-Type": "application/json"},
    )
    response = conn.getresponse()
    body = json.loads(response.read())
    assert response.status == 201, body
    conn.close()
    return str(body["token"])


def head(token: str, *lines: str) -> bytes:
    """The head of a POST /api/v1/games/ with ``lines`` as extra header lines."""
    return (
        "\r\n".join(
            [
                "POST /api/v1/games/ HTTP/1.1",
                f"Host: {HOST}",
                f"Authorization: Token {token}",
                "Content-Type: application/json",
                "Accept: application/json",
                *lines,
            ]
        )
        + "\r\n\r\n"
    ).encode()


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def answer_of(sock: socket.socket) -> http.client.HTTPResponse:
    response = http.client.HTTPResponse(sock, method="POST")
    response.begin()
    return response


def problem_of(response: http.client.HTTPResponse, status: int, code: str) -> dict[str, Any]:
    raw = response.read()
    assert response.status == status, raw[:500]
    assert response.getheader("Content-Type") == PROBLEM_CONTENT_TYPE
    document: dict[str, Any] = json.loads(raw)
    assert (document["status"], document["code"]) == (status, code), document
    return document


def test_a_chunked_body_is_honoured(server: Served, token: str) -> None:
    """The body comes in three chunks, without Content-Length; the game is the one asked for
    (private, two_player), and the keep-alive connection serves the next request."""
    conn = http.client.HTTPConnection(HOST, server.port, timeout=30)
    data = json.dumps(PRIVATE_GAME).encode()
    parts = iter([data[:5], data[5:20], data[20:]])
    conn.request(
        "POST",
        "/api/v1/games/",
        body=parts,
        headers={
            "Authorization": f"Token {token}",
            "Content-Type": "application/json",
            "Accept": "application/json",
        },
        encode_chunked=True,
    )
    response = conn.getresponse()
    game = json.loads(response.read())
    assert response.status == 201, game
    assert (game["preset"], game["is_public"], game["your_seat"]) == ("two_player", False, 1)
    conn.request("GET", f"/api/v1/games/{game['id']}/", headers={"Authorization": f"Token {token}"})
    again = conn.getresponse()
    assert again.status == 200
    assert json.loads(again.read())["is_public"] is False
    conn.close()


def test_a_chunked_body_of_exactly_the_limit_is_accepted(server: Served, token: str) -> None:
    data = padded(PRIVATE_GAME, LIMIT)
    with socket.create_connection((HOST, server.port), timeout=30) as sock:
        sock.sendall(head(token, "Transfer-Encoding: chunked"))
        for start in range(0, len(data), 50_000):
            sock.sendall(chunk(data[start : start + 50_000]))
        sock.sendall(b"0\r\n\r\n")
        response = answer_of(sock)
        game = json.loads(response.read())
    assert response.status == 201, game
    assert (game["preset"], game["is_public"]) == ("two_player", False)


def test_a_chunked_body_over_the_limit_is_refused(server: Served, token: str) -> None:
    before = server.games()
    data = padded(PRIVATE_GAME, LIMIT + 1)
    with socket.create_connection((HOST, server.port), timeout=30) as sock:
        sock.sendall(head(token, "Transfer-Encoding: chunked"))
        sock.sendall(chunk(data) + b"0\r\n\r\n")
        document = problem_of(answer_of(sock), 413, "body_too_large")
    assert document["max_body_bytes"] == LIMIT
    assert document["instance"] == "/api/v1/games/"
    assert server.games() == before


def test_a_declared_length_over_the_limit_is_refused_before_the_body_is_read(
    server: Served, token: str
) -> None:
    """Content-Length says 1 GiB; only the head and 4 KiB are sent, and the answer comes."""
    before = server.games()
    with socket.create_connection((HOST, server.port), timeout=10) as sock:
        sock.sendall(head(token, f"Content-Length: {1 << 30}") + b" " * 4096)
        document = problem_of(answer_of(sock), 413, "body_too_large")
    assert document["max_body_bytes"] == LIMIT
    assert server.games() == before


def test_a_huge_chunked_body_is_cut_off_early_and_never_stored(server: Served, token: str) -> None:
    """64 MiB sent in chunks of 64 KiB: the server answers 413 and stops reading long before
    the end, and at no point holds a temporary file."""
    total, block = 64 << 20, 64 << 10
    before = server.games()
    piece = chunk(b" " * block)
    sent, temp_files = 0, []
    with socket.create_connection((HOST, server.port), timeout=10) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, block)
        sock.sendall(head(token, "Transfer-Encoding: chunked") + chunk(b"{"))
        with contextlib.suppress(OSError):  # the server closed while we sent: expected
            while sent < total:
                if select.select([sock], [], [], 0)[0]:
                    break  # the answer has come
                sock.sendall(piece)
                sent += block
                if sent % (1 << 20) == 0:
                    temp_files += server.temp_files()
        response = answer_of(sock)
        document = problem_of(response, 413, "body_too_large")
    assert document["max_body_bytes"] == LIMIT
    assert sent < 16 << 20, f"{sent >> 20} MiB of 64 were taken before the answer"
    assert temp_files == [], "the body was spooled to disk"
    assert server.games() == before


# ============================================================================== nginx
def nginx_refusal(conf: str) -> tuple[int, dict[str, Any]]:
    found = re.search(r"location @body_too_large \{.*?return (\d+) '(.*?)';", conf, re.S)
    assert found, "no @body_too_large location"
    return int(found.group(1)), json.loads(found.group(2))


def test_nginx_refuses_an_oversized_body_with_the_apps_problem_document() -> None:
    conf = harness.nginx_config("127.0.0.1:8000", "api:8000", "live:8001", "/tmp/x", "off", 4096)
    assert re.search(r"^\s*client_max_body_size 4096;$", conf, re.M)
    assert re.search(r"^\s*error_page 413 = @body_too_large;$", conf, re.M)
    status, document = nginx_refusal(conf)
    assert status == 413
    assert document == problem_body(
        code="body_too_large", detail=document["detail"], extra={"max_body_bytes": 4096}
    )


def test_nginx_replaces_forwarded_for_and_answers_its_400_as_the_apps_problem() -> None:
    """nginx is the edge: the app sees the address nginx saw, never a header the client wrote
    (rate limits count per client address); nginx's own 400 is the app's problem document."""
    conf = harness.nginx_config("127.0.0.1:8000", "api:8000", "live:8001", "/tmp/x", "off", 4096)
    forwarded = re.findall(r"proxy_set_header X-Forwarded-For (\S+);", conf)
    assert forwarded and set(forwarded) == {"$remote_addr"}
    assert re.search(r"^\s*error_page 400 494 =400 /__problem/bad_request;$", conf, re.M)
    found = re.search(r"location = /__problem/bad_request \{.*?return (\d+) '(.*?)';", conf, re.S)
    assert found and int(found.group(1)) == 400
    document = json.loads(found.group(2))
    assert document == problem_body(code="bad_request", detail=document["detail"])


def test_nginx_answers_its_413_as_json() -> None:
    """nginx itself (upstreams that do not exist: the refusal never reaches them) for a
    declared length over the limit and for a chunked body over it, and its 400 for a NUL in
    the path."""
    try:
        binary = harness.nginx_binary()
    except RuntimeError:
        if in_ci():
            raise
        pytest.skip("nginx is not installed: its own 413 is checked only through its config")
    with tempfile.TemporaryDirectory(prefix="canasta-bodies-nginx-") as tmp:
        Path(tmp).chmod(0o755)
        port = harness.free_port()
        conf = Path(tmp) / "nginx.conf"
        conf.write_text(
            harness.nginx_config(
                f"{HOST}:{port}", f"{HOST}:1", f"{HOST}:2", tmp, "off", max_body_bytes=LIMIT
            )
        )
        process = subprocess.Popen(
            [binary, "-e", "stderr", "-p", tmp, "-c", str(conf), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 20
            while True:
                with contextlib.suppress(OSError), socket.create_connection((HOST, port), 0.5):
                    break
                assert process.poll() is None and time.monotonic() < deadline, "nginx died"
                time.sleep(0.1)
            for framing, body in (
                (f"Content-Length: {1 << 30}", b" " * 4096),
                ("Transfer-Encoding: chunked", chunk(b" " * (LIMIT + 1)) + b"0\r\n\r\n"),
            ):
                with socket.create_connection((HOST, port), timeout=10) as sock:
                    sock.sendall(head("x", framing) + body)
                    document = problem_of(answer_of(sock), 413, "body_too_large")
                assert document["max_body_bytes"] == LIMIT
            # A NUL in the path: nginx refuses it itself, with the app's problem document.
            with socket.create_connection((HOST, port), timeout=10) as sock:
                sock.sendall(b"GET /api/v1/games/join/%00/ HTTP/1.1\r\nHost: x\r\n\r\n")
                problem_of(answer_of(sock), 400, "bad_request")
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=10)
