"""Delivering notifications for real: signed webhooks to a receiver on loopback (which checks
the HMAC with the endpoint's secret), retries with the same idempotency key, endpoints disabled
after failing, timeouts, e-mail and Web Push, moves that never wait for a receiver, and no card
in any notification of a played game (the leak scanner's checks).

Without a broker, deliveries run in a daemon thread of the process
(``NOTIFICATION_DELIVERY_IN_PROCESS``), never in the request; with one, in a worker (the
``worker`` test at the end kills one in the middle of a delivery).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import types
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest
from django.conf import settings as django_settings
from django.core import mail
from django.db import OperationalError, transaction
from django.utils import timezone

from canasta_service.celery import app as celery_app
from games.engine import card_text
from games.models import Game
from notifications.models import (
    Delivery,
    DeliveryStatus,
    Notification,
    NotificationKind,
    PushSubscription,
    WebhookEndpoint,
)
from notifications.services import breaker
from notifications.services import delivery as delivery_service
from notifications.services.delivery import Attempt, deliveries_sweep, delivery_attempt
from notifications.services.notifications import notify, preferences_set, webhook_register
from notifications.services.outbound import http_post
from tests.conftest import ROOT, process_stop, worker_environment
from tests.games.api.conftest import choose, eager_bots  # noqa: F401 - fixture
from tests.games.api.test_leak import cards_in, states_of, visible, within
from tests.notifications.notification_players import Someone, game_of_two, someone
from tests.project.webhook_receiver import Receiver

T = TypeVar("T")
CARD_TOKENS = frozenset(card_text(c) for c in range(53))


# ============================================================================== fixtures
@pytest.fixture
def receiver() -> Iterator[Receiver]:
    running = Receiver().start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def loopback(settings: Any) -> Any:
    """Webhooks may reach 127.0.0.1 over http (as in local development)."""
    settings.WEBHOOK_ALLOW_HTTP_HOSTS = ["127.0.0.1"]
    return settings


def _hook(player: Someone, receiver: Receiver) -> WebhookEndpoint:
    endpoint = webhook_register(player.player_id, url=receiver.url)
    receiver.secret = endpoint.secret
    return endpoint


def _notify_turn(player: Someone, game: Game, seq: int) -> Notification:
    with transaction.atomic():
        notification = notify(
            player_id=player.player_id,
            kind=NotificationKind.YOUR_TURN,
            game=game,
            event_seq=seq,
            payload={"deadline": None},
        )
    assert notification is not None
    return notification


def _seat_of(someone_: Someone, game_id: int) -> int:
    return int(someone_.client.get(f"/api/v1/games/{game_id}/").json()["your_seat"])


def _act(player: Someone, game_id: int) -> tuple[dict[str, Any], float]:
    """``player`` (to act) plays a simple legal action; the game after it, and the seconds the
    request took."""
    view = player.client.get(f"/api/v1/games/{game_id}/").json()
    started = time.monotonic()
    response = player.client.post(
        f"/api/v1/games/{game_id}/actions/",
        {"action": choose(view["state"]["legal_actions"]), "expected_version": view["version"]},
        format="json",
    )
    elapsed = time.monotonic() - started
    assert response.status_code == 201, response.content
    return response.json()["game"], elapsed


def _turn_played(player: Someone, game_id: int) -> list[float]:
    """``player`` plays until the turn passes; how long each request took."""
    seat = _seat_of(player, game_id)
    times = []
    while True:
        game, elapsed = _act(player, game_id)
        times.append(elapsed)
        if game["state"]["to_act"] != seat or game["status"] != "active":
            return times


def _read(query: Callable[[], T]) -> T:
    """``query()``, read again while SQLite finds a table locked by the delivery thread."""
    for _ in range(100):
        with contextlib.suppress(OperationalError):
            return query()
        time.sleep(0.02)
    return query()


def _wait_status(delivery_id: int, status: str, timeout: float = 15) -> Delivery:
    """Poll the delivery until it has ``status`` (on SQLite a read may find the table locked
    while the delivery thread writes: read again)."""
    deadline = time.monotonic() + timeout
    found: Delivery | None = None
    while found is None or found.status != status:
        assert time.monotonic() < deadline, f"delivery is {found and found.status}, not {status}"
        time.sleep(0.02)
        with contextlib.suppress(OperationalError):
            found = Delivery.objects.get(pk=delivery_id)
    return found


# ============================================================================== signing
@pytest.mark.django_db
def test_a_delivery_is_signed_and_the_receiver_verifies_it_with_the_secret(
    loopback: Any, receiver: Receiver
) -> None:
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    endpoint = _hook(ada, receiver)
    notification = _notify_turn(ada, game, game.version)
    delivery = Delivery.objects.get(notification=notification)

    assert delivery_attempt(delivery.pk) is Attempt.DELIVERED
    [seen] = receiver.requests
    assert seen.signature_valid and seen.answered == 200
    assert seen.key == delivery.idempotency_key == seen.body["id"]
    assert seen.event == "your_turn" == seen.body["kind"]
    assert seen.body["game_id"] == game.pk and seen.body["player_id"] == ada.player_id
    delivered = Delivery.objects.get(pk=delivery.pk)
    assert delivered.status == DeliveryStatus.DELIVERED and delivered.attempts == 1
    assert delivered.last_status_code == 200 and delivered.delivered_at is not None
    # Delivered is final: another task for it sends nothing.
    assert delivery_attempt(delivery.pk) is Attempt.SKIPPED
    assert len(receiver.requests) == 1

    # A receiver holding another secret refuses it: the signature is what proves the sender.
    receiver.secret = "0" * 64
    second = Delivery.objects.get(notification=_notify_turn(ada, game, game.version + 1))
    assert delivery_attempt(second.pk) is Attempt.RETRY
    assert not receiver.requests[-1].signature_valid
    assert Delivery.objects.get(pk=second.pk).last_status_code == 400
    assert endpoint.secret not in str(Delivery.objects.get(pk=second.pk).__dict__)


# ============================================================================== retries
@pytest.mark.django_db
def test_a_receiver_answering_500_then_200_gets_the_delivery_once(
    loopback: Any, receiver: Receiver
) -> None:
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    _hook(ada, receiver)
    receiver.script = [500]
    delivery = Delivery.objects.get(notification=_notify_turn(ada, game, game.version))

    before = timezone.now()
    assert delivery_attempt(delivery.pk) is Attempt.RETRY
    failed = Delivery.objects.get(pk=delivery.pk)
    assert failed.status == DeliveryStatus.PENDING and failed.attempts == 1
    assert failed.last_status_code == 500 and failed.last_error == "HTTP 500"
    # The next attempt after the backoff (30 s after the first failure), not before.
    wait = (failed.next_attempt_at - before).total_seconds()
    assert 29 <= wait <= 31, wait
    assert delivery_attempt(delivery.pk) is Attempt.SKIPPED  # not due yet
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())

    assert delivery_attempt(delivery.pk) is Attempt.DELIVERED
    first, second = receiver.requests
    assert first.key == second.key == delivery.idempotency_key  # the same key both times
    assert (first.answered, second.answered) == (500, 200)
    assert receiver.processed == [delivery.idempotency_key]  # acted on once
    done = Delivery.objects.get(pk=delivery.pk)
    assert done.status == DeliveryStatus.DELIVERED and done.attempts == 2
    assert done.last_error == "" and done.last_status_code == 200


@pytest.mark.django_db
def test_the_backoff_doubles_up_to_its_cap_and_the_last_attempt_gives_up(
    loopback: Any, receiver: Receiver
) -> None:
    loopback.NOTIFICATION_MAX_ATTEMPTS = 5
    loopback.NOTIFICATION_RETRY_MAX_SECONDS = 100
    loopback.NOTIFICATION_BREAKER_FAILURES = 10  # the breaker stays closed (see below)
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    _hook(ada, receiver)
    receiver.script = [503] * 5
    delivery = Delivery.objects.get(notification=_notify_turn(ada, game, game.version))
    waits = []
    for attempt in range(1, 6):
        now = timezone.now()
        outcome = delivery_attempt(delivery.pk)
        row = Delivery.objects.get(pk=delivery.pk)
        assert row.attempts == attempt
        if attempt < 5:
            assert outcome is Attempt.RETRY
            waits.append(round((row.next_attempt_at - now).total_seconds()))
            Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())
        else:
            assert outcome is Attempt.FAILED and row.status == DeliveryStatus.FAILED
    assert waits == [30, 60, 100, 100]
    assert len({r.key for r in receiver.requests}) == 1 and len(receiver.requests) == 5
    assert WebhookEndpoint.objects.get().consecutive_failures == 1


@pytest.mark.django_db
def test_an_endpoint_that_keeps_failing_is_disabled_with_a_notice(
    loopback: Any, receiver: Receiver
) -> None:
    loopback.NOTIFICATION_MAX_ATTEMPTS = 1
    loopback.WEBHOOK_DISABLE_AFTER_FAILURES = 2
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    endpoint = _hook(ada, receiver)
    receiver.script = [500, 200, 502, 500]
    ids = [
        Delivery.objects.get(notification=_notify_turn(ada, game, seq)).pk for seq in range(1, 6)
    ]
    outcomes = [delivery_attempt(i) for i in ids[:4]]
    # A success between two failures starts the count again: 500, 200, 502, 500.
    assert outcomes == [Attempt.FAILED, Attempt.DELIVERED, Attempt.FAILED, Attempt.FAILED]
    endpoint.refresh_from_db()
    assert not endpoint.enabled and endpoint.disabled_at is not None
    assert (
        endpoint.disabled_reason == "Disabled after 2 failed deliveries in a row (last: HTTP 500)"
    )
    # Its pending delivery is dropped, and nothing new is written for it.
    assert Delivery.objects.get(pk=ids[4]).status == DeliveryStatus.DROPPED
    assert delivery_attempt(ids[4]) is Attempt.SKIPPED
    with transaction.atomic():
        assert (
            notify(
                player_id=ada.player_id,
                kind=NotificationKind.CHAT,
                game=game,
                event_seq=9,
                payload={"phrase": "Hi"},
            )
            is None
        )
    # The owner sees the notice, and may turn it back on.
    listed = ada.client.get("/api/v1/players/me/webhooks/").json()["webhooks"][0]
    assert listed["enabled"] is False and "HTTP 500" in listed["disabled_reason"]
    assert ada.client.post(f"/api/v1/players/me/webhooks/{endpoint.pk}/enable/").status_code == 200
    assert _notify_turn(ada, game, 10) is not None
    assert len(receiver.requests) == 4


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_attempting_one_delivery_at_once_send_it_once(
    loopback: Any, receiver: Receiver
) -> None:
    """Four threads attempt the same delivery while the receiver is slow: the row lock (SKIP
    LOCKED) and the claim's lease let one of them send; the others do nothing."""
    from django.db import connections

    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    _hook(ada, receiver)
    receiver.script = ["hold"]
    delivery = Delivery.objects.get(notification=_notify_turn(ada, game, game.version))
    outcomes: list[Attempt] = []

    def attempt() -> None:
        try:
            outcomes.append(delivery_attempt(delivery.pk))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=attempt) for _ in range(4)]
    for thread in threads:
        thread.start()
    receiver.wait_for(1)
    time.sleep(0.5)  # the others have had their chance meanwhile
    receiver.release.set()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(o.value for o in outcomes) == ["delivered"] + ["skipped"] * 3
    assert len(receiver.requests) == 1
    done = Delivery.objects.get(pk=delivery.pk)
    assert done.status == DeliveryStatus.DELIVERED and done.attempts == 1


# ============================================================================== the breaker
def _due_now(*deliveries: Delivery) -> None:
    Delivery.objects.filter(pk__in=[d.pk for d in deliveries]).update(
        next_attempt_at=timezone.now()
    )


def _cooldown_over(endpoint: WebhookEndpoint) -> None:
    """The breaker's cooldown has passed (half-open)."""
    WebhookEndpoint.objects.filter(pk=endpoint.pk).update(
        open_until=timezone.now() - timedelta(seconds=1)
    )


def _seconds_open(endpoint: WebhookEndpoint, since: Any) -> int:
    endpoint.refresh_from_db()
    assert endpoint.open_until is not None
    return round((endpoint.open_until - since).total_seconds())


@pytest.mark.django_db
def test_the_breaker_opens_after_failures_in_a_row_postpones_without_sending_then_tries_once(
    loopback: Any, receiver: Receiver
) -> None:
    """Three attempts in a row fail: the endpoint's breaker opens for 30 s. Deliveries due
    meanwhile are postponed to its end, counting no attempt and sending nothing. Then one trial:
    it fails (open again, twice as long), the next succeeds (closed), and deliveries go as
    due."""
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    endpoint = _hook(ada, receiver)
    receiver.script = [500, 502, 503, 503]
    first, second, third, fourth, fifth = (
        Delivery.objects.get(notification=_notify_turn(ada, game, seq)) for seq in range(1, 6)
    )
    assert [delivery_attempt(d.pk) for d in (first, second, third)] == [Attempt.RETRY] * 3
    failed_at = timezone.now()
    assert _seconds_open(endpoint, failed_at) == 30
    assert endpoint.failed_attempts == 3 and endpoint.busy_until is None
    assert endpoint.consecutive_failures == 0  # no delivery has failed for good
    # The third's retry is due no sooner than the breaker closes (its backoff is 30 s too).
    assert endpoint.open_until is not None
    assert Delivery.objects.get(pk=third.pk).next_attempt_at >= endpoint.open_until

    # Open: due deliveries are postponed to the cooldown's end, nothing sent, nothing counted.
    _due_now(first, fourth)
    assert delivery_attempt(fourth.pk) is Attempt.POSTPONED
    assert delivery_attempt(first.pk) is Attempt.POSTPONED
    assert len(receiver.requests) == 3
    for delivery, attempts in ((fourth, 0), (first, 1)):
        row = Delivery.objects.get(pk=delivery.pk)
        assert row.status == DeliveryStatus.PENDING and row.attempts == attempts
        assert row.next_attempt_at == endpoint.open_until

    # Half-open: one trial; it fails, and the breaker opens again for twice as long.
    _cooldown_over(endpoint)
    _due_now(fourth, fifth)
    assert delivery_attempt(fourth.pk) is Attempt.RETRY
    assert _seconds_open(endpoint, timezone.now()) == 60 and endpoint.failed_attempts == 4
    assert delivery_attempt(fifth.pk) is Attempt.POSTPONED
    assert len(receiver.requests) == 4

    # The next trial succeeds: closed, and every delivery goes as it is due.
    _cooldown_over(endpoint)
    _due_now(fourth, fifth, first)
    assert delivery_attempt(fourth.pk) is Attempt.DELIVERED
    closed = WebhookEndpoint.objects.get(pk=endpoint.pk)
    assert (closed.open_until, closed.failed_attempts, closed.busy_until) == (None, 0, None)
    assert delivery_attempt(fifth.pk) is Attempt.DELIVERED
    assert delivery_attempt(first.pk) is Attempt.DELIVERED
    assert Delivery.objects.get(pk=first.pk).attempts == 2  # the postponement counted none
    assert len(receiver.requests) == 7


def test_the_cooldown_doubles_from_its_base_up_to_its_cap(settings: Any) -> None:
    settings.NOTIFICATION_BREAKER_FAILURES = 3
    settings.NOTIFICATION_BREAKER_COOLDOWN_SECONDS = 30
    settings.NOTIFICATION_BREAKER_COOLDOWN_MAX_SECONDS = 900
    cooldowns = [breaker.cooldown_seconds(n) for n in range(0, 11)]
    assert cooldowns == [0, 0, 0, 30, 60, 120, 240, 480, 900, 900, 900]
    assert breaker.cooldown_seconds(10**6) == 900


@pytest.mark.django_db
def test_an_endpoint_disabled_after_failing_for_good_still_notifies_its_owner_with_the_breaker(
    loopback: Any, receiver: Receiver
) -> None:
    """The breaker postpones; it does not lose or disable: the delivery still fails for good at
    its last attempt, and the endpoint is disabled with its notice after enough of those."""
    loopback.NOTIFICATION_MAX_ATTEMPTS = 2
    loopback.WEBHOOK_DISABLE_AFTER_FAILURES = 1
    loopback.NOTIFICATION_BREAKER_FAILURES = 1
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    endpoint = _hook(ada, receiver)
    receiver.script = [500, 500]
    delivery = Delivery.objects.get(notification=_notify_turn(ada, game, 1))
    assert delivery_attempt(delivery.pk) is Attempt.RETRY
    _due_now(delivery)
    assert delivery_attempt(delivery.pk) is Attempt.POSTPONED
    _cooldown_over(endpoint)
    _due_now(delivery)
    assert delivery_attempt(delivery.pk) is Attempt.FAILED
    endpoint.refresh_from_db()
    assert not endpoint.enabled and "HTTP 500" in endpoint.disabled_reason
    assert len(receiver.requests) == 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_attempt_at_a_time_per_endpoint_the_others_wait_for_it(
    loopback: Any, receiver: Receiver
) -> None:
    """While one attempt to an endpoint is in flight (the receiver holds it), another delivery
    to the same endpoint is deferred, not sent; when the attempt ends it hands over to the one
    waiting."""
    from django.db import connections

    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    endpoint = _hook(ada, receiver)
    receiver.script = ["hold"]
    first = Delivery.objects.get(notification=_notify_turn(ada, game, 1))
    second = Delivery.objects.get(notification=_notify_turn(ada, game, 2))
    outcomes: list[Attempt] = []

    def attempt() -> None:
        try:
            outcomes.append(delivery_attempt(first.pk))
        finally:
            connections.close_all()

    thread = threading.Thread(target=attempt)
    thread.start()
    receiver.wait_for(1)
    assert delivery_attempt(second.pk) is Attempt.DEFERRED
    waiting = Delivery.objects.get(pk=second.pk)
    endpoint.refresh_from_db()
    assert waiting.attempts == 0 and waiting.next_attempt_at == endpoint.busy_until
    assert len(receiver.requests) == 1

    receiver.release.set()
    thread.join(timeout=30)
    assert outcomes == [Attempt.DELIVERED]
    # Handed over: the one waiting is due now, not at the end of the first one's hold.
    assert Delivery.objects.get(pk=second.pk).next_attempt_at <= timezone.now()
    assert delivery_attempt(second.pk) is Attempt.DELIVERED
    assert receiver.most_holding == 1 and len(receiver.requests) == 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_many_deliveries_to_a_dead_endpoint_cost_one_attempt_at_a_time(
    loopback: Any, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four workers attempt 24 deliveries to a receiver that never answers, over and over:
    never two attempts to it at once, each ends at its deadline, and once the breaker opens
    nothing more is sent; every delivery is still pending (nothing lost)."""
    from django.db import connections

    loopback.NOTIFICATION_ATTEMPT_SECONDS = 0.5
    lock = threading.Lock()
    in_flight = [0, 0]  # now, the most at once
    post = delivery_service.http_post

    def counted(*args: Any, **kwargs: Any) -> Any:
        with lock:
            in_flight[0] += 1
            in_flight[1] = max(in_flight)
        try:
            return post(*args, **kwargs)
        finally:
            with lock:
                in_flight[0] -= 1

    monkeypatch.setattr(delivery_service, "http_post", counted)
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    endpoint = _hook(ada, receiver)
    receiver.script = ["hang"] * 100
    ids = [
        Delivery.objects.get(notification=_notify_turn(ada, game, seq)).pk for seq in range(1, 25)
    ]
    outcomes: list[Attempt] = []

    def worker(order: list[int]) -> None:
        # Passes until the breaker opens: a fixed number of passes can all end while one
        # attempt hangs, leaving fewer than three attempts made (timing, not behaviour).
        deadline = time.monotonic() + 60
        try:
            while (
                time.monotonic() < deadline
                and not WebhookEndpoint.objects.filter(
                    pk=endpoint.pk, open_until__isnull=False
                ).exists()
            ):
                _due_now(*Delivery.objects.filter(pk__in=order, attempts=0))
                for delivery_id in order:
                    outcome = delivery_attempt(delivery_id)
                    with lock:
                        outcomes.append(outcome)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(ids[n:] + ids[:n],)) for n in (0, 6, 12, 18)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    receiver.release.set()

    assert in_flight[1] == 1
    assert len(receiver.requests) == 3  # then the breaker opened
    assert outcomes.count(Attempt.RETRY) == 3
    assert Attempt.DEFERRED in outcomes  # a delivery found another one's attempt in flight
    # The breaker is open: a delivery due now is postponed, with no attempt and no request.
    _due_now(Delivery.objects.get(pk=ids[0]))
    assert delivery_attempt(ids[0]) is Attempt.POSTPONED
    assert len(receiver.requests) == 3
    endpoint.refresh_from_db()
    assert endpoint.failed_attempts == 3 and endpoint.open_until is not None
    rows = Delivery.objects.filter(pk__in=ids)
    assert {r.status for r in rows} == {DeliveryStatus.PENDING}
    assert sum(r.attempts for r in rows) == 3
    assert {r.last_error for r in rows if r.attempts} == {"timed out"}


# ============================================================================== deadlines
@pytest.mark.django_db
def test_a_receiver_that_never_answers_is_given_up_at_the_attempt_deadline(
    loopback: Any, receiver: Receiver
) -> None:
    loopback.NOTIFICATION_ATTEMPT_SECONDS = 0.5
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    _hook(ada, receiver)
    receiver.script = ["hang"]
    delivery = Delivery.objects.get(notification=_notify_turn(ada, game, 1))
    assert delivery_attempt(delivery.pk) is Attempt.RETRY
    assert receiver.holding == 1  # the receiver still holds the request: the attempt ended
    row = Delivery.objects.get(pk=delivery.pk)
    assert row.last_error == "timed out" and row.last_status_code is None


@pytest.mark.django_db
def test_the_attempt_deadline_bounds_a_slow_answer_as_a_whole(loopback: Any) -> None:
    """A receiver answering 200 a byte every 0.1 s (the whole in ~4 s, every read quick): with
    a 1 s attempt deadline the attempt fails as timed out, before the answer is complete."""
    loopback.NOTIFICATION_ATTEMPT_SECONDS = 1
    stop = threading.Event()
    sent: list[int] = []
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def serve() -> None:
        conn, _ = server.accept()
        with conn:
            conn.recv(65536)
            for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n":
                if stop.wait(0.1):
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return
                sent.append(byte)

    threading.Thread(target=serve, daemon=True).start()
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    webhook_register(ada.player_id, url=f"http://127.0.0.1:{server.getsockname()[1]}/hook")
    delivery = Delivery.objects.get(notification=_notify_turn(ada, game, 1))
    try:
        outcome = delivery_attempt(delivery.pk)
    finally:
        stop.set()
        server.close()
    assert outcome is Attempt.RETRY
    assert Delivery.objects.get(pk=delivery.pk).last_error == "timed out"
    assert 0 < len(sent) < 38


# ============================================================================== timeouts
def _trickler(stop: threading.Event) -> tuple[socket.socket, int]:
    """A server that accepts and then answers one byte every 0.2 s, forever."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def serve() -> None:
        conn, _ = server.accept()
        conn.recv(65536)
        while not stop.is_set():
            try:
                conn.sendall(b"H" if not stop.is_set() else b"")
            except OSError:
                return
            time.sleep(0.2)
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    return server, int(server.getsockname()[1])


def test_a_receiver_that_trickles_its_answer_is_cut_off_at_the_total_timeout(
    loopback: Any,
) -> None:
    stop = threading.Event()
    server, port = _trickler(stop)
    try:
        started = time.monotonic()
        outcome = http_post(
            f"http://127.0.0.1:{port}/", b"{}", {}, allowed_hosts=["127.0.0.1"], total_timeout=1.0
        )
        elapsed = time.monotonic() - started
    finally:
        stop.set()
        server.close()
    assert not outcome.ok and outcome.status is None
    assert elapsed < 3, elapsed  # every read was quick, yet the whole is bounded


def test_a_webhook_never_reaches_a_private_address_unless_allowed() -> None:
    refused = http_post("https://127.0.0.1:9/", b"{}", {}, allowed_hosts=[])
    assert not refused.ok and "no public address" in refused.error
    plain = http_post("http://127.0.0.1:9/", b"{}", {}, allowed_hosts=[])
    assert not plain.ok and "plain http" in plain.error


# ============================================================================== e-mail, push
@pytest.mark.django_db
def test_an_email_carries_the_text_the_link_and_the_idempotency_key() -> None:
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    preferences_set(ada.player_id, email="ada@example.com")
    delivery = Delivery.objects.get(notification=_notify_turn(ada, game, game.version))
    assert delivery_attempt(delivery.pk) is Attempt.DELIVERED
    [message] = mail.outbox
    assert message.to == ["ada@example.com"] and message.subject == "Your turn"
    assert f"#/game/{game.pk}" in message.body
    assert message.extra_headers["Canasta-Delivery"] == delivery.idempotency_key
    assert message.from_email == django_settings.DEFAULT_FROM_EMAIL


@pytest.mark.django_db
def test_web_push_goes_through_push_send_and_a_gone_subscription_is_disabled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    subscription = PushSubscription.objects.create(
        player_id=ada.player_id, endpoint="https://push.example.com/1", p256dh="k", auth="a"
    )
    sent: list[tuple[int, dict[str, Any]]] = []
    answers = iter([(True, 201, False), (False, 410, True)])

    def push_send(sub: PushSubscription, payload: dict[str, Any]) -> Any:
        sent.append((sub.pk, payload))
        ok, status, gone = next(answers)
        return types.SimpleNamespace(ok=ok, status=status, error="" if ok else "gone", gone=gone)

    monkeypatch.setitem(
        sys.modules, delivery_service.PUSH_MODULE, types.SimpleNamespace(push_send=push_send)
    )
    first = Delivery.objects.get(notification=_notify_turn(ada, game, 1))
    assert delivery_attempt(first.pk) is Attempt.DELIVERED
    assert sent[0] == (subscription.pk, delivery_service.delivery_body(first))
    second = Delivery.objects.get(notification=_notify_turn(ada, game, 2))
    assert delivery_attempt(second.pk) is Attempt.FAILED  # gone: no retry
    subscription.refresh_from_db()
    assert not subscription.enabled
    assert Delivery.objects.get(pk=second.pk).last_status_code == 410


@pytest.mark.django_db
def test_without_the_push_module_a_push_attempt_fails_with_a_clear_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(delivery_service, "PUSH_MODULE", "games.services.no_such_push_module")
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    PushSubscription.objects.create(
        player_id=ada.player_id, endpoint="https://push.example.com/1", p256dh="k", auth="a"
    )
    delivery = Delivery.objects.get(notification=_notify_turn(ada, game, 1))
    assert delivery_attempt(delivery.pk) is Attempt.RETRY
    assert Delivery.objects.get(pk=delivery.pk).last_error == (
        "web push is not available on this server"
    )


# ============================================================================== the sweep
@pytest.mark.django_db
def test_the_sweep_sends_again_the_deliveries_whose_task_was_lost(
    loopback: Any, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    _hook(ada, receiver)
    lost = Delivery.objects.get(notification=_notify_turn(ada, game, 1))
    fresh = Delivery.objects.get(notification=_notify_turn(ada, game, 2))
    Delivery.objects.filter(pk=lost.pk).update(
        next_attempt_at=timezone.now() - timedelta(minutes=5)
    )
    sent: list[list[int]] = []
    monkeypatch.setattr(delivery_service, "deliveries_send", lambda ids: sent.append(ids))
    assert deliveries_sweep() == 1  # only the one overdue by more than the grace
    assert sent == [[lost.pk]]
    assert deliveries_sweep(overdue_seconds=0) == 2
    assert sorted(sent[1]) == sorted([lost.pk, fresh.pk])


# ============================================================================== moves
@pytest.mark.django_db(transaction=True)
def test_a_move_rolled_back_after_notifying_notifies_nobody(
    loopback: Any, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    from notifications.services import game_notifications as moves  # the move's subscriber

    loopback.NOTIFICATION_DELIVERY_IN_PROCESS = True
    ada, bob = someone("Ada"), someone("Bob")
    game_id = game_of_two(ada, bob)
    _hook(bob, receiver)
    original = moves.move_notify

    def notify_then_fail(*args: Any, **kwargs: Any) -> None:
        original(*args, **kwargs)
        if Notification.objects.exists():  # the turn was told, in the move's transaction
            raise RuntimeError("the move fails after notifying")

    monkeypatch.setattr(moves, "move_notify", notify_then_fail)
    with pytest.raises(RuntimeError):
        _turn_played(ada, game_id)
    time.sleep(0.5)  # a delivery, had one been sent, would have arrived
    assert not Notification.objects.exists() and not Delivery.objects.exists()
    assert receiver.requests == []

    monkeypatch.setattr(moves, "move_notify", original)
    _turn_played(ada, game_id)  # committed: told once, delivered by the process's thread
    [delivery] = _read(lambda: list(Delivery.objects.all()))
    _wait_status(delivery.pk, DeliveryStatus.DELIVERED)
    assert [r.event for r in receiver.requests] == ["your_turn"]


@pytest.mark.django_db(transaction=True)
def test_a_receiver_that_hangs_does_not_slow_the_move(loopback: Any, receiver: Receiver) -> None:
    """The move's request returns while the receiver still holds the delivery's request: the
    delivery runs outside the request (here a daemon thread; with a broker, a worker)."""
    loopback.NOTIFICATION_DELIVERY_IN_PROCESS = True
    ada, bob = someone("Ada"), someone("Bob")
    game_id = game_of_two(ada, bob)
    _hook(bob, receiver)
    receiver.script = ["hang"]

    times = _turn_played(ada, game_id)
    returned = time.monotonic()
    receiver.wait_for(1)
    [delivery] = _read(lambda: list(Delivery.objects.all()))
    assert receiver.holding == 1  # the receiver still hangs...
    assert _read(lambda: Delivery.objects.get(pk=delivery.pk)).status == DeliveryStatus.PENDING
    assert max(times) < 2.0, times  # ...and the move answered without waiting for it
    assert receiver.requests[0].at >= returned - max(times)

    receiver.release.set()
    done = _wait_status(delivery.pk, DeliveryStatus.DELIVERED)
    assert done.attempts == 1


@pytest.mark.django_db(transaction=True)
def test_a_receiver_answering_500_then_200_is_retried_by_the_process_after_the_backoff(
    loopback: Any, receiver: Receiver
) -> None:
    loopback.NOTIFICATION_DELIVERY_IN_PROCESS = True
    loopback.NOTIFICATION_RETRY_BASE_SECONDS = 1
    ada, bob = someone("Ada"), someone("Bob")
    game_id = game_of_two(ada, bob)
    _hook(bob, receiver)
    receiver.script = [500]
    _turn_played(ada, game_id)
    [delivery] = _read(lambda: list(Delivery.objects.all()))
    done = _wait_status(delivery.pk, DeliveryStatus.DELIVERED)
    assert done.attempts == 2
    first, second = receiver.requests
    assert first.key == second.key and second.at - first.at >= 0.9
    assert receiver.processed == [delivery.idempotency_key]


@pytest.mark.django_db
def test_an_attempt_whose_record_meets_a_locked_table_is_recorded_when_it_is_free(
    loopback: Any, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The receiver took the delivery; writing that down met a locked table (SQLite, a reader
    at that moment): written again, not left claimed and pending until its lease ends."""
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    _hook(ada, receiver)
    delivery = Delivery.objects.get(notification=_notify_turn(ada, game, 1))
    _due_now(delivery)
    record = delivery_service._record
    calls: list[int] = []

    def locked_once(claim: Any, outcome: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            raise OperationalError("database table is locked: games_delivery")
        return record(claim, outcome)

    monkeypatch.setattr(delivery_service, "_record", locked_once)
    assert delivery_attempt(delivery.pk) is Attempt.DELIVERED
    assert len(calls) == 2 and len(receiver.requests) == 1
    assert Delivery.objects.get(pk=delivery.pk).status == DeliveryStatus.DELIVERED


# ============================================================================== no card
@pytest.mark.django_db
def test_no_notification_of_a_played_game_names_a_card(loopback: Any) -> None:
    """A whole game with every kind its table produces (start, turns, a go-out question if the
    players ask, chat, game over): the leak scanner's check on every payload and every body,
    against what its recipient could see at the table at that event, and no card named in any
    text at all."""
    ada, bob = someone("Ada"), someone("Bob")
    for player in (ada, bob):  # registered before the start: game_started is told too
        webhook_register(player.player_id, url="https://hooks.example.com/" + str(player.player_id))
    game_id = game_of_two(ada, bob, options={"target_score": 1000})
    by_seat = {_seat_of(p, game_id): p for p in (ada, bob)}
    chat = bob.client.post(f"/api/v1/games/{game_id}/chat/", {"phrase": "good_luck"})
    assert chat.status_code == 201, chat.content
    for _ in range(5000):
        view = ada.client.get(f"/api/v1/games/{game_id}/").json()
        if view["status"] != "active":
            break
        _act(by_seat[view["state"]["to_act"]], game_id)
    else:
        raise AssertionError("the game did not end")

    game = Game.objects.get(pk=game_id)
    seat_of_player = {p.player_id: s for s, p in by_seat.items()}
    after_event = {event.seq: after for event, _, after, _ in states_of(game)}
    notifications = list(Notification.objects.filter(game=game))
    kinds = {n.kind for n in notifications}
    assert {"game_started", "your_turn", "chat", "game_over"} <= kinds, kinds
    for notification in notifications:
        seat = seat_of_player[notification.player_id]
        state = after_event[notification.payload["game_version"]]
        for delivery in notification.deliveries.all():
            body = delivery_service.delivery_body(delivery)
            assert not within(cards_in(body), visible(state, seat)), body
            words = {
                w.strip(".,:;!?()") for v in body.values() if isinstance(v, str) for w in v.split()
            }
            assert not words & CARD_TOKENS, body
            assert set(body) <= {
                "id", "kind", "created_at", "player_id", "game_id", "game_version",
                "title", "text", "url", "deadline", "phrase", "winner_team",
            }  # fmt: skip


# ============================================================================== a killed worker
class _Worker:
    """A Celery worker of its own (prefork, one child, its own process group), consuming only
    the delivery queue of this test."""

    def __init__(self, queue: str, log: Path) -> None:
        self.hostname = f"outbox-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
        env = worker_environment(
            str(django_settings.CELERY_BROKER_URL),
            TASK_QUEUE_DELIVERIES=queue,
            NOTIFICATION_DELIVERY_LEASE_SECONDS="2",
            WEBHOOK_ALLOW_HTTP_HOSTS="127.0.0.1",
        )
        command = [
            sys.executable, "-m", "celery", "-A", "canasta_service", "worker", "-Q", queue,
            "--pool=prefork", "--concurrency=1", "--loglevel=INFO",
            f"--hostname={self.hostname}", "--without-gossip", "--without-mingle",
        ]  # fmt: skip
        with log.open("ab") as out:
            self.process = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        deadline = time.monotonic() + 60
        while not celery_app.control.ping(destination=[self.hostname], timeout=0.5):
            assert self.process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()

    def kill(self) -> None:
        os.killpg(self.process.pid, signal.SIGKILL)  # the worker and its child, mid-task
        self.process.wait(timeout=10)


@pytest.fixture
def broker_queue(settings: Any) -> Iterator[str]:
    """This process sends to the broker, delivery tasks to a queue of this test's own."""
    queue = f"outbox-test-{uuid.uuid4().hex[:8]}"
    settings.TASK_QUEUES = {**settings.TASK_QUEUES, "deliveries": queue}
    saved = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        yield queue
    finally:
        celery_app.conf.task_always_eager = saved


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_delivery_delivers_once_after_redelivery(
    loopback: Any, receiver: Receiver, broker_queue: str, tmp_path: Path
) -> None:
    """SIGKILL to the whole worker while the receiver holds the delivery's request (it has
    acted on it but not answered). Once the attempt's lease has passed, the sweep sends the
    delivery to a new worker: the receiver sees the same idempotency key again, acts on it
    once, and the delivery ends delivered, once."""
    log = Path(os.environ.get("CELERY_WORKER_LOG") or ROOT / ".ci/logs/worker.log")
    log = log.with_name("outbox-worker.log")
    log.parent.mkdir(parents=True, exist_ok=True)
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    _hook(ada, receiver)
    receiver.script = ["hold"]
    workers = [_Worker(broker_queue, log)]
    try:
        delivery = Delivery.objects.get(notification=_notify_turn(ada, game, game.version))
        receiver.wait_for(1, timeout=30)  # the first worker is sending it, and is held
        workers[0].kill()
        receiver.release.set()
        held = Delivery.objects.get(pk=delivery.pk)
        assert held.status == DeliveryStatus.PENDING and held.attempts == 1
        assert deliveries_sweep(overdue_seconds=0) == 0  # leased: nobody else sends it yet

        workers.append(_Worker(broker_queue, log))
        deadline = time.monotonic() + 30
        while deliveries_sweep(overdue_seconds=0) == 0:  # the lease (2 s) passes
            assert time.monotonic() < deadline, "the lease never ended"
            time.sleep(0.2)
        done = _wait_status(delivery.pk, DeliveryStatus.DELIVERED, timeout=30)
    finally:
        for worker in workers:
            process_stop(worker.process)
    first, second = receiver.requests
    assert first.key == second.key == delivery.idempotency_key
    assert first.signature_valid and second.signature_valid
    assert receiver.processed == [delivery.idempotency_key]  # acted on once
    assert done.attempts == 2 and done.delivered_at is not None
    assert deliveries_sweep(overdue_seconds=0) == 0


def test_the_receiver_check_refuses_a_forged_signature() -> None:
    """The test receiver's check itself can fail (a check that cannot fail proves nothing)."""
    checker = Receiver(secret="s" * 64)
    stamp = int(time.time())
    good = delivery_service.webhook_signature("s" * 64, stamp, b"{}")
    assert checker.signature_check(good, b"{}")
    assert not checker.signature_check(good, b'{"x":1}')
    assert not checker.signature_check(
        delivery_service.webhook_signature("t" * 64, stamp, b"{}"), b"{}"
    )
    old = delivery_service.webhook_signature("s" * 64, stamp - 3600, b"{}")
    assert not checker.signature_check(old, b"{}")
