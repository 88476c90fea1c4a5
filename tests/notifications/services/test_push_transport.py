"""Web Push on the wire (third hardening round, findings 5 and 6): the push goes to the very
address that was checked (a name flipping to loopback between a check and a connection never
reaches it), TLS is verified against the host name (SNI and certificate), and an attempt is
bounded in the bytes of the answer it reads and in its total time (connect, send, answer),
whatever the push service does. Real servers on loopback; nothing leaves the machine
(connections to any other address are refused in the test before a packet is sent)."""

from __future__ import annotations

import datetime
import ipaddress
import itertools
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from notifications.services.push import push_send
from tests.notifications.notification_players import someone
from tests.notifications.push_service import Subscriber
from tests.notifications.services.test_push import _payload, _subscription, server_key  # noqa: F401

PUBLIC = "1.2.3.4"  # a public address the tests never connect to (see ``no_public_connection``)


# ============================================================================== loopback servers
@dataclass
class RawServer:
    """A TCP server on loopback that answers each connection with ``answer(conn)`` in a thread,
    and records how many connections came and the bytes it managed to send."""

    answer: Callable[[socket.socket, RawServer], None]
    connections: int = 0
    sent: int = 0
    hung_up_early: bool = False  # the client closed before the answer was complete
    stop: threading.Event = field(default_factory=threading.Event)
    sock: socket.socket | None = None

    @property
    def port(self) -> int:
        assert self.sock is not None
        return int(self.sock.getsockname()[1])

    def start(self) -> RawServer:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        threading.Thread(target=self._serve, daemon=True).start()
        return self

    def _serve(self) -> None:
        assert self.sock is not None
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            try:
                self.answer(conn, self)
            except OSError:
                self.hung_up_early = True

    def close(self) -> None:
        self.stop.set()
        if self.sock is not None:
            self.sock.close()


def _request_read(conn: socket.socket) -> None:
    """Read the request's head and its body (Content-Length)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return
        body += chunk


@pytest.fixture
def servers() -> Iterator[list[RawServer]]:
    started: list[RawServer] = []
    yield started
    for server in started:
        server.close()


@pytest.fixture
def no_public_connection(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every connection this process makes to an address other than loopback is refused
    before a packet is sent; the refused addresses are listed."""
    refused: list[tuple[str, int]] = []
    connect = socket.socket.connect

    def guarded(self: socket.socket, address: Any) -> None:
        if isinstance(address, tuple) and not ipaddress.ip_address(address[0]).is_loopback:
            refused.append((str(address[0]), int(address[1])))
            raise ConnectionRefusedError(111, "refused by the test")
        connect(self, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    return refused


def _resolving(monkeypatch: pytest.MonkeyPatch, answers: Iterator[str]) -> list[str]:
    """``socket.getaddrinfo`` answers each lookup with the next address of ``answers``; the
    lookups' host names are listed."""
    looked_up: list[str] = []

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> list[Any]:
        looked_up.append(str(host))
        address = next(answers)
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        return [(family, socket.SOCK_STREAM, 6, "", (address, int(port)))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return looked_up


# ============================================================================== the address
@pytest.mark.django_db
def test_a_name_flipping_between_a_public_and_a_loopback_address_never_reaches_loopback(
    server_key: Any,  # noqa: F811 - fixture
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    servers: list[RawServer],
    no_public_connection: list[tuple[str, int]],
) -> None:
    """The name's first answer is public, its next loopback, and so on: each push resolves it
    once and connects to what it checked (the public address: refused by the test before any
    packet), or refuses to send. A second lookup at connection time would reach the loopback
    server (as 37 TLS ClientHellos did in ~300 sends)."""
    settings.WEBPUSH_ALLOW_HTTP_HOSTS = []
    loopback = RawServer(answer=lambda conn, server: _request_read(conn)).start()
    servers.append(loopback)
    looked_up = _resolving(monkeypatch, itertools.cycle([PUBLIC, "127.0.0.1"]))
    subscription = _subscription(
        someone("Ada").player_id, f"https://push.flip.example:{loopback.port}/p/1", Subscriber()
    )
    outcomes = [push_send(subscription, _payload()) for _ in range(8)]

    assert loopback.connections == 0
    assert all(not o.ok and o.status is None for o in outcomes)
    refused = "cannot reach the push service: ConnectionRefusedError"
    assert [o.error.startswith(refused) for o in outcomes] == [True, False] * 4
    assert {o.error for o in outcomes[1::2]} == {"the host has no public address"}
    assert set(no_public_connection) == {(PUBLIC, loopback.port)}
    assert len(looked_up) == 8  # one lookup a push


# ============================================================================== TLS
def _certificate(name: str, ca_key: Any, ca_name: x509.Name) -> tuple[bytes, bytes]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    pem_key = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    return cert.public_bytes(serialization.Encoding.PEM), pem_key


@dataclass
class TlsPushService:
    """A push service on loopback behind TLS with a certificate for ``name`` (issued by a CA
    the test trusts), recording the server names its clients asked for (SNI)."""

    server: RawServer
    names_asked: list[str | None]


def _tls_push_service(tmp_path: Path, certified_name: str, ca: tuple[Any, x509.Name]) -> Any:
    ca_key, ca_name = ca
    cert, key = _certificate(certified_name, ca_key, ca_name)
    (tmp_path / f"{certified_name}.crt").write_bytes(cert)
    (tmp_path / f"{certified_name}.key").write_bytes(key)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / f"{certified_name}.crt", tmp_path / f"{certified_name}.key")
    names: list[str | None] = []

    def asked(sslsock: Any, name: str | None, ctx: Any) -> None:
        names.append(name)

    context.sni_callback = asked

    def answer(conn: socket.socket, server: RawServer) -> None:
        with context.wrap_socket(conn, server_side=True) as tls:
            _request_read(tls)
            tls.sendall(b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n")

    return TlsPushService(RawServer(answer=answer).start(), names)


@pytest.fixture
def trusted_ca(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, x509.Name]:
    """A CA of the test's own, the only one this process trusts (``SSL_CERT_FILE``)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Canasta test CA")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    (tmp_path / "ca.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "ca.pem"))
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    return key, name


@pytest.mark.django_db
def test_tls_to_the_pinned_address_is_verified_against_the_host_name(
    server_key: Any,  # noqa: F811 - fixture
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    trusted_ca: tuple[Any, x509.Name],
    servers: list[RawServer],
) -> None:
    """The connection goes to the address resolved, the TLS handshake names the host (SNI) and
    the certificate must be for that name: one for another name is refused."""
    settings.WEBPUSH_ALLOW_HTTP_HOSTS = ["push.good.example", "push.bad.example"]  # loopback
    good = _tls_push_service(tmp_path, "push.good.example", trusted_ca)
    other = _tls_push_service(tmp_path, "push.other.example", trusted_ca)
    servers += [good.server, other.server]
    _resolving(monkeypatch, itertools.repeat("127.0.0.1"))
    player_id = someone("Ada").player_id
    to_good = _subscription(
        player_id, f"https://push.good.example:{good.server.port}/p/1", Subscriber()
    )
    to_bad = _subscription(
        player_id, f"https://push.bad.example:{other.server.port}/p/2", Subscriber()
    )

    assert push_send(to_good, _payload()).status == 201
    assert good.names_asked == ["push.good.example"]

    refused = push_send(to_bad, _payload())
    assert not refused.ok and refused.status is None
    assert "SSL" in refused.error or "Certificate" in refused.error, refused.error
    assert other.names_asked == ["push.bad.example"]


# ============================================================================== bounds
@pytest.mark.django_db
def test_a_huge_answer_is_not_read_whole(
    server_key: Any,  # noqa: F811 - fixture
    servers: list[RawServer],
) -> None:
    """A push service answers 201 with a 128 MiB body: the status is read, then the connection
    closed; the service could send only a small part of it."""
    total = 128 * 1024 * 1024
    chunk = b"\0" * 65536

    def answer(conn: socket.socket, server: RawServer) -> None:
        _request_read(conn)
        conn.sendall(f"HTTP/1.1 201 Created\r\nContent-Length: {total}\r\n\r\n".encode())
        while server.sent < total:
            conn.sendall(chunk)
            server.sent += len(chunk)

    huge = RawServer(answer=answer).start()
    servers.append(huge)
    subscription = _subscription(
        someone("Ada").player_id, f"http://127.0.0.1:{huge.port}/p/1", Subscriber()
    )
    outcome = push_send(subscription, _payload())
    assert outcome.ok and outcome.status == 201
    deadline = time.monotonic() + 10
    while not huge.hung_up_early and time.monotonic() < deadline:
        time.sleep(0.05)
    assert huge.hung_up_early and huge.sent < total // 4, huge.sent


def _trickling(delay: float) -> Callable[[socket.socket, RawServer], None]:
    """An answer (201) sent one byte every ``delay`` seconds."""

    def answer(conn: socket.socket, server: RawServer) -> None:
        _request_read(conn)
        for byte in b"HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n":
            if server.stop.wait(delay):
                return
            conn.sendall(bytes([byte]))
            server.sent += 1

    return answer


@pytest.mark.django_db
def test_a_push_service_trickling_its_answer_is_cut_off_at_the_attempt_deadline(
    server_key: Any,  # noqa: F811 - fixture
    settings: Any,
    servers: list[RawServer],
) -> None:
    """Each byte comes well within any per-read timeout, and the whole answer after ~9 s; the
    attempt's deadline (1 s here) ends it before the answer is complete: a failure to retry."""
    settings.NOTIFICATION_ATTEMPT_SECONDS = 1
    trickler = RawServer(answer=_trickling(0.2)).start()
    servers.append(trickler)
    subscription = _subscription(
        someone("Ada").player_id, f"http://127.0.0.1:{trickler.port}/p/1", Subscriber()
    )
    outcome = push_send(subscription, _payload())
    assert (outcome.ok, outcome.status, outcome.error) == (False, None, "timed out")
    assert 0 < trickler.sent < 44  # some bytes came, not the whole answer


@pytest.mark.django_db
def test_a_slow_name_lookup_counts_against_the_attempt_deadline(
    server_key: Any,  # noqa: F811 - fixture
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A name whose resolver never answers: the attempt ends at its deadline, sending
    nothing."""
    settings.NOTIFICATION_ATTEMPT_SECONDS = 0.5
    settings.WEBPUSH_ALLOW_HTTP_HOSTS = []
    released = threading.Event()
    lookups: list[str] = []

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> list[Any]:
        lookups.append(str(host))
        released.wait(30)
        raise socket.gaierror(socket.EAI_AGAIN, "temporary failure")

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    subscription = _subscription(
        someone("Ada").player_id, "https://push.slow.example/p/1", Subscriber()
    )
    try:
        outcome = push_send(subscription, _payload())
        assert not released.is_set()
    finally:
        released.set()
    assert (outcome.ok, outcome.status, outcome.error) == (False, None, "timed out")
    assert lookups == ["push.slow.example"]
