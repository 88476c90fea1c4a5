"""A browser and its push service for the Web Push tests, written from the RFCs (not from the
library under test): the subscriber's keys, the decryption of a push message (RFC 8291,
aes128gcm as RFC 8188 frames it), the check of the VAPID Authorization header (RFC 8292), and
a push service on loopback (a real HTTP server in a thread) that records what it receives and
answers as ``script`` says: one entry per request, an HTTP status or ``"hang"`` (no answer
until ``release``); past the script, 201.
"""

from __future__ import annotations

import base64
import json
import os
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _hkdf(salt: bytes, ikm: bytes, info: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=salt, info=info).derive(ikm)


def _point(key: ec.EllipticCurvePublicKey) -> bytes:
    return key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )


@dataclass
class Subscriber:
    """A browser's side of a subscription: its ECDH P-256 key pair and auth secret."""

    private: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    @property
    def p256dh(self) -> str:
        return b64url(_point(self.private.public_key()))

    def keys(self) -> dict[str, str]:
        return {"p256dh": self.p256dh, "auth": b64url(self.auth)}

    def decrypt(self, body: bytes) -> bytes:
        """RFC 8291 section 3.4 and RFC 8188 section 2: the header (salt, record size, the
        sender's key), the keys derived from the ECDH secret and ``auth``, one record."""
        salt, record_size, id_length = body[:16], struct.unpack("!I", body[16:20])[0], body[20]
        sender_point = body[21 : 21 + id_length]
        ciphertext = body[21 + id_length :]
        assert id_length == 65 and len(ciphertext) <= record_size
        sender = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), sender_point)
        shared = self.private.exchange(ec.ECDH(), sender)
        key_info = b"WebPush: info\x00" + _point(self.private.public_key()) + sender_point
        ikm = _hkdf(self.auth, shared, key_info, 32)
        cek = _hkdf(salt, ikm, b"Content-Encoding: aes128gcm\x00", 16)
        nonce = _hkdf(salt, ikm, b"Content-Encoding: nonce\x00", 12)
        padded = AESGCM(cek).decrypt(nonce, ciphertext, None)
        unpadded = padded.rstrip(b"\x00")
        assert unpadded.endswith(b"\x02"), "the last record ends with the delimiter 2"
        return unpadded[:-1]


def vapid_claims(authorization: str, server_public_key: str) -> dict[str, Any]:
    """The claims of a ``vapid t=<JWT>,k=<key>`` header (RFC 8292) whose key is
    ``server_public_key`` and whose ES256 signature verifies with it; raises otherwise."""
    scheme, _, rest = authorization.partition(" ")
    assert scheme.lower() == "vapid", authorization[:10]
    parts = dict(item.strip().split("=", 1) for item in rest.split(","))
    assert parts["k"] == server_public_key
    header_b64, claims_b64, signature_b64 = parts["t"].split(".")
    assert json.loads(unb64url(header_b64)) == {"typ": "JWT", "alg": "ES256"}
    signature = unb64url(signature_b64)
    assert len(signature) == 64
    der = encode_dss_signature(
        int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big")
    )
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(parts["k"]))
    public.verify(der, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    claims: dict[str, Any] = json.loads(unb64url(claims_b64))
    return claims


@dataclass
class Pushed:
    """One request the push service received."""

    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class PushService:
    script: list[int | str] = field(default_factory=list)
    received: list[Pushed] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    server: ThreadingHTTPServer | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def origin(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def endpoint(self, name: str = "sub-1") -> str:
        return f"{self.origin}/push/v2/{name}"

    def start(self) -> PushService:
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with service.lock:
                    service.received.append(
                        Pushed(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                    )
                    action = service.script.pop(0) if service.script else 201
                if action == "hang":
                    service.release.wait(30)
                    action = 201
                status = int(action)
                try:
                    self.send_response(status)
                    if 300 <= status < 400:
                        self.send_header("Location", f"{service.origin}/elsewhere")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    pass  # the sender gave up

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.release.set()
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def wait_for(self, count: int, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while len(self.received) < count:
            assert time.monotonic() < deadline, f"{len(self.received)} of {count} pushes came"
            time.sleep(0.01)
