"""The live transport's holes (third hardening round, findings 2 and 14), checked where they live.

- nginx sends every live path (socket, stream, events, table events, the quick-play queue) to
  the live server with or without the trailing slash and with a query string (a real nginx in
  front of two recording upstreams), and the production serving (nginx, the WSGI API with one
  thread, the live server with two uvicorn workers, Redis) serves a slash-less long-poll and
  socket from the live server while the API's only thread stays free.
- The live server caps each player's live connections across its processes (Redis), meters
  each socket's messages, and says nothing in its log when clients leave mid-action.
- In-process (the ASGI application): one action in flight per socket; the per-process count
  without Redis; a lease of a dead process no longer counts once expired.

The WSGI side of finding 2 (a long-poll that reaches the WSGI API is answered at once) is in
tests/games/services/table/test_live.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import redis
from asgiref.sync import async_to_sync
from django.conf import settings
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bench import harness
from bench import live as live_bench
from games import errors
from games.realtime import limits
from tests.conftest import ROOT, in_ci
from tests.games.api.conftest import PlayerClient, two_player_game
from tests.games.api.test_socket import Socket

HOST = "127.0.0.1"
WAIT = 10.0  # the bound of every wait (never reached when all is well)
CAP = 3  # LIVE_CONNECTIONS_PER_PLAYER_MAX of the serving below
RATE = 5  # LIVE_SOCKET_MESSAGES_PER_SECOND of the serving below


def _nginx() -> str:
    try:
        return harness.nginx_binary()
    except RuntimeError:
        if in_ci():
            raise
        pytest.skip("nginx is not installed (apt-get install nginx-light)")


def _up(port: int, path: str = "/api/v1/health/") -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}{path}", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        assert time.monotonic() < deadline, f"nothing answers on {port}"
        time.sleep(0.2)


def _nginx_start(directory: Path, port: int, api: int, live: int) -> subprocess.Popen[bytes]:
    directory.chmod(0o755)  # nginx's workers run as nobody when the master is root
    conf = directory / "nginx.conf"
    conf.write_text(
        harness.nginx_config(f"{HOST}:{port}", f"{HOST}:{api}", f"{HOST}:{live}", str(directory))
    )
    return subprocess.Popen(
        [_nginx(), "-e", "stderr", "-p", str(directory), "-c", str(conf), "-g", "daemon off;"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


# ============================================================================== nginx routing
class _Recorder(BaseHTTPRequestHandler):
    """An upstream that answers with its own name."""

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        body = self.server.name.encode()  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@contextlib.contextmanager
def _recorder(name: str) -> Iterator[int]:
    server = ThreadingHTTPServer((HOST, 0), _Recorder)
    server.name = name  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()


LIVE_PATHS = [
    "/api/v1/games/12/socket/?cursor=3-0",
    "/api/v1/games/12/socket?cursor=3-0",
    "/api/v1/games/12/socket",
    "/api/v1/games/12/stream/",
    "/api/v1/games/12/stream?after=3",
    "/api/v1/games/12/stream",
    "/api/v1/games/12/events/?after=3&wait=25",
    "/api/v1/games/12/events?after=3&wait=25",
    "/api/v1/games/12/events",
    "/api/v1/games/12//events?wait=25",
    "/api/v1/games/12/%65vents?wait=25",
    "/api/v1/games/12/table/events/?after=0&wait=25",
    "/api/v1/games/12/table/events?after=0&wait=25",
    "/api/v1/queue/?wait=25",
    "/api/v1/queue?wait=25",
]
API_PATHS = [
    "/",
    "/api/v1/games/",
    "/api/v1/games/12/",
    "/api/v1/games/12",
    "/api/v1/games/12/actions/",
    "/api/v1/games/12/eventsx?wait=25",
    "/api/v1/games/12/table/",
    "/api/v1/games/12/replay/",
    "/api/v1/players/me/",
    "/api/v1/queues/",
]


def test_nginx_sends_every_live_path_to_the_live_server(tmp_path: Path) -> None:
    """With or without the trailing slash, with a query string, after nginx's own
    normalisation (merged slashes, decoded escapes); everything else to the API."""
    port = harness.free_port()
    with _recorder("api") as api, _recorder("live") as live:
        nginx = _nginx_start(tmp_path, port, api, live)
        try:
            _up(port, "/api/v1/games/1/events")
            routed = {}
            for path in LIVE_PATHS + API_PATHS:
                with urllib.request.urlopen(f"http://{HOST}:{port}{path}", timeout=WAIT) as r:
                    routed[path] = r.read().decode()
        finally:
            _stop(nginx)
    assert {p: routed[p] for p in LIVE_PATHS} == dict.fromkeys(LIVE_PATHS, "live")
    assert {p: routed[p] for p in API_PATHS} == dict.fromkeys(API_PATHS, "api")


# ============================================================================== the serving
@dataclass
class Serving:
    port: int  # nginx
    api: int
    live: int
    live_log: Path
    redis_url: str

    def log(self) -> str:
        return self.live_log.read_text(errors="replace")


@pytest.fixture(scope="module")
def serving(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serving]:
    """docker-compose's serving on loopback: nginx (deploy/nginx.conf) in front of the WSGI API
    (gunicorn gthread, ONE thread, so that a parked request shows) and the live server (gunicorn
    with the live worker, two processes), a fresh SQLite database, the test's Redis database
    for wake-ups and connection counts; caps lowered (CAP, RATE)."""
    redis_url = settings.REDIS_URL
    if not redis_url:  # CI's SQLite run has none; its PostgreSQL + Redis run has
        pytest.skip("needs REDIS_URL=redis://... (the CI run on Redis: cross-process counts)")
    _nginx()
    redis.Redis.from_url(redis_url).delete(
        *[f"{limits.KEY_PREFIX}{i}" for i in range(1, 50)]  # player ids of a fresh database
    )
    tmp = tmp_path_factory.mktemp("live-serving")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "canasta_service.settings",
        "DEBUG": "0",
        "SECRET_KEY": "live-limits-test-only",
        "ALLOWED_HOSTS": f"{HOST},localhost",
        "DATABASE_URL": f"sqlite:///{tmp}/db.sqlite3",
        "DATABASE_CONN_MAX_AGE": "0",
        "DATABASE_POOL_SIZE": "0",
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": "memory://",  # no worker here: tasks are dropped
        "TRUSTED_PROXIES": HOST,
        "THROTTLE_SIGNUP": "off",
        "THROTTLE_ACTIONS": "off",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
        "LIVE_CONNECTIONS_PER_PLAYER_MAX": str(CAP),
        "LIVE_SOCKET_MESSAGES_PER_SECOND": str(RATE),
    }
    env.pop("CACHE_URL", None)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=env,
        check=True,
    )
    api, live, port = harness.free_port(), harness.free_port(), harness.free_port()
    gunicorn = [sys.executable, "-m", "gunicorn", "--log-level=warning", "--keep-alive=75"]
    processes = []
    live_log = tmp / "live.log"
    for args, log in (
        (
            [
                "canasta_service.wsgi:application",
                "--worker-class=gthread",
                "--threads=1",
                "--workers=1",
                f"--bind={HOST}:{api}",
            ],
            tmp / "api.log",
        ),
        (
            [
                "canasta_service.asgi:application",
                "--worker-class=canasta_service.live_worker.LiveWorker",
                "--workers=2",
                f"--bind={HOST}:{live}",
            ],
            live_log,
        ),
    ):
        with log.open("wb") as out:
            processes.append(
                subprocess.Popen(
                    gunicorn + args,
                    cwd=ROOT,
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            )
    nginx_dir = tmp / "nginx"
    nginx_dir.mkdir()
    processes.append(_nginx_start(nginx_dir, port, api, live))
    try:
        for each in (api, live, port):
            _up(each)
        yield Serving(port, api, live, live_log, redis_url)
    finally:
        for process in reversed(processes):
            _stop(process)


async def _players(s: Serving, *names: str) -> list[str]:
    return [await live_bench.signup(s.port, name) for name in names]


def _ws(s: Serving, game_id: int, token: str, tail: str = "socket/") -> Any:
    return connect(
        f"ws://{HOST}:{s.port}/api/v1/games/{game_id}/{tail}",
        additional_headers={"Authorization": f"Token {token}"},
        open_timeout=WAIT,
    )


async def _first(socket: ClientConnection) -> dict[str, Any]:
    async with asyncio.timeout(WAIT):
        message: dict[str, Any] = json.loads(await socket.recv())
    return message


async def _close_code(socket: ClientConnection) -> int:
    """Read until the server closes the socket: its close code."""
    with pytest.raises(ConnectionClosed) as closed:
        async with asyncio.timeout(WAIT):
            while True:
                await socket.recv()
    assert closed.value.rcvd is not None, "the client closed, not the server"
    return int(closed.value.rcvd.code)


class Raw:
    """One HTTP request on its own connection, read as it comes."""

    def __init__(self, port: int, path: str, token: str) -> None:
        self.port, self.path, self.token = port, path, token
        self.data = b""
        self.task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        reader, writer = await asyncio.open_connection(HOST, self.port)
        writer.write(
            f"GET {self.path} HTTP/1.1\r\nHost: {HOST}\r\nAuthorization: Token {self.token}\r\n"
            "Accept: application/json, text/event-stream\r\nConnection: close\r\n\r\n".encode()
        )
        try:
            while chunk := await reader.read(65536):
                self.data += chunk
        finally:
            writer.close()

    def start(self) -> Raw:
        self.task = asyncio.get_running_loop().create_task(self._run())
        return self

    async def until(self, text: bytes) -> None:
        async with asyncio.timeout(WAIT):
            while text not in self.data:
                assert self.task is not None
                if self.task.done():
                    self.task.result()
                    assert text in self.data, self.data[:400]
                await asyncio.sleep(0.02)

    async def done(self) -> tuple[int, dict[str, str], bytes]:
        assert self.task is not None
        async with asyncio.timeout(WAIT):
            await self.task
        head, _, body = self.data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = dict(line.lower().split(": ", 1) for line in lines[1:])
        return int(lines[0].split()[1]), headers, body

    def close(self) -> None:
        if self.task is not None:
            self.task.cancel()


# ------------------------------------------------------------------------------ finding 2
def test_a_slash_less_long_poll_waits_on_the_live_server(serving: Serving) -> None:
    """``.../events?wait=30`` through nginx waits on the live server: meanwhile the API's only
    thread answers ``GET /players/me/`` and takes the move that wakes the long-poll, whose
    answer is that move (a WSGI server would have held its thread for the 30 s, or, refusing
    to wait, answered at once without the move). A slash-less socket is served too."""

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        ada, bob = await _players(serving, "Ada", "Bob")
        game = await live_bench.new_game(serving.port, {0: ada, 1: bob})
        version = game.version
        poll = Raw(
            serving.port, f"/api/v1/games/{game.id}/events?after={version}&wait=30", bob
        ).start()
        async with _ws(serving, game.id, ada, "socket") as socket:
            synced = await _first(socket)
        me = live_bench.Conn(serving.port, bob)
        status, body = await me.request("GET", "/api/v1/players/me/", timeout=WAIT)
        assert status == 200, body
        me.close()
        assert not poll.data, "the long-poll was answered before any move"
        await game.move()
        status, _, answer = await poll.done()
        assert status == 200, answer
        game.close()
        return synced, json.loads(answer)

    synced, answer = asyncio.run(scenario())
    assert synced["type"] == "sync"
    assert [e["seq"] for e in answer["events"]] == [answer["version"]]


# ------------------------------------------------------------------------------ finding 14
def test_live_connections_per_player_are_capped_across_processes(serving: Serving) -> None:
    """CAP connections of one player (sockets, a stream) are served by either live process;
    one more is refused (a socket closed 4429, a stream or a waiting long-poll 429
    ``too_many_live_connections`` with Retry-After); another player is not affected; a
    connection closed frees its place, and once all are closed nothing is counted."""

    async def scenario() -> dict[str, Any]:
        ada, bob = await _players(serving, "Cat", "Dan")
        game = await live_bench.new_game(serving.port, {0: ada, 1: bob})
        base = f"/api/v1/games/{game.id}"
        held = []
        for _ in range(CAP - 1):
            socket = await _ws(serving, game.id, ada)
            assert (await _first(socket))["type"] == "sync"
            held.append(socket)
        stream = Raw(serving.port, f"{base}/stream?after={game.version}", ada).start()
        await stream.until(b"event: sync")
        over = await _ws(serving, game.id, ada)
        over_code = await _close_code(over)
        refused = {}
        for name, path in (
            ("stream", f"{base}/stream/"),
            ("long_poll", f"{base}/events?after={game.version}&wait=30"),
        ):
            refused[name] = await Raw(serving.port, path, ada).start().done()
        async with _ws(serving, game.id, bob) as other:
            other_first = await _first(other)
        await held.pop().close()
        async with asyncio.timeout(WAIT):  # its place is freed as the server sees it go
            while True:
                again = await _ws(serving, game.id, ada)
                try:
                    if json.loads(await again.recv())["type"] == "sync":
                        break
                except ConnectionClosed:
                    await asyncio.sleep(0.1)
        await again.close()
        stream.close()
        for socket in held:
            await socket.close()
        counted = redis.Redis.from_url(serving.redis_url)
        key = f"{limits.KEY_PREFIX}{(await _me(serving, ada))['id']}"
        async with asyncio.timeout(WAIT):
            while counted.zcard(key):
                await asyncio.sleep(0.1)
        game.close()
        return {"over": over_code, "refused": refused, "other": other_first}

    result = asyncio.run(scenario())
    assert result["over"] == 4429
    for status, headers, body in result["refused"].values():
        assert status == 429, body
        assert headers["content-type"] == "application/problem+json"
        assert int(headers["retry-after"]) > 0
        document = json.loads(body)
        assert document["code"] == "too_many_live_connections"
        assert document["retry_after"] == int(headers["retry-after"])
    assert result["other"]["type"] == "sync"


async def _me(s: Serving, token: str) -> dict[str, Any]:
    status, body = await live_bench.Conn(s.port, token).request("GET", "/api/v1/players/me/")
    assert status == 200, body
    me: dict[str, Any] = body
    return me


def test_a_socket_over_its_message_rate_is_answered_then_closed(serving: Serving) -> None:
    """60 pings at once: the first are answered, the rest get ``socket_rate_limited`` errors
    until the socket is closed with 4429; nothing of the sort is queued for later."""

    async def scenario() -> tuple[list[dict[str, Any]], int]:
        ada, bob = await _players(serving, "Eve", "Fay")
        game = await live_bench.new_game(serving.port, {0: ada, 1: bob})
        socket = await _ws(serving, game.id, ada)
        assert (await _first(socket))["type"] == "sync"
        for i in range(60):
            await socket.send(json.dumps({"type": "ping", "request_id": i}))
        got = []
        with pytest.raises(ConnectionClosed) as closed:
            async with asyncio.timeout(WAIT):
                while True:
                    got.append(json.loads(await socket.recv()))
        game.close()
        assert closed.value.rcvd is not None
        return got, closed.value.rcvd.code

    got, code = asyncio.run(scenario())
    pongs = [m for m in got if m["type"] == "pong"]
    errors = [m["problem"]["code"] for m in got if m["type"] == "error"]
    assert code == 4429
    assert 1 <= len(pongs) < 60 and set(errors) == {"socket_rate_limited"}
    assert len(pongs) + len(errors) < 60, "every message was handled"


def test_clients_leaving_mid_action_leave_no_traceback(serving: Serving) -> None:
    """Sockets that send an action (and pings) and go at once: the answers that cannot be sent
    are dropped quietly; the live server's log has no traceback."""

    async def scenario() -> None:
        ada, bob = await _players(serving, "Gil", "Hal")
        game = await live_bench.new_game(serving.port, {0: ada, 1: bob})
        for i in range(20):
            seat = game.view["state"]["to_act"]
            async with asyncio.timeout(WAIT):
                while True:  # the previous socket's place may not be freed yet
                    socket = await _ws(serving, game.id, game.tokens[seat])
                    try:
                        if json.loads(await socket.recv())["type"] == "sync":
                            break
                    except ConnectionClosed:
                        await asyncio.sleep(0.1)
            action = {"type": "draw"} if i % 2 else {"type": "nonsense"}
            await socket.send(
                json.dumps(
                    {
                        "type": "action",
                        "request_id": i,
                        "action": action,
                        "expected_version": game.version + 99,  # stale: nothing changes
                    }
                )
            )
            await socket.send(json.dumps({"type": "action", "request_id": "again"}))
            await socket.send(json.dumps({"type": "ping"}))
            socket.transport.abort()  # gone without a close handshake
        await asyncio.sleep(1)  # the answers the server still had to send
        status, _ = await live_bench.Conn(serving.port, ada).request("GET", "/api/v1/health/")
        assert status == 200
        game.close()

    asyncio.run(scenario())
    log = serving.log()
    for sign in ("Traceback", "Exception in ASGI application", "never retrieved"):
        assert sign not in log, log[-3000:]


# ============================================================================== in process
@pytest.mark.django_db(transaction=True)
def test_one_action_in_flight_per_socket(ada: PlayerClient, bob: PlayerClient) -> None:
    """While an action is being applied, another on the same socket is answered 429
    ``action_in_flight`` at once (not queued); the first is answered when it is done."""
    game_id = two_player_game(ada, bob)
    release = threading.Event()

    def slow(game_id: int, player: Any, message: dict[str, Any], language: str) -> dict[str, Any]:
        assert release.wait(WAIT)
        return {"status": 201, "replayed": False, "body": {"request": message["request_id"]}}

    async def scenario() -> list[dict[str, Any]]:
        socket = Socket(game_id, ada.token)
        assert await socket.open()
        assert (await socket.next())["type"] == "sync"
        await socket.send_json({"type": "action", "request_id": "first", "action": {}})
        await socket.send_json({"type": "action", "request_id": "second", "action": {}})
        results = lambda m: m["type"] == "action_result"  # noqa: E731 - (the log comes first)
        refused = (await socket.until(results))[-1]
        release.set()
        answered = (await socket.until(results))[-1]
        await socket.leave()
        return [refused, answered]

    with mock.patch("games.api.socket.action_answer", slow):
        refused, answered = async_to_sync(scenario)()
    assert refused["type"] == "action_result" and refused["request_id"] == "second"
    assert refused["status"] == 429 and refused["body"]["code"] == "action_in_flight"
    assert answered == {
        "type": "action_result",
        "request_id": "first",
        "status": 201,
        "replayed": False,
        "body": {"request": "first"},
    }


@pytest.mark.django_db(transaction=True)
def test_without_redis_each_process_counts_its_own(
    ada: PlayerClient, bob: PlayerClient, settings: Any
) -> None:
    settings.REDIS_URL = None
    settings.LIVE_CONNECTIONS_PER_PLAYER_MAX = 2
    game_id = two_player_game(ada, bob)

    async def scenario() -> tuple[bool, int]:
        held = []
        for _ in range(2):
            socket = Socket(game_id, ada.token)
            assert await socket.open()
            assert (await socket.next())["type"] == "sync"
            held.append(socket)
        over = Socket(game_id, ada.token)
        assert await over.open()
        code = await over.close_code()
        await held.pop().leave()
        again = Socket(game_id, ada.token)
        assert await again.open()
        reopened = (await again.next())["type"] == "sync"
        for socket in [*held, again]:
            await socket.leave()
        return reopened, code

    reopened, code = async_to_sync(scenario)()
    assert code == 4429 and reopened


def test_a_lease_of_a_dead_process_stops_counting(settings: Any) -> None:
    """A lease nobody refreshes (its process was killed) no longer counts once expired."""
    if not settings.REDIS_URL:
        pytest.skip("needs REDIS_URL")
    settings.LIVE_CONNECTIONS_PER_PLAYER_MAX = 1
    player_id = 10**9 + os.getpid()
    key = limits.lease_key(player_id)
    client = redis.Redis.from_url(settings.REDIS_URL)
    client.delete(key)
    now = time.time()

    async def take() -> bool:
        try:
            lease = await limits.connection_acquire(player_id)
        except errors.TooManyLiveConnections:
            return False
        await lease.release()
        return True

    try:
        client.zadd(key, {"alive": now + 600})  # another process's, refreshed
        refused = async_to_sync(take)()
        client.zadd(key, {"alive": now - 1})  # ... whose refreshes stopped
        taken = async_to_sync(take)()
        left = client.zcard(key)
    finally:
        client.delete(key)
    assert refused is False and taken is True and left == 0
