"""Native push (notifications.services.native_push) against local receivers that speak the real
protocols (tests/notifications/push_receivers.py): HTTP/2 over TLS, FCM's OAuth 2.0 token
exchange with the service account's RS256 assertion verified, APNs' ES256 provider token
verified. Through the outbox: a notification (and a move) reaches an FCM and an APNs device
with the whitelisted payload, its collapse key and its expiry; a dead token disables its
registration; a 5xx or 429 is retried later; an expired token is renewed once."""

from __future__ import annotations

import json
import time
from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from accounts.models import Player
from accounts.services import credentials
from games.engine import card_text
from games.models import Game
from notifications.models import (
    Channel,
    Delivery,
    DeliveryStatus,
    DevicePlatform,
    DeviceRegistration,
    NotificationKind,
    NotificationPreference,
)
from notifications.selectors.account_export import player_notifications_export
from notifications.services import native_push, outbox_sql
from notifications.services.delivery import delivery_body
from notifications.services.departures import player_notifications_forget
from notifications.services.notifications import notify
from notifications.tasks import notification_deliver
from tests.games.api.conftest import choose, eager_bots  # noqa: F401 - fixture
from tests.notifications.notification_players import Someone, game_of_two, someone
from tests.notifications.push_receivers import TOPIC, ApnsReceiver, FcmReceiver

pytestmark = pytest.mark.django_db
CARD_TOKENS = frozenset(card_text(c) for c in range(53))
FCM_TOKEN = "fcmtoken-" + "a1B2_c3D4-" * 14
APNS_TOKEN = "ab12" * 16
PUBLIC_FIELDS = {"id", "created_at", "kind", "player_id", "game_id", "game_version"} | {
    "title",
    "text",
    "url",
    "deadline",
    "phrase",
}


@pytest.fixture(autouse=True)
def _no_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests run each delivery attempt themselves."""
    monkeypatch.setattr("notifications.services.notifications.deliveries_send", lambda ids: None)


def _device(player_id: int, platform: str, token: str | None = None) -> DeviceRegistration:
    token = token or (FCM_TOKEN if platform == DevicePlatform.FCM else APNS_TOKEN)
    return DeviceRegistration.objects.create(player_id=player_id, platform=platform, token=token)


def _deliveries_of(player: Someone) -> list[Delivery]:
    return list(
        Delivery.objects.filter(notification__player_id=player.player_id).order_by(
            "created_at", "id"
        )
    )


def _notify(player: Someone, game: Game, seq: int, kind: str = NotificationKind.CHAT) -> None:
    facts: dict[str, Any] = {"phrase": "Well played!"} if kind == NotificationKind.CHAT else {}
    if kind == NotificationKind.YOUR_TURN:
        facts = {"deadline": timezone.now() + timedelta(hours=2)}
    with transaction.atomic():
        notify(player_id=player.player_id, kind=kind, game=game, event_seq=seq, payload=facts)


def _no_card_in(body: Any) -> None:
    text = json.dumps(body)
    for token in CARD_TOKENS:
        assert f'"{token}"' not in text


def _due_now(delivery: Delivery) -> None:
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())


@pytest.fixture
def two() -> tuple[Someone, Game]:
    ada, bob = someone("Ada"), someone("Bob")
    return ada, Game.objects.get(pk=game_of_two(ada, bob))


# ============================================================================== FCM
def test_a_notification_reaches_an_fcm_device_with_the_whitelisted_payload(
    fcm_receiver: FcmReceiver, two: tuple[Someone, Game]
) -> None:
    ada, game = two
    device = _device(ada.player_id, DevicePlatform.FCM)
    _notify(ada, game, 101, NotificationKind.YOUR_TURN)
    [delivery] = _deliveries_of(ada)
    assert (delivery.channel, delivery.endpoint_id) == (Channel.FCM, device.pk)

    assert notification_deliver(delivery.pk) == "delivered"
    assert notification_deliver(delivery.pk) == "skipped"  # once per (event, endpoint)

    [message] = fcm_receiver.messages()
    assert fcm_receiver.problems == []
    assert message.http_version == "2"
    assert message.headers["authorization"] == f"Bearer {fcm_receiver.issued[0]}"
    sent = message.json()["message"]
    body = delivery_body(delivery)
    assert sent["token"] == FCM_TOKEN
    assert sent["notification"] == {"title": body["title"], "body": body["text"]}
    assert sent["data"] == native_push.fcm_data(body)
    assert set(sent["data"]) <= PUBLIC_FIELDS and sent["data"]["id"] == delivery.idempotency_key
    assert sent["data"]["game_id"] == str(game.pk) and sent["data"]["kind"] == "your_turn"
    android = sent["android"]
    assert android["collapse_key"] == f"g{game.pk}-turn" and android["priority"] == "HIGH"
    ttl = int(android["ttl"].removesuffix("s"))
    assert 2 * 3600 - 60 <= ttl <= 2 * 3600  # until the turn's deadline
    assert sent["apns"]["headers"]["apns-collapse-id"] == f"g{game.pk}-turn"
    _no_card_in(sent)
    # The token exchange: one RS256 assertion, verified by the token endpoint.
    [assertion] = fcm_receiver.assertions
    assert assertion["scope"] == native_push.FCM_SCOPE
    delivery.refresh_from_db()
    device.refresh_from_db()
    assert (delivery.status, delivery.last_status_code) == (DeliveryStatus.DELIVERED, 200)
    assert device.last_used_at is not None


def test_the_access_token_is_cached_and_a_401_gets_a_new_one_once(
    fcm_receiver: FcmReceiver, two: tuple[Someone, Game]
) -> None:
    ada, game = two
    _device(ada.player_id, DevicePlatform.FCM)
    for seq in (101, 102):
        _notify(ada, game, seq)
    first, second = _deliveries_of(ada)
    assert notification_deliver(first.pk) == "delivered"
    fcm_receiver.revoke_all()  # revoked before it expired: FCM answers 401

    assert notification_deliver(second.pk) == "delivered"

    assert len(fcm_receiver.issued) == 2  # the first reused until the 401, then one more
    tokens = [m.headers["authorization"] for m in fcm_receiver.messages()]
    issued = [f"Bearer {t}" for t in fcm_receiver.issued]
    assert tokens == [issued[0], issued[0], issued[1]]
    assert fcm_receiver.problems == []


def test_an_access_token_about_to_expire_is_renewed_before_use(
    fcm_receiver: FcmReceiver, two: tuple[Someone, Game]
) -> None:
    ada, game = two
    fcm_receiver.expires_in = 60  # within google-auth's refresh margin: stale at once
    _device(ada.player_id, DevicePlatform.FCM)
    for seq in (101, 102):
        _notify(ada, game, seq)
    for delivery in _deliveries_of(ada):
        assert notification_deliver(delivery.pk) == "delivered"
    assert len(fcm_receiver.issued) == 2
    assert fcm_receiver.problems == []


@pytest.mark.parametrize("dead", ["unregistered", "invalid_argument"])
def test_a_dead_fcm_token_disables_its_registration(
    fcm_receiver: FcmReceiver, two: tuple[Someone, Game], dead: str
) -> None:
    ada, game = two
    device = _device(ada.player_id, DevicePlatform.FCM)
    if dead == "unregistered":
        fcm_receiver.dead.add(FCM_TOKEN)
    else:
        fcm_receiver.script = [400]  # INVALID_ARGUMENT on message.token
    for seq in (101, 102):
        _notify(ada, game, seq)
    first, second = _deliveries_of(ada)

    assert notification_deliver(first.pk) == "failed"  # dead: no retry

    device.refresh_from_db()
    first.refresh_from_db()
    second.refresh_from_db()
    assert not device.enabled and "dead" in device.disabled_reason
    assert device.disabled_at is not None
    assert first.status == DeliveryStatus.FAILED and first.last_status_code in (400, 404)
    assert second.status == DeliveryStatus.DROPPED
    _notify(ada, game, 103)  # nothing more is written for it
    assert len(_deliveries_of(ada)) == 2
    assert len(fcm_receiver.messages()) == 1


@pytest.mark.parametrize("status", [500, 503, 429])
def test_an_fcm_5xx_or_429_is_retried_later(
    fcm_receiver: FcmReceiver, two: tuple[Someone, Game], status: int
) -> None:
    ada, game = two
    device = _device(ada.player_id, DevicePlatform.FCM)
    fcm_receiver.script = [status]
    _notify(ada, game, 101)
    [delivery] = _deliveries_of(ada)

    assert notification_deliver(delivery.pk) == "retry"
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.PENDING and delivery.last_status_code == status
    assert delivery.next_attempt_at > timezone.now()  # the backoff
    assert notification_deliver(delivery.pk) == "skipped"  # not due yet: nothing sent
    assert len(fcm_receiver.messages()) == 1

    _due_now(delivery)
    assert notification_deliver(delivery.pk) == "delivered"
    device.refresh_from_db()
    assert device.enabled and len(fcm_receiver.messages()) == 2
    first, second = fcm_receiver.messages()
    assert first.json()["message"]["data"]["id"] == second.json()["message"]["data"]["id"]


# ============================================================================== APNs
def test_a_notification_reaches_an_apns_device_over_http2_with_collapse_and_expiry(
    apns_receiver: ApnsReceiver, two: tuple[Someone, Game]
) -> None:
    ada, game = two
    device = _device(ada.player_id, DevicePlatform.APNS)
    _notify(ada, game, 101, NotificationKind.YOUR_TURN)
    [delivery] = _deliveries_of(ada)
    assert delivery.channel == Channel.APNS

    assert notification_deliver(delivery.pk) == "delivered"

    [message] = apns_receiver.messages()
    assert apns_receiver.problems == []
    assert message.http_version == "2" and message.path == f"/3/device/{APNS_TOKEN}"
    headers = message.headers
    assert headers["apns-topic"] == TOPIC and headers["apns-push-type"] == "alert"
    assert headers["apns-priority"] == "10"  # your turn: now
    assert headers["apns-collapse-id"] == f"g{game.pk}-turn"
    expiration = int(headers["apns-expiration"])
    assert time.time() + 2 * 3600 - 60 <= expiration <= time.time() + 2 * 3600 + 1
    sent = message.json()
    body = delivery_body(delivery)
    assert sent["canasta"] == body and set(body) <= PUBLIC_FIELDS
    assert sent["aps"]["alert"] == {"title": body["title"], "body": body["text"]}
    assert sent["aps"]["thread-id"] == f"game-{game.pk}"
    _no_card_in(sent)
    device.refresh_from_db()
    assert device.last_used_at is not None


def test_a_chat_message_is_not_urgent_and_collapses_per_game(
    apns_receiver: ApnsReceiver, two: tuple[Someone, Game]
) -> None:
    ada, game = two
    _device(ada.player_id, DevicePlatform.APNS)
    _notify(ada, game, 101)
    [delivery] = _deliveries_of(ada)
    assert notification_deliver(delivery.pk) == "delivered"
    [message] = apns_receiver.messages()
    assert message.headers["apns-priority"] == "5"
    assert message.headers["apns-collapse-id"] == f"g{game.pk}-chat"
    assert message.json()["canasta"]["phrase"] == "Well played!"


def test_the_provider_token_is_reused_and_renewed_when_apns_says_it_expired(
    apns_receiver: ApnsReceiver, two: tuple[Someone, Game]
) -> None:
    ada, game = two
    _device(ada.player_id, DevicePlatform.APNS)
    for seq in (101, 102, 103):
        _notify(ada, game, seq)
    first, second, third = _deliveries_of(ada)
    assert notification_deliver(first.pk) == "delivered"
    assert notification_deliver(second.pk) == "delivered"
    assert len(apns_receiver.provider_tokens) == 1  # reused
    apns_receiver.expire_all()
    time.sleep(1.01)  # a new token differs from the old one by its iat (seconds)

    assert notification_deliver(third.pk) == "delivered"

    assert len(apns_receiver.provider_tokens) == 2
    assert len(apns_receiver.messages()) == 4  # 2, then one refused (expired) and its retry
    assert apns_receiver.problems == []


def test_a_provider_token_older_than_its_lifetime_is_made_anew(
    apns_receiver: ApnsReceiver, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = native_push.apns_config()
    assert config is not None
    now = time.time()
    monkeypatch.setattr(native_push.time, "time", lambda: now)
    token = native_push.apns_provider_token(config)
    assert native_push.apns_provider_token(config) == token
    monkeypatch.setattr(native_push.time, "time", lambda: now + 49 * 60)
    assert native_push.apns_provider_token(config) == token
    monkeypatch.setattr(native_push.time, "time", lambda: now + 51 * 60)
    assert native_push.apns_provider_token(config) != token


@pytest.mark.parametrize("status", [410, 400])
def test_a_dead_apns_token_disables_its_registration(
    apns_receiver: ApnsReceiver, two: tuple[Someone, Game], status: int
) -> None:
    ada, game = two
    device = _device(ada.player_id, DevicePlatform.APNS)
    apns_receiver.script = [status]  # 410 Unregistered, 400 BadDeviceToken
    for seq in (101, 102):
        _notify(ada, game, seq)
    first, second = _deliveries_of(ada)

    assert notification_deliver(first.pk) == "failed"

    device.refresh_from_db()
    second.refresh_from_db()
    assert not device.enabled and second.status == DeliveryStatus.DROPPED
    _notify(ada, game, 103)
    assert len(_deliveries_of(ada)) == 2
    assert len(apns_receiver.messages()) == 1


@pytest.mark.parametrize("status", [500, 503, 429])
def test_an_apns_5xx_or_429_is_retried_later(
    apns_receiver: ApnsReceiver, two: tuple[Someone, Game], status: int
) -> None:
    ada, game = two
    _device(ada.player_id, DevicePlatform.APNS)
    apns_receiver.script = [status]
    _notify(ada, game, 101)
    [delivery] = _deliveries_of(ada)
    assert notification_deliver(delivery.pk) == "retry"
    delivery.refresh_from_db()
    assert delivery.next_attempt_at > timezone.now()
    _due_now(delivery)
    assert notification_deliver(delivery.pk) == "delivered"
    first, second = apns_receiver.messages()
    assert first.headers["apns-id"] == second.headers["apns-id"]  # the same delivery


# ============================================================================== both, a move
def test_a_move_passing_the_turn_pushes_your_turn_to_both_devices_of_the_next_player(
    fcm_receiver: FcmReceiver, apns_receiver: ApnsReceiver
) -> None:
    ada, bob = someone("Ada"), someone("Bob")
    game_id = game_of_two(ada, bob)
    views = {p: p.client.get(f"/api/v1/games/{game_id}/").json() for p in (ada, bob)}
    first_is_ada = views[ada]["state"]["to_act"] == views[ada]["your_seat"]
    actor, waiting = (ada, bob) if first_is_ada else (bob, ada)
    _device(waiting.player_id, DevicePlatform.FCM)
    _device(waiting.player_id, DevicePlatform.APNS)
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
    deliveries = _deliveries_of(waiting)
    assert sorted(d.channel for d in deliveries) == [Channel.APNS, Channel.FCM]
    for delivery in deliveries:
        assert notification_deliver(delivery.pk) == "delivered"

    [fcm] = fcm_receiver.messages()
    [apns] = apns_receiver.messages()
    data = fcm.json()["message"]["data"]
    assert (data["kind"], data["game_id"], data["game_version"]) == (
        "your_turn",
        str(game_id),
        str(version),
    )
    assert apns.json()["canasta"]["player_id"] == waiting.player_id
    assert set(apns.json()["canasta"]) <= PUBLIC_FIELDS
    _no_card_in(fcm.json())
    _no_card_in(apns.json())
    assert fcm_receiver.problems == [] and apns_receiver.problems == []


def test_a_channel_switched_off_gets_nothing_and_the_other_still_does(
    fcm_receiver: FcmReceiver, apns_receiver: ApnsReceiver, two: tuple[Someone, Game]
) -> None:
    ada, game = two
    _device(ada.player_id, DevicePlatform.FCM)
    _device(ada.player_id, DevicePlatform.APNS)
    NotificationPreference.objects.create(
        player_id=ada.player_id, channel=Channel.FCM, kind=NotificationKind.CHAT, enabled=False
    )
    _notify(ada, game, 101)
    assert [d.channel for d in _deliveries_of(ada)] == [Channel.APNS]


@pytest.mark.parametrize("path", ["sql", "orm"])
def test_the_outbox_reads_devices_in_its_one_statement_and_leaves_out_platforms_off(
    fcm_receiver: FcmReceiver,
    apns_receiver: ApnsReceiver,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
    path: str,
) -> None:
    if path == "orm":
        monkeypatch.setattr(outbox_sql, "SUPPORTED", ())
    ada = someone("Ada")
    apns = _device(ada.player_id, DevicePlatform.APNS)
    fcm = _device(ada.player_id, DevicePlatform.FCM)
    DeviceRegistration.objects.create(  # disabled: its token is dead
        player_id=ada.player_id, platform="fcm", token=FCM_TOKEN + "x", enabled=False
    )
    found = outbox_sql.endpoints_read(ada.player_id, "chat", None).found
    assert found == [("fcm", fcm.pk), ("apns", apns.pk)]
    settings.APNS_KEY_FILE = ""  # APNs off: its devices get nothing
    assert outbox_sql.endpoints_read(ada.player_id, "chat", None).found == [("fcm", fcm.pk)]


def test_without_credentials_nothing_is_made_or_sent(
    native_push_off: None, two: tuple[Someone, Game]
) -> None:
    ada, game = two
    fcm = _device(ada.player_id, DevicePlatform.FCM)
    apns = _device(ada.player_id, DevicePlatform.APNS)
    assert native_push.platforms_off() == {"fcm", "apns"}
    _notify(ada, game, 101)
    assert _deliveries_of(ada) == []
    for device in (fcm, apns):
        outcome = native_push.device_send(device, {"kind": "chat"})
        assert not outcome.ok and "not configured" in outcome.error


def test_a_provider_at_a_private_address_is_refused_unless_allowed(
    fcm_receiver: FcmReceiver, apns_receiver: ApnsReceiver, settings: Any
) -> None:
    ada = someone("Ada")
    settings.NATIVE_PUSH_ALLOW_HOSTS = []
    for platform in DevicePlatform.values:
        outcome = native_push.device_send(_device(ada.player_id, platform), {"kind": "chat"})
        assert not outcome.ok and outcome.error == "the push service is at a private address"
    assert apns_receiver.received == [] and fcm_receiver.messages() == []
    assert native_push.provider_url_check("http://fcm.googleapis.com") is not None
    assert native_push.provider_url_check("https://api.push.apple.com") is None


# ============================================================================== lifecycle
def test_signing_the_session_out_removes_its_device_and_account_data_holds_devices(
    two: tuple[Someone, Game],
) -> None:
    ada, _ = two
    user = Player.objects.get(pk=ada.player_id).user
    keys = credentials.device_session_open(user, device="phone")
    device = DeviceRegistration.objects.create(
        player_id=ada.player_id, platform="apns", token=APNS_TOKEN, session=keys.session
    )
    other = _device(ada.player_id, DevicePlatform.FCM)  # a key without a session registered it

    exported = player_notifications_export(player=Player.objects.get(pk=ada.player_id))
    assert [(d["id"], d["platform"], d["session_id"]) for d in exported["push_devices"]] == [
        (device.pk, "apns", keys.session.pk),
        (other.pk, "fcm", None),
    ]

    credentials.device_session_end(user, keys.session.pk)
    assert list(DeviceRegistration.objects.values_list("pk", flat=True)) == [other.pk]

    player_notifications_forget(Player.objects.get(pk=ada.player_id))
    assert not DeviceRegistration.objects.exists()


def _fcm_answer(status: int, body: dict[str, Any]) -> native_push.Answer:
    return native_push.Answer(
        status=status, body=body, headers=native_push.httpx.Headers(), http_version="HTTP/2"
    )


@pytest.mark.parametrize(
    ("status", "error", "dead"),
    [
        (404, {"status": "NOT_FOUND", "details": [{"errorCode": "UNREGISTERED"}]}, True),
        (
            403,
            {"status": "PERMISSION_DENIED", "details": [{"errorCode": "SENDER_ID_MISMATCH"}]},
            True,
        ),
        (
            400,
            {
                "status": "INVALID_ARGUMENT",
                "details": [{"fieldViolations": [{"field": "message.token"}]}],
            },
            True,
        ),
        # A wrong project id: 404 without UNREGISTERED says nothing about the token.
        (404, {"status": "NOT_FOUND", "message": "Requested entity was not found."}, False),
        # A message the server built wrong: not the token's fault.
        (
            400,
            {
                "status": "INVALID_ARGUMENT",
                "details": [{"fieldViolations": [{"field": "message.android.ttl"}]}],
            },
            False,
        ),
        (503, {"status": "UNAVAILABLE"}, False),
    ],
)
def test_only_an_answer_about_the_token_makes_it_dead(
    status: int, error: dict[str, Any], dead: bool
) -> None:
    assert native_push._fcm_error(_fcm_answer(status, {"error": error}))[2] is dead


def test_a_device_goes_to_apples_host_for_its_environment_unless_overridden(
    settings: Any,
) -> None:
    settings.APNS_ENDPOINT = ""
    assert native_push.apns_base_url("sandbox") == "https://api.sandbox.push.apple.com"
    assert native_push.apns_base_url("production") == "https://api.push.apple.com"
    settings.APNS_ENDPOINT = "https://127.0.0.1:8443/"
    assert native_push.apns_base_url("sandbox") == "https://127.0.0.1:8443"


def test_a_payload_too_large_for_the_service_is_not_sent(
    fcm_receiver: FcmReceiver, apns_receiver: ApnsReceiver
) -> None:
    ada = someone("Ada")
    body = {"kind": "chat", "game_id": 1, "title": "Chat", "text": "x" * 5000}
    for platform in DevicePlatform.values:
        outcome = native_push.device_send(_device(ada.player_id, platform), body)
        assert not outcome.ok and "too large" in outcome.error
    assert fcm_receiver.received == [] and apns_receiver.received == []
