"""Delivering the outbox: each ``Delivery`` sent through its channel (a webhook, Web Push,
e-mail), by a worker, with retries and exponential backoff.

An attempt (``delivery_attempt``) has three steps, none of which holds a database transaction
across the network:

1. **claim**, in a short transaction: the row is locked (``SKIP LOCKED`` on PostgreSQL, so two
   workers never claim it at once), checked still pending and due, its attempt counted and its
   next attempt moved past a lease (``NOTIFICATION_DELIVERY_LEASE_SECONDS``, longer than a task
   may run), so no other worker takes it while this one sends;
2. **send**, with timeouts (a webhook: 3 s to connect, 10 s in all), the idempotency key in
   every attempt;
3. **record**, in a short transaction: delivered, or the error and the next attempt at
   ``NOTIFICATION_RETRY_BASE_SECONDS * 2**(attempts - 1)`` (at most
   ``NOTIFICATION_RETRY_MAX_SECONDS``), or failed after ``NOTIFICATION_MAX_ATTEMPTS``.

A worker killed between the claim and the record leaves the row pending: once the lease has
passed, the sweep (``deliveries_sweep``, Celery beat) sends it again, with the same key. A
webhook endpoint (or push subscription) whose deliveries fail ``WEBHOOK_DISABLE_AFTER_FAILURES``
times in a row is disabled with a notice its owner sees; its pending deliveries are dropped.

Tasks are sent by name through ``core.dispatch`` (``notifications.tasks`` sits above the
services), after the commit. Without a broker (eager mode) a daemon thread of this process
delivers (``NOTIFICATION_DELIVERY_IN_PROCESS``, ``make run``: a ``dispatch.InProcessWorker``) or
nothing does (the tests drive ``delivery_attempt`` themselves): deliveries never run inside a
request.
"""

from __future__ import annotations

import contextlib
import enum
import hashlib
import hmac
import http.client
import importlib
import json
import logging
import socket
import ssl
import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import connection, transaction
from django.utils import timezone

from core import dispatch
from notifications.models import (
    Channel,
    Delivery,
    DeliveryStatus,
    NotificationSettings,
    PushSubscription,
    WebhookEndpoint,
)
from notifications.services.addresses import NO_PUBLIC_ADDRESS, address_is_public

logger = logging.getLogger(__name__)

# The Celery task that runs ``delivery_attempt`` (notifications.tasks), sent by name.
NOTIFICATION_DELIVER_TASK = "games.notification_deliver"
# Where Web Push is sent from (helper module; looked up by name, see ``push_deliver``).
PUSH_MODULE = "notifications.services.push"

WEBHOOK_CONNECT_TIMEOUT = 3.0
WEBHOOK_TOTAL_TIMEOUT = 10.0
ERROR_MAX = 300  # Delivery.last_error's length


def _setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


def backoff_seconds(attempts: int) -> float:
    """The wait after the ``attempts``-th failed attempt: base * 2**(attempts - 1), capped."""
    base = float(_setting("NOTIFICATION_RETRY_BASE_SECONDS", 30))
    cap = float(_setting("NOTIFICATION_RETRY_MAX_SECONDS", 3600))
    return min(cap, base * 2 ** max(0, attempts - 1))


# ============================================================================== sending tasks
def delivery_queue() -> str | None:
    """The queue of the delivery tasks (``NOTIFICATION_QUEUE``: a queue of their own, so that a
    slow endpoint never holds a worker that bot turns and timers wait for; None: the default)."""
    name: str | None = _setting("NOTIFICATION_QUEUE", None)
    return name


def deliveries_send(delivery_ids: list[int], countdown: float = 0.0) -> None:
    """Have a worker attempt each delivery (after ``countdown`` seconds). Runs after a commit.

    A retry further away than ``NOTIFICATION_RETRY_ETA_MAX`` is left to the sweep (a long
    countdown outlives the broker's visibility timeout). A failure to send is logged: the
    committed rows are pending and the sweep sends them.
    """
    if not delivery_ids:
        return
    if dispatch.is_eager():
        if _setting("NOTIFICATION_DELIVERY_IN_PROCESS", False):
            _in_process.put(delivery_ids, countdown)
        return
    if countdown > float(_setting("NOTIFICATION_RETRY_ETA_MAX", 1800)):
        return
    try:
        for delivery_id in delivery_ids:
            dispatch.send(
                NOTIFICATION_DELIVER_TASK, delivery_id, countdown=countdown, queue=delivery_queue()
            )
    except Exception:  # the rows are committed and pending: the sweep sends them
        logger.exception("could not send %d notification deliveries", len(delivery_ids))


IN_PROCESS_RETRIES = 5  # an attempt that raised (a locked SQLite table) is run again


def _in_process_attempt(delivery_id: int) -> None:
    delivery_attempt(delivery_id)


# Eager mode: one daemon thread of this process attempts the deliveries, in order; no sweep runs
# without a broker, so an attempt that raised is tried again shortly, a few times.
_in_process: dispatch.InProcessWorker[int] = dispatch.InProcessWorker(
    "notification-delivery",
    _in_process_attempt,
    retries=IN_PROCESS_RETRIES,
    retry_delay=lambda tries: 0.2 * tries,
)


def deliveries_sweep(*, overdue_seconds: float | None = None, limit: int = 500) -> int:
    """Send again the pending deliveries due for ``overdue_seconds`` (default
    ``NOTIFICATION_SWEEP_GRACE_SECONDS``): their task was lost, or their retry was too far away
    for a countdown. A duplicate of a task still queued is harmless (the claim). Returns how
    many were sent."""
    if overdue_seconds is None:
        overdue_seconds = float(_setting("NOTIFICATION_SWEEP_GRACE_SECONDS", 60))
    due = timezone.now() - timedelta(seconds=overdue_seconds)
    ids = list(
        Delivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=due)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    deliveries_send(ids)
    return len(ids)


# ============================================================================== attempts
class Attempt(enum.Enum):
    DELIVERED = "delivered"
    RETRY = "retry"  # failed; another attempt is scheduled
    FAILED = "failed"  # failed for the last time
    DROPPED = "dropped"  # the endpoint is gone or disabled
    SKIPPED = "skipped"  # not pending, not due, or being attempted by another worker


@dataclass(frozen=True)
class SendOutcome:
    """What a channel answered. ``gone``: the endpoint no longer exists (stop sending)."""

    ok: bool
    status: int | None = None
    error: str = ""
    gone: bool = False


@dataclass(frozen=True)
class Claim:
    delivery_id: int
    attempts: int
    channel: str
    target: WebhookEndpoint | PushSubscription | str  # the e-mail address for e-mail
    body: dict[str, Any]
    idempotency_key: str


def delivery_body(delivery: Delivery) -> dict[str, Any]:
    """The JSON every channel carries: the delivery's idempotency key as ``id``, then the
    notification's public payload (``WebhookPayload`` in the OpenAPI document)."""
    notification = delivery.notification
    return {
        "id": delivery.idempotency_key,
        "created_at": notification.created_at.isoformat().replace("+00:00", "Z"),
        **notification.payload,
    }


def delivery_attempt(delivery_id: int) -> Attempt:
    """One attempt of one delivery (the ``games.notification_deliver`` task): claim, send,
    record. Idempotent: a delivery delivered, given up, being attempted elsewhere or not yet due
    is left alone."""
    claim = _claim(delivery_id)
    if isinstance(claim, Attempt):
        return claim
    try:
        outcome = _send(claim)
    except Exception as exc:  # a bug in a channel must not leave the row claimed for nothing
        logger.exception("delivery %s: the %s channel raised", delivery_id, claim.channel)
        outcome = SendOutcome(ok=False, error=f"internal error: {type(exc).__name__}")
    return _record(claim, outcome)


def _claim(delivery_id: int) -> Claim | Attempt:
    now = timezone.now()
    with transaction.atomic():
        rows = Delivery.objects.filter(
            pk=delivery_id, status=DeliveryStatus.PENDING, next_attempt_at__lte=now
        ).select_related("notification")
        if connection.features.has_select_for_update_skip_locked:
            rows = rows.select_for_update(skip_locked=True, of=("self",))
        delivery = rows.first()
        if delivery is None:
            return Attempt.SKIPPED
        target = _target(delivery)
        if target is None:
            delivery.status = DeliveryStatus.DROPPED
            delivery.last_error = "the endpoint was removed or disabled"
            delivery.save(update_fields=["status", "last_error"])
            return Attempt.DROPPED
        delivery.attempts += 1
        lease = float(_setting("NOTIFICATION_DELIVERY_LEASE_SECONDS", 90))
        wait = max(lease, backoff_seconds(delivery.attempts))
        delivery.next_attempt_at = now + timedelta(seconds=wait)
        delivery.save(update_fields=["attempts", "next_attempt_at"])
        return Claim(
            delivery_id=delivery.pk,
            attempts=delivery.attempts,
            channel=delivery.channel,
            target=target,
            body=delivery_body(delivery),
            idempotency_key=delivery.idempotency_key,
        )


def _target(delivery: Delivery) -> WebhookEndpoint | PushSubscription | str | None:
    """Where the delivery goes, if it still may: an enabled endpoint of the player."""
    player_id = delivery.notification.player_id
    if delivery.channel == Channel.WEBHOOK:
        return WebhookEndpoint.objects.filter(
            pk=delivery.endpoint_id, player_id=player_id, enabled=True
        ).first()
    if delivery.channel == Channel.WEB_PUSH:
        return PushSubscription.objects.filter(
            pk=delivery.endpoint_id, player_id=player_id, enabled=True
        ).first()
    email = (
        NotificationSettings.objects.filter(player_id=player_id)
        .values_list("email", flat=True)
        .first()
    )
    return email or None


def _send(claim: Claim) -> SendOutcome:
    if isinstance(claim.target, WebhookEndpoint):
        return webhook_deliver(claim.target, claim.body, claim.idempotency_key)
    if isinstance(claim.target, PushSubscription):
        return push_deliver(claim.target, claim.body)
    return email_deliver(claim.target, claim.body, claim.idempotency_key)


def _record(claim: Claim, outcome: SendOutcome) -> Attempt:
    """Write the attempt's outcome with conditional updates (one statement, no row read): a
    delivery no longer pending is left alone, and a failure only by the attempt that holds the
    claim (past our lease, a later attempt's record is the one that counts)."""
    now = timezone.now()
    pending = Delivery.objects.filter(pk=claim.delivery_id, status=DeliveryStatus.PENDING)
    if outcome.ok:
        with transaction.atomic():
            if not pending.update(
                status=DeliveryStatus.DELIVERED,
                delivered_at=now,
                last_status_code=outcome.status,
                last_error="",
            ):
                return Attempt.SKIPPED
            if _endpoint_failures(claim.target):
                _endpoint_succeeded(claim)
        logger.info(
            "delivery %s (%s) delivered at attempt %s",
            claim.delivery_id,
            claim.channel,
            claim.attempts,
        )
        return Attempt.DELIVERED
    max_attempts = int(_setting("NOTIFICATION_MAX_ATTEMPTS", 8))
    final = outcome.gone or claim.attempts >= max_attempts
    logger.warning(
        "delivery %s (%s) attempt %s failed (status %s)%s",
        claim.delivery_id,
        claim.channel,
        claim.attempts,
        outcome.status,
        "; giving up" if final else "",
    )
    failed = {"last_status_code": outcome.status, "last_error": outcome.error[:ERROR_MAX]}
    ours = pending.filter(attempts=claim.attempts)
    with transaction.atomic():
        if final:
            if not ours.update(status=DeliveryStatus.FAILED, **failed):
                return Attempt.SKIPPED
            _endpoint_failed(claim, outcome)
            return Attempt.FAILED
        wait = backoff_seconds(claim.attempts)
        if not ours.update(next_attempt_at=now + timedelta(seconds=wait), **failed):
            return Attempt.SKIPPED
        transaction.on_commit(lambda: deliveries_send([claim.delivery_id], countdown=wait))
        return Attempt.RETRY


# ============================================================================== endpoint health
def _endpoint_model(claim: Claim) -> type[WebhookEndpoint] | type[PushSubscription] | None:
    if isinstance(claim.target, WebhookEndpoint):
        return WebhookEndpoint
    if isinstance(claim.target, PushSubscription):
        return PushSubscription
    return None


def _endpoint_failures(target: WebhookEndpoint | PushSubscription | str) -> int:
    """The endpoint's failure count when it was claimed (e-mail keeps none)."""
    return 0 if isinstance(target, str) else target.consecutive_failures


def _endpoint_succeeded(claim: Claim) -> None:
    model = _endpoint_model(claim)
    if model is not None:
        model.objects.filter(pk=claim.target.pk).exclude(consecutive_failures=0).update(  # type: ignore[union-attr]
            consecutive_failures=0
        )


def _endpoint_failed(claim: Claim, outcome: SendOutcome) -> None:
    """A delivery given up on: count it against its endpoint, and disable the endpoint (with
    a notice for a webhook) when it keeps failing or is gone. Inside ``_record``'s transaction."""
    model = _endpoint_model(claim)
    if model is None:
        return
    endpoint = model.objects.select_for_update().filter(pk=claim.target.pk).first()  # type: ignore[union-attr]
    if endpoint is None or not endpoint.enabled:
        return
    endpoint.consecutive_failures += 1
    limit = int(_setting("WEBHOOK_DISABLE_AFTER_FAILURES", 5))
    if not outcome.gone and endpoint.consecutive_failures < limit:
        endpoint.save(update_fields=["consecutive_failures"])
        return
    endpoint.enabled = False
    fields = ["consecutive_failures", "enabled"]
    if isinstance(endpoint, WebhookEndpoint):
        last = f"HTTP {outcome.status}" if outcome.status is not None else outcome.error
        endpoint.disabled_at = timezone.now()
        endpoint.disabled_reason = (
            f"Disabled after {endpoint.consecutive_failures} failed deliveries in a row "
            f"(last: {last})"
        )[:200]
        fields += ["disabled_at", "disabled_reason"]
    endpoint.save(update_fields=fields)
    Delivery.objects.filter(
        channel=claim.channel, endpoint_id=endpoint.pk, status=DeliveryStatus.PENDING
    ).update(status=DeliveryStatus.DROPPED, last_error="the endpoint was disabled")
    logger.warning("%s %s disabled after failed deliveries", claim.channel, endpoint.pk)


# ============================================================================== webhooks
SIGNATURE_HEADER = "Canasta-Signature"
DELIVERY_HEADER = "Canasta-Delivery"
EVENT_HEADER = "Canasta-Event"


def webhook_signature(secret: str, timestamp: int, body: bytes) -> str:
    """``t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`` (as Stripe signs)."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def webhook_deliver(endpoint: WebhookEndpoint, body: dict[str, Any], key: str) -> SendOutcome:
    """POST the signed body to the endpoint; a 2xx answer is a delivery."""
    data = json.dumps(body, separators=(",", ":")).encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "canasta-webhooks/1",
        SIGNATURE_HEADER: webhook_signature(endpoint.secret, int(time.time()), data),
        DELIVERY_HEADER: key,
        EVENT_HEADER: str(body.get("kind", "")),
    }
    return http_post(endpoint.url, data, headers)


def _host_allowed_privately(host: str) -> bool:
    allowed = {h.lower() for h in _setting("WEBHOOK_ALLOW_HTTP_HOSTS", [])}
    return host.lower() in allowed


def address_pick(host: str, port: int) -> str:
    """The address to connect to: the first the name resolves to, public unless the host is in
    ``WEBHOOK_ALLOW_HTTP_HOSTS`` (a webhook never reaches the service's own network by a name
    that resolves there). The connection goes to this very address (no second lookup)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    for info in infos:
        address = str(info[4][0])
        if address_is_public(address) or _host_allowed_privately(host):
            return address
    raise OSError(NO_PUBLIC_ADDRESS)


class _PinnedConnection(http.client.HTTPConnection):
    """http.client's connection to an address chosen beforehand, optionally over TLS (the
    certificate checked against the host name), within a deadline."""

    def __init__(
        self, host: str, port: int, address: str, tls: bool, deadline: float, timeout: float
    ) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address, self.tls, self.deadline = address, tls, deadline
        self.socket_of_watchdog: socket.socket | None = None

    def connect(self) -> None:
        sock = socket.create_connection((self.address, self.port), timeout=self.timeout)
        self.socket_of_watchdog = sock
        if self.tls:
            sock.settimeout(max(0.01, self.deadline - time.monotonic()))
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=self.host)
            self.socket_of_watchdog = sock
        sock.settimeout(max(0.01, self.deadline - time.monotonic()))
        self.sock = sock


def http_post(
    url: str,
    data: bytes,
    headers: dict[str, str],
    *,
    connect_timeout: float = WEBHOOK_CONNECT_TIMEOUT,
    total_timeout: float = WEBHOOK_TOTAL_TIMEOUT,
) -> SendOutcome:
    """POST ``data``: ``connect_timeout`` to connect, ``total_timeout`` for everything (a
    watchdog shuts the socket at the deadline, so a receiver that trickles its answer is cut
    off too). Redirects are not followed. Errors are described without the URL."""
    parts = urlsplit(url)
    tls = parts.scheme == "https"
    host = parts.hostname or ""
    if parts.scheme not in ("http", "https") or not host:
        return SendOutcome(ok=False, error="not an http(s) URL")
    if not tls and not _host_allowed_privately(host):
        return SendOutcome(ok=False, error="plain http is not allowed to this host")
    port = parts.port or (443 if tls else 80)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    deadline = time.monotonic() + total_timeout
    try:
        address = address_pick(host, port)
    except OSError:  # an unknown name and an internal one alike (addresses.NO_PUBLIC_ADDRESS)
        return SendOutcome(ok=False, error=NO_PUBLIC_ADDRESS)
    conn = _PinnedConnection(host, port, address, tls, deadline, connect_timeout)
    watchdog = threading.Timer(total_timeout, _socket_shutdown, (conn,))
    watchdog.daemon = True
    watchdog.start()
    try:
        conn.request("POST", path, body=data, headers=headers)
        response = conn.getresponse()
        response.read(65536)  # a short look at the answer; the status is what counts
        status = response.status
    except (OSError, http.client.HTTPException) as exc:
        timed_out = time.monotonic() >= deadline or isinstance(exc, TimeoutError)
        reason = "timed out" if timed_out else f"{type(exc).__name__}: {exc}"
        return SendOutcome(ok=False, error=reason)
    finally:
        watchdog.cancel()
        conn.close()
    if 200 <= status < 300:
        return SendOutcome(ok=True, status=status)
    return SendOutcome(ok=False, status=status, error=f"HTTP {status}")


def _socket_shutdown(conn: _PinnedConnection) -> None:
    """The deadline passed: wake the sending thread out of its blocked read or write (at the
    socket level: an SSL socket's own shutdown would unwrap it under the reader's feet)."""
    sock = conn.socket_of_watchdog
    if sock is not None:
        with contextlib.suppress(OSError):  # already closed
            socket.socket.shutdown(sock, socket.SHUT_RDWR)


# ============================================================================== e-mail, push
def email_deliver(address: str, body: dict[str, Any], key: str) -> SendOutcome:
    """One e-mail through Django's backend (``EMAIL_*`` settings); the key in a header."""
    message = EmailMessage(
        subject=str(body.get("title", "")),
        body=f"{body.get('text', '')}\n\n{body.get('url', '')}\n",
        to=[address],
        headers={DELIVERY_HEADER: key, EVENT_HEADER: str(body.get("kind", ""))},
    )
    try:
        message.send(fail_silently=False)
    except Exception as exc:  # the backend's errors (SMTP, socket) vary
        return SendOutcome(ok=False, error=f"{type(exc).__name__}: {exc}")
    return SendOutcome(ok=True)


def push_deliver(subscription: PushSubscription, body: dict[str, Any]) -> SendOutcome:
    """Web Push through ``notifications.services.push.push_send`` (looked up by name: without it the
    attempt fails, and is retried, with a clear error)."""
    try:
        push = importlib.import_module(PUSH_MODULE)
    except ImportError:
        return SendOutcome(ok=False, error="web push is not available on this server")
    outcome = push.push_send(subscription, body)
    return SendOutcome(
        ok=bool(outcome.ok),
        status=outcome.status,
        error=str(outcome.error or ""),
        gone=bool(outcome.gone),
    )
