"""The notification outbox (notifications.services.notifications.notify): written in the event's
transaction, once per event, only to the endpoints a player has on, never for a muted game."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction

from games.models import Game
from notifications.models import Channel, Delivery, DeliveryStatus, Notification, NotificationKind
from notifications.services import delivery as delivery_service
from notifications.services import outbox_sql
from notifications.services.notifications import (
    game_mute_set,
    notify,
    preferences_set,
    webhook_register,
)
from tests.games.api.conftest import eager_bots  # noqa: F401 - fixture
from tests.notifications.notification_players import Someone, game_of_two, someone

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True, params=["sql", "orm"])
def outbox_statements(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test twice: the outbox's own SQL (PostgreSQL, SQLite) and the ORM calls it
    stands for (any other database): the same behaviour."""
    if request.param == "orm":
        monkeypatch.setattr(outbox_sql, "SUPPORTED", ())
    return str(request.param)


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    """The delivery ids each commit hands to the workers (nothing is sent anywhere)."""
    calls: list[list[int]] = []
    monkeypatch.setattr(
        "notifications.services.notifications.deliveries_send", lambda ids: calls.append(list(ids))
    )
    return calls


@pytest.fixture
def ada(db: None) -> Someone:
    return someone("Ada")


@pytest.fixture
def bob(db: None) -> Someone:
    return someone("Bob")


@pytest.fixture
def game(ada: Someone, bob: Someone) -> Game:
    return Game.objects.get(pk=game_of_two(ada, bob))


def _your_turn(player_id: int, game: Game, **payload: Any) -> Notification | None:
    return notify(
        player_id=player_id,
        kind=NotificationKind.YOUR_TURN,
        game=game,
        event_seq=game.version,
        payload=payload,
    )


def _webhook(player: Someone) -> int:
    return webhook_register(player.player_id, url="https://hooks.example.com/canasta").pk


def test_a_notification_and_its_deliveries_are_written_with_the_event_and_sent_after_commit(
    ada: Someone,
    game: Game,
    sent: list[list[int]],
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    hook = _webhook(ada)
    preferences_set(ada.player_id, email="ada@example.com")
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        notification = _your_turn(ada.player_id, game, deadline=None)
        assert notification is not None
        assert sent == []  # nothing leaves before the commit
    deliveries = list(Delivery.objects.filter(notification=notification).order_by("pk"))
    assert [(d.channel, d.endpoint_id, d.status) for d in deliveries] == [
        (Channel.WEBHOOK, hook, DeliveryStatus.PENDING),
        (Channel.EMAIL, 0, DeliveryStatus.PENDING),
    ]
    assert sent == [[d.pk for d in deliveries]]
    assert notification.payload == {
        "kind": "your_turn",
        "player_id": ada.player_id,
        "game_id": game.pk,
        "game_version": game.version,
        "title": "Your turn",
        "text": f"It is your turn in game #{game.pk}.",
        "url": f"/#/game/{game.pk}",
        "deadline": None,
    }


def test_a_rolled_back_event_notifies_nobody(
    ada: Someone,
    game: Game,
    sent: list[list[int]],
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    _webhook(ada)
    with (
        django_capture_on_commit_callbacks(execute=True) as hooks,
        pytest.raises(RuntimeError),
        transaction.atomic(),
    ):
        assert _your_turn(ada.player_id, game) is not None
        raise RuntimeError("the move fails after notify")
    assert hooks == [] and sent == []
    assert not Notification.objects.exists() and not Delivery.objects.exists()


def test_notify_twice_for_one_event_is_one_notification(
    ada: Someone,
    game: Game,
    sent: list[list[int]],
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    _webhook(ada)
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        first = _your_turn(ada.player_id, game)
        again = _your_turn(ada.player_id, game)
        game.refresh_from_db()  # the event's transaction is still usable after the repeat
    with django_capture_on_commit_callbacks(execute=True):
        later = _your_turn(ada.player_id, game)
    assert first is not None and again is None and later is None
    assert Notification.objects.count() == 1 and Delivery.objects.count() == 1
    assert len(sent) == 1


def test_nothing_for_a_player_without_endpoints_a_muted_game_or_a_kind_switched_off(
    ada: Someone,
    bob: Someone,
    game: Game,
    sent: list[list[int]],
) -> None:
    assert _your_turn(bob.player_id, game) is None  # bob has no endpoint
    _webhook(ada)
    game_mute_set(ada.player_id, game.pk, muted=True)
    assert _your_turn(ada.player_id, game) is None
    game_mute_set(ada.player_id, game.pk, muted=False)
    preferences_set(ada.player_id, switches={"webhook": {"your_turn": False}})
    assert _your_turn(ada.player_id, game) is None
    assert not Notification.objects.exists()
    # Another kind still goes out on the same webhook.
    chat = notify(
        player_id=ada.player_id,
        kind=NotificationKind.CHAT,
        game=game,
        event_seq=1,
        payload={"phrase": "Good luck!"},
    )
    assert chat is not None and chat.payload["text"] == f"Game #{game.pk}: Good luck!"


def test_a_payload_carries_only_its_kinds_public_facts(
    ada: Someone,
    game: Game,
    sent: list[list[int]],
) -> None:
    _webhook(ada)
    with pytest.raises(ValueError, match="hand"):
        _your_turn(ada.player_id, game, hand=["QH", "QS"])
    with pytest.raises(ValueError, match="unknown notification kind"):
        notify(player_id=ada.player_id, kind="meld", game=game, event_seq=1, payload={})
    assert not Notification.objects.exists()


def test_the_body_is_the_payload_with_the_deliverys_idempotency_key(
    ada: Someone,
    game: Game,
    sent: list[list[int]],
) -> None:
    hook = _webhook(ada)
    notification = _your_turn(ada.player_id, game)
    assert notification is not None
    delivery = Delivery.objects.get(notification=notification)
    body = delivery_service.delivery_body(delivery)
    assert body["id"] == f"ntf-{notification.pk}-webhook-{hook}" == delivery.idempotency_key
    assert body["created_at"].endswith("Z")
    assert {k: v for k, v in body.items() if k not in ("id", "created_at")} == (
        notification.payload
    )


def test_the_endpoints_are_read_in_one_statement_with_the_muted_game_and_switches(
    ada: Someone,
    game: Game,
    outbox_statements: str,
    django_assert_num_queries: Callable[..., Any],
) -> None:
    hooks = [_webhook(ada), _webhook(ada)]
    preferences_set(ada.player_id, email="ada@example.com")
    expected = [("webhook", hooks[0]), ("webhook", hooks[1]), ("email", 0)]
    statements = 1 if outbox_statements == "sql" else 6
    with django_assert_num_queries(statements):
        read = outbox_sql.endpoints_read(ada.player_id, "chat", game.pk)
    assert read == outbox_sql.Endpoints(muted=False, found=expected)
    preferences_set(ada.player_id, switches={"email": {"chat": False}})
    game_mute_set(ada.player_id, game.pk, muted=True)
    read = outbox_sql.endpoints_read(ada.player_id, "chat", game.pk)
    assert read == outbox_sql.Endpoints(muted=True, found=expected[:2])
    assert outbox_sql.endpoints_read(ada.player_id, "chat", None).muted is False
    assert outbox_sql.endpoints_read(ada.player_id, "reminder", None).found == expected


def test_a_notification_with_nothing_to_send_costs_one_statement(
    bob: Someone,
    game: Game,
    outbox_statements: str,
    django_assert_num_queries: Callable[..., Any],
) -> None:
    with django_assert_num_queries(1 if outbox_statements == "sql" else 6):
        assert _your_turn(bob.player_id, game) is None
