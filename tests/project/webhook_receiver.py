"""A webhook receiver for the tests: a real HTTP server on loopback, in a thread, that checks
each delivery's signature with the endpoint's secret and processes each idempotency key once,
as a careful receiver would.

``script`` says how to answer the next requests, one entry each: an HTTP status, ``"hold"``
(process, then keep the request open until ``release`` is set; then 200) or ``"hang"`` (keep
it open, unprocessed, until ``release``; then 200). Past the script: 200.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    """One request as the receiver saw it."""

    key: str
    event: str
    body: dict[str, Any]
    signature_valid: bool
    at: float
    answered: int | None = None


@dataclass
class Receiver:
    secret: str = ""
    script: list[int | str] = field(default_factory=list)
    requests: list[Received] = field(default_factory=list)
    processed: list[str] = field(default_factory=list)  # keys acted on, in order
    release: threading.Event = field(default_factory=threading.Event)
    holding: int = 0
    most_holding: int = 0  # the most requests held open at once
    server: ThreadingHTTPServer | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks/canasta?x=1"

    def signature_check(self, header: str, raw: bytes) -> bool:
        """The check the documentation asks for: the HMAC over ``<t>.<body>`` with the
        secret, in constant time, and a recent ``t``."""
        parts = dict(item.split("=", 1) for item in header.split(",") if "=" in item)
        try:
            stamp = int(parts["t"])
        except (KeyError, ValueError):
            return False
        expected = hmac.new(
            self.secret.encode(), f"{stamp}.".encode() + raw, hashlib.sha256
        ).hexdigest()
        recent = abs(time.time() - stamp) < 300
        return recent and hmac.compare_digest(expected, parts.get("v1", ""))

    def start(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                seen = Received(
                    key=self.headers.get("Canasta-Delivery", ""),
                    event=self.headers.get("Canasta-Event", ""),
                    body=json.loads(raw),
                    signature_valid=receiver.signature_check(
                        self.headers.get("Canasta-Signature", ""), raw
                    ),
                    at=time.monotonic(),
                )
                with receiver.lock:
                    receiver.requests.append(seen)
                    action = receiver.script.pop(0) if receiver.script else 200
                if action in ("hold", "hang"):
                    if action == "hold":
                        receiver.process(seen)
                    with receiver.lock:
                        receiver.holding += 1
                        receiver.most_holding = max(receiver.most_holding, receiver.holding)
                    receiver.release.wait(60)
                    with receiver.lock:
                        receiver.holding -= 1
                    action = 200
                status = int(action) if seen.signature_valid else 400
                if 200 <= status < 300:
                    receiver.process(seen)
                seen.answered = status
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass  # the sender is gone (a killed worker)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def process(self, seen: Received) -> None:
        """Act on a delivery once per idempotency key (a repeat is acknowledged, not redone)."""
        with self.lock:
            if seen.key not in self.processed:
                self.processed.append(seen.key)

    def stop(self) -> None:
        self.release.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def wait_for(self, count: int, timeout: float = 15) -> None:
        """Until ``count`` requests have arrived."""
        deadline = time.monotonic() + timeout
        while len(self.requests) < count:
            assert time.monotonic() < deadline, f"{len(self.requests)} of {count} requests came"
            time.sleep(0.01)
