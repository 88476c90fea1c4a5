"""Scale-out by nodes: 1, 2 and 4 complete nodes behind one nginx, then a node killed mid-run.

A node is what a host of the deployment runs (docker-compose.yml): an API server (gunicorn
gthread on the WSGI app), a live server (gunicorn with the live worker on the ASGI app) and a
Celery worker (every queue), each on its own port, all nodes against one PostgreSQL database
and one Redis database. One nginx of deploy/nginx.conf's shape is in front: its ``api`` and
``live`` upstreams list every node's servers. Clients go through nginx only:

- movers: ``--clients`` threads, each playing two-player games (both seats; every fourth one
  against a bot, whose turns go through the workers), every move sent with an
  ``Idempotency-Key``; on a connection error or a 502/503/504 from nginx the same request is
  sent again (the same key, the same body) until it is answered;
- followers: one Server-Sent Events stream per game being played (through nginx to a live
  server), reconnecting with ``Last-Event-ID`` when the stream is cut.

Printed per node count: moves/s, delivery p50/p95 (from just before a move's POST to its
follower's receipt of the event), CPU seconds of each node's processes (``/proc``: utime +
stime of the API, live and worker process trees over the run), CPU seconds of the PostgreSQL
backends serving the database (sampled from ``pg_stat_activity`` pids and ``/proc``) and moves
per second per database core (moves / PostgreSQL CPU seconds). Then, with ``--kill`` nodes
(default 2), one node's API, live server and worker are SIGKILLed halfway through the run.
After every run: every acknowledged move is in the log exactly once (at the seq, seat and type
its answer gave, and no move of the clients' seats that was not acknowledged); every follower
saw every seq of its game exactly once, in order; ``bench.check``: no game with a missing or
doubled seq, every log replays to its snapshot.

    python -m bench.nodes [--nodes 1,2,4] [--kill 2] [--clients 8] [--seconds 15]

Exits 1 if a guarantee does not hold. On a 2-core machine every node shares the same two
cores with PostgreSQL, nginx and the clients: read whether nothing is lost and how the work
spreads over the nodes, not an absolute speed-up.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from bench.harness import (
    PG_URL,
    REDIS_BASE,
    ROOT,
    UNLIMITED,
    Api,
    cpu_seconds,
    free_port,
    nginx_binary,
    nginx_config,
    percentile,
    process_tree,
)

HOST = "127.0.0.1"
KINDS = ("api", "live", "worker")
RETRY_STATUSES = frozenset({502, 503, 504})
PREFERENCE = (
    "take_pile",
    "meld",
    "draw",
    "answer_partner",
    "discard",
    "decline_pile",
    "end_round",
    "ask_partner",
)


def _sql(pg_url: str, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    import psycopg

    with psycopg.connect(f"{pg_url}/postgres", autocommit=True) as conn:
        cursor = conn.execute(sql, params or None)
        return cursor.fetchall() if cursor.description else []


# ============================================================================== the cluster
@dataclass
class Node:
    index: int
    api_port: int
    live_port: int
    procs: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    def pids(self) -> list[int]:
        return [
            pid
            for proc in self.procs.values()
            if proc.poll() is None
            for pid in process_tree(proc.pid)
        ]


@dataclass
class Cluster:
    """``nodes`` nodes and one nginx in front; a database and a Redis index of its own."""

    nodes: int = 1
    name: str = field(default_factory=lambda: f"canasta_nodes_{uuid.uuid4().hex[:8]}")
    pg_url: str = PG_URL
    redis_base: str = REDIS_BASE
    api_workers: int = 1
    api_threads: int = 4
    live_workers: int = 1
    worker_concurrency: int = 2
    graceful_seconds: int = 5  # a live server's streams are cut after this on SIGTERM
    avoid_redis_dbs: frozenset[int] = frozenset()  # Redis indexes others use (a test run's)
    log_dir: Path = ROOT / ".ci" / "logs" / "bench-nodes"
    members: list[Node] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    port: int = 0  # nginx's
    nginx: subprocess.Popen[bytes] | None = None
    _created: bool = False
    _redis_db: int | None = None
    _tmp: Path | None = None

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}"

    # ---------------------------------------------------------------- start and stop
    def start(self) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self._tmp = Path(tempfile.mkdtemp(prefix=f"{self.name}-"))
        self._tmp.chmod(0o755)  # nginx's workers run as nobody when the master is root
        self._redis_db = claim_redis_db(self.redis_base, self.name, self.avoid_redis_dbs)
        _sql(self.pg_url, f'CREATE DATABASE "{self.name}"')
        self._created = True
        redis_url = f"{self.redis_base}/{self._redis_db}"
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "canasta_service.settings",
            "DEBUG": "0",
            "SECRET_KEY": "nodes-" + uuid.uuid4().hex,
            "DATABASE_URL": f"{self.pg_url}/{self.name}",
            "DATABASE_CONN_MAX_AGE": "60",
            "DATABASE_POOL_SIZE": "0",
            "REDIS_URL": redis_url,
            "CACHE_URL": redis_url,
            "CELERY_BROKER_URL": redis_url,
            "TRUSTED_PROXIES": HOST,
            **UNLIMITED,
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        }
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=self.env,
            check=True,
        )
        for i in range(self.nodes):
            node = Node(i, free_port(), free_port())
            self.members.append(node)
            for kind in KINDS:
                self.start_process(node, kind, wait=False)
        self.port = free_port()
        conf = self._tmp / "nginx.conf"
        conf.write_text(
            nginx_config(
                f"{HOST}:{self.port}",
                upstream([f"{HOST}:{n.api_port}" for n in self.members]),
                upstream([f"{HOST}:{n.live_port}" for n in self.members]),
                str(self._tmp),
            )
        )
        with (self.log_dir / "nginx.log").open("wb") as log:
            self.nginx = subprocess.Popen(
                [nginx_binary(), "-e", "stderr", "-p", str(self._tmp), "-c", str(conf)]
                + ["-g", "daemon off;"],
                cwd=ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        for node in self.members:
            for kind in KINDS:
                self.wait_ready(node, kind)
        self._wait_http(self.port, "nginx")

    def stop(self) -> None:
        procs = [p for n in self.members for p in n.procs.values()]
        procs += [self.nginx] if self.nginx is not None else []
        for proc in procs:
            if proc.poll() is None:
                with suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=self.graceful_seconds + 5)
            except subprocess.TimeoutExpired:
                with suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
        if self._redis_db is not None:
            with suppress(Exception):
                import redis

                redis.Redis.from_url(f"{self.redis_base}/{self._redis_db}").flushdb()
        if self._created:
            _sql(self.pg_url, f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')

    # ---------------------------------------------------------------- one process
    def _command(self, node: Node, kind: str) -> tuple[list[str], dict[str, str]]:
        gunicorn = str(Path(sys.executable).parent / "gunicorn")
        common = ["--keep-alive=75", "--log-level=warning"]
        if kind == "api":
            return [
                gunicorn,
                "canasta_service.wsgi:application",
                "--worker-class=gthread",
                f"--threads={self.api_threads}",
                f"--workers={self.api_workers}",
                f"--bind={HOST}:{node.api_port}",
                "--graceful-timeout=20",
                *common,
            ], self.env
        if kind == "live":
            return [
                gunicorn,
                "canasta_service.asgi:application",
                "--worker-class=canasta_service.live_worker.LiveWorker",
                f"--workers={self.live_workers}",
                f"--bind={HOST}:{node.live_port}",
                f"--graceful-timeout={self.graceful_seconds}",
                *common,
            ], {**self.env, "DATABASE_CONN_MAX_AGE": "0", "DATABASE_POOL_SIZE": "4"}
        queues = "interactive,bulk,deliveries"
        return [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "canasta_service",
            "worker",
            f"--queues={queues}",
            f"--concurrency={self.worker_concurrency}",
            "--loglevel=WARNING",
            f"--hostname={self.hostname(node)}",
            "--without-gossip",
            "--without-mingle",
        ], self.env

    def hostname(self, node: Node) -> str:
        return f"node{node.index}-{self.name}@{socket.gethostname()}"

    def start_process(self, node: Node, kind: str, wait: bool = True) -> None:
        command, env = self._command(node, kind)
        with (self.log_dir / f"{kind}{node.index}.log").open("ab") as log:
            node.procs[kind] = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        if wait:
            self.wait_ready(node, kind)

    def wait_ready(self, node: Node, kind: str, seconds: float = 60) -> None:
        proc = node.procs[kind]
        if kind != "worker":
            port = node.api_port if kind == "api" else node.live_port
            self._wait_http(port, f"{kind}{node.index}", proc, seconds)
            return
        from celery import Celery

        app = Celery(broker=self.env["REDIS_URL"])
        deadline = time.monotonic() + seconds
        try:
            while not app.control.ping([self.hostname(node)], timeout=0.5):
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"worker{node.index} did not answer; see {self.log_dir}")
        finally:
            app.close()

    def _wait_http(
        self,
        port: int,
        name: str,
        proc: subprocess.Popen[bytes] | None = None,
        seconds: float = 60,
    ) -> None:
        deadline = time.monotonic() + seconds
        while True:
            with suppress(OSError, ValueError, http.client.HTTPException):
                api = Api(f"http://{HOST}:{port}")
                status, _, _ = api.get("/api/v1/health/")
                api.close()
                if status == 200:
                    return
            if (proc is not None and proc.poll() is not None) or time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not come up; see {self.log_dir}")
            time.sleep(0.2)

    def stop_process(self, node: Node, kind: str, sig: int = signal.SIGTERM) -> None:
        """Signal the process group (a server's master and its workers) and wait for it."""
        proc = node.procs[kind]
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=self.graceful_seconds + 25)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        if sig == signal.SIGKILL:  # the group: a prefork worker's children too
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)

    def replace(self, node: Node, kind: str) -> None:
        """A graceful stop (SIGTERM: in-flight requests and tasks finish), then a new process
        on the same port, ready before this returns."""
        self.stop_process(node, kind)
        self.start_process(node, kind)

    def kill_node(self, node: Node) -> None:
        for kind in KINDS:
            self.stop_process(node, kind, signal.SIGKILL)

    def postgres_backends(self) -> list[int]:
        rows = _sql(
            self.pg_url,
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
            self.name,
        )
        return [int(row[0]) for row in rows]


def claim_redis_db(base: str, name: str, avoid: frozenset[int] = frozenset()) -> int:
    """An empty Redis database index among 15..1 (not in ``avoid``), marked as taken at once
    (a key of its own) so that another run looking for an empty one passes it by."""
    import redis

    for index in range(15, 0, -1):
        if index in avoid:
            continue
        client = redis.Redis.from_url(f"{base}/{index}")
        if client.dbsize() == 0 and client.set("canasta:claimed-by", name, nx=True):
            return index
    raise RuntimeError("no empty Redis database among 1..15")


def upstream(addresses: list[str]) -> str:
    """Several servers for one ``server ${CANASTA_..._UPSTREAM};`` line of deploy/nginx.conf."""
    return ";\n        server ".join(addresses)


@contextmanager
def cluster(**kwargs: Any) -> Iterator[Cluster]:
    c = Cluster(**kwargs)
    try:
        c.start()
        yield c
    finally:
        c.stop()


# ============================================================================== clients
class Client:
    """One keep-alive connection through nginx that sends a request again on a connection
    error or a 502/503/504 (a move with the same Idempotency-Key), for up to ``patience`` s."""

    def __init__(self, url: str, token: str | None = None, patience: float = 60) -> None:
        self.url = url
        self.api = Api(url, token)
        self.patience = patience
        self.retries = 0

    def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        deadline = time.monotonic() + self.patience
        while True:
            try:
                status, payload, _ = self.api.request(method, path, body, headers)
                if status not in RETRY_STATUSES:
                    return status, payload
            except (OSError, http.client.HTTPException, ValueError):
                # ValueError: an HTML error page of nginx's instead of JSON
                self.api.close()
                self.api = Api(self.url, self.api.token)
            self.retries += 1
            if time.monotonic() > deadline:
                raise RuntimeError(f"{method} {path}: no answer within {self.patience} s")
            time.sleep(0.05)

    def close(self) -> None:
        self.api.close()


def sign_up(url: str, name: str) -> Client:
    status, body = Client(url).call("POST", "/api/v1/players/", {"display_name": name})
    if status != 201:
        raise RuntimeError(f"sign-up answered {status}: {body}")
    return Client(url, str(body["token"]))


@dataclass
class Ack:
    game: int
    seq: int
    seat: int
    type: str


@dataclass
class Results:
    acks: list[Ack] = field(default_factory=list)
    sent: dict[tuple[int, int], float] = field(default_factory=dict)  # (game, seq) -> t
    statuses: Counter[int] = field(default_factory=Counter)
    refused_humans: Counter[int] = field(default_factory=Counter)  # not 201, no bot at the table
    retries: int = 0
    games: dict[int, list[str]] = field(default_factory=dict)  # game -> tokens of its seats
    followers: list[Follower] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Follower(threading.Thread):
    """One game's event stream through nginx; reconnects with ``Last-Event-ID``."""

    def __init__(self, port: int, game_id: int, token: str, after: int) -> None:
        super().__init__(daemon=True)
        self.port, self.game_id, self.token = port, game_id, token
        self.start_after = after
        self.last_id = f"{after}-0"
        self.seen: list[int] = []
        self.at: dict[int, float] = {}
        self.reconnects = 0
        self.resumes = 0
        self.ended = False
        self.stopping = threading.Event()
        self.errors: list[str] = []

    def run(self) -> None:
        while not self.stopping.is_set() and not self.ended:
            with suppress(OSError, ValueError, http.client.HTTPException):
                self._stream()
            if not self.stopping.is_set() and not self.ended:
                self.reconnects += 1
                self.resumes += bool(self.seen)  # after some events: from its last id
                time.sleep(0.1)

    def _stream(self) -> None:
        with socket.create_connection((HOST, self.port), 5) as sock:
            sock.settimeout(0.5)
            sock.sendall(
                (
                    f"GET /api/v1/games/{self.game_id}/stream/?timeout=3600 HTTP/1.1\r\n"
                    f"Host: {HOST}:{self.port}\r\nAuthorization: Token {self.token}\r\n"
                    f"Accept: text/event-stream\r\nLast-Event-ID: {self.last_id}\r\n\r\n"
                ).encode()
            )
            raw = b""
            quiet_since = time.monotonic()
            head: bytes | None = None
            chunked = False
            need = -1  # chunked: -1 while a size line is awaited
            body = b""
            while not self.stopping.is_set():
                try:
                    data = sock.recv(65536)
                except TimeoutError:
                    if time.monotonic() - quiet_since > 40:  # keep-alives every 15 s
                        return
                    continue
                if not data:
                    return
                quiet_since = time.monotonic()
                raw += data
                if head is None:
                    end = raw.find(b"\r\n\r\n")
                    if end < 0:
                        continue
                    head, raw = raw[:end].lower(), raw[end + 4 :]
                    status = int(head.split(b" ", 2)[1])
                    if status != 200:
                        self.errors.append(f"stream answered {status}")
                        time.sleep(0.3)
                        return
                    chunked = b"transfer-encoding: chunked" in head
                if not chunked:
                    body, raw = body + raw, b""
                while chunked:
                    if need < 0:
                        line_end = raw.find(b"\r\n")
                        if line_end < 0:
                            break
                        need = int(raw[:line_end].split(b";")[0].strip() or b"0", 16)
                        raw = raw[line_end + 2 :]
                        if need == 0:
                            self._frames(body + b"\n\n")
                            return
                    if len(raw) < need + 2:
                        break
                    body, raw, need = body + raw[:need], raw[need + 2 :], -1
                *frames, body = body.split(b"\n\n")
                for frame in frames:
                    self._frame(frame)
                if self.ended:
                    return

    def _frames(self, body: bytes) -> None:
        for frame in body.split(b"\n\n"):
            self._frame(frame)

    def _frame(self, frame: bytes) -> None:
        name = data = event_id = b""
        for line in frame.split(b"\n"):
            if line.startswith(b"event: "):
                name = line[7:]
            elif line.startswith(b"data: "):
                data = line[6:]
            elif line.startswith(b"id: "):
                event_id = line[4:]
        if name == b"game_event":
            seq = int(json.loads(data)["event"]["seq"])
            self.seen.append(seq)
            self.at.setdefault(seq, time.monotonic())
        elif name == b"end":
            self.ended = True
        if event_id:
            self.last_id = event_id.decode()

    def problems(self, final_version: int) -> list[str]:
        want = list(range(self.start_after + 1, final_version + 1))
        if self.seen == want:
            return []
        missed = sorted(set(want) - set(self.seen))
        doubled = len(self.seen) - len(set(self.seen))
        return [
            f"game {self.game_id}: follower saw {len(self.seen)} events, wanted {len(want)} "
            f"(missed {missed[:5]}, {doubled} doubled, in order: {self.seen == sorted(self.seen)})"
        ]


def choose(legal: list[dict[str, Any]]) -> dict[str, Any]:
    return min(legal, key=lambda a: PREFERENCE.index(a["type"]))


class Table(threading.Thread):
    """Plays games, both seats (or seat 0 against a bot), until ``stop`` is set; a follower
    per game. A move in flight when ``stop`` is set is finished (answered) first."""

    def __init__(
        self, url: str, index: int, vs_bot: bool, results: Results, stop: threading.Event
    ) -> None:
        super().__init__(daemon=True)
        self.url, self.index, self.vs_bot = url, index, vs_bot
        self.results, self.stop_event = results, stop
        self.seats: list[Client] = []
        self.game_id = 0
        self.view: dict[str, Any] = {}
        self.failure: str | None = None

    def new_game(self) -> None:
        if not self.seats:
            self.seats = [
                sign_up(self.url, f"node{self.index}s{s}") for s in range(1 if self.vs_bot else 2)
            ]
        body: dict[str, Any] = {"preset": "two_player", "seat": 0}
        if self.vs_bot:
            body["bots"] = [{"seat": 1, "level": "easy"}]
        status, game = self.seats[0].call("POST", "/api/v1/games/", body)
        if status != 201:
            raise RuntimeError(f"create answered {status}: {game}")
        game_id = int(game["id"])
        if not self.vs_bot:
            status, game = self.seats[1].call("POST", f"/api/v1/games/{game_id}/join/", {})
            if status != 200:
                raise RuntimeError(f"join answered {status}: {game}")
        status, game = self.seats[0].call("POST", f"/api/v1/games/{game_id}/start/", {})
        if status != 200:
            raise RuntimeError(f"start answered {status}: {game}")
        self.game_id, self.view = game_id, game
        follower = Follower(
            int(urlsplit(self.url).port or 80),
            game_id,
            self.seats[0].api.token or "",
            int(game["version"]),
        )
        with self.results.lock:
            self.results.games[game_id] = [c.api.token or "" for c in self.seats]
            self.results.followers.append(follower)
        follower.start()

    def fetch(self, seat: int) -> dict[str, Any]:
        status, game = self.seats[seat].call("GET", f"/api/v1/games/{self.game_id}/")
        if status != 200:
            raise RuntimeError(f"read answered {status}: {game}")
        self.view = game
        return game

    def run(self) -> None:
        try:
            while not self.stop_event.is_set():
                self.step()
        except Exception as exc:  # noqa: BLE001 - reported with the results
            self.failure = f"table {self.index}: {exc!r}"[:400]
            with self.results.lock:
                self.results.errors.append(self.failure)

    def step(self) -> None:
        if not self.game_id or self.view["status"] != "active":
            self.new_game()
        seat = self.view["state"]["to_act"]
        if self.vs_bot and seat != 0:
            time.sleep(0.02)
            self.fetch(0)
            return
        if self.view.get("your_seat") != seat:
            self.fetch(seat)
            if self.view["status"] != "active" or self.view["state"]["to_act"] != seat:
                return
        action = choose(self.view["state"]["legal_actions"])
        version = int(self.view["version"])
        key = (self.game_id, version + 1)
        sent = time.monotonic()
        with self.results.lock:
            self.results.sent[key] = sent
        status, body = self.seats[seat].call(
            "POST",
            f"/api/v1/games/{self.game_id}/actions/",
            {"action": action, "expected_version": version},
            {"Idempotency-Key": uuid.uuid4().hex},
        )
        with self.results.lock:
            self.results.statuses[status] += 1
            if status == 201:
                event = body["event"]
                self.results.acks.append(
                    Ack(
                        self.game_id,
                        int(event["seq"]),
                        int(event["seat"]),
                        str(event["type"]),
                    )
                )
            else:
                self.results.sent.pop(key, None)
                if not self.vs_bot:
                    self.results.refused_humans[status] += 1
        if status == 201:
            self.view = body["game"]
        else:  # a bot moved meanwhile (409): look again
            self.fetch(seat)

    def close(self) -> None:
        for client in self.seats:
            self.results.retries += client.retries
            client.close()


# ============================================================================== one run
@dataclass
class Run:
    nodes: int
    moves: int = 0
    wall: float = 0.0
    delivery: list[float] = field(default_factory=list)
    node_cpu: list[float] = field(default_factory=list)
    pg_cpu: float = 0.0
    retries: int = 0
    reconnects: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    killed: int | None = None

    @property
    def rate(self) -> float:
        return self.moves / self.wall if self.wall else 0.0


class PostgresCpu(threading.Thread):
    """CPU seconds of the database's backends over a run: pids from pg_stat_activity every
    0.5 s, their utime + stime from /proc (a backend that ends between two samples loses its
    last half second; most connections last the whole run)."""

    def __init__(self, c: Cluster) -> None:
        super().__init__(daemon=True)
        self.cluster = c
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.stopping = threading.Event()
        self.sample(initial=True)

    def sample(self, initial: bool = False) -> None:
        for pid in self.cluster.postgres_backends():
            cpu = cpu_seconds([pid])
            if pid not in self.first:
                self.first[pid] = cpu if initial else 0.0
            if cpu:
                self.last[pid] = cpu

    def run(self) -> None:
        while not self.stopping.wait(0.5):
            with suppress(Exception):
                self.sample()

    def total(self) -> float:
        self.stopping.set()
        self.join()
        self.sample()
        return sum(max(0.0, self.last.get(pid, 0.0) - cpu) for pid, cpu in self.first.items())


def drive(
    c: Cluster,
    clients: int,
    seconds: float,
    kill_at: float | None = None,
    during: Callable[[], None] | None = None,
    on_start: Callable[[Results], None] | None = None,
) -> tuple[Results, float, float, list[float], int | None]:
    """``clients`` tables through nginx for ``seconds`` (``kill_at``: SIGKILL the last node
    that many seconds in; ``during``: run instead of sleeping ``seconds``, e.g. a rolling
    restart; ``on_start``: given the results as they fill). Returns (results, wall,
    PostgreSQL CPU, per-node CPU, the node killed)."""
    results = Results()
    if on_start is not None:
        on_start(results)
    stop = threading.Event()
    tables = [Table(c.url, i, i % 4 == 3, results, stop) for i in range(clients)]
    for table in tables:
        table.new_game()
    time.sleep(0.5)  # the followers connected
    pg = PostgresCpu(c)
    before = {n.index: (cpu_seconds(n.pids()), n.pids()) for n in c.members}
    started = time.monotonic()
    pg.start()
    for table in tables:
        table.start()
    killed = None
    if during is not None:
        during()
    elif kill_at is not None:
        time.sleep(kill_at)
        victim = c.members[-1]
        mid = cpu_seconds(before[victim.index][1])
        c.kill_node(victim)
        before[victim.index] = (before[victim.index][0] - mid, [])  # its CPU until the kill
        killed = victim.index
        time.sleep(max(0.0, seconds - kill_at))
    else:
        time.sleep(seconds)
    stop.set()
    for table in tables:
        table.join(120)
    wall = time.monotonic() - started
    node_cpu = []
    for node in c.members:
        spent, _ = before[node.index]
        node_cpu.append((cpu_seconds(node.pids()) if node.index != killed else 0.0) - spent)
    pg_cpu = pg.total()
    for table in tables:
        table.close()
    return results, wall, pg_cpu, node_cpu, killed


def settle_followers(c: Cluster, results: Results, seconds: float = 20) -> dict[int, int]:
    """Wait until every follower has its game's last seq and the versions stop moving (bots
    may still play their turn after the tables stop), for ``seconds`` at most; stop the
    followers; returns each game's final version."""
    import psycopg

    def read() -> dict[int, int]:
        with psycopg.connect(f"{c.pg_url}/{c.name}", autocommit=True) as conn:
            rows = conn.execute(
                "SELECT id, version FROM games_game WHERE id = ANY(%s)", (list(results.games),)
            ).fetchall()
        return {int(k): int(v) for k, v in rows}

    def caught_up(versions: dict[int, int]) -> bool:
        return all(
            f.ended or (f.seen[-1] if f.seen else f.start_after) >= versions.get(f.game_id, 0)
            for f in results.followers
        )

    deadline = time.monotonic() + seconds
    versions = read()
    while time.monotonic() < deadline:
        if caught_up(versions):
            time.sleep(0.5)
            again = read()
            if again == versions:
                break
            versions = again
        else:
            time.sleep(0.05)
    for follower in results.followers:
        follower.stopping.set()
    for follower in results.followers:
        follower.join(5)
    return versions


def verify(c: Cluster, results: Results, versions: dict[int, int]) -> list[str]:
    """Every acknowledged move in the log exactly once, nothing of the clients' seats that was
    not acknowledged, every follower complete and in order, and bench.check."""
    import psycopg

    problems: list[str] = list(results.errors)
    acked = {(a.game, a.seq): a for a in results.acks}
    if len(acked) != len(results.acks):
        problems.append(f"{len(results.acks) - len(acked)} moves acknowledged twice at one seq")
    with psycopg.connect(f"{c.pg_url}/{c.name}", autocommit=True) as conn:
        rows = conn.execute(
            "SELECT game_id, seq, seat, type FROM games_gameevent "
            "WHERE game_id = ANY(%s) AND source = 'player'",
            (list(results.games),),
        ).fetchall()
    logged = Counter((int(g), int(s)) for g, s, _, _ in rows)
    by_key = {(int(g), int(s)): (seat, kind) for g, s, seat, kind in rows}
    for key, ack in acked.items():
        if logged[key] != 1:
            problems.append(f"acknowledged move {key} is in the log {logged[key]} times")
        elif by_key[key] != (ack.seat, ack.type):
            problems.append(f"move {key}: log has {by_key[key]}, answer said {ack.seat, ack.type}")
    extra = [key for key in logged if key not in acked]
    if extra:
        problems.append(f"{len(extra)} moves in the log that no client acknowledged: {extra[:5]}")
    for follower in results.followers:
        problems += follower.problems(versions.get(follower.game_id, 0))
    checked = subprocess.run(
        [sys.executable, "-m", "bench.check"],
        cwd=ROOT,
        env=c.env,
        capture_output=True,
        text=True,
        check=False,
    )
    print("  " + checked.stdout.strip())
    if checked.returncode:
        problems.append(f"bench.check: {checked.stdout.strip()} {checked.stderr[-500:]}")
    return problems


def delivery(results: Results) -> list[float]:
    out = []
    for follower in results.followers:
        for seq, at in follower.at.items():
            sent = results.sent.get((follower.game_id, seq))
            if sent is not None:
                out.append(at - sent)
    return out


def measure(c: Cluster, clients: int, seconds: float, kill: bool = False) -> Run:
    results, wall, pg_cpu, node_cpu, killed = drive(
        c, clients, seconds, kill_at=seconds / 2 if kill else None
    )
    versions = settle_followers(c, results)
    run = Run(len(c.members), len(results.acks), wall)
    run.delivery = delivery(results)
    run.node_cpu, run.pg_cpu, run.killed = node_cpu, pg_cpu, killed
    run.retries = results.retries
    run.reconnects = sum(f.reconnects for f in results.followers)
    run.statuses = results.statuses
    run.problems = verify(c, results, versions)
    return run


def row(run: Run) -> str:
    ms = [d * 1000 for d in run.delivery]
    cpu = " / ".join(
        ("killed " if i == run.killed else "") + f"{s:.1f}" for i, s in enumerate(run.node_cpu)
    )
    per_core = run.rate / (run.pg_cpu / run.wall) if run.pg_cpu else float("nan")
    label = f"{run.nodes}" + (f", node {run.killed} killed" if run.killed is not None else "")
    return (
        f"| {label} | {run.rate:.1f} | {percentile(ms, 50):.0f} / {percentile(ms, 95):.0f} | "
        f"{cpu} | {run.pg_cpu:.1f} | {per_core:.0f} | {run.retries} / {run.reconnects} | "
        f"{'OK' if not run.problems else f'{len(run.problems)} VIOLATED'} |"
    )


HEADER = (
    "| nodes | moves/s | delivery p50 / p95 ms | CPU s per node (API+live+worker) | "
    "PostgreSQL CPU s | moves/s per database core | retries / stream reconnects | "
    "acknowledged moves, followers, replay |\n|---|---|---|---|---|---|---|---|"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nodes", default="1,2,4", help="node counts, comma-separated")
    parser.add_argument("--kill", type=int, default=2, help="nodes of the kill run (0: none)")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=15.0)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    plan = [(int(n), False) for n in args.nodes.split(",") if n.strip()]
    if args.kill:
        plan.append((args.kill, True))
    print(
        f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; "
        f"{args.clients} tables (every 4th against a bot), {args.seconds:.0f} s per run; "
        "a node: API (gthread 1 x 4), live (1 uvicorn worker), Celery worker (-c 2, every queue)"
    )
    runs = []
    for n, kill in plan:
        with cluster(nodes=n) as c:
            print(f"{n} node(s){', one killed halfway' if kill else ''}:", flush=True)
            run = measure(c, args.clients, args.seconds, kill)
            runs.append(run)
            for problem in run.problems[:10]:
                print(f"  ! {problem}")
            statuses = dict(sorted(run.statuses.items()))
            print(f"  move answers: {statuses}", flush=True)
    print()
    print(HEADER)
    for run in runs:
        print(row(run))
    print(f"\nload average at the end: {os.getloadavg()[0]:.1f}")
    return 1 if any(run.problems for run in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
