"""The outbox's statements on a move's path, as SQL written once from the models, with public
APIs only (as ``games.hot_sql`` does for the move's own statements, and for the same reason).

Every move that hands the turn to a person calls ``notify``. Through the ORM, finding what to
send (the game's mute, the kind's switches, the webhooks, the push subscriptions, the e-mail
address: five querysets) costs more CPU than the move's own statements, for a player who has no
endpoint at all (most players; figures: bench/README.md, "Notifications"); writing a
notification took a savepoint, an insert and a bulk insert besides. Here:

- ``endpoints_read``: one statement (a ``UNION ALL`` of six indexed lookups) answers whether
  the game is muted, which channels are off for the kind, and the enabled endpoints (a native
  device's channel is its platform, ``fcm`` or ``apns``: none while the server cannot send
  there);
- ``notification_insert``: ``INSERT ... ON CONFLICT DO NOTHING RETURNING``: a repeat of an
  event inserts nothing and returns nothing, with no savepoint and no error to recover from;
- ``deliveries_insert``: one multi-row insert returning the ids.

Table and column names come from the models' ``_meta`` (``db_table``, ``Field.column``), values
go through the fields' ``get_db_prep_save`` and rows become instances through
``Model.from_db``. PostgreSQL and SQLite (3.35 and later: ``RETURNING``) run the SQL; any other
database runs the equivalent ORM calls. tests/notifications/services/test_notifications.py
checks both
paths on the database it runs on.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Field, Model

from notifications.models import (
    Channel,
    Delivery,
    DeliveryStatus,
    DeviceRegistration,
    GameMute,
    Notification,
    NotificationPreference,
    NotificationSettings,
    PushSubscription,
    WebhookEndpoint,
)
from notifications.services.native_push import platforms_off

SUPPORTED = ("postgresql", "sqlite")


def _sql_supported() -> bool:
    return connection.vendor in SUPPORTED


def _table(model: type[Model]) -> str:
    return str(connection.ops.quote_name(model._meta.db_table))


def _col(model: type[Model], name: str) -> str:
    field = model._meta.get_field(name)
    assert isinstance(field, Field), name  # a column, not a reverse relation
    return str(connection.ops.quote_name(str(field.column)))


@dataclass(frozen=True)
class Endpoints:
    """What ``notify`` needs to know of a player for one kind and game."""

    muted: bool
    found: list[tuple[str, int]]  # (channel, endpoint id), webhooks then push then e-mail


_ENDPOINTS_SQL: dict[str, str] = {}


def _endpoints_sql() -> str:
    built = _ENDPOINTS_SQL.get(connection.vendor)
    if built is not None:
        return built
    player = "player"
    built = " UNION ALL ".join(
        [
            f"SELECT 'muted', '', 0 FROM {_table(GameMute)}"
            f" WHERE {_col(GameMute, player)} = %s AND {_col(GameMute, 'game')} = %s",
            f"SELECT 'off', {_col(NotificationPreference, 'channel')}, 0"
            f" FROM {_table(NotificationPreference)}"
            f" WHERE {_col(NotificationPreference, player)} = %s"
            f" AND {_col(NotificationPreference, 'kind')} = %s"
            f" AND {_col(NotificationPreference, 'enabled')} = %s",
            f"SELECT 'on', '{Channel.WEBHOOK.value}', {_col(WebhookEndpoint, 'id')}"
            f" FROM {_table(WebhookEndpoint)}"
            f" WHERE {_col(WebhookEndpoint, player)} = %s"
            f" AND {_col(WebhookEndpoint, 'enabled')} = %s",
            f"SELECT 'on', '{Channel.WEB_PUSH.value}', {_col(PushSubscription, 'id')}"
            f" FROM {_table(PushSubscription)}"
            f" WHERE {_col(PushSubscription, player)} = %s"
            f" AND {_col(PushSubscription, 'enabled')} = %s",
            f"SELECT 'on', {_col(DeviceRegistration, 'platform')}, {_col(DeviceRegistration, 'id')}"
            f" FROM {_table(DeviceRegistration)}"
            f" WHERE {_col(DeviceRegistration, player)} = %s"
            f" AND {_col(DeviceRegistration, 'enabled')} = %s",
            f"SELECT 'on', '{Channel.EMAIL.value}', 0 FROM {_table(NotificationSettings)}"
            f" WHERE {_col(NotificationSettings, player)} = %s"
            f" AND {_col(NotificationSettings, 'email')} <> ''",
        ]
    )
    _ENDPOINTS_SQL[connection.vendor] = built
    return built


_CHANNEL_ORDER = {
    Channel.WEBHOOK: 0,
    Channel.WEB_PUSH: 1,
    Channel.FCM: 2,
    Channel.APNS: 3,
    Channel.EMAIL: 4,
}
NATIVE = frozenset({Channel.FCM.value, Channel.APNS.value})


def _native_off(found: list[tuple[str, int]]) -> frozenset[str]:
    """The native channels found that the server cannot send to (asked only when found)."""
    return platforms_off() if any(channel in NATIVE for channel, _ in found) else frozenset()


def endpoints_read(player_id: int, kind: str, game_id: int | None) -> Endpoints:
    """Whether ``game_id`` is muted by the player, and the endpoints that receive ``kind``
    (enabled, on a channel not switched off for ``kind``). One statement."""
    if not _sql_supported():
        return _endpoints_orm(player_id, kind, game_id)
    with connection.cursor() as cursor:
        cursor.execute(
            _endpoints_sql(),
            [
                player_id,
                game_id,
                player_id,
                kind,
                False,
                player_id,
                True,
                player_id,
                True,
                player_id,
                True,
                player_id,
            ],
        )
        rows = cursor.fetchall()
    muted = any(tag == "muted" for tag, _, _ in rows)
    off = {channel for tag, channel, _ in rows if tag == "off"}
    found = sorted(
        (
            (str(channel), int(pk))
            for tag, channel, pk in rows
            if tag == "on" and channel not in off
        ),
        key=lambda e: (_CHANNEL_ORDER[Channel(e[0])], e[1]),
    )
    unreachable = _native_off(found)
    if unreachable:
        found = [e for e in found if e[0] not in unreachable]
    return Endpoints(muted=muted, found=found)


def _endpoints_orm(player_id: int, kind: str, game_id: int | None) -> Endpoints:
    muted = (
        game_id is not None
        and GameMute.objects.filter(player_id=player_id, game_id=game_id).exists()
    )
    off = set(
        NotificationPreference.objects.filter(
            player_id=player_id, kind=kind, enabled=False
        ).values_list("channel", flat=True)
    )
    found: list[tuple[str, int]] = []
    if Channel.WEBHOOK not in off:
        found += [
            (Channel.WEBHOOK.value, pk)
            for pk in WebhookEndpoint.objects.filter(player_id=player_id, enabled=True)
            .order_by("pk")
            .values_list("pk", flat=True)
        ]
    if Channel.WEB_PUSH not in off:
        found += [
            (Channel.WEB_PUSH.value, pk)
            for pk in PushSubscription.objects.filter(player_id=player_id, enabled=True)
            .order_by("pk")
            .values_list("pk", flat=True)
        ]
    devices = DeviceRegistration.objects.filter(player_id=player_id, enabled=True)
    found += sorted(
        ((str(platform), pk) for pk, platform in devices.values_list("pk", "platform")),
        key=lambda e: (_CHANNEL_ORDER[Channel(e[0])], e[1]),
    )
    found = [e for e in found if e[0] not in off]
    unreachable = _native_off(found)
    found = [e for e in found if e[0] not in unreachable]
    if (
        Channel.EMAIL not in off
        and NotificationSettings.objects.filter(player_id=player_id).exclude(email="").exists()
    ):
        found.append((Channel.EMAIL.value, 0))
    return Endpoints(muted=muted, found=found)


# ============================================================================== inserts
_NOTIFICATION_COLUMNS = ("player", "kind", "game", "event_seq", "payload", "created_at")


def _prepped(model: type[Model], values: dict[str, Any]) -> list[Any]:
    return [
        model._meta.get_field(name).get_db_prep_save(value, connection)  # type: ignore[union-attr]
        for name, value in values.items()
    ]


def notification_insert(
    *,
    player_id: int,
    kind: str,
    game_id: int | None,
    event_seq: int | None,
    payload: dict[str, Any],
    now: datetime,
) -> Notification | None:
    """The new notification, or None when (player, kind, game, event_seq) was notified before
    (nothing is inserted, and the transaction goes on as if nothing was tried)."""
    values = {
        "player": player_id,
        "kind": kind,
        "game": game_id,
        "event_seq": event_seq,
        "payload": payload,
        "created_at": now,
    }
    if not _sql_supported():
        try:
            with transaction.atomic():
                return Notification.objects.create(
                    player_id=player_id,
                    kind=kind,
                    game_id=game_id,
                    event_seq=event_seq,
                    payload=payload,
                )
        except IntegrityError:
            return None
    columns = ", ".join(_col(Notification, name) for name in values)
    marks = ", ".join(["%s"] * len(values))
    sql = (
        f"INSERT INTO {_table(Notification)} ({columns}) VALUES ({marks})"
        f" ON CONFLICT DO NOTHING RETURNING {_col(Notification, 'id')}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, _prepped(Notification, values))
        row = cursor.fetchone()
    if row is None:
        return None
    by_name = {
        "id": int(row[0]),
        "player_id": player_id,
        "kind": kind,
        "game_id": game_id,
        "event_seq": event_seq,
        "payload": payload,
        "created_at": now,
    }
    names = [f.attname for f in Notification._meta.concrete_fields]
    return Notification.from_db(connection.alias, names, [by_name[n] for n in names])


def deliveries_insert(
    notification_id: int, endpoints: list[tuple[str, int]], now: datetime
) -> list[int]:
    """One pending delivery per endpoint, due ``now``; their ids."""
    rows = [
        {
            "notification": notification_id,
            "channel": channel,
            "endpoint_id": endpoint_id,
            "status": DeliveryStatus.PENDING.value,
            "attempts": 0,
            "next_attempt_at": now,
            "last_error": "",
            "created_at": now,
        }
        for channel, endpoint_id in endpoints
    ]
    if not rows:
        return []
    if not _sql_supported():
        made = Delivery.objects.bulk_create(
            [
                Delivery(
                    notification_id=notification_id,
                    channel=channel,
                    endpoint_id=endpoint_id,
                    next_attempt_at=now,
                )
                for channel, endpoint_id in endpoints
            ]
        )
        return [d.pk for d in made]
    columns = ", ".join(_col(Delivery, name) for name in rows[0])
    marks = "(" + ", ".join(["%s"] * len(rows[0])) + ")"
    sql = (
        f"INSERT INTO {_table(Delivery)} ({columns}) VALUES {', '.join([marks] * len(rows))}"
        f" RETURNING {_col(Delivery, 'id')}"
    )
    params = [value for row in rows for value in _prepped(Delivery, row)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [int(r[0]) for r in cursor.fetchall()]
