"""Notifications: how many one worker delivers per second, and what the outbox adds to a move.

1. **Delivery throughput.** A webhook receiver on loopback (standard library HTTP server,
   answering 200 at once, checking every signature) and ONE Celery worker (``--concurrency``
   children, default 1) against a fresh PostgreSQL database and Redis. ``--notifications N``
   notifications are written in one transaction; at its commit their N tasks are sent; the
   figure is N over the time from the commit to the last delivery recorded ``delivered``, with
   the worker's CPU per delivery. Side by side, the same worker runs N no-op tasks
   (``games.record_worker_probe``: one insert each) to show the task floor.
2. **The outbox's cost per move.** Two-player games played through Django's test client in
   this process (``bench.profile``'s tables: no server, no network), in alternating chunks of
   three kinds: the outbox off (``move_notify`` replaced by a no-op: a move as before
   notifications), players with no endpoint (the common case: ``notify`` finds nothing to
   send), and players with a webhook each (every move that passes the turn writes a
   Notification and a Delivery and sends a task). CPU per move (``time.process_time``, this
   process only), wall, statements, and the ratios to the outbox off.

    python -m bench.notifications [--notifications 2000] [--concurrency 1] [--moves 600]

Needs PostgreSQL and Redis (``bench/harness.py``). Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import statistics
import threading
import time
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bench.harness import cpu_seconds, django_setup, process_tree, stack
from bench.profile import QUERIES, Tables

CHUNK = 50


class Receiver:
    """A webhook receiver on loopback: verifies each signature, counts the distinct keys."""

    def __init__(self) -> None:
        self.secrets: list[bytes] = []
        self.keys: set[str] = set()
        self.requests = 0
        self.bad_signatures = 0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.receive(self.headers.get("Canasta-Signature", ""), raw)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def receive(self, signature: str, raw: bytes) -> None:
        parts = dict(item.split("=", 1) for item in signature.split(",") if "=" in item)
        signed = f"{parts.get('t', '')}.".encode() + raw
        valid = any(
            hmac.compare_digest(
                hmac.new(secret, signed, hashlib.sha256).hexdigest(), parts.get("v1", "")
            )
            for secret in self.secrets
        )
        with self.lock:
            self.requests += 1
            self.bad_signatures += not valid
            self.keys.add(json.loads(raw)["id"])

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _wait(condition: Callable[[], bool], timeout: float, what: str) -> float:
    """Poll ``condition`` until true; the monotonic time it became true."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.005)
    return time.monotonic()


# ============================================================================== throughput
def throughput(count: int, receiver: Receiver, worker_pids: list[int]) -> None:
    from django.db import transaction

    from canasta_service.celery import app as celery_app
    from games.models import Delivery, DeliveryStatus, NotificationKind, WorkerProbe
    from games.services.notifications import notify, webhook_register
    from games.services.players import player_create

    player, _ = player_create(display_name="bench-receiver")
    receiver.secrets.append(webhook_register(player.pk, url=receiver.url).secret.encode())

    def delivered() -> int:
        return Delivery.objects.filter(status=DeliveryStatus.DELIVERED).count()

    before = delivered()
    cpu_before = cpu_seconds([p for w in worker_pids for p in process_tree(w)])
    with transaction.atomic():
        for n in range(count):
            notify(
                player_id=player.pk,
                kind=NotificationKind.CHAT,
                game=None,
                event_seq=n,
                payload={"phrase": f"bench {n}"},
            )
        committing = time.monotonic()
    sent = time.monotonic()  # the on_commit hooks (sending the N tasks) have run
    done = _wait(lambda: delivered() - before >= count, 600, "the deliveries")
    cpu = cpu_seconds([p for w in worker_pids for p in process_tree(w)]) - cpu_before
    seconds = done - committing
    print(
        f"deliveries: {count} in {seconds:.2f} s = {count / seconds:7.1f} notifications/s "
        f"(tasks sent in {sent - committing:.2f} s; worker CPU {cpu * 1000 / count:.2f} ms "
        f"per delivery)"
    )
    print(
        f"  receiver: {receiver.requests} requests, {len(receiver.keys)} distinct keys, "
        f"{receiver.bad_signatures} bad signatures"
    )

    tokens = [f"bench-{uuid.uuid4().hex}" for _ in range(count)]
    cpu_before = cpu_seconds([p for w in worker_pids for p in process_tree(w)])
    started = time.monotonic()
    for token in tokens:
        celery_app.send_task("games.record_worker_probe", (token,))
    sent = time.monotonic()
    done = _wait(
        lambda: WorkerProbe.objects.filter(token__in=tokens).count() >= count, 600, "the probes"
    )
    cpu = cpu_seconds([p for w in worker_pids for p in process_tree(w)]) - cpu_before
    seconds = done - started
    print(
        f"no-op tasks: {count} in {seconds:.2f} s = {count / seconds:7.1f} tasks/s "
        f"(sent in {sent - started:.2f} s; worker CPU {cpu * 1000 / count:.2f} ms per task)"
    )


# ============================================================================== cost per move
def cost_per_move(moves: int, receiver: Receiver) -> None:
    from games.models import Notification
    from games.services import moves as move_service

    original = move_service.move_notify

    def outbox_off(*args: Any, **kwargs: Any) -> None:
        return None

    tables = {"outbox off": Tables(), "no endpoint": Tables(), "webhook": Tables()}
    for seat in tables["webhook"].seats:
        status, response = seat.post("/api/v1/players/me/webhooks/", {"url": receiver.url})
        assert status == 201, response.content
        receiver.secrets.append(json.loads(response.content)["secret"].encode())
    cpu: dict[str, dict[str, list[float]]] = {k: {"move": [], "read": []} for k in tables}
    walls: dict[str, list[float]] = {k: [] for k in tables}
    told: dict[str, int] = dict.fromkeys(tables, 0)

    def chunk(kind: str, count: int, record: bool) -> None:
        move_service.move_notify = outbox_off if kind == "outbox off" else original
        before = Notification.objects.count()
        into = cpu[kind] if record else {"move": [], "read": []}
        started = time.perf_counter()
        tables[kind].play(count, into)
        if record:
            walls[kind].append(time.perf_counter() - started)
            told[kind] += Notification.objects.count() - before

    try:
        for kind in tables:  # warm-up: imports, caches, connections
            chunk(kind, CHUNK, record=False)
        QUERIES.clear()
        for _ in range(max(1, moves // CHUNK)):
            for kind in tables:
                chunk(kind, CHUNK, record=True)
    finally:
        move_service.move_notify = original

    base = statistics.fmean(cpu["outbox off"]["move"])
    print(f"moves, {len(cpu['webhook']['move'])} of each kind, alternating chunks of {CHUNK}:")
    for kind in tables:
        values = cpu[kind]["move"]
        mean = statistics.fmean(values)
        per = told[kind] / len(values)
        print(
            f"  {kind:12s} {mean * 1000:6.2f} ms CPU per move  x{mean / base:5.3f}  "
            f"(wall per move {sum(walls[kind]) / len(values) * 1000:6.2f} ms incl. reads; "
            f"{per:.2f} notifications per move)"
        )
    for kind in ("move",):
        runs = QUERIES.get(kind, [])
        counts = sorted({len(r.split()) for r in runs})
        print(f"  statements per move seen: {counts}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--notifications", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=1, help="the worker's children")
    parser.add_argument("--moves", type=int, default=600, help="moves of each kind")
    args = parser.parse_args()
    receiver = Receiver()
    overrides = {"WEBHOOK_ALLOW_HTTP_HOSTS": "127.0.0.1", "LOG_LEVEL": "WARNING"}
    try:
        with stack(
            web=0, workers=1, worker_concurrency=args.concurrency, env_overrides=overrides
        ) as s:
            for key in ("THROTTLE_SIGNUP", "THROTTLE_ACTIONS", "LOG_LEVEL", "CACHE_URL"):
                os.environ[key] = s.env[key]
            os.environ["WEBHOOK_ALLOW_HTTP_HOSTS"] = "127.0.0.1"
            os.environ["DATABASE_CONN_MAX_AGE"] = "60"
            django_setup(s)
            from django.conf import settings
            from django.db import connections

            settings.ALLOWED_HOSTS = ["testserver", *settings.ALLOWED_HOSTS]
            print(f"load average before: {os.getloadavg()[0]:.2f}")
            worker_pids = [p.pid for p in s.procs]
            throughput(args.notifications, receiver, worker_pids)
            cost_per_move(args.moves, receiver)
            print(f"load average after: {os.getloadavg()[0]:.2f}")
            connections.close_all()
    finally:
        receiver.stop()


if __name__ == "__main__":
    main()
