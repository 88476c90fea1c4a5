"""Live updates at scale: N clients follow games while moves are played, through the production
serving, side by side with a minimal asyncio fan-out of this module's own.

    python -m bench.live [--clients 200,1000,2000] [--moves 10] [--games 1,50]
                         [--transports sse,poll,ws] [--idle 10000] [--small]

The serving is docker-compose's (bench/harness.py, ``serving="production"``): nginx
(deploy/nginx.conf) in front of gunicorn gthread on the WSGI app (the REST API, 2 x 4) and
gunicorn with uvicorn workers on the ASGI app (the live endpoints, ``--live-workers``, a pool of
4 PostgreSQL connections each), a fresh PostgreSQL database, an empty Redis database index; no
Celery worker (two humans play through ``POST /actions/``). Every client connects through nginx.

For each N and each entry of ``--games`` G: N clients of each transport in turn (``sse``: the
event stream; ``poll``: the long-poll ``/events/?after=S&wait=30`` asked again after every
answer, on one keep-alive connection; ``ws``: the WebSocket, read by a minimal client of
its own like the stream's, so that neither figure includes a client library's cost),
spread over G games (half of them as one seat's player, half as the other's); then
every game plays ``--moves`` moves at once (each game's next move when all its clients have the
last one). Printed per run:

- delivery p50/p95/max: from just before the move's POST is sent to each client's receipt of
  its event (the POST's own time included, as for the reference, whose clock starts before its
  "tell" request); and the p50 from the POST's response;
- the move POST p50 with these clients waiting and with nobody waiting (as many games and
  moves, one move at a time: with G > 1 the first is measured with G games moving at once);
- server CPU per delivered event: utime + stime of every nginx, live and API process
  (``/proc/<pid>/stat``) over the moves, divided by the events delivered; "net" subtracts what the
  same number of moves cost with nobody waiting;
- RSS and threads of each live worker at the end of the moves;
- client errors; events missed and duplicated (counts), clients that received events out of
  order, moves not delivered to every client within 30 s ("late").

The reference (row ``reference``): a tiny asyncio HTTP server in a process of its own (this
module with ``--reference-server``) that holds N event streams and, when told (``POST /tell``),
writes one pre-built frame of the same size as ours to each; the same SSE client, the same N,
directly (no nginx, no database); and ``reference via nginx``: the same behind an nginx of
deploy/nginx.conf (the stream's location), to tell nginx's share from the app's.

``--idle K``: on a fresh stack per transport, K idle event streams (then K idle WebSockets)
through nginx; prints the resident memory of the live workers and the nginx workers per
connection (RSS after - before, / K), and the delivery of one move to all K.

``--small`` (CI): N=200, 5 moves, one game and 4 games, every transport, plus the reference;
exits 1 if any event was missed, duplicated or reordered, or any client got an error.

The soft limit of open files is raised to the hard one (the clients and the servers, which
inherit it, hold one each per connection). Traffic stays on the loopback interface.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import hashlib
import json
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
PREFERENCE = ("take_pile", "meld", "draw", "answer_partner", "discard", "decline_pile", "end_round")
TRANSPORTS = ("sse", "poll", "ws")


def raise_nofile() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


# ============================================================================== HTTP client
class Conn:
    """One keep-alive HTTP/1.1 connection (raw asyncio streams), JSON in and out."""

    def __init__(self, port: int, token: str | None = None) -> None:
        self.port = port
        self.token = token
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def _open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(HOST, self.port)

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None

    async def request(
        self, method: str, path: str, body: Any = None, timeout: float = 60
    ) -> tuple[int, Any]:
        payload = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", f"Host: {HOST}", "Accept: application/json"]
        if self.token:
            head.append(f"Authorization: Token {self.token}")
        if body is not None:
            head.append("Content-Type: application/json")
        head.append(f"Content-Length: {len(payload)}")
        data = ("\r\n".join(head) + "\r\n\r\n").encode() + payload
        for attempt in (0, 1):
            fresh = self.writer is None
            if fresh:
                await self._open()
            assert self.reader is not None and self.writer is not None
            try:
                self.writer.write(data)
                return await asyncio.wait_for(read_response(self.reader, self), timeout)
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()  # the server closed an idle keep-alive connection
                if fresh or attempt:
                    raise
        raise AssertionError("unreachable")


async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    raw = await reader.readuntil(b"\r\n\r\n")
    lines = raw.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    return status, headers


async def read_response(reader: asyncio.StreamReader, conn: Conn | None = None) -> tuple[int, Any]:
    status, headers = await read_head(reader)
    if headers.get("transfer-encoding", "").lower() == "chunked":
        content = bytearray()
        while True:
            size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                await reader.readline()
                break
            content += await reader.readexactly(size + 2)
            del content[-2:]
    elif "content-length" in headers:
        content = bytearray(await reader.readexactly(int(headers["content-length"])))
    else:
        content = bytearray(await reader.read())
    if conn is not None and headers.get("connection", "").lower() == "close":
        conn.close()
    if not content:
        return status, None
    try:
        return status, json.loads(content)
    except ValueError:
        return status, content.decode(errors="replace")


# ============================================================================== followers
class Tracker:
    """Who has received what: a move's waiter learns when every client of its game has it."""

    def __init__(self) -> None:
        self.pending: dict[tuple[int, int], int] = {}
        self.done: dict[tuple[int, int], asyncio.Event] = {}

    def expect(self, game_id: int, seq: int, count: int) -> asyncio.Event:
        key = (game_id, seq)
        self.pending[key] = count
        self.done[key] = event = asyncio.Event()
        if count == 0:
            event.set()
        return event

    def got(self, game_id: int, seq: int) -> None:
        key = (game_id, seq)
        left = self.pending.get(key)
        if left is not None:
            self.pending[key] = left - 1
            if left == 1:
                self.done[key].set()


@dataclass(eq=False)
class Client:
    kind: str  # sse | poll | ws
    port: int
    path: str  # "/api/v1/games/{id}" (the reference: "")
    game_id: int
    token: str
    after: int
    tracker: Tracker | None = None
    seen: list[int] = field(default_factory=list)
    at: dict[int, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    data_bytes: int = 0  # size of the last game_event data received

    def record(self, seq: int) -> None:
        now = time.monotonic()
        self.seen.append(seq)
        if seq not in self.at:
            self.at[seq] = now
            if self.tracker is not None:
                self.tracker.got(self.game_id, seq)

    async def run(self) -> None:
        try:
            await {"sse": self._sse, "poll": self._poll, "ws": self._ws}[self.kind]()
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a client error, reported
            self.errors.append(f"{self.kind}: {exc!r}"[:300])
        finally:
            self.ready.set()

    async def _sse(self) -> None:
        reader, writer = await asyncio.open_connection(HOST, self.port)
        try:
            writer.write(
                (
                    f"GET {self.path}/stream/?after={self.after}&timeout=3600 HTTP/1.1\r\n"
                    f"Host: {HOST}\r\nAuthorization: Token {self.token}\r\n"
                    "Accept: text/event-stream\r\n\r\n"
                ).encode()
            )
            status, headers = await asyncio.wait_for(read_head(reader), 120)
            if status != 200:
                self.errors.append(f"sse: status {status}")
                return
            chunked = headers.get("transfer-encoding", "").lower() == "chunked"
            buffer = b""
            while True:
                if chunked:
                    size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        return
                    data = await reader.readexactly(size + 2)
                    buffer += data[:-2]
                else:
                    data = await reader.read(65536)
                    if not data:
                        return
                    buffer += data
                *frames, buffer = buffer.split(b"\n\n")
                for frame in frames:
                    if self._frame(frame):
                        return
        finally:
            writer.close()

    def _frame(self, frame: bytes) -> bool:
        """Handle one SSE frame; True at the end of the stream."""
        name, data = b"", b""
        for line in frame.split(b"\n"):
            if line.startswith(b"event: "):
                name = line[7:]
            elif line.startswith(b"data: "):
                data = line[6:]
        if name == b"game_event":
            self.data_bytes = len(data)
            self.record(json.loads(data)["event"]["seq"])
        elif name == b"sync":
            self.ready.set()
        elif name == b"end":
            return True
        return False

    async def _poll(self) -> None:
        conn = Conn(self.port, self.token)
        after = self.after
        try:
            while True:
                request = conn.request(
                    "GET", f"{self.path}/events/?after={after}&wait=30", timeout=90
                )
                task = asyncio.ensure_future(request)
                await asyncio.sleep(0)
                self.ready.set()
                status, body = await task
                if status != 200:
                    self.errors.append(f"poll: status {status} {str(body)[:100]}")
                    await asyncio.sleep(0.5)
                    continue
                for event in body["events"]:
                    self.record(event["seq"])
                    after = max(after, event["seq"])
        finally:
            conn.close()

    async def _ws(self) -> None:
        if WS_COMPRESSION[0]:
            await self._ws_library()
            return
        # A minimal client, as the stream's is: the handshake and unmasked server frames read
        # straight off the socket, so that the figure measures the server, not a client library.
        reader, writer = await asyncio.open_connection(HOST, self.port)
        try:
            key = base64.b64encode(os.urandom(16)).decode()
            writer.write(
                (
                    f"GET {self.path}/socket/?cursor={self.after}-0 HTTP/1.1\r\n"
                    f"Host: {HOST}:{self.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                    f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
                    f"Authorization: Token {self.token}\r\n\r\n"
                ).encode()
            )
            status, headers = await asyncio.wait_for(read_head(reader), 120)
            accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
            if status != 101 or headers.get("sec-websocket-accept") != accept:
                self.errors.append(f"ws: handshake answered {status}")
                return
            message = b""
            while True:
                head = await reader.readexactly(2)
                opcode, size = head[0] & 0x0F, head[1] & 0x7F
                if size >= 126:
                    extra = await reader.readexactly(2 if size == 126 else 8)
                    size = int.from_bytes(extra, "big")
                if head[1] & 0x80:
                    self.errors.append("ws: a masked frame from the server")
                    return
                payload = await reader.readexactly(size)
                if opcode == 0x8:  # close: answer it and stop
                    writer.write(ws_client_frame(0x8, payload[:2]))
                    return
                if opcode == 0x9:
                    writer.write(ws_client_frame(0xA, payload))
                    continue
                if opcode in (0x0, 0x1):
                    message += payload
                    if head[0] & 0x80 and self._ws_message(message):
                        return
                    if head[0] & 0x80:
                        message = b""
        finally:
            writer.close()

    def _ws_message(self, message: bytes) -> bool:
        """Handle one socket message; True at the end of the game."""
        item = json.loads(message)
        kind = item.get("type")
        if kind == "game_event":
            self.record(item["event"]["seq"])
        elif kind == "sync":
            self.ready.set()
        elif kind == "end":
            return True
        elif kind == "error":
            self.errors.append(f"ws: {item}"[:300])
        return False

    async def _ws_library(self) -> None:
        """The websockets library's client, which can offer permessage-deflate."""
        from websockets.asyncio.client import connect

        url = f"ws://{HOST}:{self.port}{self.path}/socket/?cursor={self.after}-0"
        async with connect(
            url,
            additional_headers={"Authorization": f"Token {self.token}"},
            open_timeout=120,
            ping_interval=None,
            compression=WS_COMPRESSION[0],
            max_size=2**22,
        ) as ws:
            async for message in ws:
                if self._ws_message(message.encode() if isinstance(message, str) else message):
                    return


WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def ws_client_frame(opcode: int, payload: bytes) -> bytes:
    """One final client frame (clients mask theirs; payloads here are under 126 bytes)."""
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x80 | opcode, 0x80 | len(payload)]) + mask + masked


WS_COMPRESSION: list[str | None] = [None]  # "deflate": as browsers offer it


async def open_clients(clients: list[Client], in_flight: int = 200) -> list[asyncio.Task[None]]:
    """Start every client, at most ``in_flight`` connecting at once; returns their tasks once
    all are ready (their stream or socket synced, their first long-poll sent)."""
    gate = asyncio.Semaphore(in_flight)
    tasks = []

    async def start(client: Client) -> None:
        async with gate:
            tasks.append(asyncio.ensure_future(client.run()))
            await asyncio.wait_for(client.ready.wait(), 180)

    await asyncio.gather(*(start(c) for c in clients))
    return tasks


async def close_clients(tasks: list[asyncio.Task[None]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


# ============================================================================== games
def choose(legal: list[dict[str, Any]]) -> dict[str, Any]:
    return min(legal, key=lambda a: PREFERENCE.index(a["type"]))


def expect(status: int, wanted: int, body: Any) -> None:
    if status != wanted:
        raise RuntimeError(f"the server answered {status}, not {wanted}: {str(body)[:300]}")


@dataclass(eq=False)
class Game:
    id: int
    tokens: dict[int, str]
    conns: dict[int, Conn]
    view: dict[str, Any]  # the latest view of the game (of the seat that fetched it)
    start: int  # its version when the clients joined
    clients: list[Client] = field(default_factory=list)

    @property
    def version(self) -> int:
        return int(self.view["version"])

    async def move(self) -> tuple[float, float, int]:
        """The seat to act plays a simple legal action; (time before the POST, time after its
        response, the new version)."""
        seat = self.view["state"]["to_act"]
        if self.view.get("your_seat") != seat:
            status, self.view = await self.conns[seat].request("GET", f"/api/v1/games/{self.id}/")
            expect(status, 200, self.view)
        action = choose(self.view["state"]["legal_actions"])
        body = {"action": action, "expected_version": self.version}
        sent = time.monotonic()
        status, answer = await self.conns[seat].request(
            "POST", f"/api/v1/games/{self.id}/actions/", body
        )
        answered = time.monotonic()
        expect(status, 201, answer)
        self.view = answer["game"]
        return sent, answered, self.version

    def close(self) -> None:
        for conn in self.conns.values():
            conn.close()


async def signup(port: int, name: str) -> str:
    status, body = await Conn(port).request("POST", "/api/v1/players/", {"display_name": name})
    expect(status, 201, body)
    return str(body["token"])


async def new_game(port: int, tokens: dict[int, str]) -> Game:
    conns = {seat: Conn(port, token) for seat, token in tokens.items()}
    status, game = await conns[0].request(
        "POST", "/api/v1/games/", {"preset": "two_player", "seat": 0}
    )
    expect(status, 201, game)
    status, body = await conns[1].request("POST", f"/api/v1/games/{game['id']}/join/", {})
    expect(status, 200, body)
    status, game = await conns[0].request("POST", f"/api/v1/games/{game['id']}/start/", {})
    expect(status, 200, game)
    return Game(game["id"], tokens, conns, game, int(game["version"]))


# ============================================================================== one run
@dataclass
class Target:
    """Where clients connect and which processes serve them (name -> master pid)."""

    port: int
    masters: dict[str, int]

    def pids(self) -> list[int]:
        from bench.harness import process_tree

        return [pid for master in self.masters.values() for pid in process_tree(master)]

    def workers(self, name: str) -> list[int]:
        from bench.harness import process_tree

        master = self.masters.get(name)
        return process_tree(master)[1:] if master else []


@dataclass
class Result:
    label: str
    clients: int
    games: int
    moves: int
    delivery: list[float] = field(default_factory=list)  # from before the POST (s)
    after_response: list[float] = field(default_factory=list)  # from the POST's response (s)
    posts: list[float] = field(default_factory=list)
    cpu: float = 0.0
    events: int = 0
    errors: list[str] = field(default_factory=list)
    missed: int = 0
    duplicated: int = 0
    reordered: int = 0
    late: int = 0  # moves not delivered to everyone within the time allowed
    workers: list[tuple[int, int]] = field(default_factory=list)  # live workers: (KiB, threads)
    data_bytes: int = 0
    early: bool = False  # a client was answered before any move
    probe: Any = None
    probe_seconds: float = 0.0

    def failed(self) -> bool:
        return bool(self.errors or self.missed or self.duplicated or self.reordered or self.late)


def check(result: Result, clients: list[Client], expected: dict[int, list[int]]) -> None:
    for client in clients:
        want = expected[client.game_id]
        result.missed += len(set(want) - set(client.seen))
        result.duplicated += len(client.seen) - len(set(client.seen))
        result.reordered += client.seen != sorted(client.seen)
        result.errors += client.errors
        result.data_bytes = max(result.data_bytes, client.data_bytes)


async def run_clients(
    target: Target,
    label: str,
    games: list[Game],
    n: int,
    transports: list[str],
    moves: int,
    settle: float = 1.0,
    probe: Callable[[], Awaitable[Any]] | None = None,
) -> Result:
    """N clients spread over ``games`` (and over ``transports``), then ``moves`` moves in every
    game at once. ``probe``, if given, runs once every client waits (its answer in
    ``Result.probe``, the seconds it took in ``probe_seconds``)."""
    from bench.harness import cpu_seconds, memory

    tracker = Tracker()
    clients: list[Client] = []
    for game in games:
        game.start = game.version
    per_round = len(games) * len(transports)
    for i in range(n):
        game = games[i % len(games)]
        client = Client(
            transports[(i // len(games)) % len(transports)],
            target.port,
            f"/api/v1/games/{game.id}",
            game.id,
            game.tokens[(i // per_round) % 2],
            game.version,
            tracker,
        )
        clients.append(client)
        game.clients.append(client)
    result = Result(label, n, len(games), moves)
    tasks = await open_clients(clients)
    await asyncio.sleep(settle + n / 4000)
    if probe is not None:
        probed = time.monotonic()
        result.probe = await probe()
        result.probe_seconds = time.monotonic() - probed
    result.early = any(task.done() for task in tasks) or any(c.seen for c in clients)
    pids = target.pids()
    cpu_before = cpu_seconds(pids)

    async def play(game: Game) -> None:
        for _ in range(moves):
            seq = game.version + 1
            done = tracker.expect(game.id, seq, len(game.clients))
            sent, answered, version = await game.move()
            assert version == seq, (version, seq)
            result.posts.append(answered - sent)
            try:
                await asyncio.wait_for(done.wait(), 30)
            except TimeoutError:
                result.late += 1
            for client in game.clients:
                if seq in client.at:
                    result.delivery.append(client.at[seq] - sent)
                    result.after_response.append(client.at[seq] - answered)

    if n:
        await asyncio.gather(*(play(g) for g in games))
    else:  # nobody waiting: one move at a time, the POST's own time
        for game in games:
            await play(game)
    result.cpu = cpu_seconds(pids) - cpu_before
    result.workers = [memory(pid) for pid in target.workers("live")]
    result.events = len(result.delivery)
    await close_clients(tasks)
    check(result, clients, {g.id: list(range(g.start + 1, g.version + 1)) for g in games})
    for game in games:
        game.clients = []
    return result


# ============================================================================== reference
async def reference_server() -> None:
    """The minimal fan-out: holds event streams; ``POST /tell?seq=N&bytes=B`` writes one frame
    (an event of seq N whose data is B bytes) to every stream, built once."""
    streams: set[asyncio.StreamWriter] = set()

    def chunk(data: bytes) -> bytes:
        return b"%x\r\n%s\r\n" % (len(data), data)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                target = head.split(b" ", 2)[1].decode()
                url = urlsplit(target)
                if url.path.endswith("/stream/"):
                    writer.write(
                        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                        b"Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n"
                        + chunk(b'event: sync\ndata: {"version":0}\n\n')
                    )
                    streams.add(writer)
                    try:
                        await reader.read()
                    finally:
                        streams.discard(writer)
                    return
                query = parse_qs(url.query)
                seq, size = int(query["seq"][0]), int(query.get("bytes", ["400"])[0])
                data = json.dumps({"version": seq, "event": {"seq": seq, "pad": ""}})
                data = data.replace('"pad": ""', '"pad": "' + "x" * max(0, size - len(data)) + '"')
                frame = chunk(f"id: {seq}-0\nevent: game_event\ndata: {data}\n\n".encode())
                for stream in streams:
                    stream.write(frame)
                writer.write(b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, HOST, 0, backlog=4096)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()


@contextlib.contextmanager
def reference(via_nginx: bool = False) -> Iterator[tuple[Target, int]]:
    """The reference server (and, ``via_nginx``, an nginx of deploy/nginx.conf in front of it,
    as in front of the live server); yields (where clients connect, the port to tell)."""
    from bench.harness import nginx_binary, nginx_config

    process = subprocess.Popen(
        [sys.executable, "-m", "bench.live", "--reference-server"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        start_new_session=True,
    )
    proxy = None
    with tempfile.TemporaryDirectory(prefix="canasta-ref-nginx-") as tmp:
        try:
            assert process.stdout is not None
            port = int(process.stdout.readline())
            if not via_nginx:
                yield Target(port, {"reference": process.pid}), port
                return
            Path(tmp).chmod(0o755)  # workers run as nobody when the master is root
            listen = _free_port()
            conf = Path(tmp) / "nginx.conf"
            upstream = f"{HOST}:{port}"
            conf.write_text(nginx_config(f"{HOST}:{listen}", upstream, upstream, tmp))
            proxy = subprocess.Popen(
                [nginx_binary(), "-e", "stderr", "-p", tmp, "-c", str(conf), "-g", "daemon off;"],
                start_new_session=True,
            )
            deadline = time.monotonic() + 20
            while True:
                with contextlib.suppress(OSError), socket.create_connection((HOST, listen), 0.5):
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError("nginx did not start in front of the reference")
                time.sleep(0.1)
            yield Target(listen, {"reference": process.pid, "nginx": proxy.pid}), port
        finally:
            for child in (proxy, process):
                if child is not None:
                    os.killpg(child.pid, signal.SIGTERM)
                    child.wait(timeout=10)


async def run_reference(
    target: Target, tell_port: int, n: int, moves: int, data_bytes: int, label: str
) -> Result:
    from bench.harness import cpu_seconds

    tracker = Tracker()
    clients = [Client("sse", target.port, "/api/v1/games/1", 1, "-", 0, tracker) for _ in range(n)]
    result = Result(label, n, 1, moves)
    tasks = await open_clients(clients)
    await asyncio.sleep(0.5)
    cpu_before = cpu_seconds(target.pids())
    tell = Conn(tell_port)
    for seq in range(1, moves + 1):
        done = tracker.expect(1, seq, n)
        sent = time.monotonic()
        status, _ = await tell.request("POST", f"/tell?seq={seq}&bytes={data_bytes}")
        answered = time.monotonic()
        result.posts.append(answered - sent)
        try:
            await asyncio.wait_for(done.wait(), 30)
        except TimeoutError:
            result.late += 1
        for client in clients:
            if seq in client.at:
                result.delivery.append(client.at[seq] - sent)
                result.after_response.append(client.at[seq] - answered)
    result.cpu = cpu_seconds(target.pids()) - cpu_before
    result.events = len(result.delivery)
    tell.close()
    await close_clients(tasks)
    check(result, clients, {1: list(range(1, moves + 1))})
    return result


# ============================================================================== the runs
def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f}" if seconds >= 0.01 else f"{seconds * 1000:.1f}"


HEADER = (
    "| N | run | games | delivery p50 / p95 / max ms (from send) | p50 from response | "
    "POST p50 ms (waiting / none) | CPU µs per event (net) | live workers MiB, threads | "
    "errors | missed / dup / reordered / late |"
)


def row(r: Result, idle_post: float, idle_cpu_per_move: float) -> str:
    d = r.delivery
    moves_played = r.games * r.moves
    net = r.cpu - idle_cpu_per_move * moves_played if idle_cpu_per_move >= 0 else r.cpu
    per_event = f"{r.cpu / r.events * 1e6:.0f} ({net / r.events * 1e6:.0f})" if r.events else "-"
    workers = ", ".join(f"{kib / 1024:.0f}/{threads}" for kib, threads in r.workers) or "-"
    none = ms(idle_post) if idle_post >= 0 else "-"
    post = f"{ms(statistics.median(r.posts))} / {none}" if r.posts else "-"
    return (
        f"| {r.clients} | {r.label} | {r.games} | {ms(pct(d, 50))} / {ms(pct(d, 95))} / "
        f"{ms(max(d) if d else float('nan'))} | {ms(pct(r.after_response, 50))} | {post} | "
        f"{per_event} | {workers} | {len(r.errors)} | {r.missed} / {r.duplicated} / "
        f"{r.reordered} / {r.late} |"
    )


async def bench_runs(
    target: Target,
    ns: list[int],
    game_counts: list[int],
    transports: list[str],
    moves: int,
    with_reference: bool = True,
) -> list[Result]:
    tokens = {0: await signup(target.port, "Ada"), 1: await signup(target.port, "Bob")}
    results: list[Result] = []
    print(HEADER)
    print("|" + "---|" * 10)
    for n in ns:
        for g in game_counts:
            # Nobody waiting: the same moves on fresh games, for the POST and CPU baselines.
            idle_games = [await new_game(target.port, tokens) for _ in range(g)]
            idle = await run_clients(target, "nobody waiting", idle_games, 0, transports, moves)
            idle_post = statistics.median(idle.posts)
            idle_cpu = idle.cpu / (g * moves)
            for game in idle_games:
                game.close()
            for kinds in [[t] for t in transports]:
                games = [await new_game(target.port, tokens) for _ in range(g)]
                label = "+".join(kinds)
                result = await run_clients(target, label, games, n, kinds, moves)
                for game in games:
                    game.close()
                results.append(result)
                print(row(result, idle_post, idle_cpu), flush=True)
            if with_reference and g == 1:
                data_bytes = max((r.data_bytes for r in results if r.clients == n), default=400)
                for via_nginx in (False, True):
                    with reference(via_nginx) as (ref, tell_port):
                        label = "reference via nginx" if via_nginx else "reference"
                        result = await run_reference(
                            ref, tell_port, n, moves, data_bytes or 400, label
                        )
                    results.append(result)
                    print(row(result, -1, -1), flush=True)
    return results


async def idle_run(target: Target, k: int, kind: str) -> Result:
    """K idle clients of one kind on one game; memory per connection, one move to all."""
    from bench.harness import memory

    tokens = {0: await signup(target.port, "Ada"), 1: await signup(target.port, "Bob")}
    warm = await new_game(target.port, tokens)
    await run_clients(target, "warm-up", [warm], 20, [kind], 1)
    warm.close()

    def rss(name: str) -> int:
        return sum(memory(pid)[0] for pid in target.workers(name))

    before = {name: rss(name) for name in ("live", "nginx")}
    game = await new_game(target.port, tokens)
    tracker = Tracker()
    clients = [
        Client(kind, target.port, f"/api/v1/games/{game.id}", game.id, tokens[i % 2], game.version)
        for i in range(k)
    ]
    for client in clients:
        client.tracker = tracker
    started = time.monotonic()
    tasks = await open_clients(clients, in_flight=500)
    opened = time.monotonic() - started
    await asyncio.sleep(3)
    after = {name: rss(name) for name in ("live", "nginx")}
    result = Result(f"idle {kind}", k, 1, 1)
    result.workers = [memory(pid) for pid in target.workers("live")]
    seq = game.version + 1
    done = tracker.expect(game.id, seq, k)
    sent, answered, _ = await game.move()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(done.wait(), 120)
    result.delivery = [c.at[seq] - sent for c in clients if seq in c.at]
    result.late = int(not done.is_set())
    result.events = len(result.delivery)
    await close_clients(tasks)
    game.close()
    check(result, clients, {game.id: [seq]})
    live_kib, nginx_kib = after["live"] - before["live"], after["nginx"] - before["nginx"]
    d = result.delivery
    print(
        f"| {kind} | {k} | {opened:.1f} s | {live_kib / 1024:.1f} MiB ({live_kib / k:.1f} KiB) | "
        f"{nginx_kib / 1024:.1f} MiB ({nginx_kib / k:.1f} KiB) | "
        f"**{(live_kib + nginx_kib) / k:.1f} KiB** | "
        + ", ".join(f"{kib / 1024:.0f}/{threads}" for kib, threads in result.workers)
        + f" | {ms(pct(d, 50))} / {ms(pct(d, 95))} / {ms(max(d) if d else float('nan'))} | "
        f"{len(result.errors)} | {result.missed} / {result.duplicated} |",
        flush=True,
    )
    return result


def production_stack(live_workers: int) -> Any:
    from bench.harness import stack

    return stack(web=1, workers=0, serving="production", live_workers=live_workers)


def target_of(s: Any) -> Target:
    server = s.servers[0]
    return Target(int(urlsplit(server.url).port or 80), dict(server.masters))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", default="200,1000,2000", help="N, comma-separated")
    parser.add_argument("--moves", type=int, default=10, help="moves per game and run")
    parser.add_argument("--games", default="1", help="games the N clients follow, comma-separated")
    parser.add_argument("--transports", default="sse,poll,ws")
    parser.add_argument("--idle", type=int, default=0, help="K idle connections (0: none)")
    parser.add_argument("--idle-transports", default="sse,ws")
    parser.add_argument("--live-workers", type=int, default=2)
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument(
        "--ws-deflate", action="store_true", help="WebSocket clients offer permessage-deflate"
    )
    parser.add_argument(
        "--small", action="store_true", help="CI: N=200, 5 moves; exit 1 on a fault"
    )
    parser.add_argument("--reference-server", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.reference_server:
        raise_nofile()
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(reference_server())
        return 0
    if args.small:
        args.clients, args.moves, args.games = "200", 5, "1,4"
    ns = [int(n) for n in args.clients.split(",") if n.strip()]
    game_counts = [int(g) for g in args.games.split(",") if g.strip()]
    transports = [t.strip() for t in args.transports.split(",") if t.strip()]
    if set(transports) - set(TRANSPORTS):
        parser.error(f"--transports: of {TRANSPORTS}")
    WS_COMPRESSION[0] = "deflate" if args.ws_deflate else None
    # Stopped (a CI time-out): stop the servers and drop the database on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    limit = raise_nofile()
    print(
        f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}, open files "
        f"{limit}; serving: nginx -> api (WSGI gthread 2 x 4) + live ({args.live_workers} "
        f"uvicorn workers, pool 4); {args.moves} moves per game and run; transports "
        f"{','.join(transports)}; WebSocket compression {WS_COMPRESSION[0]}"
    )
    failed = False
    if ns and game_counts:
        with production_stack(args.live_workers) as s:
            print(f"(logs in {s.log_dir})\n")
            results = asyncio.run(
                bench_runs(
                    target_of(s), ns, game_counts, transports, args.moves, not args.no_reference
                )
            )
        failed = any(r.failed() or r.early for r in results)
        for r in results:
            for error in r.errors[:3]:
                print(f"  {r.label} N={r.clients}: {error}")
    if args.idle:
        print(
            "\n| transport | connections | opened in | live workers RSS delta (per conn.) | "
            "nginx workers RSS delta (per conn.) | server KiB per connection | live workers "
            "MiB/threads | one move to all: p50 / p95 / max ms | errors | missed / dup |"
        )
        print("|" + "---|" * 10)
        for kind in [t.strip() for t in args.idle_transports.split(",") if t.strip()]:
            with production_stack(args.live_workers) as s:
                result = asyncio.run(idle_run(target_of(s), args.idle, kind))
            failed = failed or result.failed()
            for error in result.errors[:3]:
                print(f"  idle {kind}: {error}")
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")
    print(
        "delivery: from just before the move's POST (or the reference's tell) is sent to the "
        "client's receipt; CPU: utime+stime of nginx, live and api processes (the reference: "
        "its process) over the moves / events delivered, (net of the same moves with nobody "
        "waiting)"
    )
    if failed:
        print("FAILED: an error, a missed, duplicated, reordered or late event", file=sys.stderr)
        return 1 if args.small else 0
    return 0


# ============================================================================== SQLite server
def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def with_option(args: list[str], name: str, value: str) -> list[str]:
    """``args`` with option ``name`` (``--bind``, ``--workers``) set to ``value``, either form
    (``--bind X`` or ``--bind=X``)."""
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg == name:
            skip = True
            continue
        if arg.startswith(f"{name}="):
            continue
        out.append(arg)
    return [*out, name, value]


@contextlib.contextmanager
def sqlite_server(
    gunicorn_args: list[str], workers: int = 1, settings: str | None = None
) -> Iterator[Target]:
    """One gunicorn (``gunicorn_args``: what follows ``gunicorn`` on its command line) on a free
    loopback port with ``workers`` workers, on a fresh SQLite database migrated first, Django
    settings ``settings`` (None: what the app module defaults to); for tests, which have no
    PostgreSQL. Moves and waiting clients must go to this one server."""
    port = _free_port()
    args = with_option(list(gunicorn_args), "--bind", f"{HOST}:{port}")
    args = with_option(args, "--workers", str(workers))
    with tempfile.TemporaryDirectory(prefix="canasta-live-") as tmp:
        env = {
            **os.environ,
            "DEBUG": "0",
            "SECRET_KEY": "live-bench-only",
            "ALLOWED_HOSTS": HOST,
            "DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3",
            "DATABASE_CONN_MAX_AGE": "0",
            **harness_unlimited(),
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        }
        env.pop("DJANGO_SETTINGS_MODULE", None)
        if settings is not None:
            env["DJANGO_SETTINGS_MODULE"] = settings
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=env,
            check=True,
        )
        log_path = Path(tmp) / "server.log"
        log = log_path.open("wb")
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", *args],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 60
            while True:
                with contextlib.suppress(OSError), socket.create_connection((HOST, port), 0.5):
                    break
                if process.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    raise RuntimeError("the server did not start:\n" + log_path.read_text())
                time.sleep(0.2)
            try:
                yield Target(port, {"live": process.pid})
            except BaseException:
                log.flush()
                tail = log_path.read_text(errors="replace").splitlines()[-60:]
                print("\n".join(["--- server log (last lines) ---", *tail]), file=sys.stderr)
                raise
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                # A long-poll whose client has gone holds a worker's graceful stop until its
                # wait ends: a few seconds, then no more grace.
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
            log.close()


if __name__ == "__main__":
    sys.exit(main())


def harness_unlimited() -> dict[str, str]:
    """The benchmarks' environment without per-player limits (bench.harness.UNLIMITED)."""
    from bench.harness import UNLIMITED

    return dict(UNLIMITED)
