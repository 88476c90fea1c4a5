"""Live updates under load: N clients wait (long-poll and Server-Sent Events) while moves go
through, against the production serving model: gunicorn with uvicorn workers (ASGI), one by
default.

    .venv/bin/python -m bench.live_load --clients 100 --streams 100 --moves 10

It starts the server on 127.0.0.1 with a fresh SQLite database in a temporary folder (settings:
``bench.live_settings``; the Redis pub/sub of games/live.py when REDIS_URL is set), signs up two
players, starts a game between them, opens ``--clients`` long-polls (``/events/?after=V&wait=30``,
re-asked after each answer, as a client does) and ``--streams`` event streams, then plays
``--moves`` moves through ``POST /actions/``. It prints figures, and asserts nothing: how long
each move took while everyone waited, how long each waiting client took to learn of it, whether
the server answered another request while they all waited, its threads and memory then, and
whether every client got every event in order, exactly once. Traffic goes to the loopback
interface only; every loop is bounded. tests/services/table/test_serving.py runs ``server`` and
``run`` with the docker-compose command and checks the behaviour (not the times).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
SETTINGS = "bench.live_settings"
# The benchmark's own serving: gunicorn with uvicorn workers (--bind and --workers are set by
# ``server``); the test passes docker-compose's command instead.
GUNICORN_ARGS = [
    "canasta_service.asgi:application",
    "-k",
    "uvicorn_worker.UvicornWorker",
    "--log-level",
    "warning",
]
PREFERENCE = ("take_pile", "meld", "draw", "answer_partner", "discard", "decline_pile", "end_round")


# ------------------------------------------------------------------------------ HTTP client
async def http(
    port: int,
    method: str,
    path: str,
    token: str | None = None,
    body: Any = None,
    timeout: float = 60,
) -> tuple[int, Any]:
    """One HTTP/1.1 request on its own connection; returns (status, JSON body or None)."""
    reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), timeout)
    try:
        payload = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", f"Host: {HOST}", "Connection: close"]
        if token:
            head.append(f"Authorization: Token {token}")
        if body is not None:
            head += ["Content-Type: application/json", f"Content-Length: {len(payload)}"]
        writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        await writer.drain()
        raw = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()
    header, _, content = raw.partition(b"\r\n\r\n")
    status = int(header.split(b" ", 2)[1])
    if b"transfer-encoding: chunked" in header.lower():
        content = _unchunk(content)
    try:
        return status, json.loads(content) if content else None
    except ValueError:
        return status, content.decode(errors="replace")


def _unchunk(data: bytes) -> bytes:
    out = bytearray()
    while data:
        size_text, _, rest = data.partition(b"\r\n")
        size = int(size_text.split(b";")[0] or b"0", 16)
        if size == 0:
            break
        out += rest[:size]
        data = rest[size + 2 :]
    return bytes(out)


# ------------------------------------------------------------------------------ waiting clients
@dataclass
class Waiter:
    """A long-poll client: asks ``/events/?after=N&wait=30`` again after every answer."""

    token: str
    seen: list[int] = field(default_factory=list)
    woke_at: dict[int, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    async def run(self, port: int, game_id: int, after: int, until: int) -> None:
        deadline = time.monotonic() + 120
        while after < until and time.monotonic() < deadline:
            status, body = await http(
                port, "GET", f"/api/v1/games/{game_id}/events/?after={after}&wait=30", self.token
            )
            if status != 200:
                self.errors.append(f"{status} {body}")
                await asyncio.sleep(0.5)
                continue
            now = time.monotonic()
            for event in body["events"]:
                self.seen.append(event["seq"])
                self.woke_at.setdefault(event["seq"], now)
                after = event["seq"]


@dataclass
class Streamer:
    """An event-stream client: one connection, reads ``game_event`` frames until ``until``."""

    token: str
    seen: list[int] = field(default_factory=list)
    woke_at: dict[int, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    connected: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self, port: int, game_id: int, after: int, until: int) -> None:
        reader, writer = await asyncio.open_connection(HOST, port)
        try:
            writer.write(
                (
                    f"GET /api/v1/games/{game_id}/stream/?after={after}&timeout=120 HTTP/1.1\r\n"
                    f"Host: {HOST}\r\nAuthorization: Token {self.token}\r\n"
                    "Accept: text/event-stream\r\nConnection: close\r\n\r\n"
                ).encode()
            )
            await writer.drain()
            status_line = await asyncio.wait_for(reader.readline(), 60)
            if b" 200 " not in status_line:
                self.errors.append(status_line.decode(errors="replace").strip())
                return
            data_prefix = b"data: "
            name = b""
            while not self.seen or self.seen[-1] < until:
                line = await asyncio.wait_for(reader.readline(), 90)
                if not line:
                    self.errors.append("stream closed early")
                    return
                line = line.strip()
                # chunked framing: size lines are hex digits only; skip them
                if line.startswith(b"event: "):
                    name = line[7:]
                    if name == b"sync":
                        self.connected.set()
                elif line.startswith(data_prefix) and name == b"game_event":
                    event = json.loads(line[len(data_prefix) :])["event"]
                    self.seen.append(event["seq"])
                    self.woke_at.setdefault(event["seq"], time.monotonic())
        except Exception as exc:  # noqa: BLE001 - reported as a client error
            self.errors.append(repr(exc))
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


# ------------------------------------------------------------------------------ server
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
def server(
    workers: int = 1, gunicorn_args: list[str] | None = None, settings: str | None = SETTINGS
) -> Iterator[tuple[int, int]]:
    """gunicorn (``gunicorn_args``: what follows ``gunicorn`` on its command line, default
    ``GUNICORN_ARGS``) bound to a free loopback port with ``workers`` workers, on a fresh SQLite
    database migrated first, with Django settings ``settings`` (None: what the ASGI module
    defaults to, the production settings); yields (port, master pid)."""
    port = _free_port()
    args = with_option(list(gunicorn_args or GUNICORN_ARGS), "--bind", f"{HOST}:{port}")
    args = with_option(args, "--workers", str(workers))
    with tempfile.TemporaryDirectory(prefix="canasta-live-") as tmp:
        env = {
            **os.environ,
            "DEBUG": "0",
            "SECRET_KEY": "live-bench-only",
            "ALLOWED_HOSTS": HOST,
            "DATABASE_URL": f"sqlite:///{tmp}/bench.sqlite3",
            "DATABASE_CONN_MAX_AGE": "0",
            "THROTTLE_SIGNUP": "off",
            "THROTTLE_ACTIONS": "off",
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
        log = open(Path(tmp) / "server.log", "wb")  # noqa: SIM115 - closed below
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
                    raise RuntimeError(
                        "the server did not start:\n" + (Path(tmp) / "server.log").read_text()
                    )
                time.sleep(0.2)
            try:
                yield port, process.pid
            except BaseException:
                log.flush()
                tail = (Path(tmp) / "server.log").read_text(errors="replace").splitlines()[-60:]
                print("\n".join(["--- server log (last lines) ---", *tail]), file=sys.stderr)
                raise
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)
            log.close()


# ------------------------------------------------------------------------------ the run
def _expect(status: int, wanted: int, body: Any) -> None:
    if status != wanted:
        raise RuntimeError(f"the server answered {status}, not {wanted}: {body}")


async def _signup(port: int, name: str) -> dict[str, Any]:
    status, body = await http(port, "POST", "/api/v1/players/", body={"display_name": name})
    _expect(status, 201, body)
    return dict(body)


async def _move(port: int, game_id: int, tokens: dict[int, str]) -> tuple[int, float]:
    """The seat to act plays a simple legal action; returns (new version, seconds taken)."""
    any_token = next(iter(tokens.values()))
    _, game = await http(port, "GET", f"/api/v1/games/{game_id}/", any_token)
    token = tokens[game["state"]["to_act"]]
    _, mine = await http(port, "GET", f"/api/v1/games/{game_id}/", token)
    legal = mine["state"]["legal_actions"]
    action = min(legal, key=lambda a: PREFERENCE.index(a["type"]))
    started = time.monotonic()
    status, body = await http(
        port,
        "POST",
        f"/api/v1/games/{game_id}/actions/",
        token,
        {"action": action, "expected_version": mine["version"]},
    )
    took = time.monotonic() - started
    _expect(status, 201, body)
    return int(body["game"]["version"]), took


def worker_stats(master: int) -> tuple[int, float]:
    """(threads, resident MiB) of the server's worker processes (the gunicorn master's
    children)."""
    threads, rss_kib = 0, 0
    for status in Path("/proc").glob("[0-9]*/status"):
        with contextlib.suppress(OSError, ValueError):
            fields = dict(
                line.split(":", 1) for line in status.read_text().splitlines() if ":" in line
            )
            if int(fields.get("PPid", "0").strip()) == master:
                threads += int(fields.get("Threads", "0").strip())
                rss_kib += int(fields.get("VmRSS", "0 kB").split()[0])
    return threads, round(rss_kib / 1024, 1)


async def run(port: int, clients: int, streams: int, moves: int, master: int = 0) -> dict[str, Any]:
    ada, bob = await _signup(port, "Ada"), await _signup(port, "Bob")
    status, game = await http(
        port, "POST", "/api/v1/games/", ada["token"], {"preset": "two_player", "seat": 0}
    )
    _expect(status, 201, game)
    game_id = game["id"]
    await http(port, "POST", f"/api/v1/games/{game_id}/join/", bob["token"], {})
    status, started = await http(port, "POST", f"/api/v1/games/{game_id}/start/", ada["token"], {})
    _expect(status, 200, started)
    start_version = started["version"]
    until = start_version + moves
    tokens = {0: ada["token"], 1: bob["token"]}

    waiters = [Waiter(tokens[i % 2]) for i in range(clients)]
    streamers = [Streamer(tokens[i % 2]) for i in range(streams)]
    tasks = [asyncio.ensure_future(w.run(port, game_id, start_version, until)) for w in waiters]
    tasks += [asyncio.ensure_future(s.run(port, game_id, start_version, until)) for s in streamers]
    for s in streamers:
        await asyncio.wait_for(s.connected.wait(), 60)
    await asyncio.sleep(1.5)  # let every long-poll reach its wait
    idle_ok = not any(t.done() for t in tasks)
    waiting_threads, waiting_rss = worker_stats(master) if master else (-1, -1.0)

    # the server still answers other requests at once while everyone waits
    t0 = time.monotonic()
    status, _ = await http(port, "GET", "/api/v1/health/")
    health_seconds = time.monotonic() - t0
    waiting_after_health = not any(t.done() for t in tasks)

    move_seconds: list[float] = []
    wake_seconds: list[float] = []
    for _ in range(moves):
        version, took = await _move(port, game_id, tokens)
        committed = time.monotonic()
        move_seconds.append(took)
        # wait until everyone has heard of this move (bounded)
        deadline = committed + 30
        everyone: list[Waiter | Streamer] = [*waiters, *streamers]
        while time.monotonic() < deadline and not all(version in c.woke_at for c in everyone):
            await asyncio.sleep(0.01)
        wake_seconds += [
            max(0.0, c.woke_at[version] - committed) for c in everyone if version in c.woke_at
        ]
    await asyncio.wait_for(asyncio.gather(*tasks), 60)

    expected = list(range(start_version + 1, until + 1))
    everyone = [*waiters, *streamers]
    in_order = sum(1 for c in everyone if c.seen == expected)
    errors = [e for c in everyone for e in c.errors]

    def pct(values: list[float], q: float) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")

    return {
        "clients": clients,
        "streams": streams,
        "moves": moves,
        "redis": bool(os.environ.get("REDIS_URL")),
        "all_waiting_before_first_move": idle_ok,
        "server_threads_while_waiting": waiting_threads,
        "server_rss_mib_while_waiting": waiting_rss,
        "health_seconds_while_waiting": round(health_seconds, 4),
        "health_status": status,
        "all_waiting_after_health": waiting_after_health,
        "move_seconds_median": round(statistics.median(move_seconds), 4),
        "move_seconds_max": round(max(move_seconds), 4),
        "wake_seconds_median": round(statistics.median(wake_seconds or [0.0]), 4),
        "wake_seconds_p95": round(pct(wake_seconds, 0.95), 4),
        "wake_seconds_max": round(max(wake_seconds or [0.0]), 4),
        "notifications": len(wake_seconds),
        "clients_with_every_event_in_order_once": in_order,
        "client_errors": errors[:5],
        "client_error_count": len(errors),
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=100, help="long-poll clients")
    parser.add_argument("--streams", type=int, default=100, help="event-stream clients")
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes")
    args = parser.parse_args(argv)
    with server(args.workers) as (port, master):
        figures = asyncio.run(run(port, args.clients, args.streams, args.moves, master))
    figures["workers"] = args.workers
    figures["load_average"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(figures, indent=2))
    return figures


if __name__ == "__main__":
    main()
