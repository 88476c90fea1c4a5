"""The hot statements (every move's three, every game read's one) as SQL written from the models,
with public APIs only.

Why this module exists: a move runs three statements (lock and read the game row with its
creator, insert the ``GameEvent``, update the game row's moved columns), and building them
through the ORM (queryset -> ``SQLCompiler``) costs more CPU than the database spends running
them (the figures, per statement and per move: bench/README.md, "Why the hot statements are
SQL").

How: the SQL is written once per model and database vendor from the model's fields
(``Model._meta.get_fields()``: every concrete field, so a field added to a model is read and
written here too, never silently left out), run with ``connection.cursor()`` (so
``CaptureQueriesContext``, execute wrappers and Django's error mapping see it as any query),
and rows become instances through ``Model.from_db``. Values pass through the fields' own
documented hooks, as ``Model.save`` and ``QuerySet`` pass them: ``pre_save`` (``auto_now``,
``auto_now_add``) and ``get_db_prep_save`` on the way in, ``from_db_value`` on the way out.
``row_insert`` and ``row_update`` send no model signals: nothing listens to these models' saves
(the live wake-up is appended with the event: ``games.services.log``). No private ORM state
(compilers, query internals) is touched.

Databases: PostgreSQL (production) and SQLite (tests, development); on any other database
each function runs the equivalent ORM call instead. ``tests/games/services/test_hot_sql.py``
compares every function with the ORM on both.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import AutoField, Field, Model
from django.db.transaction import TransactionManagementError
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from accounts.models import Player
from games.models import Game

SUPPORTED = ("postgresql", "sqlite")


def _fields(model: type[Model]) -> tuple[Field[Any, Any], ...]:
    """The model's concrete fields (its columns), in the order ``Model.from_db`` takes them."""
    meta = model._meta
    if meta.parents:
        raise TypeError(f"{model.__name__}: multi-table inheritance is not supported")
    fields = tuple(
        f
        for f in meta.get_fields(include_parents=False)
        if isinstance(f, Field) and f.concrete  # reverse relations and m2m are not columns
    )
    for f in fields:
        if getattr(f, "generated", False) or f.has_db_default():
            # Their values come from the database: Model.save reads them back, this does not.
            raise TypeError(f"{model.__name__}.{f.name}: database-computed fields unsupported")
    return tuple(sorted(fields, key=lambda f: f.creation_counter))


def _column(connection: BaseDatabaseWrapper, model: type[Model], field: Field[Any, Any]) -> str:
    quote = connection.ops.quote_name
    return f"{quote(model._meta.db_table)}.{quote(str(field.column))}"


def _supported(connection: BaseDatabaseWrapper) -> bool:
    return connection.vendor in SUPPORTED


# ----------------------------------------------------------------------------- reading


def _reader(connection: BaseDatabaseWrapper, field: Field[Any, Any]) -> Any:
    """The conversion of one column's value, as the ORM's converters make it: the backend's
    first, then the field's ``from_db_value``. psycopg returns every type Django expects but
    JSON (Django leaves it as text for ``from_db_value``); SQLite returns naive datetimes (in
    the connection's time zone, which Django makes aware)."""
    steps: list[Any] = []
    if (
        connection.vendor == "sqlite"
        and settings.USE_TZ
        and field.get_internal_type() == "DateTimeField"
    ):
        zone = connection.timezone

        def aware(value: Any) -> Any:
            if isinstance(value, str):
                value = parse_datetime(value)
            if isinstance(value, datetime.datetime) and timezone.is_naive(value):
                value = timezone.make_aware(value, zone)
            return value

        steps.append(aware)
    from_db_value = getattr(field, "from_db_value", None)
    if from_db_value is not None:
        steps.append(lambda value: from_db_value(value, None, connection))
    if not steps:
        return None
    if len(steps) == 1:
        return steps[0]
    return lambda value: steps[1](steps[0](value))


@dataclass(frozen=True)
class _GameSelect:
    sql: str
    game_names: tuple[str, ...]
    game_readers: tuple[tuple[int, Any], ...]  # (position, conversion) where one is needed
    player_names: tuple[str, ...]
    player_readers: tuple[tuple[int, Any], ...]


_GAME_SELECT: dict[tuple[str, str, bool], _GameSelect] = {}


def _game_select(connection: BaseDatabaseWrapper, lock: bool = True) -> _GameSelect:
    key = (connection.vendor, connection.alias, lock)
    built = _GAME_SELECT.get(key)
    if built is not None:
        return built
    quote = connection.ops.quote_name
    game_fields, player_fields = _fields(Game), _fields(Player)
    creator = Game._meta.get_field("created_by")
    assert creator.related_model is Player and Player._meta.pk is not None
    columns = [_column(connection, Game, f) for f in game_fields]
    columns += [_column(connection, Player, f) for f in player_fields]
    game_table, player_table = quote(Game._meta.db_table), quote(Player._meta.db_table)
    pk = Game._meta.pk
    assert pk is not None
    sql = (
        f"SELECT {', '.join(columns)} FROM {game_table}"
        f" INNER JOIN {player_table} ON ({_column(connection, Game, creator)}"
        f" = {_column(connection, Player, Player._meta.pk)})"
        f" WHERE {_column(connection, Game, pk)} = %s"
    )
    # As select_for_update(of=("self",)): only the game row is locked. SQLite has no row
    # locks (the ORM leaves the clause out there too): its writers take turns.
    if lock and connection.features.has_select_for_update:
        sql += f" FOR UPDATE OF {game_table}"

    def readers(fields: Sequence[Field[Any, Any]]) -> tuple[tuple[int, Any], ...]:
        pairs = ((i, _reader(connection, f)) for i, f in enumerate(fields))
        return tuple((i, read) for i, read in pairs if read is not None)

    built = _GameSelect(
        sql=sql,
        game_names=tuple(f.attname for f in game_fields),
        game_readers=readers(game_fields),
        player_names=tuple(f.attname for f in player_fields),
        player_readers=readers(player_fields),
    )
    _GAME_SELECT[key] = built
    return built


def _converted(values: Iterable[Any], readers: Sequence[tuple[int, Any]]) -> list[Any]:
    out = list(values)
    for i, read in readers:
        out[i] = read(out[i])
    return out


def game_lock_read(game_id: int, using: str = DEFAULT_DB_ALIAS) -> Game | None:
    """The game row with its creator, locked until the end of the current transaction (only
    the game row, not the player's): what
    ``Game.objects.select_for_update(of=("self",)).select_related("created_by").filter(pk=
    game_id).first()`` returns. None when there is no such game."""
    connection = connections[using]
    if not _supported(connection):
        return (
            Game.objects.using(using)
            .select_for_update(of=("self",))
            .select_related("created_by")
            .filter(pk=game_id)
            .first()
        )
    if connection.features.has_select_for_update and transaction.get_autocommit(using):
        raise TransactionManagementError(
            "select_for_update cannot be used outside of a transaction."
        )
    return _game_fetch(connection, _game_select(connection), game_id, using)


def game_read(game_id: int, using: str = DEFAULT_DB_ALIAS) -> Game | None:
    """The game row with its creator, not locked: what
    ``Game.objects.select_related("created_by").filter(pk=game_id).first()`` returns (every
    game read of the API runs it). None when there is no such game."""
    connection = connections[using]
    if not _supported(connection):
        return Game.objects.using(using).select_related("created_by").filter(pk=game_id).first()
    return _game_fetch(connection, _game_select(connection, lock=False), game_id, using)


def _game_fetch(
    connection: BaseDatabaseWrapper, select: _GameSelect, game_id: int, using: str
) -> Game | None:
    with connection.cursor() as cursor:
        cursor.execute(select.sql, [game_id])
        row = cursor.fetchone()
    if row is None:
        return None
    split = len(select.game_names)
    game = Game.from_db(
        using, list(select.game_names), _converted(row[:split], select.game_readers)
    )
    creator = Player.from_db(
        using, list(select.player_names), _converted(row[split:], select.player_readers)
    )
    game.created_by = creator  # cached on the game, as select_related leaves it
    return game


# ----------------------------------------------------------------------------- writing


_WRITE_SQL: dict[tuple[str, str, type[Model], tuple[str, ...]], tuple[str, tuple[Any, ...]]] = {}


def _prepared_values(
    obj: Model, fields: Sequence[Field[Any, Any]], connection: BaseDatabaseWrapper, *, add: bool
) -> list[Any]:
    """As ``Model.save``: each field's ``pre_save`` (``auto_now``...), then its database
    form (``get_db_prep_save``)."""
    values = []
    for field in fields:
        value = field.pre_save(obj, add)
        if hasattr(value, "resolve_expression"):
            raise TypeError(
                f"{type(obj).__name__}.{field.name} holds an expression: save it with the ORM"
            )
        values.append(field.get_db_prep_save(value, connection))
    return values


def _insert_sql(connection: BaseDatabaseWrapper, model: type[Model]) -> tuple[str, tuple[Any, ...]]:
    key = (connection.vendor, connection.alias, model, ())
    built = _WRITE_SQL.get(key)
    if built is None:
        quote = connection.ops.quote_name
        pk = model._meta.pk
        assert pk is not None
        if not isinstance(pk, AutoField):
            raise TypeError(f"{model.__name__}: row_insert needs an automatic primary key")
        fields = tuple(f for f in _fields(model) if f is not pk)
        sql = (
            f"INSERT INTO {quote(model._meta.db_table)}"
            f" ({', '.join(quote(str(f.column)) for f in fields)})"
            f" VALUES ({', '.join(['%s'] * len(fields))})"
        )
        if connection.features.can_return_columns_from_insert:
            sql += f" RETURNING {quote(str(pk.column))}"
        built = _WRITE_SQL[key] = (sql, fields)
    return built


def row_insert(obj: Model, using: str = DEFAULT_DB_ALIAS) -> None:
    """``obj.save(force_insert=True)`` for a new row of a model with an automatic primary key:
    every other column is written and the new key is set on ``obj`` (no signal is sent)."""
    if obj.pk is not None:
        raise ValueError(f"{type(obj).__name__} #{obj.pk} already has a primary key")
    connection = connections[using]
    model = type(obj)
    if not _supported(connection):
        obj.save(force_insert=True, using=using)
        return
    sql, fields = _insert_sql(connection, model)
    values = _prepared_values(obj, fields, connection, add=True)
    with transaction.mark_for_rollback_on_error(using), connection.cursor() as cursor:
        cursor.execute(sql, values)
        if connection.features.can_return_columns_from_insert:
            obj.pk = cursor.fetchone()[0]
        else:
            obj.pk = cursor.lastrowid
    obj._state.adding = False
    obj._state.db = using


def row_update(obj: Model, fields: Sequence[str], using: str = DEFAULT_DB_ALIAS) -> None:
    """``obj.save(update_fields=fields)`` of an existing row: those columns only, by primary
    key (no signal is sent). Raises ``DatabaseError``
    (as ``save`` does) when no row has that key, ``ValueError`` for a name that is not an
    updatable column."""
    connection = connections[using]
    model = type(obj)
    if not fields:
        return  # as save(update_fields=[]): nothing written, no signal
    if not _supported(connection):
        obj.save(update_fields=fields, using=using)
        return
    names = tuple(fields)
    key = (connection.vendor, connection.alias, model, names)
    built = _WRITE_SQL.get(key)
    if built is None:
        pk = model._meta.pk
        assert pk is not None
        by_name = {}
        for f in _fields(model):
            if f is not pk:
                by_name[f.name] = by_name[f.attname] = f
        unknown = [name for name in names if name not in by_name]
        if unknown:
            raise ValueError(
                "The following fields do not exist in this model, are m2m fields, primary "
                f"keys, or are non-concrete fields: {', '.join(unknown)}"
            )
        chosen = tuple(dict.fromkeys(by_name[name] for name in names))
        quote = connection.ops.quote_name
        sql = (
            f"UPDATE {quote(model._meta.db_table)}"
            f" SET {', '.join(f'{quote(str(f.column))} = %s' for f in chosen)}"
            f" WHERE {quote(str(pk.column))} = %s"
        )
        built = _WRITE_SQL[key] = (sql, chosen)
    sql, chosen = built
    values = _prepared_values(obj, chosen, connection, add=False)
    pk_field = model._meta.pk
    assert pk_field is not None
    values.append(pk_field.get_db_prep_value(obj.pk, connection))
    with transaction.mark_for_rollback_on_error(using), connection.cursor() as cursor:
        cursor.execute(sql, values)
        if cursor.rowcount < 1:
            raise DatabaseError("Save with update_fields did not affect any rows.")
    obj._state.adding = False
    obj._state.db = using
