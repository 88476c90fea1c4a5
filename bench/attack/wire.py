"""Raw clients and servers on loopback for the attacks: a minimal WebSocket client (RFC 6455,
masked frames, any size), an event-stream opener, a TCP listener that accepts and never
answers, and a push service that answers too much or too slowly."""

from __future__ import annotations

import base64
import json
import os
import socket
import struct
import threading
import time
from contextlib import suppress
from typing import Any

from bench.attack.common import Target


# ============================================================================== WebSocket
def ws_frame(opcode: int, payload: bytes, fin: bool = True) -> bytes:
    head = bytes([(0x80 if fin else 0) | opcode])
    size = len(payload)
    if size < 126:
        head += bytes([0x80 | size])
    elif size < 1 << 16:
        head += bytes([0x80 | 126]) + struct.pack("!H", size)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", size)
    mask = os.urandom(4)
    if not payload:
        return head + mask
    # XOR with the mask, fast: as integers.
    repeated = (mask * (size // 4 + 1))[:size]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(repeated, "big")).to_bytes(
        size, "big"
    )
    return head + mask + masked


class Socket:
    """One WebSocket to the game socket path, opened with a token header (or none)."""

    def __init__(self, target: Target, game_id: int, token: str | None, timeout: float = 10):
        self.sock = target.raw_socket(timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        auth = f"Authorization: Token {token}\r\n" if token else ""
        self.sock.sendall(
            (
                f"GET /api/v1/games/{game_id}/socket/ HTTP/1.1\r\nHost: {target.host}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n{auth}\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            data = self.sock.recv(4096)
            if not data:
                break
            head += data
        self.status = int(head.split(b" ", 2)[1]) if head.startswith(b"HTTP/") else 0
        self.buffer = head.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in head else b""
        self.close_code: int | None = None

    @property
    def open(self) -> bool:
        return self.status == 101 and self.close_code is None

    def send_text(self, message: Any) -> None:
        self.sock.sendall(ws_frame(0x1, json.dumps(message).encode()))

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _need(self, n: int) -> bytes:
        while len(self.buffer) < n:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("closed")
            self.buffer += data
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def receive(self) -> dict[str, Any] | None:
        """The next text message (None when the server closed; ``close_code`` then set)."""
        while True:
            try:
                b0, b1 = self._need(2)
                size = b1 & 0x7F
                if size == 126:
                    size = struct.unpack("!H", self._need(2))[0]
                elif size == 127:
                    size = struct.unpack("!Q", self._need(8))[0]
                payload = self._need(size)
            except (ConnectionError, OSError):
                if self.close_code is None:
                    self.close_code = 1006
                return None
            opcode = b0 & 0x0F
            if opcode == 0x8:
                self.close_code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else 1005
                return None
            if opcode == 0x1:
                with suppress(ValueError):
                    return dict(json.loads(payload))

    def close(self) -> None:
        with suppress(OSError):
            self.sock.close()


def stream_open(target: Target, path: str, token: str | None, timeout: float = 10) -> int:
    """Open an event stream (or any long GET) and read its status line; the socket is kept
    open in ``OPEN_STREAMS`` until ``streams_close``. Returns the status (0: none)."""
    sock = target.raw_socket(timeout)
    auth = f"Authorization: Token {token}\r\n" if token else ""
    sock.sendall(
        f"GET /api/v1{path} HTTP/1.1\r\nHost: {target.host}\r\nAccept: text/event-stream\r\n"
        f"{auth}\r\n".encode()
    )
    head = b""
    with suppress(OSError):
        while b"\r\n" not in head:
            data = sock.recv(4096)
            if not data:
                break
            head += data
    OPEN_STREAMS.append(sock)
    try:
        return int(head.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return 0


OPEN_STREAMS: list[socket.socket] = []


def streams_close() -> None:
    while OPEN_STREAMS:
        with suppress(OSError):
            OPEN_STREAMS.pop().close()


# ============================================================================== servers
class Silent:
    """A TCP listener on 127.0.0.1 that accepts every connection and never answers (it
    reads and drops what comes); counts the connections; stopped by ``stop``."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0), backlog=512)
        self.port = self.server.getsockname()[1]
        self.accepted = 0
        self.held: list[socket.socket] = []
        self.stopped = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        self.server.settimeout(0.5)
        while not self.stopped.is_set():
            try:
                conn, _ = self.server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            self.accepted += 1
            conn.setblocking(False)
            self.held.append(conn)
            for held in list(self.held):
                with suppress(BlockingIOError, OSError):
                    held.recv(65536)

    def stop(self) -> None:
        self.stopped.set()
        for conn in self.held:
            with suppress(OSError):
                conn.close()
        with suppress(OSError):
            self.server.close()


class BadPushService:
    """A push service on 127.0.0.1 that answers every request ``mode``: ``huge`` (201 with a
    body of ``huge_bytes`` zeros, sent as fast as the client reads) or ``trickle`` (201 whose
    body comes a byte every ``trickle_every`` seconds, for at most ``trickle_for`` seconds).
    Records each connection's requests, how long the client stayed and what it read."""

    def __init__(
        self,
        mode: str,
        huge_bytes: int = 300 << 20,
        trickle_every: float = 4.0,
        trickle_for: float = 60.0,
    ) -> None:
        self.mode, self.huge_bytes = mode, huge_bytes
        self.trickle_every, self.trickle_for = trickle_every, trickle_for
        self.server = socket.create_server(("127.0.0.1", 0), backlog=256)
        self.port = self.server.getsockname()[1]
        self.requests = 0
        self.held_seconds: list[float] = []  # how long each client stayed
        self.open_since: dict[int, float] = {}  # connections still open: since when
        self.sent_bytes: list[int] = []  # body bytes each client took
        self.stopped = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/push/{os.urandom(6).hex()}"

    def _serve(self) -> None:
        self.server.settimeout(0.5)
        while not self.stopped.is_set():
            try:
                conn, _ = self.server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        started, sent = time.monotonic(), 0
        self.open_since[id(conn)] = started
        conn.settimeout(10)
        try:
            head = b""
            while b"\r\n\r\n" not in head:
                data = conn.recv(65536)
                if not data:
                    return
                head += data
            self.requests += 1
            length = 0
            for line in head.split(b"\r\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            body = head.split(b"\r\n\r\n", 1)[1]
            while len(body) < length:
                data = conn.recv(65536)
                if not data:
                    break
                body += data
            if self.mode == "huge":
                conn.sendall(
                    b"HTTP/1.1 201 Created\r\nContent-Length: %d\r\n\r\n" % self.huge_bytes
                )
                block = b"0" * (1 << 20)
                while sent < self.huge_bytes and not self.stopped.is_set():
                    conn.sendall(block)
                    sent += len(block)
            else:
                conn.sendall(b"HTTP/1.1 201 Created\r\nContent-Length: 100000\r\n\r\n")
                while time.monotonic() - started < self.trickle_for and not self.stopped.is_set():
                    conn.sendall(b"0")
                    sent += 1
                    time.sleep(self.trickle_every)
        except OSError:
            pass
        finally:
            self.held_seconds.append(time.monotonic() - started)
            self.open_since.pop(id(conn), None)
            self.sent_bytes.append(sent)
            with suppress(OSError):
                conn.close()

    @property
    def longest_hold(self) -> float:
        """The longest a client stayed, counting those still connected."""
        now = time.monotonic()
        return max([*self.held_seconds, *(now - t for t in list(self.open_since.values())), 0.0])

    def stop(self) -> None:
        self.stopped.set()
        with suppress(OSError):
            self.server.close()
