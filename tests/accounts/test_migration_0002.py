"""accounts 0002: every DRF token a database holds (a key in the clear) becomes a guest key
stored as its digest, with every scope (a bot account's: the bot scopes); the clear keys go.
A client that stored its token keeps signing in with it."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from accounts import scopes
from accounts.models import Player
from accounts.services.credentials import credential_authenticate

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("accounts", "0001_initial")]
KEYS = {"person": "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b", "bot": "0" * 39 + "1"}


def _authtoken_table_with(rows: list[tuple[str, int]]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, created timestamp "
            "with time zone NOT NULL, user_id integer NOT NULL UNIQUE)"
        )
        for key, user_id in rows:
            cursor.execute(
                "INSERT INTO authtoken_token (key, created, user_id) "
                "VALUES (%s, CURRENT_TIMESTAMP, %s)",
                [key, user_id],
            )


def test_drf_tokens_become_guest_keys_and_the_clear_keys_go() -> None:
    person = User.objects.create_user("person")
    bot = User.objects.create_user("bot")
    Player.objects.filter(user=bot).update(is_bot=True)
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    try:
        _authtoken_table_with([(KEYS["person"], person.pk), (KEYS["bot"], bot.pk)])
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())

        holder = credential_authenticate(KEYS["person"])
        assert holder is not None and holder.user.pk == person.pk
        assert holder.credential.scopes == [scopes.ALL]
        robot = credential_authenticate(KEYS["bot"])
        assert robot is not None and tuple(robot.credential.scopes) == scopes.BOT_ACCOUNT
        with connection.cursor() as cursor:
            cursor.execute("SELECT COUNT(*) FROM authtoken_token")
            assert cursor.fetchone() == (0,)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE IF EXISTS authtoken_token")
