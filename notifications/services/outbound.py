"""One HTTP POST to a receiver outside the service (a webhook, a push service), bounded.

- **The address checked is the address used**: the host name is resolved once, the first
  public address it gives (any address for a host in ``allowed_hosts``) is the one connected
  to; a name that answers a public address for a check and a loopback one for the connection
  never reaches loopback. Over https, TLS is still verified against the host name (SNI and the
  certificate's name).
- **One deadline for the attempt** (``NOTIFICATION_ATTEMPT_SECONDS``): the name lookup,
  connecting, sending and reading the answer all end by it; a watchdog shuts the socket at the
  deadline, so a receiver that trickles its answer a byte at a time is cut off too.
- **A bounded answer**: at most ``ANSWER_READ_MAX`` bytes of the body are read; the status is
  what counts. Redirects are not followed, no proxy is used.

Errors are described without the URL, and a host that may not be reached is told with one text
(``addresses.NO_PUBLIC_ADDRESS``), whether its name is unknown or internal.
"""

from __future__ import annotations

import contextlib
import http.client
import queue
import socket
import ssl
import threading
import time
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings

from notifications.services.addresses import NO_PUBLIC_ADDRESS, address_is_public

CONNECT_TIMEOUT = 3.0  # at most, within the attempt's deadline
ANSWER_READ_MAX = 4096  # bytes of an answer's body read (the status is what counts)
TIMED_OUT = "timed out"


@dataclass(frozen=True)
class SendOutcome:
    """What a receiver answered. ``gone``: the endpoint no longer exists (stop sending)."""

    ok: bool
    status: int | None = None
    error: str = ""
    gone: bool = False


def attempt_seconds() -> float:
    """The deadline of one delivery attempt (``NOTIFICATION_ATTEMPT_SECONDS``)."""
    return float(getattr(settings, "NOTIFICATION_ATTEMPT_SECONDS", 5))


class _Timeout(Exception):
    pass


def _lookup(host: str, port: int, deadline: float) -> list[Any]:
    """``getaddrinfo`` within the deadline: in a thread of its own, left to finish alone when
    the resolver is slower than the attempt may be."""
    answers: queue.Queue[tuple[list[Any] | None, OSError | None]] = queue.Queue(maxsize=1)

    def run() -> None:
        try:
            answers.put((socket.getaddrinfo(host, port, type=socket.SOCK_STREAM), None))
        except OSError as exc:
            answers.put((None, exc))

    threading.Thread(target=run, name="notification-lookup", daemon=True).start()
    try:
        infos, error = answers.get(timeout=max(0.0, deadline - time.monotonic()))
    except queue.Empty:
        raise _Timeout from None
    if error is not None:
        raise error
    return infos or []


@dataclass(frozen=True)
class Address:
    """One answer of the name lookup: what a socket is made and connected with."""

    family: int
    type: int
    proto: int
    sockaddr: tuple[Any, ...]


def address_pick(host: str, port: int, allowed_hosts: Collection[str], deadline: float) -> Address:
    """The address to connect to: the first the name resolves to that is public (any, for a
    host in ``allowed_hosts``). Raises OSError(NO_PUBLIC_ADDRESS) when there is none, and
    ``_Timeout`` past the deadline."""
    allowed = host.lower() in {h.lower() for h in allowed_hosts}
    for family, kind, proto, _, sockaddr in _lookup(host, port, deadline):
        if allowed or address_is_public(str(sockaddr[0])):
            return Address(int(family), int(kind), int(proto), tuple(sockaddr))
    raise OSError(NO_PUBLIC_ADDRESS)


class PinnedConnection(http.client.HTTPConnection):
    """http.client's connection to an address chosen beforehand, optionally over TLS (the
    certificate checked against the host name), within a deadline."""

    def __init__(self, host: str, port: int, address: Address, tls: bool, deadline: float) -> None:
        connect_within = min(CONNECT_TIMEOUT, max(0.01, deadline - time.monotonic()))
        super().__init__(host, port, timeout=connect_within)
        self.address, self.tls, self.deadline = address, tls, deadline
        self.socket_of_watchdog: socket.socket | None = None
        self.lock = threading.Lock()
        self.expired = False

    def connect(self) -> None:
        # The socket straight from the lookup's answer: no second lookup (create_connection
        # would resolve the address again).
        address = self.address
        sock = socket.socket(address.family, address.type, address.proto)
        try:
            sock.settimeout(self.timeout)
            self._watch(sock)
            sock.connect(address.sockaddr)
        except BaseException:
            sock.close()
            raise
        if self.tls:
            sock.settimeout(max(0.01, self.deadline - time.monotonic()))
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=self.host)
            self._watch(sock)
        sock.settimeout(max(0.01, self.deadline - time.monotonic()))
        self.sock = sock

    def _watch(self, sock: socket.socket) -> None:
        with self.lock:
            self.socket_of_watchdog = sock
            if self.expired:  # the deadline passed while connecting
                self.shutdown()

    def expire(self) -> None:
        """The deadline passed: wake the sending thread out of its blocked read or write."""
        with self.lock:
            self.expired = True
            self.shutdown()

    def shutdown(self) -> None:
        # At the socket level: an SSL socket's own shutdown would unwrap it under the reader.
        if self.socket_of_watchdog is not None:
            with contextlib.suppress(OSError):  # already closed
                socket.socket.shutdown(self.socket_of_watchdog, socket.SHUT_RDWR)


def http_post(
    url: str,
    data: bytes,
    headers: dict[str, str],
    *,
    allowed_hosts: Collection[str],
    total_timeout: float | None = None,
) -> SendOutcome:
    """POST ``data`` to ``url`` within ``total_timeout`` seconds (default
    ``NOTIFICATION_ATTEMPT_SECONDS``): https to a public address, or plain http and any address
    for a host in ``allowed_hosts``. A 2xx answer is ``ok``."""
    parts = urlsplit(url)
    tls = parts.scheme == "https"
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host:
        return SendOutcome(ok=False, error="not an http(s) URL")
    if not tls and host.lower() not in {h.lower() for h in allowed_hosts}:
        return SendOutcome(ok=False, error="plain http is not allowed to this host")
    port = parts.port or (443 if tls else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    seconds = attempt_seconds() if total_timeout is None else total_timeout
    deadline = time.monotonic() + seconds
    try:
        address = address_pick(host, port, allowed_hosts, deadline)
    except _Timeout:
        return SendOutcome(ok=False, error=TIMED_OUT)
    except OSError:  # an unknown name and an internal one alike
        return SendOutcome(ok=False, error=NO_PUBLIC_ADDRESS)
    conn = PinnedConnection(host, port, address, tls, deadline)
    watchdog = threading.Timer(max(0.0, deadline - time.monotonic()), conn.expire)
    watchdog.daemon = True
    watchdog.start()
    try:
        conn.request("POST", path, body=data, headers=headers)
        response = conn.getresponse()
        response.read(ANSWER_READ_MAX)  # a short look at the answer; the status is what counts
        status = response.status
    except (OSError, http.client.HTTPException) as exc:
        if conn.expired or time.monotonic() >= deadline or isinstance(exc, TimeoutError):
            return SendOutcome(ok=False, error=TIMED_OUT)
        return SendOutcome(ok=False, error=f"{type(exc).__name__}: {exc}")
    finally:
        watchdog.cancel()
        conn.close()
    if 200 <= status < 300:
        return SendOutcome(ok=True, status=status)
    return SendOutcome(ok=False, status=status, error=f"HTTP {status}")
