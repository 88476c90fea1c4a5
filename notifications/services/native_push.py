"""Native push: a notification sent to an app's device token through Firebase Cloud Messaging
(the HTTP v1 API) or the Apple Push Notification service (token-based, over HTTP/2).

- **FCM**: the server holds a Google service account (``FCM_SERVICE_ACCOUNT_FILE``, or its JSON
  in ``FCM_SERVICE_ACCOUNT_JSON``). ``google-auth`` signs an RS256 assertion with the account's
  private key and exchanges it at the account's ``token_uri`` for an OAuth 2.0 access token
  (scope ``firebase.messaging``), kept until shortly before it expires; each message is a
  ``POST {FCM_ENDPOINT}/v1/projects/{project_id}/messages:send`` with that token. A 401 gets a
  new token and one more try.
- **APNs**: the server holds a signing key (``APNS_KEY_FILE``, the ``.p8`` file, with
  ``APNS_KEY_ID`` and ``APNS_TEAM_ID``) and signs an ES256 provider token with it, reused for
  ``APNS_TOKEN_SECONDS`` (50 minutes: Apple refuses one older than an hour and one renewed more
  than every 20 minutes). Each message is an HTTP/2 ``POST /3/device/{token}`` to
  ``api.push.apple.com`` (``api.sandbox.push.apple.com`` for a development build; both
  replaced by ``APNS_ENDPOINT``). A 403 ``ExpiredProviderToken`` gets a new token and one more
  try.

Both carry the delivery's body as the other channels do (``delivery.delivery_body``: the
notification's public payload, built from a fixed list of fields per kind: never a card), its
collapse key (``push.push_topic``: one pending message per game and matter) and its expiry
(``push.push_ttl``: the turn's deadline, else ``WEBPUSH_TTL_SECONDS``). A token its service says
is dead (FCM ``UNREGISTERED``, an invalid token, a token of another sender; APNs 410, or 400
``BadDeviceToken`` / ``DeviceTokenNotForTopic``) is ``gone``: the outbox disables the
registration and drops its pending deliveries. 429 and 5xx are failures the outbox retries
with its backoff.

The provider hosts come from settings, never from a player; a host given as a private or
loopback address is refused unless it is listed in ``NATIVE_PUSH_ALLOW_HOSTS`` (local receivers
in tests). TLS is verified against the system's trust store, or ``PUSH_TLS_CA_FILE`` when set.
One ``httpx`` client (HTTP/2) per process keeps its connections open between messages, as Apple
asks. Without its settings a platform is off: registering answers 503
``native_push_unavailable`` and nothing is sent. No key, token or payload is ever logged.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import ssl
import threading
import time
import uuid
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import google.auth.exceptions
import google.auth.transport
import httpx
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from google.oauth2 import service_account

from notifications.models import DevicePlatform, DeviceRegistration
from notifications.services.addresses import address_is_public
from notifications.services.outbound import SendOutcome, attempt_seconds
from notifications.services.push import URGENCY, push_topic, push_ttl

FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
FCM_ENDPOINT_DEFAULT = "https://fcm.googleapis.com"
APNS_PRODUCTION = "https://api.push.apple.com"
APNS_SANDBOX = "https://api.sandbox.push.apple.com"
APNS_TOKEN_SECONDS = 50 * 60  # a provider token's reuse (Apple: 20 to 60 minutes)
# Both services take at most 4096 bytes of payload (FCM: the message's data and notification).
PAYLOAD_MAX_BYTES = 4000
APNS_COLLAPSE_MAX = 64  # bytes of apns-collapse-id
ERROR_MAX = 200
# The fields a notification's title and text come from (the rest goes as data).
TITLE, TEXT = "title", "text"


# ============================================================================== configuration
@dataclass(frozen=True)
class FcmConfig:
    project_id: str
    info: dict[str, Any]  # the service account's JSON


@dataclass(frozen=True)
class ApnsConfig:
    key: ec.EllipticCurvePrivateKey
    key_id: str
    team_id: str
    topics: tuple[str, ...]  # the first is the default topic


def _setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


@lru_cache(maxsize=4)
def _fcm_config_of(path: str, text: str, project: str) -> FcmConfig | None:
    if not path and not text:
        return None
    where = "FCM_SERVICE_ACCOUNT_JSON" if text else "FCM_SERVICE_ACCOUNT_FILE"
    try:
        raw = text or Path(path).read_text(encoding="utf-8")
        info = json.loads(raw)
    except (OSError, ValueError) as exc:
        raise ImproperlyConfigured(
            f"{where} is invalid: cannot read the service account's JSON ({type(exc).__name__})."
        ) from None
    needed = ("client_email", "private_key", "token_uri")
    if not isinstance(info, dict) or any(not isinstance(info.get(k), str) for k in needed):
        raise ImproperlyConfigured(
            f"{where} is invalid: expected a service account's JSON key "
            f"({', '.join(needed)}, project_id)."
        )
    project_id = project or str(info.get("project_id") or "")
    if not project_id:
        raise ImproperlyConfigured(f"{where} has no project_id: set FCM_PROJECT_ID.")
    return FcmConfig(project_id=project_id, info=info)


def fcm_config() -> FcmConfig | None:
    """The FCM service account, or None when FCM is off. Raises ImproperlyConfigured for an
    unreadable or incomplete one."""
    return _fcm_config_of(
        str(_setting("FCM_SERVICE_ACCOUNT_FILE", "") or ""),
        str(_setting("FCM_SERVICE_ACCOUNT_JSON", "") or ""),
        str(_setting("FCM_PROJECT_ID", "") or ""),
    )


@lru_cache(maxsize=4)
def _apns_config_of(
    path: str, key_id: str, team_id: str, topics: tuple[str, ...]
) -> ApnsConfig | None:
    if not path:
        return None
    try:
        key = serialization.load_pem_private_key(Path(path).read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise ImproperlyConfigured(
            f"APNS_KEY_FILE is invalid: cannot read a PEM private key ({type(exc).__name__})."
        ) from None
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
        raise ImproperlyConfigured("APNS_KEY_FILE is invalid: expected the P-256 .p8 key.")
    if not key_id or not team_id or not topics:
        raise ImproperlyConfigured(
            "APNS_KEY_FILE is set: APNS_KEY_ID, APNS_TEAM_ID and APNS_TOPIC are needed too."
        )
    return ApnsConfig(key=key, key_id=key_id, team_id=team_id, topics=topics)


def apns_config() -> ApnsConfig | None:
    """The APNs signing key and its ids, or None when APNs is off."""
    topics = _setting("APNS_TOPIC", ()) or ()
    if isinstance(topics, str):
        topics = [t for t in topics.split(",")]
    return _apns_config_of(
        str(_setting("APNS_KEY_FILE", "") or ""),
        str(_setting("APNS_KEY_ID", "") or ""),
        str(_setting("APNS_TEAM_ID", "") or ""),
        tuple(t.strip() for t in topics if t.strip()),
    )


def platform_configured(platform: str) -> bool:
    """Whether the server can send to ``platform`` (``fcm`` or ``apns``)."""
    if platform == DevicePlatform.FCM:
        return fcm_config() is not None
    if platform == DevicePlatform.APNS:
        return apns_config() is not None
    return False


def platforms_off() -> frozenset[str]:
    """The platforms the server cannot send to (their deliveries are not made)."""
    return frozenset(p for p in DevicePlatform.values if not platform_configured(p))


# ============================================================================== the HTTP client
_clients: dict[tuple[int, str], httpx.Client] = {}
_clients_lock = threading.Lock()


def _tls_context(ca_file: str) -> ssl.SSLContext:
    """The system's trust store, or ``PUSH_TLS_CA_FILE`` instead (local receivers)."""
    if ca_file:
        return ssl.create_default_context(cafile=ca_file)
    return ssl.create_default_context()


def http_client() -> httpx.Client:
    """This process's client (HTTP/2, its connections kept open; made again after a fork). No
    proxy, no redirect followed, every phase within ``NOTIFICATION_ATTEMPT_SECONDS``."""
    ca_file = str(_setting("PUSH_TLS_CA_FILE", "") or "")
    key = (os.getpid(), ca_file)
    client = _clients.get(key)
    if client is not None:
        return client
    with _clients_lock:
        client = _clients.get(key)
        if client is None:
            client = httpx.Client(
                http2=True,
                verify=_tls_context(ca_file),
                trust_env=False,
                follow_redirects=False,
                timeout=httpx.Timeout(attempt_seconds()),
                limits=httpx.Limits(max_connections=20, max_keepalive_connections=10),
            )
            _clients[key] = client
        return client


def http_clients_close() -> None:
    """Close this process's clients (a setting changed; tests)."""
    with _clients_lock:
        for client in _clients.values():
            with contextlib.suppress(Exception):
                client.close()
        _clients.clear()


def provider_url_check(url: str) -> str | None:
    """Why the provider URL may not be used (None: it may): https, and a host written as an
    address must be public unless it is in ``NATIVE_PUSH_ALLOW_HOSTS``."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme != "https" or not host:
        return "the push service's URL is not https"
    allowed = {h.lower() for h in _setting("NATIVE_PUSH_ALLOW_HOSTS", [])}
    if host in allowed:
        return None
    if host == "localhost":
        return "the push service is at a private address"
    with contextlib.suppress(ValueError):  # a name: the provider's, from settings
        if not address_is_public(host):
            return "the push service is at a private address"
    return None


@dataclass(frozen=True)
class Answer:
    status: int
    body: dict[str, Any]
    headers: httpx.Headers
    http_version: str


def _post(url: str, content: bytes, headers: dict[str, str]) -> Answer | SendOutcome:
    """POST within the attempt's deadline; an answer, or the failure to get one."""
    refused = provider_url_check(url)
    if refused:
        return SendOutcome(ok=False, error=refused)
    try:
        response = http_client().post(url, content=content, headers=headers)
    except httpx.TimeoutException:
        return SendOutcome(ok=False, error="timed out")
    except httpx.HTTPError as exc:
        return SendOutcome(ok=False, error=f"cannot reach the push service: {type(exc).__name__}")
    try:
        body = response.json() if response.content else {}
    except ValueError:
        body = {}
    return Answer(
        status=response.status_code,
        body=body if isinstance(body, dict) else {},
        headers=response.headers,
        http_version=response.http_version,
    )


# ============================================================================== payloads
def _text(body: dict[str, Any], name: str) -> str:
    value = body.get(name)
    return value if isinstance(value, str) else ""


def fcm_data(body: dict[str, Any]) -> dict[str, str]:
    """The delivery's body as FCM's ``data`` (strings only): a string as it is, any other value
    as JSON, a null left out."""
    return {
        str(k): v if isinstance(v, str) else json.dumps(v, separators=(",", ":"))
        for k, v in body.items()
        if v is not None
    }


def fcm_message(registration: DeviceRegistration, body: dict[str, Any]) -> dict[str, Any]:
    """The FCM v1 message: the title and text shown, the body as data, Android's priority,
    time to live and collapse key (and the APNs headers when the token is an iOS app's)."""
    ttl = push_ttl(body)
    high = URGENCY.get(str(body.get("kind")), "normal") == "high"
    topic = push_topic(body)
    android: dict[str, Any] = {"priority": "HIGH" if high else "NORMAL", "ttl": f"{ttl}s"}
    apns_headers = {
        "apns-priority": "10" if high else "5",
        "apns-expiration": str(apns_expiration(ttl)),
    }
    if topic:
        android["collapse_key"] = topic
        android["notification"] = {"tag": topic}
        apns_headers["apns-collapse-id"] = topic
    return {
        "message": {
            "token": registration.token,
            "notification": {"title": _text(body, TITLE), "body": _text(body, TEXT)},
            "data": fcm_data(body),
            "android": android,
            "apns": {"headers": apns_headers},
        }
    }


def apns_expiration(ttl: int, now: float | None = None) -> int:
    """``apns-expiration``: the UNIX time until which APNs keeps trying (0: once, now)."""
    return 0 if ttl <= 0 else int(now if now is not None else time.time()) + ttl


def apns_payload(body: dict[str, Any]) -> dict[str, Any]:
    """The APNs JSON: the alert shown, grouped by game, and the body under ``canasta``."""
    aps: dict[str, Any] = {
        "alert": {"title": _text(body, TITLE), "body": _text(body, TEXT)},
        "sound": "default",
    }
    if body.get("game_id") is not None:
        aps["thread-id"] = f"game-{body['game_id']}"
    return {"aps": aps, "canasta": body}


def apns_headers(
    registration: DeviceRegistration, body: dict[str, Any], topic: str, token: str
) -> dict[str, str]:
    high = URGENCY.get(str(body.get("kind")), "normal") == "high"
    headers = {
        "authorization": f"bearer {token}",
        "apns-topic": topic,
        "apns-push-type": "alert",
        "apns-priority": "10" if high else "5",
        "apns-expiration": str(apns_expiration(push_ttl(body))),
        "content-type": "application/json",
    }
    collapse = push_topic(body)
    if collapse and len(collapse.encode()) <= APNS_COLLAPSE_MAX:
        headers["apns-collapse-id"] = collapse
    delivery_id = body.get("id")
    if isinstance(delivery_id, str):  # the same on every attempt of the delivery
        headers["apns-id"] = str(uuid.uuid5(uuid.NAMESPACE_URL, f"canasta:{delivery_id}"))
    return headers


def _encoded(data: dict[str, Any]) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


# ============================================================================== FCM
class _HttpxRequest(google.auth.transport.Request):
    """google-auth's transport over this module's client (the token request)."""

    def __call__(
        self,
        url: str,
        method: str = "GET",
        body: bytes | None = None,
        headers: Any = None,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> google.auth.transport.Response:
        try:
            response = http_client().request(
                method,
                url,
                content=body,
                headers=dict(headers or {}),
                timeout=timeout or attempt_seconds(),
            )
        except httpx.HTTPError as exc:
            raise google.auth.exceptions.TransportError(type(exc).__name__) from None
        return _HttpxResponse(response)


class _HttpxResponse(google.auth.transport.Response):
    def __init__(self, response: httpx.Response) -> None:
        self._response = response

    @property
    def status(self) -> int:
        return self._response.status_code

    @property
    def headers(self) -> dict[str, str]:
        return dict(self._response.headers)

    @property
    def data(self) -> bytes:
        return self._response.content


_fcm_credentials: dict[str, service_account.Credentials] = {}
_fcm_lock = threading.Lock()


def _fcm_account_key(config: FcmConfig) -> str:
    return hashlib.sha256(json.dumps(config.info, sort_keys=True).encode()).hexdigest()


def fcm_access_token(config: FcmConfig, *, renew: bool = False) -> str:
    """The access token for FCM, from the cache while it is valid, else exchanged anew at the
    service account's ``token_uri``. Raises google.auth's RefreshError or TransportError."""
    key = _fcm_account_key(config)
    with _fcm_lock:
        credentials = _fcm_credentials.get(key)
        if credentials is None:
            credentials = service_account.Credentials.from_service_account_info(
                config.info, scopes=[FCM_SCOPE]
            )
            _fcm_credentials[key] = credentials
        if renew or not credentials.valid:
            credentials.refresh(_HttpxRequest())
        return str(credentials.token)


def fcm_tokens_forget() -> None:
    """Drop the cached access tokens (tests; a rotated service account)."""
    with _fcm_lock:
        _fcm_credentials.clear()


FCM_DEAD_CODES = frozenset({"UNREGISTERED", "SENDER_ID_MISMATCH"})


def _fcm_error(answer: Answer) -> tuple[str, str, bool]:
    """(status, error code, whether the token is dead) of an FCM error answer."""
    error = answer.body.get("error")
    error = error if isinstance(error, dict) else {}
    status = str(error.get("status") or "")
    message = str(error.get("message") or "")
    codes: set[str] = set()
    token_field = False
    for detail in error.get("details") or []:
        if not isinstance(detail, dict):
            continue
        if detail.get("errorCode"):
            codes.add(str(detail["errorCode"]))
        for violation in detail.get("fieldViolations") or []:
            if isinstance(violation, dict) and "token" in str(violation.get("field", "")):
                token_field = True
    code = next(iter(sorted(codes)), status)
    # A 404 without UNREGISTERED (a wrong project id) says nothing about the token.
    dead = bool(codes & FCM_DEAD_CODES)
    if answer.status == 400 and "INVALID_ARGUMENT" in (codes | {status}):
        dead = dead or token_field or "registration token" in message.lower()
    return status, code, dead


def fcm_send(registration: DeviceRegistration, body: dict[str, Any]) -> SendOutcome:
    """Send ``body`` to the registration's FCM token (see the module)."""
    config = fcm_config()
    if config is None:
        return SendOutcome(ok=False, error="FCM is not configured on this server")
    message = fcm_message(registration, body)
    shown = {k: message["message"][k] for k in ("notification", "data")}
    if len(_encoded(shown)) > PAYLOAD_MAX_BYTES:  # FCM: 4096 bytes of notification and data
        return SendOutcome(ok=False, error="the payload is too large for a push message")
    content = _encoded(message)
    base = str(_setting("FCM_ENDPOINT", FCM_ENDPOINT_DEFAULT) or FCM_ENDPOINT_DEFAULT)
    url = f"{base.rstrip('/')}/v1/projects/{quote(config.project_id, safe='')}/messages:send"
    renewed = False
    while True:
        try:
            token = fcm_access_token(config, renew=renewed)
        except google.auth.exceptions.GoogleAuthError as exc:
            return SendOutcome(ok=False, error=f"cannot get an FCM access token: {_why(exc)}")
        headers = {
            "authorization": f"Bearer {token}",
            "content-type": "application/json; charset=UTF-8",
        }
        answer = _post(url, content, headers)
        if isinstance(answer, SendOutcome):
            return answer
        if answer.status == 401 and not renewed:
            renewed = True  # the token was revoked or expired early: a new one, once
            continue
        break
    if 200 <= answer.status < 300:
        return SendOutcome(ok=True, status=answer.status)
    status, code, dead = _fcm_error(answer)
    what = f"HTTP {answer.status}" + (f" {code}" if code else "")
    if dead:
        return SendOutcome(
            ok=False, status=answer.status, error=f"{what}: the token is dead", gone=True
        )
    return SendOutcome(ok=False, status=answer.status, error=what[:ERROR_MAX])


def _why(exc: Exception) -> str:
    """An auth error's kind, and its OAuth error code when it has one (never the answer)."""
    args = exc.args[1] if len(exc.args) > 1 else None
    code = args.get("error") if isinstance(args, dict) else None
    return type(exc).__name__ + (f" ({code})" if isinstance(code, str) else "")


# ============================================================================== APNs
_apns_tokens: dict[str, tuple[str, float]] = {}
_apns_lock = threading.Lock()


def _apns_key_id(config: ApnsConfig) -> str:
    der = config.key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return f"{config.team_id}:{config.key_id}:{hashlib.sha256(der).hexdigest()}"


def apns_provider_token(config: ApnsConfig, *, renew: bool = False) -> str:
    """The ES256 provider token (``kid``: the key id, ``iss``: the team id, ``iat``), reused for
    ``APNS_TOKEN_SECONDS``."""
    key = _apns_key_id(config)
    now = time.time()
    lifetime = float(_setting("APNS_TOKEN_SECONDS", APNS_TOKEN_SECONDS))
    with _apns_lock:
        cached = _apns_tokens.get(key)
        if cached is not None and not renew and now - cached[1] < lifetime:
            return cached[0]
        token = jwt.encode(
            {"iss": config.team_id, "iat": int(now)},
            config.key,
            algorithm="ES256",
            headers={"kid": config.key_id},
        )
        _apns_tokens[key] = (token, now)
        return token


def apns_tokens_forget() -> None:
    with _apns_lock:
        _apns_tokens.clear()


APNS_DEAD_REASONS = frozenset({"BadDeviceToken", "DeviceTokenNotForTopic", "Unregistered"})
APNS_RENEW_REASONS = frozenset({"ExpiredProviderToken", "InvalidProviderToken"})


def apns_base_url(environment: str) -> str:
    override = str(_setting("APNS_ENDPOINT", "") or "")
    if override:
        return override.rstrip("/")
    return APNS_SANDBOX if environment == "sandbox" else APNS_PRODUCTION


def apns_send(registration: DeviceRegistration, body: dict[str, Any]) -> SendOutcome:
    """Send ``body`` to the registration's APNs token over HTTP/2 (see the module)."""
    config = apns_config()
    if config is None:
        return SendOutcome(ok=False, error="APNs is not configured on this server")
    content = _encoded(apns_payload(body))
    if len(content) > PAYLOAD_MAX_BYTES:
        return SendOutcome(ok=False, error="the payload is too large for a push message")
    topic = registration.app_id or config.topics[0]
    url = f"{apns_base_url(registration.environment)}/3/device/{quote(registration.token)}"
    renewed = False
    while True:
        token = apns_provider_token(config, renew=renewed)
        answer = _post(url, content, apns_headers(registration, body, topic, token))
        if isinstance(answer, SendOutcome):
            return answer
        reason = str(answer.body.get("reason") or "")
        if answer.status == 403 and reason in APNS_RENEW_REASONS and not renewed:
            renewed = True
            continue
        break
    if answer.status == 200:
        return SendOutcome(ok=True, status=200)
    what = f"HTTP {answer.status}" + (f" {reason}" if reason else "")
    if answer.status == 410 or (answer.status == 400 and reason in APNS_DEAD_REASONS):
        return SendOutcome(
            ok=False, status=answer.status, error=f"{what}: the token is dead", gone=True
        )
    return SendOutcome(ok=False, status=answer.status, error=what[:ERROR_MAX])


# ============================================================================== sending
def device_send(registration: DeviceRegistration, body: dict[str, Any]) -> SendOutcome:
    """Send the delivery's body to a native device (the outbox's worker calls it, never a
    request). Changes no row."""
    if registration.platform == DevicePlatform.FCM:
        return fcm_send(registration, body)
    if registration.platform == DevicePlatform.APNS:
        return apns_send(registration, body)
    return SendOutcome(ok=False, error="unknown platform")
