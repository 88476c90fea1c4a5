"""Migration games 0013 moves the models of other domains into their own apps (accounts,
competition, notifications, bots) without touching a row.

Games and every moved kind of row are made with today's services, the database is taken back
to the old layout (games 0012: every model in ``games``), more rows are written there through
the old layout's models, and the database is migrated forward again. Every row must then be
where it was, read through the new apps' models; every game's log must be the same and every
game must verify from its log alone; the admin's content types must follow the models.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from accounts.models import Player, PlayerRelation, RelationKind
from accounts.services.players import player_create
from bots.models import GameReview
from competition.models import QueueEntry, Rating, RatingChange
from games.models import Game, GameEvent
from games.selectors.verify import game_verify
from games.services.table import game_concede
from notifications.models import (
    Delivery,
    GameMute,
    Notification,
    NotificationPreference,
    NotificationSettings,
    PushSubscription,
    WebhookEndpoint,
)
from tests.games.services.timers.conftest import timed_table

pytestmark = pytest.mark.django_db(transaction=True)

OLD_GAMES = ("games", "0012_bots_review_hints_accounts")
OLD: list[tuple[str, str | None]] = [
    OLD_GAMES,
    ("accounts", None),
    ("competition", None),
    ("notifications", None),
    ("bots", None),
]
MOVED = {
    "accounts": (Player, PlayerRelation),
    "competition": (Rating, RatingChange, QueueEntry),
    "notifications": (
        Notification,
        Delivery,
        WebhookEndpoint,
        PushSubscription,
        NotificationPreference,
        NotificationSettings,
        GameMute,
    ),
    "bots": (GameReview,),
}
MODELS = [model for models in MOVED.values() for model in models]


def _rows() -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every moved model, and every game's log."""
    rows = {m.__name__: list(m.objects.order_by("pk").values_list()) for m in MODELS}
    rows["log"] = list(
        GameEvent.objects.order_by("game_id", "seq").values_list(
            "game_id", "seq", "seat", "type", "source", "payload"
        )
    )
    return rows


def _today() -> None:
    """A rated game conceded (ratings and their changes, the outbox), relations, a queue entry,
    a webhook, a push subscription, preferences, settings, a mute and a review request."""
    table = timed_table(turn_seconds=None)
    Game.objects.filter(pk=table.game_id).update(rated=True)
    game_concede(game_id=table.game_id, player=table.players[1])
    ada, bob = table.players
    PlayerRelation.objects.create(owner=ada, other=bob, kind=RelationKind.FAVOURITE)
    eve = player_create(display_name="Eve")[0]
    QueueEntry.objects.create(
        player=eve,
        format="two_player",
        preset="two_player",
        rated=True,
        rating=25.0,
        joined_at=timezone.now(),
    )
    hook = WebhookEndpoint.objects.create(
        player=ada, url="https://example.com/hook", secret="s" * 32
    )
    PushSubscription.objects.create(
        player=bob, endpoint="https://push.example.com/1", p256dh="k", auth="a"
    )
    NotificationSettings.objects.create(player=ada)
    NotificationPreference.objects.create(
        player=ada, kind="your_turn", channel="webhook", enabled=False
    )
    GameMute.objects.create(player=bob, game_id=table.game_id)
    notification = Notification.objects.create(
        player=ada, kind="game_over", game_id=table.game_id, event_seq=1
    )
    Delivery.objects.create(
        notification=notification,
        channel="webhook",
        endpoint_id=hook.pk,
        next_attempt_at=timezone.now(),
    )
    GameReview.objects.create(
        game_id=table.game_id, seat=0, through_round=1, through_seq=1, requested_by=ada
    )


def _on_the_old_layout(apps: Any) -> None:
    """Rows written while every model was in games: a player, a relation, a rating."""
    user = apps.get_model("auth", "User").objects.create(username="old-layout")
    player = apps.get_model("games", "Player")
    relation = apps.get_model("games", "PlayerRelation")
    rating = apps.get_model("games", "Rating")
    old = player.objects.create(user=user, display_name="Old")
    first = player.objects.order_by("pk").first()
    relation.objects.create(owner=old, other=first, kind="block")
    rating.objects.create(player=old, format="two_player", mu=25.0, sigma=8.0, display=0.0)


def test_the_moved_models_keep_every_row_and_every_game_verifies(settings: Any) -> None:
    settings.RATED_MIN_MOVES_PER_SIDE = 0  # the concession at the start is rated: rows to keep
    _today()
    before = _rows()
    assert all(before[m.__name__] for m in MODELS), "every moved model has a row"
    executor = MigrationExecutor(connection)
    executor.migrate(OLD)
    executor.loader.build_graph()
    old_apps = executor.loader.project_state(OLD_GAMES).apps
    for model in MODELS:  # the same tables, read through the old layout
        old_model = old_apps.get_model("games", model.__name__)
        assert old_model._meta.db_table == model._meta.db_table
        assert old_model.objects.count() == len(before[model.__name__])
    _on_the_old_layout(old_apps)
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    after = _rows()
    for name, rows in before.items():
        assert [row for row in rows if row not in after[name]] == [], f"{name}: rows lost"
    assert after["log"] == before["log"]
    old = Player.objects.get(display_name="Old")
    assert PlayerRelation.objects.filter(owner=old, kind=RelationKind.BLOCK).exists()
    assert Rating.objects.filter(player=old).exists()
    for game in Game.objects.all():
        assert game_verify(game).ok, game.pk
    for app, models in MOVED.items():
        for model in models:
            name = str(model._meta.model_name)
            assert ContentType.objects.filter(app_label=app, model=name).exists()
            assert not ContentType.objects.filter(app_label="games", model=name).exists()
