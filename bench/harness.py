"""A real stack on this machine for the benchmarks: PostgreSQL, Redis, gunicorn, nginx, Celery.

``Stack`` creates a fresh PostgreSQL database and picks an empty Redis database index, migrates,
starts ``web`` servers (each on its own port, like separate hosts behind a load balancer) and
``workers`` Celery workers, and on exit stops them all and drops what it created. A server is
served one of three ways (``serving``):

- ``wsgi``: gunicorn gthread on the WSGI app;
- ``asgi``: gunicorn with uvicorn workers on the ASGI app (every request, REST ones included);
- ``production``: as docker-compose serves it: nginx (deploy/nginx.conf) in front of a WSGI
  gunicorn (the REST API) and an ASGI gunicorn (the live endpoints); the urls are nginx's; and
  Celery beat (``beat``, on by default in this serving).

Celery workers come in one of two layouts (``worker_layout``), each started ``workers`` times:

- ``queues`` (the default, as docker-compose runs them): ``-Q interactive -c 2`` (bot turns,
  timers, sweeps, pairing: the default queue), ``-Q bulk -c 1`` (reviews and other heavy work)
  and ``-Q deliveries -P threads -c 16`` (webhooks, push, e-mail). Should the app's default
  queue not be ``interactive`` (code before the split), the interactive worker consumes the
  default queue too, so that nothing is left unconsumed;
- ``single``: one worker consuming every queue, concurrency ``worker_concurrency`` (the
  layout before the split, for a before/after comparison).

``Api`` is a keep-alive HTTP/1.1 client (standard library) that times each request. The
``/proc`` helpers (``process_tree``, ``cpu_seconds``, ``memory``) measure the servers.

Environment: ``BENCH_PGURL`` (default ``postgres://postgres@127.0.0.1:5432``) and
``BENCH_REDIS`` (default ``redis://127.0.0.1:6379``) say where the servers are.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
PG_URL = os.environ.get("BENCH_PGURL", "postgres://postgres@127.0.0.1:5432")
REDIS_BASE = os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379")
NGINX_TEMPLATE = ROOT / "deploy" / "nginx.conf"
SERVINGS = ("wsgi", "asgi", "production")
WORKER_LAYOUTS = ("queues", "single")
# The queues layout: (queue, extra arguments) per worker process, as docker-compose runs them.
QUEUE_WORKERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("interactive", ()),  # --concurrency=worker_concurrency (2)
    ("bulk", ("--concurrency=1",)),
    ("deliveries", ("--pool=threads", "--concurrency=16")),
)
# The live server's worker, as docker-compose runs it (BENCH_LIVE_WORKER_CLASS to try another).
LIVE_WORKER = "canasta_service.live_worker.LiveWorker"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def listening_process(
    command: list[str], env: dict[str, str], log_path: Path, port: int, name: str = "server"
) -> Iterator[subprocess.Popen[bytes]]:
    """``command`` in a process group of its own (output to ``log_path``), once ``port``
    accepts connections (60 s at most; its log is in the error otherwise); stopped after (the
    group: a server's workers too), SIGKILL if SIGTERM takes over 10 s."""
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            with suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
                break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"{name} did not start:\n{log_path.read_text()}")
            time.sleep(0.1)
        yield process
    finally:
        with suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def summary(values_s: list[float]) -> str:
    """p50/p95/p99 in milliseconds."""
    ms = [v * 1000 for v in values_s]
    return (
        f"p50 {percentile(ms, 50):7.1f} ms  p95 {percentile(ms, 95):7.1f} ms  "
        f"p99 {percentile(ms, 99):7.1f} ms  (mean {statistics.fmean(ms) if ms else 0:.1f}, "
        f"n={len(ms)})"
    )


def _psql(sql: str) -> None:
    import psycopg

    with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
        conn.execute(sql)


def _vapid_private_key() -> str:
    """A fresh VAPID private key (base64url of its 32 bytes) for a stack of its own."""
    from cryptography.hazmat.primitives.asymmetric import ec

    number = ec.generate_private_key(ec.SECP256R1()).private_numbers().private_value
    return base64.urlsafe_b64encode(number.to_bytes(32, "big")).rstrip(b"=").decode()


def redis_free_db() -> int:
    import redis

    for index in range(15, 0, -1):
        if redis.Redis.from_url(f"{REDIS_BASE}/{index}").dbsize() == 0:
            return index
    raise RuntimeError("no empty Redis database among 1..15")


def nginx_binary() -> str:
    found = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else "")
    if not found:
        raise RuntimeError("nginx is not installed (apt-get install nginx-light)")
    return found


def nginx_config(
    listen: str,
    api: str,
    live: str,
    directory: str,
    access_log: str = "off",
    max_body_bytes: int = 2_621_440,
) -> str:
    """deploy/nginx.conf with its ``${CANASTA_...}`` filled in (nginx's own ``$variables``
    untouched), as the nginx image's entrypoint does in docker-compose."""
    values = {
        "CANASTA_LISTEN": listen,
        "CANASTA_API_UPSTREAM": api,
        "CANASTA_LIVE_UPSTREAM": live,
        "CANASTA_NGINX_DIR": directory,
        "CANASTA_ACCESS_LOG": access_log,
        "CANASTA_MAX_BODY_BYTES": str(max_body_bytes),
    }
    template = NGINX_TEMPLATE.read_text()
    return re.sub(r"\$\{(CANASTA_[A-Z_]+)\}", lambda m: values[m.group(1)], template)


# A benchmark measures throughput, not quotas: the per-player rate limits and caps off (a
# caller that wants production's passes None for a key: the app's default then applies).
UNLIMITED = {
    "THROTTLE_SIGNUP": "off",
    "THROTTLE_ACTIONS": "off",
    "THROTTLE_CHAT": "off",
    "THROTTLE_GAME_CREATE": "off",
    "THROTTLE_GAME_START": "off",
    "THROTTLE_IMPORT": "off",
    "THROTTLE_PROPOSALS": "off",
    "LIVE_CONNECTIONS_PER_PLAYER_MAX": "0",
    "BOT_TABLES_ACTIVE_MAX": "0",
    "IMPORTS_CONCURRENT_MAX": "0",
}


@dataclass
class Server:
    """One serving of the stack: its address and the masters of its processes."""

    url: str  # where clients go (nginx's in production)
    api_url: str  # the server of the REST API, without nginx
    live_url: str  # the server of the live endpoints, without nginx
    masters: dict[str, int] = field(default_factory=dict)  # "api", "live", "nginx" -> pid


@dataclass
class Stack:
    web: int = 1
    workers: int = 1
    web_workers: int = 2
    web_threads: int = 4
    worker_concurrency: int = 2
    asgi: bool = False  # shorthand for serving="asgi"
    serving: str = "wsgi"
    live_workers: int = 2  # production: uvicorn workers of the live server
    live_pool: int = 4  # production: PostgreSQL connections per live worker
    worker_layout: str = "queues"  # WORKER_LAYOUTS
    beat: bool | None = None  # Celery beat; None: in the production serving only
    name: str = field(default_factory=lambda: f"canasta_bench_{uuid.uuid4().hex[:8]}")
    servers: list[Server] = field(default_factory=list)
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    env_overrides: dict[str, str | None] = field(default_factory=dict)  # None: app default
    log_dir: Path = ROOT / ".ci" / "logs" / "bench"

    def __post_init__(self) -> None:
        if self.asgi:
            self.serving = "asgi"
        if self.serving not in SERVINGS:
            raise ValueError(f"serving: one of {SERVINGS}, not {self.serving!r}")
        if self.worker_layout not in WORKER_LAYOUTS:
            raise ValueError(f"worker_layout: one of {WORKER_LAYOUTS}, not {self.worker_layout!r}")
        if self.beat is None:
            self.beat = self.serving == "production" and self.workers > 0
        self.worker_pids: dict[str, int] = {}  # "<queue or single><i>" -> pid

    @property
    def urls(self) -> list[str]:
        return [server.url for server in self.servers]

    def _spawn(
        self, args: list[str], log: str, env: dict[str, str] | None = None
    ) -> subprocess.Popen[bytes]:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with (self.log_dir / log).open("wb") as out:
            proc = subprocess.Popen(
                args,
                cwd=ROOT,
                env=env or self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.procs.append(proc)
        return proc

    def _gunicorn(self, asgi: bool, port: int, workers: int, log: str) -> subprocess.Popen[bytes]:
        # As docker-compose: under ASGI each request may run on another thread, so
        # connections come from a pool per process; WSGI threads keep their own.
        env = {
            **self.env,
            "DATABASE_CONN_MAX_AGE": "0" if asgi else "60",
            "DATABASE_POOL_SIZE": (str(self.live_pool) if self.serving == "production" else "8")
            if asgi
            else "0",
        }
        serving = (
            [
                "canasta_service.asgi:application",
                "--worker-class=" + os.environ.get("BENCH_LIVE_WORKER_CLASS", LIVE_WORKER),
            ]
            if asgi
            else [
                "canasta_service.wsgi:application",
                "--worker-class=gthread",
                f"--threads={self.web_threads}",
            ]
        )
        return self._spawn(
            [
                str(Path(sys.executable).parent / "gunicorn"),
                *serving,
                f"--bind=127.0.0.1:{port}",
                f"--workers={workers}",
                "--keep-alive=75",
                "--log-level=warning",
            ],
            log,
            env,
        )

    def _nginx(self, i: int, port: int, api_port: int, live_port: int) -> subprocess.Popen[bytes]:
        directory = Path(tempfile.mkdtemp(prefix=f"{self.name}-nginx{i}-"))
        directory.chmod(0o755)  # workers run as nobody when the master is root
        self._nginx_dirs.append(directory)
        conf = directory / "nginx.conf"
        conf.write_text(
            nginx_config(
                f"127.0.0.1:{port}",
                f"127.0.0.1:{api_port}",
                f"127.0.0.1:{live_port}",
                str(directory),
                max_body_bytes=int(self.env.get("MAX_REQUEST_BODY_BYTES") or 2_621_440),
            )
        )
        return self._spawn(
            [nginx_binary(), "-e", "stderr", "-p", str(directory), "-c", str(conf)]
            + ["-g", "daemon off;"],
            f"nginx{i}.log",
        )

    def start(self) -> None:
        self._nginx_dirs: list[Path] = []
        self.redis_db = redis_free_db()
        _psql(f'CREATE DATABASE "{self.name}"')
        redis_url = f"{REDIS_BASE}/{self.redis_db}"
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "canasta_service.settings",
            "DEBUG": "0",
            "SECRET_KEY": "bench-" + uuid.uuid4().hex,
            "DATABASE_URL": f"{PG_URL}/{self.name}",
            "DATABASE_CONN_MAX_AGE": "60",
            "DATABASE_POOL_SIZE": "0",
            "REDIS_URL": redis_url,
            "CACHE_URL": redis_url,
            "TRUSTED_PROXIES": "127.0.0.1",
            "WEBPUSH_VAPID_PRIVATE_KEY": _vapid_private_key(),  # Web Push on, as in production
            "BENCH_BASELINE": "1",
            **UNLIMITED,
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        }
        for key, value in self.env_overrides.items():
            if value is None:  # None: the app's default
                self.env.pop(key, None)
            else:
                self.env[key] = value
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=self.env,
            check=True,
        )
        for i in range(self.web):
            if self.serving == "production":
                api_port, live_port, port = free_port(), free_port(), free_port()
                api = self._gunicorn(False, api_port, self.web_workers, f"api{i}.log")
                live = self._gunicorn(True, live_port, self.live_workers, f"live{i}.log")
                nginx = self._nginx(i, port, api_port, live_port)
                self.servers.append(
                    Server(
                        f"http://127.0.0.1:{port}",
                        f"http://127.0.0.1:{api_port}",
                        f"http://127.0.0.1:{live_port}",
                        {"api": api.pid, "live": live.pid, "nginx": nginx.pid},
                    )
                )
            else:
                port = free_port()
                asgi = self.serving == "asgi"
                proc = self._gunicorn(asgi, port, self.web_workers, f"web{i}.log")
                url = f"http://127.0.0.1:{port}"
                self.servers.append(Server(url, url, url, {"live" if asgi else "api": proc.pid}))
        self._workers_start()
        deadline = time.monotonic() + 60
        for server in self.servers:
            for url in {server.url, server.api_url, server.live_url}:
                while True:
                    try:
                        status, _, _ = Api(url).get("/api/v1/health/")
                        if status == 200:
                            break
                    except (OSError, ValueError):  # not up yet (nginx: a 502 page)
                        pass
                    if time.monotonic() > deadline or any(p.poll() is not None for p in self.procs):
                        raise RuntimeError(f"{url} did not come up; see {self.log_dir}")
                    time.sleep(0.2)
        self._wait_workers(deadline)

    def _queue_names(self) -> tuple[str, dict[str, str]]:
        """The app's default queue and its queue of each kind (``TASK_QUEUES``: interactive,
        bulk, deliveries; each kind's own name where the setting does not exist yet)."""
        found = subprocess.run(
            [
                sys.executable,
                "-c",
                "import json, django; django.setup(); from django.conf import settings; "
                "from canasta_service.celery import app; "
                "print(json.dumps([app.conf.task_default_queue or 'celery', "
                "getattr(settings, 'TASK_QUEUES', {})]))",
            ],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        )
        default, names = json.loads(found.stdout.strip().splitlines()[-1])
        return default, {kind: names.get(kind, kind) for kind, _ in QUEUE_WORKERS}

    def _worker(self, name: str, extra: list[str]) -> None:
        proc = self._spawn(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "canasta_service",
                "worker",
                *extra,
                "--loglevel=WARNING",
                f"--hostname={name}-{self.name}@%h",
                "--without-gossip",
                "--without-mingle",
            ],
            f"worker-{name}.log",
        )
        self.worker_pids[name] = proc.pid

    def _workers_start(self) -> None:
        default, names = self._queue_names() if self.workers else ("celery", {})
        every = ",".join(dict.fromkeys([*names.values(), default]))
        for i in range(self.workers):
            if self.worker_layout == "single":
                # One worker on every queue: the layout before the split.
                self._worker(
                    f"single{i}", [f"--queues={every}", f"--concurrency={self.worker_concurrency}"]
                )
                continue
            for kind, extra in QUEUE_WORKERS:
                queues = names[kind]
                if kind == "interactive" and default != queues:
                    queues = f"{queues},{default}"  # code before the split: its default queue
                extra = extra or (f"--concurrency={self.worker_concurrency}",)
                self._worker(f"{kind}{i}", [f"--queues={queues}", *extra])
        if self.beat:
            directory = Path(tempfile.mkdtemp(prefix=f"{self.name}-beat-"))
            self._nginx_dirs.append(directory)  # removed at stop, as nginx's
            proc = self._spawn(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "canasta_service",
                    "beat",
                    "--loglevel=WARNING",
                    f"--schedule={directory / 'celerybeat-schedule'}",
                ],
                "beat.log",
            )
            self.worker_pids["beat"] = proc.pid

    def _wait_workers(self, deadline: float) -> None:
        expected = len([name for name in self.worker_pids if name != "beat"])
        if not expected:
            return
        from celery import Celery

        app = Celery(broker=self.env["REDIS_URL"])
        while len(app.control.ping(timeout=0.5) or []) < expected:
            if time.monotonic() > deadline:
                raise RuntimeError(f"workers did not answer; see {self.log_dir}")
        app.close()

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                # (a long-poll whose client has gone holds a graceful stop until its wait ends)
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
        for directory in getattr(self, "_nginx_dirs", []):
            shutil.rmtree(directory, ignore_errors=True)
        if not hasattr(self, "redis_db"):
            return
        try:
            import redis

            redis.Redis.from_url(f"{REDIS_BASE}/{self.redis_db}").flushdb()
        except Exception as exc:  # noqa: BLE001 - cleanup goes on
            print(f"(could not flush Redis db {self.redis_db}: {exc})", file=sys.stderr)
        _psql(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')


@contextmanager
def stack(**kwargs: Any) -> Iterator[Stack]:
    s = Stack(**kwargs)
    try:
        s.start()
        yield s
    finally:
        s.stop()


def django_setup(s: Stack) -> None:
    """Use the stack's database from this process (for checks after a run)."""
    os.environ.update({k: s.env[k] for k in ("DATABASE_URL", "SECRET_KEY", "REDIS_URL")})
    os.environ["DJANGO_SETTINGS_MODULE"] = "canasta_service.settings"
    os.environ["DEBUG"] = "0"
    import django

    django.setup()


class Api:
    """One keep-alive connection to one server; JSON in and out; each call timed."""

    def __init__(self, base_url: str, token: str | None = None) -> None:
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.token = token
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any, float]:
        data = None if body is None else json.dumps(body).encode()
        head = {"Accept": "application/json", **(headers or {})}
        if data is not None:
            head["Content-Type"] = "application/json"
        if self.token:
            head["Authorization"] = f"Token {self.token}"
        for attempt in (0, 1):
            started = time.perf_counter()
            try:
                self.conn.request(method, path, body=data, headers=head)
                response = self.conn.getresponse()
                raw = response.read()
                elapsed = time.perf_counter() - started
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # The server closed an idle keep-alive connection: reconnect once.
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
                if attempt:
                    raise
        payload = json.loads(raw) if raw else None
        return response.status, payload, elapsed

    def get(self, path: str) -> tuple[int, Any, float]:
        return self.request("GET", path)

    def post(self, path: str, body: Any = None, **headers: str) -> tuple[int, Any, float]:
        return self.request("POST", path, body if body is not None else {}, headers or None)

    def close(self) -> None:
        self.conn.close()


def sign_up(base_url: str, name: str) -> Api:
    status, body, _ = Api(base_url).post("/api/v1/players/", {"display_name": name})
    assert status == 201, body
    return Api(base_url, body["token"])


# ------------------------------------------------------------------------------ /proc
def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (a gunicorn or nginx master and its workers)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        current = todo.pop()
        out.append(current)
        todo += children.get(current, [])
    return out


def cpu_seconds(pids: list[int]) -> float:
    """utime + stime of ``pids`` (live processes only), in seconds."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15)
    return total / ticks


def memory(pid: int) -> tuple[int, int]:
    """(resident KiB, threads) of one process."""
    rss = threads = 0
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
            elif line.startswith("Threads:"):
                threads = int(line.split()[1])
    except OSError:
        pass
    return rss, threads
