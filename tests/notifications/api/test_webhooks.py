"""Notifications over HTTP: webhooks (register, list, remove, the delivery log, enable), the
preferences, and muting a game. Every answer is checked against the schema generated from the
code (these routes are new to openapi.yaml), and a delivered body against ``WebhookPayload``."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from django.db import transaction
from drf_spectacular.generators import SchemaGenerator
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from rest_framework.test import APIClient

from games.models import Game
from notifications.models import (
    Channel,
    Delivery,
    DeliveryStatus,
    NotificationKind,
    WebhookEndpoint,
)
from notifications.services.delivery import SendOutcome, delivery_attempt
from notifications.services.notifications import notify
from tests.games.api.conftest import eager_bots, problem  # noqa: F401 - fixture
from tests.notifications.notification_players import Someone, game_of_two, someone

pytestmark = pytest.mark.django_db
HOOKS = "/api/v1/players/me/webhooks/"
PREFERENCES = "/api/v1/players/me/notifications/"


# ============================================================================== schema
def _openapi_30_to_json_schema(node: Any) -> Any:
    """OpenAPI 3.0's ``nullable`` as JSON Schema, documented objects closed."""
    if isinstance(node, list):
        return [_openapi_30_to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _openapi_30_to_json_schema(v) for k, v in node.items() if k != "nullable"}
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return {"anyOf": [out, {"type": "null"}]} if node.get("nullable") else out


@cache
def _spec() -> dict[str, Any]:
    schema: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return schema


def _component(name: str) -> dict[str, Any]:
    schemas = {
        k: _openapi_30_to_json_schema(v)
        for k, v in _spec()["components"]["schemas"].items()
        if k not in ("Problem", "GameProblem")
    }
    return {**schemas[name], "components": {"schemas": schemas}}


def checked(response: Any, method: str, status: int) -> Any:
    """``response`` has ``status`` and, when it has a body, matches the generated schema."""
    assert response.status_code == status, (response.status_code, response.content)
    path = response.request["PATH_INFO"]
    templates = sorted(_spec()["paths"], key=lambda p: p.count("{"))
    template = next(
        t for t in templates if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", t), path) is not None
    )
    documented = _spec()["paths"][template][method]["responses"][str(status)]
    if status == 204:
        assert "content" not in documented and not response.content
        return None
    schema = documented["content"]["application/json"]["schema"]
    name = schema["$ref"].rsplit("/", 1)[1]
    Draft202012Validator(_component(name)).validate(response.json())
    return response.json()


def client_of(player: Someone) -> APIClient:
    return player.client


@pytest.fixture
def ada(db: None) -> Someone:
    return someone("Ada")


@pytest.fixture
def bob(db: None) -> Someone:
    return someone("Bob")


@pytest.fixture
def game(ada: Someone, bob: Someone) -> Game:
    return Game.objects.get(pk=game_of_two(ada, bob))


# ============================================================================== webhooks
def test_a_webhook_is_registered_with_its_secret_shown_once(ada: Someone) -> None:
    client = client_of(ada)
    created = checked(
        client.post(HOOKS, {"url": "https://hooks.example.com/c", "description": "bot"}),
        "post",
        201,
    )
    assert re.fullmatch(r"[0-9a-f]{64}", created["secret"])
    assert WebhookEndpoint.objects.get(pk=created["id"]).secret == created["secret"]
    assert created["enabled"] is True and created["disabled_reason"] == ""
    listed = checked(client.get(HOOKS), "get", 200)
    assert [w["id"] for w in listed["webhooks"]] == [created["id"]]
    assert "secret" not in listed["webhooks"][0]
    assert created["secret"] not in str(listed)
    second = checked(client.post(HOOKS, {"url": "https://hooks.example.com/d"}), "post", 201)
    assert second["secret"] != created["secret"]


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.example.com/c",  # plain http to a host not allowed
        "https://user:pass@hooks.example.com/c",  # credentials in the URL
        "ftp://hooks.example.com/c",
        "https://127.0.0.1/c",  # loopback
        "https://10.1.2.3:8443/c",  # a private network
        "https://[::1]/c",
    ],
)
def test_a_webhook_that_is_not_https_is_refused(ada: Someone, url: str) -> None:
    problem(client_of(ada).post(HOOKS, {"url": url}), 400, "webhook_url_refused")
    assert not WebhookEndpoint.objects.exists()


def test_plain_http_only_to_the_allowed_hosts(
    ada: Someone,
    settings: Any,
) -> None:
    settings.WEBHOOK_ALLOW_HTTP_HOSTS = ["127.0.0.1"]
    client = client_of(ada)
    checked(client.post(HOOKS, {"url": "http://127.0.0.1:8765/hook"}), "post", 201)
    problem(client.post(HOOKS, {"url": "http://localhost:8765/hook"}), 400, "webhook_url_refused")


def test_a_player_has_at_most_the_limit_of_webhooks(
    ada: Someone,
    settings: Any,
) -> None:
    settings.WEBHOOKS_PER_PLAYER_MAX = 2
    client = client_of(ada)
    for n in range(2):
        checked(client.post(HOOKS, {"url": f"https://h.example.com/{n}"}), "post", 201)
    problem(client.post(HOOKS, {"url": "https://h.example.com/3"}), 409, "webhook_limit_reached")
    assert checked(client.get(HOOKS), "get", 200)["limit"] == 2


def test_a_webhook_is_removed_by_its_owner_only_and_its_pending_deliveries_dropped(
    ada: Someone,
    bob: Someone,
    game: Game,
) -> None:
    hook = checked(client_of(ada).post(HOOKS, {"url": "https://h.example.com/"}), "post", 201)
    with transaction.atomic():
        notify(
            player_id=ada.player_id,
            kind=NotificationKind.YOUR_TURN,
            game=game,
            event_seq=game.version,
            payload={},
        )
    problem(client_of(bob).delete(f"{HOOKS}{hook['id']}/"), 404, "not_found")
    checked(client_of(ada).delete(f"{HOOKS}{hook['id']}/"), "delete", 204)
    assert Delivery.objects.get().status == DeliveryStatus.DROPPED
    problem(client_of(ada).delete(f"{HOOKS}{hook['id']}/"), 404, "not_found")


def test_the_delivery_log_shows_attempts_failures_and_the_payload(
    ada: Someone,
    bob: Someone,
    game: Game,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client = client_of(ada)
    hook = checked(client.post(HOOKS, {"url": "https://h.example.com/"}), "post", 201)
    for seq, kind, payload in (
        (1, NotificationKind.CHAT, {"phrase": "Well played!"}),
        (2, NotificationKind.GAME_OVER, {"winner_team": 1}),
    ):
        notify(player_id=ada.player_id, kind=kind, game=game, event_seq=seq, payload=payload)
    chat, over = Delivery.objects.order_by("pk")
    answers = iter([SendOutcome(ok=False, status=503, error="HTTP 503"), SendOutcome(ok=True)])
    monkeypatch.setattr(
        "notifications.services.delivery.webhook_deliver", lambda endpoint, body, key: next(answers)
    )
    delivery_attempt(chat.pk)
    delivery_attempt(over.pk)

    log = checked(client.get(f"{HOOKS}{hook['id']}/deliveries/"), "get", 200)
    assert [d["id"] for d in log["deliveries"]] == [over.pk, chat.pk]  # newest first
    failed, delivered = log["deliveries"][1], log["deliveries"][0]
    assert failed["status"] == "pending" and failed["attempts"] == 1
    assert failed["last_status_code"] == 503 and failed["last_error"] == "HTTP 503"
    assert failed["next_attempt_at"] is not None
    assert failed["payload"]["phrase"] == "Well played!"
    assert failed["payload"]["id"] == failed["idempotency_key"] == chat.idempotency_key
    assert delivered["status"] == "delivered" and delivered["delivered_at"] is not None
    assert delivered["payload"]["winner_team"] == 1 and delivered["next_attempt_at"] is None
    for body in (failed["payload"], delivered["payload"]):
        Draft202012Validator(_component("WebhookPayload")).validate(body)

    only = checked(client.get(f"{HOOKS}{hook['id']}/deliveries/?status=pending"), "get", 200)
    assert [d["id"] for d in only["deliveries"]] == [chat.pk]
    problem(client.get(f"{HOOKS}{hook['id']}/deliveries/?status=lost"), 400, "invalid_request")
    problem(client.get(f"{HOOKS}{hook['id']}/deliveries/?limit=0"), 400, "invalid_request")
    problem(client_of(bob).get(f"{HOOKS}{hook['id']}/deliveries/"), 404, "not_found")


def test_a_disabled_webhook_is_enabled_again_with_its_notice_cleared(
    ada: Someone,
    bob: Someone,
) -> None:
    client = client_of(ada)
    hook = checked(client.post(HOOKS, {"url": "https://h.example.com/"}), "post", 201)
    WebhookEndpoint.objects.filter(pk=hook["id"]).update(
        enabled=False, consecutive_failures=5, disabled_reason="Disabled after 5 failed"
    )
    listed = checked(client.get(HOOKS), "get", 200)["webhooks"][0]
    assert listed["enabled"] is False and listed["disabled_reason"].startswith("Disabled")
    problem(client_of(bob).post(f"{HOOKS}{hook['id']}/enable/"), 404, "not_found")
    enabled = checked(client.post(f"{HOOKS}{hook['id']}/enable/"), "post", 200)
    assert enabled["enabled"] is True and enabled["consecutive_failures"] == 0
    assert enabled["disabled_reason"] == "" and enabled["disabled_at"] is None


def test_every_webhook_operation_names_the_payload_components() -> None:
    """Client authors find the payload schemas from the webhook operations."""
    spec = _spec()
    kinds = {
        "YourTurn": "your_turn",
        "GameStarted": "game_started",
        "GoOutAsked": "go_out_asked",
        "Chat": "chat",
        "Reminder": "reminder",
        "GameOver": "game_over",
        "Challenge": "challenge",
    }
    union = spec["components"]["schemas"]["WebhookPayload"]
    assert union["discriminator"]["propertyName"] == "kind"
    assert (
        set(union["discriminator"]["mapping"])
        == set(NotificationKind.values)
        == set(kinds.values())
    )
    for suffix in kinds:
        assert f"WebhookPayload{suffix}" in spec["components"]["schemas"]
    for path in (HOOKS, f"{HOOKS}{{webhook_id}}/deliveries/"):
        for method, operation in spec["paths"][path].items():
            description = operation["description"]
            assert "WebhookPayload" in description and "Canasta-Signature" in description
            assert all(f"WebhookPayload{s}" in description for s in kinds), (path, method)
            assert operation["tags"] == ["notifications"]


# ============================================================================== preferences
def test_preferences_default_on_and_change_only_what_is_given(ada: Someone) -> None:
    client = client_of(ada)
    before = checked(client.get(PREFERENCES), "get", 200)
    assert before["reminder_fraction"] == 0.75 and before["email"] == ""
    assert before["preferences"] == {
        channel: {kind: True for kind in NotificationKind.values} for channel in Channel.values
    }
    after = checked(
        client.put(
            PREFERENCES,
            {"email": "ada@example.com", "preferences": {"email": {"chat": False}}},
        ),
        "put",
        200,
    )
    assert after["email"] == "ada@example.com" and after["reminder_fraction"] == 0.75
    assert after["preferences"]["email"]["chat"] is False
    assert after["preferences"]["email"]["your_turn"] is True
    assert after["preferences"]["webhook"]["chat"] is True
    again = checked(client.put(PREFERENCES, {"reminder_fraction": 0.5}), "put", 200)
    assert again["reminder_fraction"] == 0.5 and again["email"] == "ada@example.com"
    assert again["preferences"]["email"]["chat"] is False
    assert checked(client.put(PREFERENCES, {"email": ""}), "put", 200)["email"] == ""


@pytest.mark.parametrize(
    "body",
    [
        {"reminder_fraction": 1.0},
        {"reminder_fraction": 0},
        {"email": "not an address"},
        {"email": "a" * 250 + "@example.com"},  # longer than an address may be
        {"preferences": {"email": {"chat": "sometimes"}}},
    ],
)
def test_preferences_out_of_range_are_refused(
    ada: Someone,
    body: dict[str, Any],
) -> None:
    client = client_of(ada)
    problem(client.put(PREFERENCES, body), 400, "invalid_request")
    assert checked(client.get(PREFERENCES), "get", 200)["reminder_fraction"] == 0.75


def test_switching_a_kind_off_and_muting_a_game_over_http_stop_its_notifications(
    ada: Someone,
    game: Game,
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    client = client_of(ada)
    checked(client.post(HOOKS, {"url": "https://h.example.com/"}), "post", 201)
    checked(client.put(PREFERENCES, {"preferences": {"webhook": {"your_turn": False}}}), "put", 200)

    def told(kind: str, seq: int) -> bool:
        return (
            notify(
                player_id=ada.player_id,
                kind=kind,
                game=game,
                event_seq=seq,
                payload={},
            )
            is not None
        )

    assert not told(NotificationKind.YOUR_TURN, 1)
    assert told(NotificationKind.GAME_STARTED, 1)
    muted = checked(client.put(f"/api/v1/games/{game.pk}/notifications/mute/"), "put", 200)
    assert muted == {"game_id": game.pk, "muted": True}
    assert checked(client.put(f"/api/v1/games/{game.pk}/notifications/mute/"), "put", 200)["muted"]
    assert not told(NotificationKind.GAME_STARTED, 2)
    unmuted = checked(client.delete(f"/api/v1/games/{game.pk}/notifications/mute/"), "delete", 200)
    assert unmuted == {"game_id": game.pk, "muted": False}
    assert told(NotificationKind.GAME_STARTED, 3)


def test_muting_a_game_you_cannot_see_is_not_found(
    ada: Someone,
) -> None:
    carol = someone("Carol")
    created = carol.client.post(
        "/api/v1/games/", {"preset": "two_player", "is_public": False}, format="json"
    )
    private = created.json()["id"]
    checked(carol.client.put(f"/api/v1/games/{private}/notifications/mute/"), "put", 200)
    problem(client_of(ada).put(f"/api/v1/games/{private}/notifications/mute/"), 404, "not_found")
    problem(client_of(ada).put("/api/v1/games/999999/notifications/mute/"), 404, "not_found")


def test_the_notification_routes_need_a_token() -> None:
    anonymous = APIClient()
    for method, path in (
        ("get", HOOKS),
        ("post", HOOKS),
        ("get", PREFERENCES),
        ("put", PREFERENCES),
        ("put", "/api/v1/games/1/notifications/mute/"),
    ):
        problem(getattr(anonymous, method)(path), 401, "not_authenticated")
