"""Web Push (notifications.services.push): the encryption is real, only the push service is local. A
push service on loopback receives each message; the test decrypts it with the subscriber's
private key (RFC 8291, by hand: tests/notifications/push_service.py) and verifies the VAPID JWT with
the server's public key. Through the outbox: a move (or ``notify``) for a player with a push
subscription, the delivery task, one decryptable message, no card in it."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings as django_settings
from django.core.exceptions import ImproperlyConfigured
from django.db import transaction
from django.utils import timezone
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from games.engine import card_text
from games.models import Game
from notifications import errors
from notifications.models import (
    Channel,
    Delivery,
    DeliveryStatus,
    NotificationKind,
    PushSubscription,
)
from notifications.services import push
from notifications.services.delivery import delivery_body
from notifications.services.notifications import notify
from notifications.services.push import push_public_key, push_send, push_ttl, vapid_keys
from notifications.tasks import notification_deliver
from tests.games.api.conftest import choose, eager_bots  # noqa: F401 - fixture
from tests.notifications.notification_players import Someone, game_of_two, someone
from tests.notifications.push_service import PushService, Subscriber, b64url, vapid_claims

SUBJECT = "mailto:admin@example.org"
CARD_TOKENS = frozenset(card_text(c) for c in range(53))


# ============================================================================== fixtures
def _raw(key: ec.EllipticCurvePrivateKey) -> str:
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


@pytest.fixture
def server_key(settings: Any) -> ec.EllipticCurvePrivateKey:
    """The server's VAPID key from the environment's settings; pushes may reach 127.0.0.1."""
    key = ec.generate_private_key(ec.SECP256R1())
    settings.WEBPUSH_VAPID_PRIVATE_KEY = _raw(key)
    settings.WEBPUSH_VAPID_PUBLIC_KEY = ""
    settings.WEBPUSH_VAPID_SUBJECT = SUBJECT
    settings.WEBPUSH_ALLOW_HTTP_HOSTS = ["127.0.0.1"]
    return key


@pytest.fixture
def service() -> Iterator[PushService]:
    running = PushService().start()
    try:
        yield running
    finally:
        running.stop()


def _subscription(
    player_id: int, endpoint: str, subscriber: Subscriber, **fields: Any
) -> PushSubscription:
    keys = subscriber.keys()
    return PushSubscription.objects.create(
        player_id=player_id, endpoint=endpoint, p256dh=keys["p256dh"], auth=keys["auth"], **fields
    )


def _payload(kind: str = NotificationKind.YOUR_TURN, **facts: Any) -> dict[str, Any]:
    return {
        "id": "ntf-1-web_push-1",
        "created_at": "2026-11-23T00:00:00Z",
        "kind": kind,
        "player_id": 1,
        "game_id": 7,
        "game_version": 12,
        "title": "Your turn",
        "text": "It is your turn in game #7.",
        "url": "/#/game/7",
        **facts,
    }


# ============================================================================== push_send
@pytest.mark.django_db
def test_a_push_is_encrypted_for_the_subscriber_and_signed_with_the_vapid_key(
    server_key: ec.EllipticCurvePrivateKey, service: PushService
) -> None:
    subscriber = Subscriber()
    player = someone("Ada")
    subscription = _subscription(player.player_id, service.endpoint(), subscriber)
    deadline = timezone.now() + timedelta(hours=1)
    payload = _payload(deadline=deadline.isoformat())

    outcome = push_send(subscription, payload)

    assert outcome == push.PushOutcome(ok=True, status=201)
    [pushed] = service.received
    assert pushed.path == "/push/v2/sub-1"
    assert pushed.headers["content-encoding"] == "aes128gcm"
    assert b"Your turn" not in pushed.body  # encrypted on the wire
    assert (
        subscriber.decrypt(pushed.body)
        == push.json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode()
    )
    with pytest.raises(InvalidTag):  # another browser's key cannot read it
        Subscriber(auth=subscriber.auth).decrypt(pushed.body)
    # VAPID (RFC 8292): the JWT names the push service's origin and the subject, expires
    # within a day, and verifies with the public key browsers subscribe with.
    public = push_public_key()
    assert public == b64url(
        server_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
    )
    claims = vapid_claims(pushed.headers["authorization"], public)
    assert claims["aud"] == service.origin and claims["sub"] == SUBJECT
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600
    with pytest.raises(AssertionError):  # a header signed by another key is refused
        other = ec.generate_private_key(ec.SECP256R1()).public_key()
        vapid_claims(
            pushed.headers["authorization"],
            b64url(
                other.public_bytes(
                    serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
                )
            ),
        )
    # Kept until the turn's deadline, woken urgently, replacing an older turn message.
    assert 3500 <= int(pushed.headers["ttl"]) <= 3600
    assert pushed.headers["urgency"] == "high"
    assert pushed.headers["topic"] == "g7-turn"


@pytest.mark.django_db
@pytest.mark.parametrize("status", [404, 410])
def test_a_subscription_its_push_service_says_is_gone_is_reported_gone(
    server_key: ec.EllipticCurvePrivateKey, service: PushService, status: int
) -> None:
    service.script = [status]
    subscription = _subscription(someone("Ada").player_id, service.endpoint(), Subscriber())
    outcome = push_send(subscription, _payload())
    assert (outcome.ok, outcome.status, outcome.gone) == (False, status, True)


@pytest.mark.django_db
def test_a_failing_push_service_is_a_failure_to_retry_not_gone(
    server_key: ec.EllipticCurvePrivateKey, service: PushService
) -> None:
    service.script = [503, 429]
    subscription = _subscription(someone("Ada").player_id, service.endpoint(), Subscriber())
    for status in (503, 429):
        outcome = push_send(subscription, _payload())
        assert outcome == push.PushOutcome(ok=False, status=status, error=f"HTTP {status}")


@pytest.mark.django_db
def test_a_redirect_is_not_followed(
    server_key: ec.EllipticCurvePrivateKey, service: PushService
) -> None:
    service.script = [307]
    subscription = _subscription(someone("Ada").player_id, service.endpoint(), Subscriber())
    outcome = push_send(subscription, _payload())
    assert not outcome.ok and not outcome.gone
    assert [p.path for p in service.received] == ["/push/v2/sub-1"]  # never /elsewhere


@pytest.mark.django_db
def test_a_push_service_that_never_answers_is_cut_off_at_the_attempt_deadline(
    server_key: ec.EllipticCurvePrivateKey, service: PushService, settings: Any
) -> None:
    settings.NOTIFICATION_ATTEMPT_SECONDS = 0.5
    service.script = ["hang"]
    subscription = _subscription(someone("Ada").player_id, service.endpoint(), Subscriber())
    outcome = push_send(subscription, _payload())
    assert not service.release.is_set()  # the service still holds the request
    assert outcome == push.PushOutcome(ok=False, error="timed out")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "endpoint",
    [
        "https://127.0.0.1:9/push",  # loopback, not an allowed host
        "https://localhost:9/push",  # a name that resolves to loopback
        "http://push.example.com/push",  # plain http
    ],
)
def test_a_push_never_reaches_a_private_address_or_goes_plain_unless_allowed(
    server_key: ec.EllipticCurvePrivateKey, settings: Any, endpoint: str
) -> None:
    settings.WEBPUSH_ALLOW_HTTP_HOSTS = []
    subscription = _subscription(someone("Ada").player_id, endpoint, Subscriber())
    outcome = push_send(subscription, _payload())
    assert not outcome.ok and not outcome.gone and outcome.status is None
    assert outcome.error


@pytest.mark.django_db
def test_a_subscription_with_keys_that_cannot_be_encrypted_for_fails_without_sending(
    server_key: ec.EllipticCurvePrivateKey, service: PushService
) -> None:
    subscription = PushSubscription.objects.create(
        player_id=someone("Ada").player_id, endpoint=service.endpoint(), p256dh="k", auth="a"
    )
    outcome = push_send(subscription, _payload())
    assert not outcome.ok and not outcome.gone and outcome.status is None
    assert outcome.error.startswith("cannot encrypt for the subscription")
    assert service.received == []


@pytest.mark.django_db
def test_neither_the_payload_nor_a_key_is_logged(
    server_key: ec.EllipticCurvePrivateKey,
    service: PushService,
    caplog: pytest.LogCaptureFixture,
) -> None:
    service.script = [201, 410]
    subscriber = Subscriber()
    subscription = _subscription(someone("Ada").player_id, service.endpoint(), subscriber)
    payload = _payload(NotificationKind.CHAT, phrase="Secret-ish table talk")
    with caplog.at_level(logging.DEBUG):  # every logger, the libraries' too
        assert push_send(subscription, payload).ok
        assert push_send(subscription, payload).gone
        logging.getLogger("http.client").debug("the log is on")
    assert "the log is on" in caplog.text
    logged = caplog.text + " ".join(str(r.args) for r in caplog.records)
    for secret in (
        "Secret-ish table talk",
        payload["text"],
        _raw(server_key),
        b64url(subscriber.auth),
        subscriber.p256dh,
    ):
        assert secret not in logged


@given(
    data=st.binary(min_size=1, max_size=200),
    padded=st.booleans(),
    offset=st.integers(min_value=-(10**7), max_value=10**8),
)
@hypothesis_settings(max_examples=200)
def test_base64url_round_trips_and_the_ttl_stays_within_its_bounds(
    data: bytes, padded: bool, offset: int
) -> None:
    text = push.b64url_encode(data)
    assert "=" not in text and "+" not in text and "/" not in text
    assert push.b64url_decode(text + "=" * (-len(text) % 4) if padded else text) == data
    now = timezone.now()
    deadline = (now + timedelta(seconds=offset)).isoformat()
    ttl = push_ttl(_payload(deadline=deadline), now)
    assert ttl == max(0, min(offset, django_settings.WEBPUSH_TTL_SECONDS))


# ============================================================================== keys
@pytest.mark.django_db
def test_without_keys_and_debug_off_web_push_is_off(settings: Any) -> None:
    settings.WEBPUSH_VAPID_PRIVATE_KEY = ""
    settings.WEBPUSH_VAPID_PUBLIC_KEY = ""
    settings.DEBUG = False
    assert vapid_keys() is None
    with pytest.raises(errors.WebPushUnavailable):
        push_public_key()
    subscription = _subscription(
        someone("Ada").player_id, "https://push.example.com/1", Subscriber()
    )
    assert push_send(subscription, _payload()) == push.PushOutcome(
        ok=False, error="web push is not configured on this server"
    )


def test_without_keys_debug_uses_a_development_pair_derived_from_the_secret_key(
    settings: Any, caplog: pytest.LogCaptureFixture
) -> None:
    settings.WEBPUSH_VAPID_PRIVATE_KEY = ""
    settings.WEBPUSH_VAPID_PUBLIC_KEY = ""
    settings.DEBUG = True
    settings.SECRET_KEY = "development secret one"
    with caplog.at_level(logging.WARNING, logger="notifications.services.push"):
        first = vapid_keys()
    assert first is not None and first.development
    assert vapid_keys() == first  # every process and restart: the same pair
    [line] = [r.getMessage() for r in caplog.records if r.name == "notifications.services.push"]
    assert "development key pair" in line and first.public_key in line
    private = first.vapid.private_key.private_numbers().private_value.to_bytes(32, "big")
    assert b64url(private) not in line
    settings.SECRET_KEY = "development secret two"
    second = vapid_keys()
    assert second is not None and second.public_key != first.public_key


def test_the_private_key_is_read_raw_der_or_pem_and_the_public_key_derived(
    settings: Any,
) -> None:
    key = ec.generate_private_key(ec.SECP256R1())
    expected = b64url(
        key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
    )
    der = key.private_bytes(
        serialization.Encoding.DER,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    for text in (_raw(key), b64url(der), pem):
        settings.WEBPUSH_VAPID_PRIVATE_KEY = text
        settings.WEBPUSH_VAPID_PUBLIC_KEY = ""
        assert push_public_key() == expected
        settings.WEBPUSH_VAPID_PUBLIC_KEY = expected  # given as well: must match
        assert push_public_key() == expected


@pytest.mark.parametrize(
    ("private", "public"),
    [
        ("not a key", ""),
        (b64url(b"\x01" * 31), ""),  # too short
        (
            "",
            "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
        ),
        (
            None,
            "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
        ),
    ],
)
def test_a_malformed_or_mismatched_key_is_a_configuration_error(
    settings: Any, private: str | None, public: str
) -> None:
    # None: a valid private key of another pair than the public key given.
    settings.WEBPUSH_VAPID_PRIVATE_KEY = (
        _raw(ec.generate_private_key(ec.SECP256R1())) if private is None else private
    )
    settings.WEBPUSH_VAPID_PUBLIC_KEY = public
    with pytest.raises(ImproperlyConfigured, match="WEBPUSH_VAPID_") as raised:
        vapid_keys()
    if settings.WEBPUSH_VAPID_PRIVATE_KEY:  # the message names the variable, never the key
        assert settings.WEBPUSH_VAPID_PRIVATE_KEY not in str(raised.value)


def test_the_ttl_runs_to_the_turns_deadline_and_otherwise_to_the_setting(settings: Any) -> None:
    settings.WEBPUSH_TTL_SECONDS = 86400
    now = timezone.now()
    in_an_hour = (now + timedelta(hours=1)).isoformat()
    in_a_month = (now + timedelta(days=30)).isoformat().replace("+00:00", "Z")
    assert push_ttl(_payload(deadline=in_an_hour), now) == 3600
    assert push_ttl(_payload(deadline=in_a_month), now) == 86400
    assert push_ttl(_payload(deadline=(now - timedelta(seconds=5)).isoformat()), now) == 0
    assert push_ttl(_payload(deadline=None), now) == 86400
    assert push_ttl(_payload(NotificationKind.CHAT, phrase="Hi"), now) == 86400


def test_the_topic_keeps_one_pending_message_per_game_and_matter() -> None:
    assert push.push_topic(_payload(NotificationKind.REMINDER)) == "g7-turn"
    assert push.push_topic(_payload(NotificationKind.CHAT)) == "g7-chat"
    assert push.push_topic({**_payload(), "game_id": None}) is None
    assert push.push_topic({**_payload(), "game_id": 10**40}) is None  # over 32 characters


# ============================================================================== the outbox
def _deliveries_of(player: Someone) -> list[Delivery]:
    return list(
        Delivery.objects.filter(
            notification__player_id=player.player_id, channel=Channel.WEB_PUSH
        ).order_by("pk")
    )


def _no_card_in(payload: dict[str, Any]) -> None:
    words = {w.strip(".,:;!?#") for v in payload.values() if isinstance(v, str) for w in v.split()}
    assert not words & CARD_TOKENS, payload


@pytest.mark.django_db
def test_notify_then_the_delivery_task_pushes_one_message_the_subscriber_decrypts(
    server_key: ec.EllipticCurvePrivateKey,
    service: PushService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("notifications.services.notifications.deliveries_send", lambda ids: None)
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    subscriber = Subscriber()
    subscription = _subscription(ada.player_id, service.endpoint(), subscriber)
    with transaction.atomic():
        notification = notify(
            player_id=ada.player_id,
            kind=NotificationKind.CHAT,
            game=game,
            event_seq=game.version + 100,
            payload={"phrase": "Well played!"},
        )
    assert notification is not None
    [delivery] = _deliveries_of(ada)
    assert delivery.endpoint_id == subscription.pk

    assert notification_deliver(delivery.pk) == "delivered"
    assert notification_deliver(delivery.pk) == "skipped"  # once per (event, endpoint)

    [pushed] = service.received
    body = push.json.loads(subscriber.decrypt(pushed.body))
    assert body == delivery_body(delivery)
    assert body["id"] == delivery.idempotency_key and body["phrase"] == "Well played!"
    assert pushed.headers["urgency"] == "normal" and pushed.headers["topic"] == f"g{game.pk}-chat"
    _no_card_in(body)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.last_status_code) == (DeliveryStatus.DELIVERED, 201)


@pytest.mark.django_db
def test_a_move_passing_the_turn_pushes_your_turn_to_the_next_player(
    server_key: ec.EllipticCurvePrivateKey,
    service: PushService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("notifications.services.notifications.deliveries_send", lambda ids: None)
    ada, bob = someone("Ada"), someone("Bob")
    game_id = game_of_two(ada, bob)
    views = {p: p.client.get(f"/api/v1/games/{game_id}/").json() for p in (ada, bob)}
    actor, waiting = (
        (ada, bob)
        if views[ada]["state"]["to_act"] == views[ada]["your_seat"]
        else (
            bob,
            ada,
        )
    )
    subscriber = Subscriber()
    _subscription(waiting.player_id, service.endpoint("waiting"), subscriber)
    _subscription(actor.player_id, service.endpoint("actor"), Subscriber())
    seat = views[actor]["your_seat"]
    while True:  # the actor plays until the turn passes
        view = actor.client.get(f"/api/v1/games/{game_id}/").json()
        response = actor.client.post(
            f"/api/v1/games/{game_id}/actions/",
            {"action": choose(view["state"]["legal_actions"]), "expected_version": view["version"]},
            format="json",
        )
        assert response.status_code == 201, response.content
        if response.json()["game"]["state"]["to_act"] != seat:
            version = response.json()["game"]["version"]
            break
    assert _deliveries_of(actor) == []  # the one who just acted is not told
    [delivery] = _deliveries_of(waiting)
    assert notification_deliver(delivery.pk) == "delivered"

    [pushed] = service.received
    assert pushed.path == "/push/v2/waiting"
    body = push.json.loads(subscriber.decrypt(pushed.body))
    assert (body["kind"], body["game_id"], body["game_version"]) == ("your_turn", game_id, version)
    assert body["player_id"] == waiting.player_id
    assert set(body) <= {"id", "created_at", "kind", "player_id", "game_id", "game_version"} | {
        "title",
        "text",
        "url",
        "deadline",
    }
    _no_card_in(body)


@pytest.mark.django_db
def test_a_gone_subscription_is_disabled_by_the_outbox_and_its_pending_pushes_dropped(
    server_key: ec.EllipticCurvePrivateKey,
    service: PushService,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("notifications.services.notifications.deliveries_send", lambda ids: None)
    service.script = [410]
    ada, bob = someone("Ada"), someone("Bob")
    game = Game.objects.get(pk=game_of_two(ada, bob))
    subscription = _subscription(ada.player_id, service.endpoint(), Subscriber())
    for seq in (101, 102):
        with transaction.atomic():
            notify(
                player_id=ada.player_id,
                kind=NotificationKind.YOUR_TURN,
                game=game,
                event_seq=seq,
                payload={"deadline": None},
            )
    first, second = _deliveries_of(ada)

    assert notification_deliver(first.pk) == "failed"  # gone: no retry

    subscription.refresh_from_db()
    assert not subscription.enabled
    first.refresh_from_db()
    second.refresh_from_db()
    assert (first.status, first.last_status_code) == (DeliveryStatus.FAILED, 410)
    assert second.status == DeliveryStatus.DROPPED
    assert len(service.received) == 1
    # Nothing more is written for it: notify leaves a disabled subscription out.
    with transaction.atomic():
        notify(
            player_id=ada.player_id,
            kind=NotificationKind.YOUR_TURN,
            game=game,
            event_seq=103,
            payload={"deadline": None},
        )
    assert len(_deliveries_of(ada)) == 2
