"""Each endpoint's circuit breaker, and one attempt at a time to it (a webhook endpoint, a push
subscription or a native device), kept on its row (``EndpointHealth``) so that every worker
sees them.

- **Closed**: deliveries are attempted when due.
- **Open**: after ``NOTIFICATION_BREAKER_FAILURES`` attempts in a row failed, for a cooldown
  (``NOTIFICATION_BREAKER_COOLDOWN_SECONDS``, doubled by each further failure, at most
  ``NOTIFICATION_BREAKER_COOLDOWN_MAX_SECONDS``): an attempt due meanwhile is postponed to the
  cooldown's end, counting no attempt and sending nothing.
- **Half-open**: the cooldown over, the next attempt is a trial; a success closes the breaker,
  a failure opens it again for twice as long.
- **One at a time**: an attempt admitted holds the endpoint (``busy_until``, a lease a little
  longer than an attempt may last, and no longer than the delivery's own lease, so that a
  killed worker's hold lapses when its delivery may be sent again); another delivery to
  it meanwhile is deferred to the lease's end, and the attempt that ends hands over to the next
  delivery waiting (``deliveries_waiting``). A thousand deliveries to one dead endpoint cost one
  attempt at a time, and none while its breaker is open.

``endpoint_enter`` runs in the claim's transaction, ``endpoint_leave`` in the record's; neither
waits for a lock held by a claim (deadlock-free with the rows the record updates).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection

from notifications.models import (
    Delivery,
    DeliveryStatus,
    DeviceRegistration,
    PushSubscription,
    WebhookEndpoint,
)
from notifications.services.outbound import attempt_seconds

Endpoint = WebhookEndpoint | PushSubscription | DeviceRegistration

# The endpoint's hold outlasts an attempt by this much (the claim and the record's own time).
HOLD_MARGIN_SECONDS = 10.0
# An endpoint row locked by another claim at this very moment: try again this soon.
LOCKED_RETRY_SECONDS = 1.0


def _setting(name: str, default: Any) -> Any:
    return getattr(settings, name, default)


def cooldown_seconds(failed_attempts: int) -> float:
    """How long the breaker stays open after ``failed_attempts`` failures in a row (0: it is
    closed): the base at the threshold, doubled by each failure past it, capped."""
    threshold = int(_setting("NOTIFICATION_BREAKER_FAILURES", 3))
    if failed_attempts < threshold:
        return 0.0
    base = float(_setting("NOTIFICATION_BREAKER_COOLDOWN_SECONDS", 30))
    cap = float(_setting("NOTIFICATION_BREAKER_COOLDOWN_MAX_SECONDS", 900))
    return min(cap, base * 2 ** min(failed_attempts - threshold, 32))


@dataclass(frozen=True)
class Admission:
    """An attempt may go (``hold``: the endpoint's lease it took), or must wait until
    ``wait_until`` (``open``: the breaker is open; else another attempt is in flight)."""

    hold: datetime | None = None
    wait_until: datetime | None = None
    open: bool = False


def endpoint_enter(model: type[Endpoint], endpoint_id: int, now: datetime) -> Admission:
    """Whether an attempt to the endpoint may start now; if so, the endpoint is held for it."""
    rows = model.objects.filter(pk=endpoint_id)
    if connection.features.has_select_for_update_skip_locked:
        rows = rows.select_for_update(skip_locked=True)
    endpoint = rows.first()
    if endpoint is None:  # another claim or record holds its row this instant
        return Admission(wait_until=now + timedelta(seconds=LOCKED_RETRY_SECONDS))
    if endpoint.open_until is not None and endpoint.open_until > now:
        return Admission(wait_until=endpoint.open_until, open=True)
    if endpoint.busy_until is not None and endpoint.busy_until > now:
        return Admission(wait_until=endpoint.busy_until)
    lease = float(_setting("NOTIFICATION_DELIVERY_LEASE_SECONDS", 90))
    hold = now + timedelta(seconds=min(attempt_seconds() + HOLD_MARGIN_SECONDS, lease))
    endpoint.busy_until = hold
    endpoint.save(update_fields=["busy_until"])
    return Admission(hold=hold)


def endpoint_leave(
    model: type[Endpoint], endpoint_id: int, hold: datetime | None, ok: bool, now: datetime
) -> datetime | None:
    """The attempt that held the endpoint ended: release it (if still ours), close the breaker
    on a success (and reset the endpoint's count of deliveries failed for good), count a
    failure (opening the breaker at the threshold). Returns until when the breaker is open
    (None: closed)."""
    endpoint = model.objects.select_for_update().filter(pk=endpoint_id).first()
    if endpoint is None:
        return None
    fields = ["failed_attempts", "open_until"]
    if hold is not None and endpoint.busy_until == hold:
        endpoint.busy_until = None
        fields.append("busy_until")
    if ok:
        endpoint.failed_attempts = 0
        endpoint.open_until = None
        endpoint.consecutive_failures = 0
        fields.append("consecutive_failures")
    else:
        endpoint.failed_attempts += 1
        cooldown = cooldown_seconds(endpoint.failed_attempts)
        endpoint.open_until = now + timedelta(seconds=cooldown) if cooldown else None
    endpoint.save(update_fields=fields)
    return endpoint.open_until


def deliveries_waiting(channel: str, endpoint_id: int, hold: datetime, after: int) -> int | None:
    """The delivery to the endpoint to attempt next, once the attempt holding it until
    ``hold`` has ended: the pending one due first among those due by then (deferred while that
    attempt was in flight), not ``after`` (the one just attempted)."""
    found: int | None = (
        Delivery.objects.filter(
            channel=channel,
            endpoint_id=endpoint_id,
            status=DeliveryStatus.PENDING,
            next_attempt_at__lte=hold,
        )
        .exclude(pk=after)
        .order_by("next_attempt_at", "pk")
        .values_list("pk", flat=True)
        .first()
    )
    return found
