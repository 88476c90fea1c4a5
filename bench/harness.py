"""A real stack on this machine for the benchmarks: PostgreSQL, Redis, gunicorn, Celery.

``Stack`` creates a fresh PostgreSQL database and picks an empty Redis database index, migrates,
starts ``web`` gunicorn servers (each its own master on its own port, like separate hosts
behind a load balancer) and ``workers`` Celery workers, and on exit stops them all and drops
what it created. ``Api`` is a keep-alive HTTP/1.1 client (standard library) that times each
request.

Environment: ``BENCH_PGURL`` (default ``postgres://postgres@127.0.0.1:5432``) and
``BENCH_REDIS`` (default ``redis://127.0.0.1:6379``) say where the servers are.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
PG_URL = os.environ.get("BENCH_PGURL", "postgres://postgres@127.0.0.1:5432")
REDIS_BASE = os.environ.get("BENCH_REDIS", "redis://127.0.0.1:6379")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
        conn.execute(sql)  # type: ignore[arg-type]


def _redis_free_db() -> int:
    import redis

    for index in range(15, 0, -1):
        if redis.Redis.from_url(f"{REDIS_BASE}/{index}").dbsize() == 0:
            return index
    raise RuntimeError("no empty Redis database among 1..15")


@dataclass
class Stack:
    web: int = 1
    workers: int = 1
    web_workers: int = 2
    web_threads: int = 4
    worker_concurrency: int = 2
    asgi: bool = False  # uvicorn workers on the ASGI app (as docker-compose serves it)
    name: str = field(default_factory=lambda: f"canasta_bench_{uuid.uuid4().hex[:8]}")
    ports: list[int] = field(default_factory=list)
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    log_dir: Path = ROOT / ".ci" / "logs" / "bench"

    @property
    def urls(self) -> list[str]:
        return [f"http://127.0.0.1:{p}" for p in self.ports]

    def _spawn(self, args: list[str], log: str) -> subprocess.Popen[bytes]:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        with (self.log_dir / log).open("wb") as out:
            proc = subprocess.Popen(
                args,
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.procs.append(proc)
        return proc

    def start(self) -> None:
        self.redis_db = _redis_free_db()
        _psql(f'CREATE DATABASE "{self.name}"')
        redis_url = f"{REDIS_BASE}/{self.redis_db}"
        self.env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "canasta_service.settings",
            "DEBUG": "0",
            "SECRET_KEY": "bench-" + uuid.uuid4().hex,
            "DATABASE_URL": f"{PG_URL}/{self.name}",
            # As docker-compose: under ASGI each request may run on another thread, so
            # connections come from a pool per process; WSGI threads keep their own.
            "DATABASE_CONN_MAX_AGE": "0" if self.asgi else "60",
            "DATABASE_POOL_SIZE": "8" if self.asgi else "0",
            "REDIS_URL": redis_url,
            "CACHE_URL": redis_url,
            "BENCH_BASELINE": "1",
            "THROTTLE_SIGNUP": "off",
            "THROTTLE_ACTIONS": "off",
            "THROTTLE_CHAT": "off",
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        }
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
            cwd=ROOT,
            env=self.env,
            check=True,
        )
        bin_dir = Path(sys.executable).parent
        for i in range(self.web):
            port = free_port()
            self.ports.append(port)
            serving = (
                ["canasta_service.asgi:application", "--worker-class=uvicorn_worker.UvicornWorker"]
                if self.asgi
                else [
                    "canasta_service.wsgi:application",
                    "--worker-class=gthread",
                    f"--threads={self.web_threads}",
                ]
            )
            self._spawn(
                [
                    str(bin_dir / "gunicorn"),
                    *serving,
                    f"--bind=127.0.0.1:{port}",
                    f"--workers={self.web_workers}",
                    "--keep-alive=30",
                    "--log-level=warning",
                ],
                f"web{i}.log",
            )
        for i in range(self.workers):
            self._spawn(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "canasta_service",
                    "worker",
                    f"--concurrency={self.worker_concurrency}",
                    "--loglevel=WARNING",
                    f"--hostname=bench{i}-{self.name}@%h",
                    "--without-gossip",
                    "--without-mingle",
                ],
                f"worker{i}.log",
            )
        deadline = time.monotonic() + 60
        for url in self.urls:
            while True:
                try:
                    status, _, _ = Api(url).get("/api/v1/health/")
                    if status == 200:
                        break
                except OSError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{url} did not come up; see {self.log_dir}")
                time.sleep(0.2)
        self._wait_workers(deadline)

    def _wait_workers(self, deadline: float) -> None:
        from celery import Celery

        app = Celery(broker=self.env["REDIS_URL"])
        while len(app.control.ping(timeout=0.5) or []) < self.workers:
            if time.monotonic() > deadline:
                raise RuntimeError(f"workers did not answer; see {self.log_dir}")
        app.close()

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
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
