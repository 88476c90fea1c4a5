"""The key lookup every authenticated request makes, as one SQL statement written once.

Built through the ORM (queryset -> compiler -> three model instances) the lookup cost more
CPU than the database spends on it: about a millisecond a request (bench/README.md,
"Authentication cost"). The statement is written here from the models' tables and columns,
run with ``connection.cursor()`` (so query capture and Django's error mapping see it), and
the rows become instances through ``Model.from_db`` with only the columns read (any other
field loads on first use). Nothing is remembered between requests: a revoked key is refused
at the next request on every process."""

from __future__ import annotations

import datetime
import json
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import DEFAULT_DB_ALIAS, connections
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from accounts.models import Credential, CredentialKind, Player

_SQL: dict[str, str] = {}


@dataclass(frozen=True)
class KeyRow:
    """What the lookup reads: enough to build the request's instances without a query."""

    key_id: int
    kind: str
    scopes: list[str]
    session_id: int | None
    user_id: int
    is_active: bool
    player_id: int | None
    display_name: str
    is_bot: bool
    joined: Any  # the player's created_at
    language: str  # the player's language setting ("" when none)
    expires_at: Any
    last_used_at: Any


def _sql(alias: str) -> str:
    """SELECT the live key's row (not a refresh key, not expired), its user and their player."""
    if alias not in _SQL:
        q = connections[alias].ops.quote_name
        c, u, p = Credential._meta.db_table, get_user_model()._meta.db_table, Player._meta.db_table
        _SQL[alias] = (
            f"SELECT c.{q('id')}, c.{q('kind')}, c.{q('scopes')}, c.{q('session_id')}, "
            f"u.{q('id')}, u.{q('is_active')}, "
            f"p.{q('id')}, p.{q('display_name')}, p.{q('is_bot')}, p.{q('created_at')}, "
            f"c.{q('expires_at')}, c.{q('last_used_at')}, p.{q('language')} "
            f"FROM {q(c)} c INNER JOIN {q(u)} u ON u.{q('id')} = c.{q('user_id')} "
            f"LEFT JOIN {q(p)} p ON p.{q('user_id')} = u.{q('id')} "
            f"WHERE c.{q('digest')} = %s AND c.{q('kind')} <> %s "
            f"AND (c.{q('expires_at')} IS NULL OR c.{q('expires_at')} > %s)"
        )
    return _SQL[alias]


def _aware(value: Any) -> Any:
    if isinstance(value, str):
        value = parse_datetime(value)
    if settings.USE_TZ and isinstance(value, datetime.datetime) and timezone.is_naive(value):
        value = timezone.make_aware(value, datetime.UTC)
    return value


def key_row(digest: str) -> KeyRow | None:
    """The live key of ``digest`` (not a refresh key, not expired), or ``None``."""
    connection = connections[DEFAULT_DB_ALIAS]
    now: Any = timezone.now()
    if connection.vendor == "sqlite":  # stored as naive UTC text: compare the same way
        now = connection.ops.adapt_datetimefield_value(now)
    with connection.cursor() as cursor:
        cursor.execute(_sql(DEFAULT_DB_ALIAS), [digest, CredentialKind.REFRESH.value, now])
        row = cursor.fetchone()
    if row is None:
        return None
    *head, language = row
    key_id, kind, scopes, session_id, user_id, active, player_id, name, bot, joined, ends, used = (
        head
    )
    if isinstance(scopes, (str, bytes)):
        scopes = json.loads(scopes)
    return KeyRow(
        key_id=key_id,
        kind=kind,
        scopes=list(scopes),
        session_id=session_id,
        user_id=user_id,
        is_active=bool(active),
        player_id=player_id,
        display_name=name or "",
        is_bot=bool(bot),
        joined=_aware(joined),
        expires_at=_aware(ends),
        last_used_at=_aware(used),
        language=language or "",
    )


def key_instances(row: KeyRow) -> Credential:
    """Fresh instances for a row: the ``Credential`` with ``.user`` (and ``user.player``) set,
    only the columns read loaded (any other field loads on first use)."""
    alias = DEFAULT_DB_ALIAS
    user = get_user_model().from_db(alias, ["id", "is_active"], [row.user_id, row.is_active])
    if row.player_id is not None:
        player = Player.from_db(
            alias,
            # In the model's field order (``from_db`` reads the values in that order).
            ["id", "user_id", "display_name", "is_bot", "language", "created_at"],
            [row.player_id, row.user_id, row.display_name, row.is_bot, row.language, row.joined],
        )
        user.player = player  # the reverse one-to-one cache, as select_related leaves it
    credential = Credential.from_db(
        alias,
        ["id", "user_id", "kind", "scopes", "session_id", "expires_at", "last_used_at"],
        [
            row.key_id,
            row.user_id,
            row.kind,
            list(row.scopes),
            row.session_id,
            row.expires_at,
            row.last_used_at,
        ],
    )
    credential.user = user
    return credential
