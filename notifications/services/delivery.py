"""Delivering the outbox: each ``Delivery`` sent through its channel (a webhook, Web Push,
a native device through FCM or APNs, e-mail), by a worker, with retries and exponential backoff.

An attempt (``delivery_attempt``) has three steps, none of which holds a database transaction
across the network:

1. **claim**, in a short transaction: the row is locked (``SKIP LOCKED`` on PostgreSQL, so two
   workers never claim it at once), checked still pending and due, and its endpoint asked
   (``breaker``): while the endpoint's breaker is open the delivery is postponed to its end,
   while another attempt to the endpoint is in flight it is deferred (neither counts an
   attempt nor sends). Otherwise the endpoint is held, the attempt counted and the next attempt
   moved past a lease (``NOTIFICATION_DELIVERY_LEASE_SECONDS``, longer than a task may run), so
   no other worker takes it while this one sends;
2. **send** (``outbound``: to the address checked, within ``NOTIFICATION_ATTEMPT_SECONDS`` for
   the lookup, connecting, sending and the answer, a few KiB of the answer read), the
   idempotency key in every attempt;
3. **record**, in a short transaction: the endpoint released (its breaker closed, or the
   failure counted) and the next delivery waiting for it sent on; the delivery delivered, or
   the error and the next attempt at ``NOTIFICATION_RETRY_BASE_SECONDS * 2**(attempts - 1)``
   (at most ``NOTIFICATION_RETRY_MAX_SECONDS``; not before the breaker's cooldown ends), or
   failed after ``NOTIFICATION_MAX_ATTEMPTS``.

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

import enum
import hashlib
import hmac
import importlib
import json
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from core import dispatch, metrics, tracing
from notifications.models import (
    Channel,
    Delivery,
    DeliveryStatus,
    DeviceRegistration,
    NotificationSettings,
    PushSubscription,
    WebhookEndpoint,
)
from notifications.services import breaker
from notifications.services.outbound import SendOutcome, http_post

logger = logging.getLogger(__name__)

# The Celery task that runs ``delivery_attempt`` (notifications.tasks), sent by name.
NOTIFICATION_DELIVER_TASK = "games.notification_deliver"
# Where Web Push is sent from (helper module; looked up by name, see ``push_deliver``).
PUSH_MODULE = "notifications.services.push"
NATIVE_PUSH_MODULE = "notifications.services.native_push"

ERROR_MAX = 300  # Delivery.last_error's length


def _setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


def backoff_seconds(attempts: int) -> float:
    """The wait after the ``attempts``-th failed attempt: base * 2**(attempts - 1), capped."""
    base = float(_setting("NOTIFICATION_RETRY_BASE_SECONDS", 30))
    cap = float(_setting("NOTIFICATION_RETRY_MAX_SECONDS", 3600))
    return min(cap, base * 2 ** max(0, attempts - 1))


# ============================================================================== sending tasks
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
            dispatch.send(NOTIFICATION_DELIVER_TASK, delivery_id, countdown=countdown)
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
    POSTPONED = "postponed"  # the endpoint's breaker is open: rescheduled, no attempt counted
    DEFERRED = "deferred"  # another attempt to the endpoint is in flight: rescheduled


Target = WebhookEndpoint | PushSubscription | DeviceRegistration | str  # str: an e-mail address
NATIVE_CHANNELS = frozenset({Channel.FCM, Channel.APNS})


@dataclass(frozen=True)
class Claim:
    delivery_id: int
    attempts: int
    channel: str
    target: Target
    body: dict[str, Any]
    idempotency_key: str
    hold: datetime | None = None  # the endpoint's hold (breaker.endpoint_enter); None: e-mail


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
    is left alone; one to an endpoint whose breaker is open, or that another attempt holds, is
    rescheduled without sending."""
    claim = _claim(delivery_id)
    if isinstance(claim, Attempt):
        return claim
    try:
        outcome = _send(claim)
    except Exception as exc:  # a bug in a channel must not leave the row claimed for nothing
        logger.exception("delivery %s: the %s channel raised", delivery_id, claim.channel)
        outcome = SendOutcome(ok=False, error=f"internal error: {type(exc).__name__}")
    attempt = _record_retried(claim, outcome)
    metrics.delivery_recorded(claim.channel, attempt.value)
    return attempt


RECORD_TRIES = 5  # the outcome of an attempt made is written, through a locked table too


def _record_retried(claim: Claim, outcome: SendOutcome) -> Attempt:
    """``_record``, again after a database error (a table SQLite holds locked, a connection
    lost): its one transaction rolled back whole, and the claim is ours until the lease ends,
    so writing it again is what the attempt would have written. Given up, the delivery stays
    claimed until its lease passes (the sweep then sends it again)."""
    for tries in range(1, RECORD_TRIES + 1):
        try:
            return _record(claim, outcome)
        except OperationalError:
            if tries == RECORD_TRIES:
                raise
            logger.warning(
                "delivery %s: recording the attempt failed (%s)", claim.delivery_id, tries
            )
            if not connection.in_atomic_block and not connection.is_usable():
                connection.close()  # a lost connection: the next try opens another
            time.sleep(0.1 * tries)
    raise AssertionError("unreachable")


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
        hold = None
        if not isinstance(target, str):
            admission = breaker.endpoint_enter(type(target), target.pk, now)
            if admission.wait_until is not None:
                _reschedule(delivery, admission.wait_until, now)
                return Attempt.POSTPONED if admission.open else Attempt.DEFERRED
            hold = admission.hold
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
            hold=hold,
        )


def _reschedule(delivery: Delivery, at: datetime, now: datetime) -> None:
    """Attempt ``delivery`` at ``at`` instead (no attempt counted), its task sent after the
    commit."""
    delivery.next_attempt_at = at
    delivery.save(update_fields=["next_attempt_at"])
    countdown = max(0.0, (at - now).total_seconds())
    tracing.on_commit(
        "notifications.deliveries_send",
        lambda: deliveries_send([delivery.pk], countdown=countdown),
    )


def _target(delivery: Delivery) -> Target | None:
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
    if delivery.channel in NATIVE_CHANNELS:
        return DeviceRegistration.objects.filter(
            pk=delivery.endpoint_id, player_id=player_id, platform=delivery.channel, enabled=True
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
    if isinstance(claim.target, DeviceRegistration):
        return device_deliver(claim.target, claim.body)
    return email_deliver(claim.target, claim.body, claim.idempotency_key)


def _record(claim: Claim, outcome: SendOutcome) -> Attempt:
    """Write the attempt's outcome: first on the endpoint (released, its breaker closed or a
    failure counted), then on the delivery with conditional updates (one statement, no row
    read): a delivery no longer pending is left alone, and a failure only by the attempt that
    holds the claim (past our lease, a later attempt's record is the one that counts). The
    next delivery waiting for the endpoint is sent on."""
    now = timezone.now()
    pending = Delivery.objects.filter(pk=claim.delivery_id, status=DeliveryStatus.PENDING)
    with transaction.atomic():
        open_until = _endpoint_leave(claim, outcome.ok, now)
        if open_until is None and claim.hold is not None:
            _hand_over(claim, now)
        if outcome.ok:
            if not pending.update(
                status=DeliveryStatus.DELIVERED,
                delivered_at=now,
                last_status_code=outcome.status,
                last_error="",
            ):
                return Attempt.SKIPPED
            if isinstance(claim.target, DeviceRegistration):
                DeviceRegistration.objects.filter(pk=claim.target.pk).update(last_used_at=now)
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
        if final:
            if not ours.update(status=DeliveryStatus.FAILED, **failed):
                return Attempt.SKIPPED
            _endpoint_failed(claim, outcome)
            return Attempt.FAILED
        retry_at = max(now + timedelta(seconds=backoff_seconds(claim.attempts)), open_until or now)
        if not ours.update(next_attempt_at=retry_at, **failed):
            return Attempt.SKIPPED
        wait = (retry_at - now).total_seconds()
        transaction.on_commit(lambda: deliveries_send([claim.delivery_id], countdown=wait))
        return Attempt.RETRY


# ============================================================================== endpoint health
def _endpoint_model(claim: Claim) -> type[breaker.Endpoint] | None:
    if isinstance(claim.target, WebhookEndpoint):
        return WebhookEndpoint
    if isinstance(claim.target, PushSubscription):
        return PushSubscription
    if isinstance(claim.target, DeviceRegistration):
        return DeviceRegistration
    return None


def _endpoint_leave(claim: Claim, ok: bool, now: datetime) -> datetime | None:
    """The endpoint's breaker after this attempt (``breaker.endpoint_leave``); e-mail has
    none."""
    model = _endpoint_model(claim)
    if model is None or isinstance(claim.target, str):
        return None
    return breaker.endpoint_leave(model, claim.target.pk, claim.hold, ok, now)


def _hand_over(claim: Claim, now: datetime) -> None:
    """Send on, now, the next delivery that waited for this attempt to the endpoint."""
    assert claim.hold is not None and not isinstance(claim.target, str)
    waiting = breaker.deliveries_waiting(
        claim.channel, claim.target.pk, claim.hold, after=claim.delivery_id
    )
    if waiting is not None:
        Delivery.objects.filter(pk=waiting).update(next_attempt_at=now)
        transaction.on_commit(lambda: deliveries_send([waiting]))


def _endpoint_failed(claim: Claim, outcome: SendOutcome) -> None:
    """A delivery given up on: count it against its endpoint, and disable the endpoint (with
    a notice for a webhook) when it keeps failing or is gone. Inside ``_record``'s transaction."""
    model = _endpoint_model(claim)
    if model is None or isinstance(claim.target, str):
        return
    endpoint = model.objects.select_for_update().filter(pk=claim.target.pk).first()
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
    elif isinstance(endpoint, DeviceRegistration):
        endpoint.disabled_at = timezone.now()
        endpoint.disabled_reason = (
            f"The push service says the token is dead ({outcome.error})"
            if outcome.gone
            else f"Disabled after {endpoint.consecutive_failures} failed pushes in a row "
            f"(last: {outcome.error})"
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
    allowed = _setting("WEBHOOK_ALLOW_HTTP_HOSTS", [])
    return http_post(endpoint.url, data, headers, allowed_hosts=allowed)


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


def device_deliver(registration: DeviceRegistration, body: dict[str, Any]) -> SendOutcome:
    """A native push through ``notifications.services.native_push.device_send`` (FCM or
    APNs)."""
    native_push = importlib.import_module(NATIVE_PUSH_MODULE)
    outcome: SendOutcome = native_push.device_send(registration, body)
    return outcome
