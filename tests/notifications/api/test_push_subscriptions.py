"""Web Push over HTTP: the server's VAPID key (public), a player's push subscriptions
(register the browser's ``PushSubscription.toJSON()``, list, remove), refusals, and Web Push
switched off. Answers are checked against the schema generated from the code (these routes are
new to openapi.yaml)."""

from __future__ import annotations

from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.db import transaction
from rest_framework.test import APIClient

from games.models import Game
from notifications.models import (
    Channel,
    Delivery,
    DeliveryStatus,
    NotificationKind,
    PushSubscription,
)
from notifications.services.notifications import notify
from tests.games.api.conftest import eager_bots, problem  # noqa: F401 - fixture
from tests.notifications.api.test_webhooks import checked
from tests.notifications.notification_players import Someone, game_of_two, someone
from tests.notifications.push_service import Subscriber, b64url, unb64url

pytestmark = pytest.mark.django_db
KEY = "/api/v1/push/key/"
SUBSCRIPTIONS = "/api/v1/players/me/push-subscriptions/"
ENDPOINT = "https://push.example.com/v2/abc"


@pytest.fixture
def server_public_key(settings: Any) -> str:
    """The server's VAPID key from the settings (as from the environment); its public key."""
    key = ec.generate_private_key(ec.SECP256R1())
    settings.WEBPUSH_VAPID_PRIVATE_KEY = b64url(key.private_numbers().private_value.to_bytes(32))
    settings.WEBPUSH_VAPID_PUBLIC_KEY = ""
    settings.WEBPUSH_ALLOW_HTTP_HOSTS = []
    point = key.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return b64url(point)


@pytest.fixture
def push_off(settings: Any) -> None:
    settings.WEBPUSH_VAPID_PRIVATE_KEY = ""
    settings.WEBPUSH_VAPID_PUBLIC_KEY = ""
    settings.DEBUG = False


@pytest.fixture
def ada(db: None) -> Someone:
    return someone("Ada")


@pytest.fixture
def bob(db: None) -> Someone:
    return someone("Bob")


def _body(endpoint: str = ENDPOINT, subscriber: Subscriber | None = None) -> dict[str, Any]:
    """What ``PushSubscription.toJSON()`` gives."""
    return {
        "endpoint": endpoint,
        "expirationTime": None,
        "keys": (subscriber or Subscriber()).keys(),
    }


# ============================================================================== the key
def test_the_vapid_key_is_public(server_public_key: str) -> None:
    answer = checked(APIClient().get(KEY), "get", 200)
    assert answer == {"public_key": server_public_key}
    assert len(unb64url(answer["public_key"])) == 65


def test_without_a_key_web_push_is_unavailable(push_off: None, ada: Someone) -> None:
    problem(APIClient().get(KEY), 503, "web_push_unavailable")
    problem(ada.client.post(SUBSCRIPTIONS, _body(), format="json"), 503, "web_push_unavailable")
    assert not PushSubscription.objects.exists()


# ============================================================================== subscriptions
def test_a_browser_subscribes_and_its_subscription_is_listed_without_keys(
    server_public_key: str, ada: Someone
) -> None:
    subscriber = Subscriber()
    created = checked(ada.client.post(SUBSCRIPTIONS, _body(subscriber=subscriber)), "post", 201)
    assert created["endpoint"] == ENDPOINT and created["enabled"] is True
    stored = PushSubscription.objects.get(pk=created["id"])
    assert (stored.player_id, stored.p256dh, stored.auth) == (
        ada.player_id,
        subscriber.p256dh,
        b64url(subscriber.auth),
    )
    listed = checked(ada.client.get(SUBSCRIPTIONS), "get", 200)
    assert [s["id"] for s in listed["subscriptions"]] == [created["id"]]
    assert listed["limit"] == 10
    assert b64url(subscriber.auth) not in str(listed) and subscriber.p256dh not in str(listed)


def test_subscribing_ones_own_endpoint_again_renews_it(
    server_public_key: str, ada: Someone
) -> None:
    first = checked(ada.client.post(SUBSCRIPTIONS, _body()), "post", 201)
    PushSubscription.objects.filter(pk=first["id"]).update(enabled=False, consecutive_failures=3)
    renewed_keys = Subscriber()
    again = checked(ada.client.post(SUBSCRIPTIONS, _body(subscriber=renewed_keys)), "post", 200)
    assert again["id"] == first["id"] and again["enabled"] is True
    assert again["consecutive_failures"] == 0
    assert PushSubscription.objects.get().p256dh == renewed_keys.p256dh


def test_another_players_endpoint_is_refused_not_taken_over(
    server_public_key: str, ada: Someone, bob: Someone
) -> None:
    """Whoever learns an endpoint's URL gets neither its owner's pushes nor their silence: 409
    with a message that says nothing of the owner, and nothing changes."""
    subscriber = Subscriber()
    first = checked(ada.client.post(SUBSCRIPTIONS, _body(subscriber=subscriber)), "post", 201)
    refused = problem(
        bob.client.post(SUBSCRIPTIONS, _body(subscriber=Subscriber()), format="json"),
        409,
        "push_endpoint_taken",
    )
    assert "Ada" not in str(refused) and str(ada.player_id) not in refused["detail"]
    stored = PushSubscription.objects.get()
    assert (stored.pk, stored.player_id, stored.p256dh) == (
        first["id"],
        ada.player_id,
        subscriber.p256dh,
    )
    assert checked(bob.client.get(SUBSCRIPTIONS), "get", 200)["subscriptions"] == []
    assert [
        s["id"] for s in checked(ada.client.get(SUBSCRIPTIONS), "get", 200)["subscriptions"]
    ] == [first["id"]]
    # Once its owner removed it, the endpoint is free to register.
    checked(ada.client.delete(f"{SUBSCRIPTIONS}{first['id']}/"), "delete", 204)
    checked(bob.client.post(SUBSCRIPTIONS, _body()), "post", 201)


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://push.example.com/v2/abc",  # plain http to a host not allowed
        "https://user:pass@push.example.com/v2/abc",  # credentials
        "https://127.0.0.1/v2/abc",  # loopback
        "https://10.0.0.8/v2/abc",  # a private network
        "https://[::1]/v2/abc",
    ],
)
def test_an_endpoint_that_is_not_https_at_a_public_address_is_refused(
    server_public_key: str, ada: Someone, endpoint: str
) -> None:
    problem(
        ada.client.post(SUBSCRIPTIONS, _body(endpoint), format="json"),
        400,
        "push_endpoint_refused",
    )
    assert not PushSubscription.objects.exists()


def test_plain_http_only_to_the_allowed_hosts(
    server_public_key: str, ada: Someone, settings: Any
) -> None:
    settings.WEBPUSH_ALLOW_HTTP_HOSTS = ["127.0.0.1"]
    checked(ada.client.post(SUBSCRIPTIONS, _body("http://127.0.0.1:8765/push")), "post", 201)
    problem(
        ada.client.post(SUBSCRIPTIONS, _body("http://localhost:8765/push"), format="json"),
        400,
        "push_endpoint_refused",
    )


def _not_on_the_curve() -> str:
    point = bytearray(b"\x04" + bytes(64))
    point[-1] = 1
    return b64url(bytes(point))


@pytest.mark.parametrize(
    ("keys", "field"),
    [
        ({"p256dh": b64url(b"\x04" + bytes(31)), "auth": b64url(bytes(16))}, "keys.p256dh"),
        ({"p256dh": _not_on_the_curve(), "auth": b64url(bytes(16))}, "keys.p256dh"),
        ({"p256dh": "not base64url!", "auth": b64url(bytes(16))}, "keys.p256dh"),
        ({"p256dh": Subscriber().p256dh, "auth": b64url(bytes(8))}, "keys.auth"),
        ({"p256dh": Subscriber().p256dh, "auth": "a+b/c="}, "keys.auth"),  # not URL-safe
        ({"p256dh": Subscriber().p256dh}, "keys.auth"),
    ],
)
def test_malformed_keys_are_an_invalid_request_naming_the_key(
    server_public_key: str, ada: Someone, keys: dict[str, str], field: str
) -> None:
    body = {"endpoint": ENDPOINT, "keys": keys}
    refused = problem(ada.client.post(SUBSCRIPTIONS, body, format="json"), 400, "invalid_request")
    assert field in {e["field"] for e in refused["errors"]}, refused
    assert not PushSubscription.objects.exists()


def test_a_player_keeps_at_most_the_limit_and_disabled_ones_make_room(
    server_public_key: str, ada: Someone, settings: Any
) -> None:
    settings.WEBPUSH_SUBSCRIPTIONS_PER_PLAYER_MAX = 2
    first = checked(ada.client.post(SUBSCRIPTIONS, _body(f"{ENDPOINT}/1")), "post", 201)
    checked(ada.client.post(SUBSCRIPTIONS, _body(f"{ENDPOINT}/2")), "post", 201)
    problem(
        ada.client.post(SUBSCRIPTIONS, _body(f"{ENDPOINT}/3"), format="json"),
        409,
        "push_subscription_limit_reached",
    )
    PushSubscription.objects.filter(pk=first["id"]).update(enabled=False)  # gone
    checked(ada.client.post(SUBSCRIPTIONS, _body(f"{ENDPOINT}/3")), "post", 201)
    listed = checked(ada.client.get(SUBSCRIPTIONS), "get", 200)
    assert [s["endpoint"] for s in listed["subscriptions"]] == [f"{ENDPOINT}/2", f"{ENDPOINT}/3"]
    assert listed["limit"] == 2


def test_a_subscription_is_removed_by_its_owner_only_and_its_pending_pushes_dropped(
    server_public_key: str, ada: Someone, bob: Someone
) -> None:
    created = checked(ada.client.post(SUBSCRIPTIONS, _body()), "post", 201)
    game = Game.objects.get(pk=game_of_two(ada, bob))
    with transaction.atomic():
        notify(
            player_id=ada.player_id,
            kind=NotificationKind.GAME_OVER,
            game=game,
            event_seq=999,
            payload={"winner_team": 0},
        )
    pending = Delivery.objects.get(
        channel=Channel.WEB_PUSH, notification__kind=NotificationKind.GAME_OVER
    )
    assert pending.status == DeliveryStatus.PENDING and pending.endpoint_id == created["id"]
    problem(bob.client.delete(f"{SUBSCRIPTIONS}{created['id']}/"), 404, "not_found")
    checked(ada.client.delete(f"{SUBSCRIPTIONS}{created['id']}/"), "delete", 204)
    assert not PushSubscription.objects.exists()
    assert Delivery.objects.get(pk=pending.pk).status == DeliveryStatus.DROPPED
    problem(ada.client.delete(f"{SUBSCRIPTIONS}{created['id']}/"), 404, "not_found")


def test_subscriptions_need_a_token(server_public_key: str) -> None:
    problem(APIClient().get(SUBSCRIPTIONS), 401, "not_authenticated")
    problem(APIClient().post(SUBSCRIPTIONS, _body(), format="json"), 401, "not_authenticated")
