"""Local FCM and APNs receivers that speak the real protocols: HTTP/2 over TLS (hypercorn, with
ALPN, a certificate made here for 127.0.0.1 and trusted through ``PUSH_TLS_CA_FILE``).

- ``FcmReceiver``: Google's OAuth 2.0 token endpoint (``/token``: the RS256 assertion is
  verified with the service account's public key: ``iss`` = the account's e-mail, ``aud`` =
  Google's token endpoint (what google-auth signs, and Google checks, whatever ``token_uri``
  says), the ``firebase.messaging`` scope, ``iat``/``exp`` fresh; it issues an access token)
  and FCM's
  ``/v1/projects/{project}/messages:send`` (the bearer token must be one it issued and has not
  revoked).
- ``ApnsReceiver``: ``/3/device/{token}`` (the provider token is verified: ES256 with the
  key's public half, ``kid``, ``iss`` = the team id, ``iat`` fresh; the headers APNs requires).

Both refuse a request that does not come over HTTP/2, answer what a test scripts (``script``:
statuses with the providers' error bodies, or ``dead``: tokens answered as unregistered), and
record every request (``received``) and every check that failed (``problems``: a test asserts
it stays empty). The fixtures ``fcm_receiver`` and ``apns_receiver`` start one server each for
the session and point the settings at them for a test (the receivers reset).

tests/notifications/conftest.py offers the fixtures to the notifications tests; a test
elsewhere imports them into its conftest the same way (``_fcm_server``, ``_apns_server``,
``push_tls``, ``fcm_receiver``, ``apns_receiver``, ``native_push_off``).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import ipaddress
import json
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import jwt
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from hypercorn.asyncio import serve
from hypercorn.config import Config

FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
# The audience Google's token endpoint expects of an assertion: google-auth signs it whatever
# the service account's token_uri says (the two are the same in a real service account).
GOOGLE_TOKEN_AUDIENCE = "https://oauth2.googleapis.com/token"
PROJECT = "canasta-test"
CLIENT_EMAIL = "pusher@canasta-test.iam.gserviceaccount.com"
TEAM_ID = "TEAM123456"
KEY_ID = "KEY1234567"
TOPIC = "org.example.canasta"
FRESH_SECONDS = 120  # a JWT's iat at most this old (and not in the future)

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


# ============================================================================== TLS
@dataclass(frozen=True)
class Tls:
    ca_file: str
    cert_file: str
    key_file: str


def _name(text: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


def tls_files(directory: Path) -> Tls:
    """A CA and a certificate it signs for 127.0.0.1 and localhost, as PEM files."""
    now = dt.datetime.now(dt.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name("canasta test CA"))
        .issuer_name(_name("canasta test CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name("127.0.0.1"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    paths = Tls(
        ca_file=str(directory / "ca.pem"),
        cert_file=str(directory / "cert.pem"),
        key_file=str(directory / "key.pem"),
    )
    Path(paths.ca_file).write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    Path(paths.cert_file).write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    Path(paths.key_file).write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return paths


# ============================================================================== the server
@dataclass
class Received:
    """One request as the receiver saw it."""

    method: str
    path: str
    http_version: str
    headers: dict[str, str]
    body: bytes
    at: float  # time.monotonic() when it arrived

    def json(self) -> Any:
        return json.loads(self.body)


class Http2Server:
    """hypercorn serving an ASGI app over TLS on 127.0.0.1 in a thread of its own."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]], tls: Tls) -> None:
        self.app, self.tls = app, tls
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = int(probe.getsockname()[1])
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def start(self) -> Http2Server:
        config = Config()
        config.bind = [f"127.0.0.1:{self.port}"]
        config.certfile, config.keyfile = self.tls.cert_file, self.tls.key_file
        config.alpn_protocols = ["h2", "http/1.1"]
        config.accesslog = None
        config.errorlog = None
        config.loglevel = "WARNING"
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            asyncio.set_event_loop(loop)
            self._stop = asyncio.Event()
            loop.call_soon(ready.set)
            loop.run_until_complete(serve(self.app, config, shutdown_trigger=self._stop.wait))  # type: ignore[arg-type]
            loop.close()

        self._thread = threading.Thread(target=run, name="push-receiver", daemon=True)
        self._thread.start()
        ready.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # until it listens
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5),
            ):
                return self
            time.sleep(0.02)
        raise RuntimeError("the push receiver did not start")

    def stop(self) -> None:
        if self._loop is not None and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        if self._thread is not None:
            self._thread.join(10)


async def _body_of(receive: Receive) -> bytes:
    chunks = []
    while True:
        message = await receive()
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            return b"".join(chunks)


async def _answer(send: Send, status: int, body: dict[str, Any] | None, **headers: str) -> None:
    data = json.dumps(body).encode() if body is not None else b""
    raw = [(b"content-type", b"application/json")] if body is not None else []
    raw += [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": data})


@dataclass
class Receiver:
    """What every receiver records and can be told to answer."""

    server: Http2Server | None = None
    received: list[Received] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    script: list[int] = field(default_factory=list)  # statuses answered first, in order
    dead: set[str] = field(default_factory=set)  # device tokens answered as unregistered
    lock: threading.Lock = field(default_factory=threading.Lock)
    arrived: threading.Condition = field(init=False)

    def __post_init__(self) -> None:
        self.arrived = threading.Condition(self.lock)

    @property
    def base_url(self) -> str:
        assert self.server is not None
        return self.server.base_url

    def reset(self) -> None:
        with self.lock:
            self.received.clear()
            self.problems.clear()
            self.script.clear()
            self.dead.clear()

    def record(self, request: Received) -> None:
        with self.arrived:
            self.received.append(request)
            self.arrived.notify_all()

    def wait_for(self, count: int, timeout: float = 10.0) -> list[Received]:
        """Block until ``count`` requests arrived (the messages, not the token requests)."""
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.messages()) >= count, timeout)
            return self.messages()

    def messages(self) -> list[Received]:
        return list(self.received)

    def scripted(self) -> int | None:
        with self.lock:
            return self.script.pop(0) if self.script else None

    def problem(self, text: str) -> None:
        with self.lock:
            self.problems.append(text)


async def _request(scope: Scope, receive: Receive) -> Received:
    headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
    return Received(
        method=scope["method"],
        path=scope["path"],
        http_version=scope["http_version"],
        headers=headers,
        body=await _body_of(receive),
        at=time.monotonic(),
    )


def _fresh(iat: Any) -> bool:
    return isinstance(iat, int) and time.time() - FRESH_SECONDS <= iat <= time.time() + 5


# ============================================================================== FCM
@dataclass
class FcmReceiver(Receiver):
    """Google's token endpoint and FCM's send endpoint (see the module)."""

    key: rsa.RSAPrivateKey = field(
        default_factory=lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048)
    )
    issued: list[str] = field(default_factory=list)
    revoked: set[str] = field(default_factory=set)
    assertions: list[dict[str, Any]] = field(default_factory=list)
    expires_in: int = 3600

    def reset(self) -> None:
        super().reset()
        with self.lock:
            self.issued.clear()
            self.revoked.clear()
            self.assertions.clear()
            self.expires_in = 3600

    @property
    def token_uri(self) -> str:
        return f"{self.base_url}/token"

    def service_account(self) -> dict[str, Any]:
        """The service account's JSON key, as the Firebase console gives it."""
        pem = self.key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        return {
            "type": "service_account",
            "project_id": PROJECT,
            "private_key_id": "k1",
            "private_key": pem,
            "client_email": CLIENT_EMAIL,
            "client_id": "1",
            "token_uri": self.token_uri,
        }

    def messages(self) -> list[Received]:
        return [r for r in self.received if r.path.endswith(":send")]

    def revoke_all(self) -> None:
        """Every token issued so far is refused from now on (401)."""
        with self.lock:
            self.revoked.update(self.issued)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        request = await _request(scope, receive)
        self.record(request)
        if request.http_version != "2":
            self.problem(f"{request.path} over HTTP/{request.http_version}")
            await _answer(send, 505, {"error": "HTTP/2 only"})
        elif request.path == "/token":
            await self._token(request, send)
        elif request.path == f"/v1/projects/{PROJECT}/messages:send":
            await self._message(request, send)
        else:
            self.problem(f"unknown path {request.path}")
            await _answer(send, 404, {"error": {"code": 404, "status": "NOT_FOUND"}})

    async def _token(self, request: Received, send: Send) -> None:
        form = {k: v[0] for k, v in parse_qs(request.body.decode()).items()}
        if form.get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer":
            self.problem(f"grant_type {form.get('grant_type')!r}")
            await _answer(send, 400, {"error": "unsupported_grant_type"})
            return
        try:
            claims = jwt.decode(
                form.get("assertion", ""),
                self.key.public_key(),
                algorithms=["RS256"],
                audience=GOOGLE_TOKEN_AUDIENCE,
                issuer=CLIENT_EMAIL,
                options={"require": ["iat", "exp", "aud", "iss", "scope"]},
            )
        except jwt.PyJWTError as exc:
            self.problem(f"assertion refused: {exc}")
            await _answer(send, 400, {"error": "invalid_grant"})
            return
        if claims.get("scope") != FCM_SCOPE or not _fresh(claims.get("iat")):
            self.problem(f"assertion claims {claims}")
            await _answer(send, 400, {"error": "invalid_scope"})
            return
        token = f"ya29.test-{len(self.issued) + 1}-{int(time.time() * 1000)}"
        with self.lock:
            self.issued.append(token)
            self.assertions.append(claims)
        await _answer(
            send,
            200,
            {"access_token": token, "expires_in": self.expires_in, "token_type": "Bearer"},
        )

    async def _message(self, request: Received, send: Send) -> None:
        bearer = request.headers.get("authorization", "")
        token = bearer.removeprefix("Bearer ")
        if not bearer.startswith("Bearer ") or token not in self.issued:
            self.problem("a message with a token the token endpoint never issued")
            await _answer(send, 401, _fcm_error(401, "UNAUTHENTICATED", None))
            return
        if token in self.revoked:
            await _answer(send, 401, _fcm_error(401, "UNAUTHENTICATED", None))
            return
        try:
            message = json.loads(request.body)["message"]
            device = message["token"]
        except (ValueError, KeyError, TypeError):
            self.problem("a message without message.token")
            await _answer(send, 400, _fcm_error(400, "INVALID_ARGUMENT", None))
            return
        if not all(isinstance(v, str) for v in message.get("data", {}).values()):
            self.problem("FCM data values must be strings")
        status = self.scripted()
        if status is not None and status != 200:
            code = {404: "UNREGISTERED", 429: "QUOTA_EXCEEDED", 400: "INVALID_ARGUMENT"}
            await _answer(send, status, _fcm_error(status, _status_name(status), code.get(status)))
            return
        if device in self.dead:
            await _answer(send, 404, _fcm_error(404, "NOT_FOUND", "UNREGISTERED"))
            return
        await _answer(send, 200, {"name": f"projects/{PROJECT}/messages/{len(self.received)}"})


def _status_name(status: int) -> str:
    names = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 404: "NOT_FOUND"}
    names |= {429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE"}
    return names.get(status, "UNKNOWN")


def _fcm_error(status: int, name: str, code: str | None) -> dict[str, Any]:
    """An FCM v1 error answer, as Google sends it."""
    details: list[dict[str, Any]] = []
    message = "Requested entity was not found." if status == 404 else "error"
    if code is not None:
        details.append(
            {"@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError", "errorCode": code}
        )
    if code == "INVALID_ARGUMENT":
        message = "The registration token is not a valid FCM registration token"
        details.append(
            {
                "@type": "type.googleapis.com/google.rpc.BadRequest",
                "fieldViolations": [
                    {"field": "message.token", "description": "Invalid registration token"}
                ],
            }
        )
    return {"error": {"code": status, "message": message, "status": name, "details": details}}


# ============================================================================== APNs
@dataclass
class ApnsReceiver(Receiver):
    """APNs' ``/3/device/{token}`` (see the module)."""

    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    provider_tokens: list[str] = field(default_factory=list)  # each distinct one seen
    expired: set[str] = field(default_factory=set)  # provider tokens answered as expired

    def reset(self) -> None:
        super().reset()
        with self.lock:
            self.provider_tokens.clear()
            self.expired.clear()

    def key_pem(self) -> bytes:
        """The signing key as Apple's ``.p8`` file holds it (PKCS#8 PEM)."""
        return self.key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    def expire_all(self) -> None:
        """Every provider token seen so far is answered 403 ExpiredProviderToken."""
        with self.lock:
            self.expired.update(self.provider_tokens)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        request = await _request(scope, receive)
        self.record(request)
        apns_id = request.headers.get("apns-id", "00000000-0000-0000-0000-000000000000")
        if request.http_version != "2":
            self.problem(f"{request.path} over HTTP/{request.http_version}")
            await _answer(send, 505, {"reason": "HTTP/2 only"})
            return
        if request.method != "POST" or not request.path.startswith("/3/device/"):
            self.problem(f"{request.method} {request.path}")
            await _answer(send, 405, {"reason": "MethodNotAllowed"})
            return
        reason = self._check(request)
        if reason is not None:
            await _answer(send, 403, {"reason": reason}, apns_id=apns_id)
            return
        status = self.scripted()
        if status is not None and status != 200:
            names = {400: "BadDeviceToken", 410: "Unregistered", 429: "TooManyRequests"}
            names |= {500: "InternalServerError", 503: "ServiceUnavailable"}
            body: dict[str, Any] = {"reason": names.get(status, "InternalServerError")}
            if status == 410:
                body["timestamp"] = int(time.time() * 1000)
            await _answer(send, status, body, apns_id=apns_id)
            return
        if request.path.removeprefix("/3/device/") in self.dead:
            await _answer(send, 410, {"reason": "Unregistered", "timestamp": 0}, apns_id=apns_id)
            return
        await _answer(send, 200, None, apns_id=apns_id)

    def _check(self, request: Received) -> str | None:
        """The provider token and the required headers; the reason APNs would give."""
        bearer = request.headers.get("authorization", "")
        if not bearer.startswith("bearer "):
            self.problem("no bearer provider token")
            return "MissingProviderToken"
        token = bearer.removeprefix("bearer ")
        try:
            header = jwt.get_unverified_header(token)
            claims = jwt.decode(
                token,
                self.key.public_key(),
                algorithms=["ES256"],
                options={"require": ["iss", "iat"], "verify_aud": False},
            )
        except jwt.PyJWTError as exc:
            self.problem(f"provider token refused: {exc}")
            return "InvalidProviderToken"
        if header.get("kid") != KEY_ID or claims.get("iss") != TEAM_ID:
            self.problem(f"provider token ids {header} {claims}")
            return "InvalidProviderToken"
        if not _fresh(claims.get("iat")):
            self.problem(f"provider token iat {claims.get('iat')}")
            return "ExpiredProviderToken"
        with self.lock:
            if token not in self.provider_tokens:
                self.provider_tokens.append(token)
            if token in self.expired:
                return "ExpiredProviderToken"
        for name in ("apns-topic", "apns-push-type", "apns-priority", "apns-expiration"):
            if name not in request.headers:
                self.problem(f"no {name} header")
                return "BadTopic" if name == "apns-topic" else "BadPriority"
        return None


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


# ============================================================================== fixtures
def _caches_clear() -> None:
    from notifications.services import native_push  # this module loads before Django does

    native_push.http_clients_close()
    native_push.fcm_tokens_forget()
    native_push.apns_tokens_forget()
    native_push._fcm_config_of.cache_clear()
    native_push._apns_config_of.cache_clear()


@pytest.fixture(scope="session")
def push_tls(tmp_path_factory: pytest.TempPathFactory) -> Tls:
    return tls_files(tmp_path_factory.mktemp("push-tls"))


@pytest.fixture(scope="session")
def _fcm_server(push_tls: Tls) -> Iterator[FcmReceiver]:
    receiver = FcmReceiver()
    receiver.server = Http2Server(receiver, push_tls).start()
    try:
        yield receiver
    finally:
        receiver.server.stop()


@pytest.fixture(scope="session")
def _apns_server(push_tls: Tls) -> Iterator[ApnsReceiver]:
    receiver = ApnsReceiver()
    receiver.server = Http2Server(receiver, push_tls).start()
    try:
        yield receiver
    finally:
        receiver.server.stop()


@pytest.fixture
def fcm_receiver(_fcm_server: FcmReceiver, push_tls: Tls, settings: Any) -> Iterator[FcmReceiver]:
    """FCM is on, its service account's token URI and FCM's endpoint at the local receiver
    (trusted through PUSH_TLS_CA_FILE, 127.0.0.1 allowed through NATIVE_PUSH_ALLOW_HOSTS)."""
    _fcm_server.reset()
    settings.FCM_SERVICE_ACCOUNT_FILE = ""
    settings.FCM_SERVICE_ACCOUNT_JSON = json.dumps(_fcm_server.service_account())
    settings.FCM_PROJECT_ID = ""
    settings.FCM_ENDPOINT = _fcm_server.base_url
    settings.PUSH_TLS_CA_FILE = push_tls.ca_file
    settings.NATIVE_PUSH_ALLOW_HOSTS = ["127.0.0.1"]
    _caches_clear()
    yield _fcm_server
    _caches_clear()


@pytest.fixture
def apns_receiver(
    _apns_server: ApnsReceiver, push_tls: Tls, settings: Any, tmp_path: Path
) -> Iterator[ApnsReceiver]:
    """APNs is on: its key file, key id, team id and topic, its endpoint at the local receiver
    (trusted through PUSH_TLS_CA_FILE, 127.0.0.1 allowed through NATIVE_PUSH_ALLOW_HOSTS)."""
    _apns_server.reset()
    key_file = tmp_path / "AuthKey.p8"
    key_file.write_bytes(_apns_server.key_pem())
    settings.APNS_KEY_FILE = str(key_file)
    settings.APNS_KEY_ID = KEY_ID
    settings.APNS_TEAM_ID = TEAM_ID
    settings.APNS_TOPIC = [TOPIC]
    settings.APNS_ENDPOINT = _apns_server.base_url
    settings.PUSH_TLS_CA_FILE = push_tls.ca_file
    settings.NATIVE_PUSH_ALLOW_HOSTS = ["127.0.0.1"]
    _caches_clear()
    yield _apns_server
    _caches_clear()


@pytest.fixture
def native_push_off(settings: Any) -> Iterator[None]:
    """Neither FCM nor APNs has credentials."""
    settings.FCM_SERVICE_ACCOUNT_FILE = ""
    settings.FCM_SERVICE_ACCOUNT_JSON = ""
    settings.APNS_KEY_FILE = ""
    _caches_clear()
    yield
    _caches_clear()
