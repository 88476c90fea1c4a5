"""Native push devices over HTTP: register (idempotent per token), list, delete; the token's
format, the per-player limit, another player's device unseen, 503 when the platform has no
credentials, the scopes, and the device session a registration belongs to. Answers are checked
against the schema generated from the code."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction
from rest_framework.test import APIClient

from accounts import scopes
from accounts.models import Player
from accounts.services import credentials
from games.models import Game
from notifications.models import (
    Channel,
    Delivery,
    DeliveryStatus,
    DeviceRegistration,
    NotificationKind,
)
from notifications.services.notifications import notify
from tests.games.api.conftest import problem
from tests.notifications.api.test_webhooks import checked
from tests.notifications.notification_players import Someone, game_of_two, someone
from tests.notifications.push_receivers import TOPIC

pytestmark = pytest.mark.django_db
DEVICES = "/api/v1/players/me/push-devices/"
FCM_TOKEN = "dGVzdC10b2tlbg:APA91b" + "Hx_y-Z0" * 20
APNS_TOKEN = "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad"


@pytest.fixture
def native_on(fcm_receiver: Any, apns_receiver: Any) -> None:
    """Both platforms configured (their receivers are local; nothing is sent here)."""


@pytest.fixture
def ada(db: None) -> Someone:
    return someone("Ada")


@pytest.fixture
def bob(db: None) -> Someone:
    return someone("Bob")


def _fcm(token: str = FCM_TOKEN) -> dict[str, Any]:
    return {"platform": "fcm", "token": token}


def _apns(token: str = APNS_TOKEN, **more: Any) -> dict[str, Any]:
    return {"platform": "apns", "token": token, **more}


def _client_with(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def test_a_device_registers_once_per_token_and_is_listed_and_deleted(
    native_on: None, ada: Someone
) -> None:
    made = checked(ada.client.post(DEVICES, _fcm(), format="json"), "post", 201)
    assert made["platform"] == "fcm" and made["token"] == FCM_TOKEN and made["enabled"]
    assert made["session_id"] is None and made["current"] is False  # a guest key: no session
    again = checked(ada.client.post(DEVICES, _fcm(), format="json"), "post", 200)
    assert again["id"] == made["id"]
    apns = checked(
        ada.client.post(DEVICES, _apns(environment="sandbox"), format="json"), "post", 201
    )
    assert (apns["environment"], apns["app_id"]) == ("sandbox", "")

    listed = checked(ada.client.get(DEVICES), "get", 200)
    assert [d["id"] for d in listed["devices"]] == [made["id"], apns["id"]]
    assert listed["limit"] == 10

    checked(ada.client.delete(f"{DEVICES}{made['id']}/"), "delete", 204)
    problem(ada.client.delete(f"{DEVICES}{made['id']}/"), 404, "not_found")
    assert [d["id"] for d in checked(ada.client.get(DEVICES), "get", 200)["devices"]] == [
        apns["id"]
    ]


def test_registering_again_enables_a_disabled_device_and_updates_it(
    native_on: None, ada: Someone
) -> None:
    made = checked(ada.client.post(DEVICES, _apns(), format="json"), "post", 201)
    DeviceRegistration.objects.filter(pk=made["id"]).update(
        enabled=False, consecutive_failures=3, disabled_reason="dead"
    )
    again = checked(
        ada.client.post(DEVICES, _apns(app_id=TOPIC, environment="sandbox"), format="json"),
        "post",
        200,
    )
    assert again["id"] == made["id"] and again["enabled"] and again["disabled_reason"] == ""
    assert (again["app_id"], again["environment"], again["consecutive_failures"]) == (
        TOPIC,
        "sandbox",
        0,
    )


@pytest.mark.parametrize(
    "body",
    [
        _apns("abc"),  # too short
        _apns("zz" * 32),  # not hexadecimal
        _apns("a" * 65),  # odd length
        _fcm("short"),
        _fcm("has spaces " * 5),
        _fcm("x" * 513),
        _apns(app_id="org.example.other"),  # a topic the server does not serve
        {"platform": "gcm", "token": FCM_TOKEN},
        {"platform": "apns", "token": APNS_TOKEN, "environment": "staging"},
    ],
)
def test_a_malformed_token_or_topic_is_refused(
    native_on: None, ada: Someone, body: dict[str, Any]
) -> None:
    problem(ada.client.post(DEVICES, body, format="json"), 400, "invalid_request")
    assert not DeviceRegistration.objects.exists()


def test_a_player_keeps_a_limited_number_of_devices_and_dead_ones_make_room(
    native_on: None, ada: Someone, settings: Any
) -> None:
    settings.NATIVE_PUSH_DEVICES_PER_PLAYER_MAX = 2
    first = checked(ada.client.post(DEVICES, _fcm(FCM_TOKEN + "1"), format="json"), "post", 201)
    checked(ada.client.post(DEVICES, _fcm(FCM_TOKEN + "2"), format="json"), "post", 201)
    problem(
        ada.client.post(DEVICES, _fcm(FCM_TOKEN + "3"), format="json"),
        409,
        "push_device_limit_reached",
    )
    # Registering one of its own again is no new device.
    checked(ada.client.post(DEVICES, _fcm(FCM_TOKEN + "2"), format="json"), "post", 200)
    DeviceRegistration.objects.filter(pk=first["id"]).update(enabled=False)
    checked(ada.client.post(DEVICES, _fcm(FCM_TOKEN + "3"), format="json"), "post", 201)
    assert not DeviceRegistration.objects.filter(pk=first["id"]).exists()


def test_another_players_device_is_neither_seen_nor_deleted(
    native_on: None, ada: Someone, bob: Someone
) -> None:
    mine = checked(ada.client.post(DEVICES, _apns(), format="json"), "post", 201)
    assert checked(bob.client.get(DEVICES), "get", 200)["devices"] == []
    problem(bob.client.delete(f"{DEVICES}{mine['id']}/"), 404, "not_found")
    assert DeviceRegistration.objects.filter(pk=mine["id"]).exists()


def test_a_token_registered_by_another_player_moves_to_the_newest_and_drops_its_pushes(
    native_on: None, ada: Someone, bob: Someone
) -> None:
    mine = checked(ada.client.post(DEVICES, _fcm(), format="json"), "post", 201)
    game = Game.objects.get(pk=game_of_two(ada, bob))
    with transaction.atomic():
        notify(
            player_id=ada.player_id,
            kind=NotificationKind.CHAT,
            game=game,
            event_seq=500,
            payload={"phrase": "Hi"},
        )
    pending = Delivery.objects.filter(channel=Channel.FCM, endpoint_id=mine["id"])
    assert NotificationKind.CHAT in {d.notification.kind for d in pending}
    assert {d.status for d in pending} == {DeliveryStatus.PENDING}

    moved = checked(bob.client.post(DEVICES, _fcm(), format="json"), "post", 201)

    assert moved["id"] != mine["id"]
    assert list(DeviceRegistration.objects.values_list("player_id", flat=True)) == [bob.player_id]
    # Ada's pushes never reach the phone Bob signed in on.
    assert {d.status for d in pending.all()} == {DeliveryStatus.DROPPED}
    assert checked(ada.client.get(DEVICES), "get", 200)["devices"] == []


def test_without_credentials_registering_is_503(native_push_off: None, ada: Someone) -> None:
    for body in (_fcm(), _apns()):
        answer = problem(
            ada.client.post(DEVICES, body, format="json"), 503, "native_push_unavailable"
        )
        assert ("FCM" if body["platform"] == "fcm" else "APNs") in answer["detail"]
    assert checked(ada.client.get(DEVICES), "get", 200)["devices"] == []


def test_a_device_sessions_registration_belongs_to_it_and_ends_with_it(
    native_on: None, ada: Someone
) -> None:
    user = Player.objects.get(pk=ada.player_id).user
    phone = credentials.device_session_open(user, device="phone")
    tablet = credentials.device_session_open(user, device="tablet")
    made = checked(
        _client_with(phone.access_key).post(DEVICES, _apns(), format="json"), "post", 201
    )
    assert made["session_id"] == phone.session.pk and made["current"] is True
    listed = checked(_client_with(tablet.access_key).get(DEVICES), "get", 200)["devices"]
    assert [(d["id"], d["current"]) for d in listed] == [(made["id"], False)]

    credentials.device_session_end(user, phone.session.pk)  # signed out on the phone

    assert checked(_client_with(tablet.access_key).get(DEVICES), "get", 200)["devices"] == []


def test_a_personal_token_registers_without_a_session_and_needs_the_notifications_scope(
    native_on: None, ada: Someone
) -> None:
    user = Player.objects.get(pk=ada.player_id).user
    _, reader = credentials.personal_token_create(
        user, name="reader", scopes_given=[scopes.PROFILE_READ], days=None
    )
    _, writer = credentials.personal_token_create(
        user, name="writer", scopes_given=[scopes.NOTIFICATIONS_WRITE], days=None
    )
    problem(_client_with(reader).post(DEVICES, _fcm(), format="json"), 403, "insufficient_scope")
    checked(_client_with(reader).get(DEVICES), "get", 200)
    made = checked(_client_with(writer).post(DEVICES, _fcm(), format="json"), "post", 201)
    assert made["session_id"] is None
    problem(_client_with(reader).delete(f"{DEVICES}{made['id']}/"), 403, "insufficient_scope")


def test_without_a_key_nothing_is_answered(native_on: None) -> None:
    problem(APIClient().get(DEVICES), 401, "not_authenticated")
    problem(APIClient().post(DEVICES, _fcm(), format="json"), 401, "not_authenticated")


def test_the_preferences_switch_fcm_and_apns_per_kind(ada: Someone) -> None:
    preferences = "/api/v1/players/me/notifications/"
    before = checked(ada.client.get(preferences), "get", 200)["preferences"]
    assert before["fcm"]["chat"] is True and before["apns"]["your_turn"] is True
    body = {"preferences": {"fcm": {"chat": False}, "apns": {"your_turn": False}}}
    after = checked(ada.client.put(preferences, body, format="json"), "put", 200)["preferences"]
    assert (after["fcm"]["chat"], after["fcm"]["your_turn"]) == (False, True)
    assert (after["apns"]["your_turn"], after["apns"]["chat"]) == (False, True)
