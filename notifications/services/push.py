"""Web Push (RFC 8030, with the payload encrypted as RFC 8291 asks and VAPID, RFC 8292): a
browser's subscription, and a notification sent to it through its push service.

A browser subscribes with the server's VAPID public key (``push_public_key``) and hands the
server its ``PushSubscription.toJSON()``: the push service's ``endpoint`` URL and the keys the
payload is encrypted for (``p256dh``, the browser's P-256 public key; ``auth``, a 16-byte
secret). ``push_send`` encrypts the outbox payload (aes128gcm, pywebpush's encoder) for those
keys, signs a VAPID JWT (``aud``: the push service's origin, ``sub``: ``WEBPUSH_VAPID_SUBJECT``)
and POSTs it as a webhook is sent (``outbound.http_post``: to the address checked, within the
attempt's deadline, a bounded answer). Only the browser can read the payload; the push service
sees its size.

The keys come from the environment (``WEBPUSH_VAPID_PRIVATE_KEY``, ``WEBPUSH_VAPID_PUBLIC_KEY``).
Without them, DEBUG uses a development pair derived from SECRET_KEY (the same in every process
and across restarts, so the subscriptions made with it keep working; logged once), and
otherwise Web Push is off: ``vapid_keys()`` is None, subscribing raises ``WebPushUnavailable``
(503) and a send fails with a clear error. Neither the payload nor a key is ever logged.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import hmac
import json
import logging
import time
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import IntegrityError, transaction
from django.utils import timezone
from http_ece import ECEException  # type: ignore[import-untyped]
from py_vapid import Vapid, VapidException  # type: ignore[import-untyped]
from pywebpush import WebPusher, WebPushException  # type: ignore[import-untyped]

from accounts.models import Player
from notifications import errors
from notifications.models import (
    Channel,
    Delivery,
    DeliveryStatus,
    NotificationKind,
    PushSubscription,
)
from notifications.services.addresses import NO_PUBLIC_ADDRESS, address_is_public
from notifications.services.outbound import TIMED_OUT, SendOutcome, http_post

logger = logging.getLogger(__name__)

VAPID_EXPIRY_SECONDS = 12 * 3600  # a VAPID JWT's lifetime (RFC 8292: at most 24 hours)
# Errors that say enough as they are (not "cannot reach the push service: ...").
QUIET_ERRORS = frozenset({TIMED_OUT, NO_PUBLIC_ADDRESS})
# RFC 8291: a push message holds at most 4096 bytes; aes128gcm adds a 86-byte header, a 16-byte
# tag and a padding delimiter, so 3993 bytes of plaintext fit in one record.
PAYLOAD_MAX_BYTES = 3993
P256DH_BYTES = 65  # an uncompressed P-256 point: 0x04, x, y
AUTH_BYTES = 16
TOPIC_MAX = 32  # RFC 8030 5.4: at most 32 characters of the URL-safe base64 alphabet

# RFC 8030 5.3: how urgently the push service should wake the device.
URGENCY: dict[str, str] = {
    NotificationKind.YOUR_TURN: "high",
    NotificationKind.REMINDER: "high",
    NotificationKind.GO_OUT_ASKED: "high",
    NotificationKind.GAME_STARTED: "normal",
    NotificationKind.GAME_OVER: "normal",
    NotificationKind.CHALLENGE: "normal",
    NotificationKind.CHAT: "normal",
}
# RFC 8030 5.4: a message not yet delivered is replaced by a newer one of the same topic: one
# pending "turn" message per game (your turn, its reminder), one chat message, ...
TOPIC: dict[str, str] = {
    NotificationKind.YOUR_TURN: "turn",
    NotificationKind.REMINDER: "turn",
    NotificationKind.GO_OUT_ASKED: "goout",
    NotificationKind.GAME_STARTED: "start",
    NotificationKind.GAME_OVER: "over",
    NotificationKind.CHALLENGE: "challenge",
    NotificationKind.CHAT: "chat",
}


# What the push service answered. ``gone``: the subscription no longer exists (404 or 410):
# the outbox disables it and drops its pending deliveries.
PushOutcome = SendOutcome


# ============================================================================== keys
def b64url_decode(text: str) -> bytes:
    """URL-safe base64 with or without its padding; raises ValueError otherwise."""
    stripped = text.strip().rstrip("=")
    if not stripped or any(c not in _B64URL for c in stripped):
        raise ValueError("not URL-safe base64")
    try:
        return base64.urlsafe_b64decode(stripped + "=" * (-len(stripped) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not URL-safe base64") from None


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


_B64URL = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


@dataclass(frozen=True)
class VapidKeys:
    """The server's VAPID key pair: the private key signs, the public key (base64url of its
    uncompressed point) is the browsers' ``applicationServerKey``."""

    vapid: Any  # py_vapid.Vapid02 holding the private key
    public_key: str
    development: bool


def _public_key_text(private: ec.EllipticCurvePrivateKey) -> str:
    point = private.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url_encode(point)


def _private_key_parse(text: str) -> ec.EllipticCurvePrivateKey:
    """A P-256 private key: base64url of its 32 bytes (as web-push tools print it), of its DER
    encoding, or PEM."""
    try:
        if text.lstrip().startswith("-----BEGIN"):
            key = serialization.load_pem_private_key(text.encode(), password=None)
        else:
            raw = b64url_decode(text)
            if len(raw) == 32:
                key = ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())
            else:
                key = serialization.load_der_private_key(raw, password=None)
    except (ValueError, TypeError):
        key = None
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
        raise ImproperlyConfigured(
            "Environment variable WEBPUSH_VAPID_PRIVATE_KEY is invalid: expected a P-256 "
            "private key (base64url of its 32 bytes, base64url DER, or PEM)."
        )
    return key


def _development_key(secret_key: str) -> ec.EllipticCurvePrivateKey:
    """DEBUG without keys: a P-256 key derived from SECRET_KEY (every process of the
    deployment, and every restart, signs with the same one)."""
    digest = hmac.new(secret_key.encode(), b"canasta web push VAPID key", hashlib.sha256).digest()
    order = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551  # P-256's n
    return ec.derive_private_key(int.from_bytes(digest, "big") % (order - 1) + 1, ec.SECP256R1())


@lru_cache(maxsize=4)
def _keys_of(private_text: str, public_text: str, debug: bool, secret: str) -> VapidKeys | None:
    if private_text:
        private = _private_key_parse(private_text)
        public = _public_key_text(private)
        if public_text and public_text.strip().rstrip("=") != public:
            raise ImproperlyConfigured(
                "Environment variables WEBPUSH_VAPID_PUBLIC_KEY and WEBPUSH_VAPID_PRIVATE_KEY "
                "are not one key pair (leave the public key out: it is derived)."
            )
        return VapidKeys(vapid=Vapid(private_key=private), public_key=public, development=False)
    if public_text:
        raise ImproperlyConfigured(
            "Environment variable WEBPUSH_VAPID_PUBLIC_KEY is set without "
            "WEBPUSH_VAPID_PRIVATE_KEY: set both (or neither)."
        )
    if not debug:
        logger.info("Web Push is off: WEBPUSH_VAPID_PRIVATE_KEY is not set")
        return None
    private = _development_key(secret)
    public = _public_key_text(private)
    logger.warning(
        "Web Push: WEBPUSH_VAPID_PRIVATE_KEY is not set, so DEBUG uses a development key pair "
        "derived from SECRET_KEY (public key %s); set WEBPUSH_VAPID_PRIVATE_KEY in production",
        public,
    )
    return VapidKeys(vapid=Vapid(private_key=private), public_key=public, development=True)


def vapid_keys() -> VapidKeys | None:
    """The server's VAPID keys, or None when Web Push is off (no key, DEBUG off). Raises
    ImproperlyConfigured for a malformed or mismatched key."""
    return _keys_of(
        str(getattr(settings, "WEBPUSH_VAPID_PRIVATE_KEY", "") or ""),
        str(getattr(settings, "WEBPUSH_VAPID_PUBLIC_KEY", "") or ""),
        bool(settings.DEBUG),
        str(settings.SECRET_KEY),
    )


def push_public_key() -> str:
    """The VAPID public key browsers subscribe with (``applicationServerKey``, base64url).
    Raises ``WebPushUnavailable`` when Web Push is off."""
    keys = vapid_keys()
    if keys is None:
        raise errors.WebPushUnavailable()
    return keys.public_key


# ============================================================================== subscriptions
def subscription_keys_check(p256dh: str, auth: str) -> dict[str, str]:
    """Problems with a subscription's keys, by name (empty: fine): ``p256dh`` must be a P-256
    point (65 bytes, uncompressed) and ``auth`` 16 bytes, both URL-safe base64."""
    problems: dict[str, str] = {}
    try:
        point = b64url_decode(p256dh)
        if len(point) != P256DH_BYTES or point[0] != 4:
            raise ValueError
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
    except ValueError:
        problems["p256dh"] = (
            "Expected the browser's P-256 public key: 65 bytes (an uncompressed point), "
            "URL-safe base64."
        )
    try:
        if len(b64url_decode(auth)) != AUTH_BYTES:
            raise ValueError
    except ValueError:
        problems["auth"] = "Expected the 16-byte authentication secret, URL-safe base64."
    return problems


def _allowed_plainly(host: str) -> bool:
    allowed = {h.lower() for h in getattr(settings, "WEBPUSH_ALLOW_HTTP_HOSTS", [])}
    return host.lower() in allowed


def push_endpoint_check(endpoint: str) -> None:
    """An https URL with a host and no credentials, not at a private or loopback address;
    plain http, or such an address, only to a host in ``WEBPUSH_ALLOW_HTTP_HOSTS``. A host
    name is resolved (and its addresses checked) when a push is sent. Raises
    ``PushEndpointRefused``."""
    parts = urlsplit(endpoint)
    host = (parts.hostname or "").lower()
    if not host or parts.username or parts.password:
        raise errors.PushEndpointRefused("A push endpoint needs a host and no credentials.")
    if not _allowed_plainly(host):
        with contextlib.suppress(ValueError):  # a name, not an address: checked when sending
            if not address_is_public(host):
                raise errors.PushEndpointRefused("A push endpoint must be at a public address.")
    if parts.scheme == "https" or (parts.scheme == "http" and _allowed_plainly(host)):
        return
    raise errors.PushEndpointRefused("A push endpoint must use https.")


def push_subscription_register(
    player_id: int, *, endpoint: str, p256dh: str, auth: str
) -> tuple[PushSubscription, bool]:
    """The browser's subscription for ``player_id``, and whether it is new.

    Subscribing one's own endpoint again (a browser renews its keys) updates that
    subscription: its keys, enabled again. An endpoint another player registered is refused
    (``PushEndpointTaken``), never taken over: whoever learns an endpoint's URL must not
    receive, or silence, its owner's pushes. A player keeps at most
    ``WEBPUSH_SUBSCRIPTIONS_PER_PLAYER_MAX`` subscriptions: at the limit the disabled ones
    (their push service said they are gone) make room first. Raises ``WebPushUnavailable``,
    ``PushEndpointRefused``, ``PushEndpointTaken``, ``PushSubscriptionLimitReached``;
    ValueError for malformed keys (the view checks them first).
    """
    if vapid_keys() is None:
        raise errors.WebPushUnavailable()
    push_endpoint_check(endpoint)
    problems = subscription_keys_check(p256dh, auth)
    if problems:
        raise ValueError(f"malformed subscription keys: {sorted(problems)}")
    fields = {
        "p256dh": p256dh.strip().rstrip("="),
        "auth": auth.strip().rstrip("="),
        "enabled": True,
        "consecutive_failures": 0,
    }
    limit = int(getattr(settings, "WEBPUSH_SUBSCRIPTIONS_PER_PLAYER_MAX", 10))
    with transaction.atomic():
        # The player's row locked: two subscriptions at once cannot both pass the limit.
        Player.objects.select_for_update().filter(pk=player_id).values_list("pk").first()
        existing = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
        if existing is not None:
            return _subscription_renew(existing, player_id, fields), False
        mine = PushSubscription.objects.filter(player_id=player_id)
        if mine.count() >= limit:
            mine.filter(enabled=False).delete()
            if mine.count() >= limit:
                raise errors.PushSubscriptionLimitReached(
                    f"A player may keep at most {limit} push subscriptions: delete one first."
                )
        try:
            with transaction.atomic():
                created = PushSubscription.objects.create(
                    endpoint=endpoint, player_id=player_id, **fields
                )
                return created, True
        except IntegrityError:  # the same endpoint subscribed at this very moment
            existing = PushSubscription.objects.select_for_update().get(endpoint=endpoint)
            return _subscription_renew(existing, player_id, fields), False


def _subscription_renew(
    subscription: PushSubscription, player_id: int, fields: dict[str, Any]
) -> PushSubscription:
    """The player's own subscription, renewed; another player's is refused."""
    if subscription.player_id != player_id:
        raise errors.PushEndpointTaken()
    for name, value in fields.items():
        setattr(subscription, name, value)
    subscription.save(update_fields=list(fields))
    return subscription


def push_subscriptions_list(player_id: int) -> list[PushSubscription]:
    """The player's subscriptions, oldest first (a disabled one: its push service said it is
    gone)."""
    return list(PushSubscription.objects.filter(player_id=player_id).order_by("id"))


def push_subscription_delete(player_id: int, subscription_id: int) -> None:
    """Remove the player's subscription (the browser unsubscribed); its pending deliveries are
    dropped. Raises ``PushSubscriptionNotFound``."""
    with transaction.atomic():
        deleted, _ = PushSubscription.objects.filter(
            pk=subscription_id, player_id=player_id
        ).delete()
        if not deleted:
            raise errors.PushSubscriptionNotFound()
        Delivery.objects.filter(
            channel=Channel.WEB_PUSH, endpoint_id=subscription_id, status=DeliveryStatus.PENDING
        ).update(status=DeliveryStatus.DROPPED, last_error="the subscription was removed")


# ============================================================================== sending
def push_ttl(payload: dict[str, Any], now: datetime | None = None) -> int:
    """How long the push service keeps the message for an offline device: until the turn's
    deadline for a turn (0 once it has passed: only a device online now gets it), else
    ``WEBPUSH_TTL_SECONDS``."""
    longest = int(getattr(settings, "WEBPUSH_TTL_SECONDS", 604800))
    deadline = payload.get("deadline")
    if not isinstance(deadline, str):
        return longest
    try:
        until = datetime.fromisoformat(deadline.replace("Z", "+00:00"))
    except ValueError:
        return longest
    left = (until - (now or timezone.now())).total_seconds()
    return max(0, min(longest, int(left)))


def push_topic(payload: dict[str, Any]) -> str | None:
    """The message's topic (``g<game>-<kind group>``), or None (no game, or too long)."""
    game_id, group = payload.get("game_id"), TOPIC.get(str(payload.get("kind")))
    if game_id is None or group is None:
        return None
    topic = f"g{game_id}-{group}"
    return topic if len(topic) <= TOPIC_MAX else None


def push_request(
    subscription: PushSubscription, payload: dict[str, Any], keys: VapidKeys
) -> tuple[bytes, dict[str, str]]:
    """The push message's body (``payload`` as JSON, encrypted for the subscription: aes128gcm,
    with pywebpush's encoder) and its headers (VAPID's Authorization, TTL, Urgency, Topic).
    Raises ValueError, TypeError, ECEException, WebPushException or VapidException for keys
    that cannot be encrypted for or signed with."""
    data = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
    pusher = WebPusher(
        {
            "endpoint": subscription.endpoint,
            "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
        }
    )
    body = pusher.encode(data, content_encoding="aes128gcm")["body"]
    parts = urlsplit(subscription.endpoint)
    claims = {
        "aud": f"{parts.scheme}://{parts.netloc}",
        "sub": str(settings.WEBPUSH_VAPID_SUBJECT),
        "exp": int(time.time()) + VAPID_EXPIRY_SECONDS,
    }
    headers = {
        **keys.vapid.sign(claims),
        "Content-Encoding": "aes128gcm",
        "Content-Type": "application/octet-stream",
        "TTL": str(push_ttl(payload)),
        "Urgency": URGENCY.get(str(payload.get("kind")), "normal"),
    }
    topic = push_topic(payload)
    if topic:
        headers["Topic"] = topic
    return bytes(body), headers


def push_send(subscription: PushSubscription, payload: dict[str, Any]) -> PushOutcome:
    """Encrypt ``payload`` (JSON) for the subscription and POST it to its push service, signed
    with the VAPID key, as ``outbound.http_post`` sends: to the address checked (the name
    resolved once), within the attempt's deadline, reading a few KiB of the answer at most, no
    redirect followed, no proxy. A 2xx answer is a delivery; 404 or 410 means the subscription
    is gone (``gone``). Called by the outbox's worker (``notifications.services.delivery``),
    never in a request; changes no row."""
    keys = vapid_keys()
    if keys is None:
        return PushOutcome(ok=False, error="web push is not configured on this server")
    parts = urlsplit(subscription.endpoint)
    host = parts.hostname or ""
    if not host or not (
        parts.scheme == "https" or (parts.scheme == "http" and _allowed_plainly(host))
    ):
        return PushOutcome(ok=False, error="the endpoint is not an https URL")
    if (
        len(json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode())
        > PAYLOAD_MAX_BYTES
    ):
        return PushOutcome(ok=False, error="the payload is too large for a push message")
    try:
        body, headers = push_request(subscription, payload, keys)
    except (ValueError, TypeError, ECEException, WebPushException, VapidException) as exc:
        return PushOutcome(
            ok=False, error=f"cannot encrypt for the subscription: {type(exc).__name__}"
        )
    allowed = getattr(settings, "WEBPUSH_ALLOW_HTTP_HOSTS", [])
    outcome = http_post(subscription.endpoint, body, headers, allowed_hosts=allowed)
    if outcome.status in (404, 410):
        return PushOutcome(
            ok=False,
            status=outcome.status,
            error=f"HTTP {outcome.status}: the subscription is gone",
            gone=True,
        )
    if not outcome.ok and outcome.status is None and outcome.error not in QUIET_ERRORS:
        return PushOutcome(ok=False, error=f"cannot reach the push service: {outcome.error}"[:200])
    return outcome
