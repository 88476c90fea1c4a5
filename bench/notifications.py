"""Notifications: how many one worker delivers per second, and what the outbox adds to a move.

1. **Delivery throughput.** A webhook receiver on loopback (standard library HTTP server in
   a process of its own, answering 200 at once, checking every signature) and ONE Celery
   worker (``--concurrency`` children, default 1) against a fresh PostgreSQL database and
   Redis. ``--notifications N``
   notifications are written in one transaction; at its commit their N tasks are sent; the
   figure is N over the time from the commit to the last delivery recorded ``delivered``, with
   the worker's CPU per delivery. Side by side, the same worker runs N no-op tasks
   (``games.record_worker_probe``: one insert each) to show the task floor.
2. **The outbox's cost per move.** Two-player games played through Django's test client in
   this process (``bench.profile``'s tables: no server, no network), in alternating chunks of
   three kinds: the outbox off (``move_notify`` replaced by a no-op: a move as before
   notifications), no endpoint enabled (the common case: ``notify`` finds nothing to send),
   and a webhook for each player (every move that passes the turn writes a
   Notification and a Delivery and sends a task); one table for all three, switched chunk by
   chunk (the move function replaced, the webhooks disabled or enabled), so each kind plays
   the same mix of moves. CPU per move (``time.process_time``, this process only), wall, and
   the ratios to the outbox off.

    python -m bench.notifications [--notifications 2000] [--concurrency 1] [--moves 600]

Needs PostgreSQL and Redis (``bench/harness.py``). Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import hmac
import http.client
import json
import multiprocessing
import os
import statistics
import threading
import time
import uuid
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from bench.harness import cpu_seconds, django_setup, free_port, process_tree, stack
from bench.profile import QUERIES, Tables

CHUNK = 50


class Receiver:
    """A webhook receiver on loopback, in a process of its own (its CPU is not the moves'):
    verifies each signature against the secrets it was given, counts the distinct keys."""

    def __init__(self) -> None:
        self.port = free_port()
        self.process = multiprocessing.get_context("spawn").Process(
            target=_receiver_serve, args=(self.port,), daemon=True
        )
        self.process.start()
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError):
                self.stats()
                return
            if time.monotonic() > deadline:
                raise RuntimeError("the receiver did not start")
            time.sleep(0.05)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def _call(self, method: str, path: str, body: bytes = b"") -> Any:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.request(method, path, body=body)
            return json.loads(conn.getresponse().read() or b"null")
        finally:
            conn.close()

    def secret_add(self, secret: str) -> None:
        self._call("POST", "/secrets", secret.encode())

    def stats(self) -> dict[str, int]:
        found: dict[str, int] = self._call("GET", "/stats")
        return found

    def stop(self) -> None:
        self.process.terminate()
        self.process.join(timeout=10)


def _receiver_serve(port: int) -> None:
    secrets: list[bytes] = []
    keys: set[str] = set()
    counts = {"requests": 0, "bad_signatures": 0}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _answer(self, body: bytes = b"") -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            with lock:
                self._answer(json.dumps({**counts, "keys": len(keys)}).encode())

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.path == "/secrets":
                with lock:
                    secrets.append(raw)
                self._answer()
                return
            header = self.headers.get("Canasta-Signature", "")
            parts = dict(item.split("=", 1) for item in header.split(",") if "=" in item)
            signed = f"{parts.get('t', '')}.".encode() + raw
            valid = any(
                hmac.compare_digest(
                    hmac.new(secret, signed, hashlib.sha256).hexdigest(), parts.get("v1", "")
                )
                for secret in list(secrets)
            )
            with lock:
                counts["requests"] += 1
                counts["bad_signatures"] += not valid
                keys.add(json.loads(raw)["id"])
            self._answer()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    server.serve_forever()


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

    from accounts.services.players import player_create
    from canasta_service.celery import app as celery_app
    from games.models import WorkerProbe
    from notifications.models import Delivery, DeliveryStatus, NotificationKind
    from notifications.services.notifications import notify, webhook_register

    player, _ = player_create(display_name="bench-receiver")
    receiver.secret_add(webhook_register(player.pk, url=receiver.url).secret)

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
    seen = receiver.stats()
    print(
        f"  receiver: {seen['requests']} requests, {seen['keys']} distinct keys, "
        f"{seen['bad_signatures']} bad signatures"
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
    from notifications.models import Notification, WebhookEndpoint
    from notifications.services import game_notifications as move_service  # the move's subscriber

    original = move_service.move_notify

    def outbox_off(*args: Any, **kwargs: Any) -> None:
        return None

    # One table (its two seats with a webhook each) for all three kinds, switched chunk by
    # chunk, so that every kind sees the same mix of moves.
    table = Tables()
    hooks: list[int] = []
    for seat in table.seats:
        status, response = seat.post("/api/v1/players/me/webhooks/", {"url": receiver.url})
        assert status == 201, response.content
        body = json.loads(response.content)
        receiver.secret_add(body["secret"])
        hooks.append(body["id"])
    kinds = ("outbox off", "no endpoint", "webhook")
    cpu: dict[str, dict[str, list[float]]] = {k: {"move": [], "read": []} for k in kinds}
    walls: dict[str, list[float]] = {k: [] for k in kinds}
    told: dict[str, int] = dict.fromkeys(kinds, 0)

    def chunk(kind: str, count: int, record: bool) -> None:
        move_service.move_notify = outbox_off if kind == "outbox off" else original
        WebhookEndpoint.objects.filter(pk__in=hooks).update(enabled=kind == "webhook")
        before = Notification.objects.count()
        into = cpu[kind] if record else {"move": [], "read": []}
        started = time.perf_counter()
        table.play(count, into)
        if record:
            walls[kind].append(time.perf_counter() - started)
            told[kind] += Notification.objects.count() - before

    try:
        for kind in kinds:  # warm-up: imports, caches, connections
            chunk(kind, CHUNK, record=False)
        QUERIES.clear()
        for _ in range(max(1, moves // CHUNK)):
            for kind in kinds:
                chunk(kind, CHUNK, record=True)
    finally:
        move_service.move_notify = original

    base = statistics.fmean(cpu["outbox off"]["move"])
    print(f"moves, {len(cpu['webhook']['move'])} of each kind, alternating chunks of {CHUNK}:")
    for kind in kinds:
        values = cpu[kind]["move"]
        mean = statistics.fmean(values)
        per = told[kind] / len(values)
        print(
            f"  {kind:12s} {mean * 1000:6.2f} ms CPU per move  x{mean / base:5.3f}  "
            f"(wall per move {sum(walls[kind]) / len(values) * 1000:6.2f} ms incl. reads; "
            f"{per:.2f} notifications per move)"
        )
    extra = statistics.fmean(cpu["webhook"]["move"]) - base
    per_notification = extra / max(told["webhook"] / len(cpu["webhook"]["move"]), 1e-9)
    print(f"  a notification with its task: {per_notification * 1000:.2f} ms CPU in the move")


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
            web=0,
            workers=1,
            worker_layout="single",  # one worker on every queue: --concurrency is its children
            worker_concurrency=args.concurrency,
            env_overrides=overrides,
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
