"""Querysets compiled to SQL once per database connection, then run with new parameters.

Turning a queryset into SQL (Django's ``SQLCompiler.as_sql``) costs more CPU than running the
query against the database: about half a millisecond for a select with two joins, measured
with ``python -m bench.profile``. The few reads that every move and every game view make (the
token with its user and player, the game with its creator) are
built once as ordinary querysets and compiled on first use; later runs substitute the
parameters into the same SQL and build the model instances the way ``QuerySet.__iter__``
does (Django's own converters, ``Model.from_db``, ``select_related`` populators), so the rows
come back exactly as the ORM would return them.

A ``PreparedQuery`` is declared with a builder and the types of its parameters::

    GAME = PreparedQuery(lambda pk: Game.objects.select_related("created_by").filter(pk=pk), int)
    game = GAME.first(game_id)

The builder is called once with a distinct placeholder value per parameter; each placeholder
must appear exactly once among the compiled SQL's parameters, where the real values go. The
compiled form is kept per connection object (each thread has its own), so no two threads
share a compiler.

The two writes of every move get the same treatment: ``PreparedInsert`` (a new row: every
concrete field but the automatic key) and ``PreparedUpdate`` (some columns of one row by key)
build their SQL once per connection from the model's fields and take each value through the
field's own ``pre_save`` and ``get_db_prep_save``, as ``Model.save`` does; both send
``pre_save`` and ``post_save``, so receivers (the live notifications) see them as any save.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar
from weakref import WeakKeyDictionary

from django.core.exceptions import EmptyResultSet, ObjectDoesNotExist
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators
from django.db.models.signals import post_save, pre_save

M = TypeVar("M", bound=Model)

# Placeholders, distinct from the query's other parameters (checked). An integer placeholder
# lies within every integer field's range (Django compiles a lookup with an out-of-range value
# to an empty result, with no SQL at all).
_PLACEHOLDERS: dict[type, Callable[[int], Any]] = {
    int: lambda i: 32_101 + i,
    str: lambda i: f"\x00prepared-parameter-{i}\x00",
}


@dataclass(frozen=True)
class _Compiled(Generic[M]):
    sql: str
    params: tuple[Any, ...]
    positions: tuple[int, ...]  # where each argument goes in ``params``
    compiler: Any  # SQLCompiler: applies the converters
    converters: Any  # per column, the database's and the fields' from_db_value converters
    model: type[M]
    fields: tuple[int, int]  # the model's own columns: row[start:end]
    init_list: tuple[str, ...]
    populators: tuple[Any, ...]  # select_related objects


class PreparedQuery(Generic[M]):
    def __init__(self, build: Callable[..., QuerySet[M]], *types: type) -> None:
        unknown = [t for t in types if t not in _PLACEHOLDERS]
        if unknown:
            raise TypeError(f"parameter types must be int or str, not {unknown}")
        self.build = build
        self.types = types
        self._compiled: WeakKeyDictionary[BaseDatabaseWrapper, _Compiled[M]] = WeakKeyDictionary()
        self._lock = threading.Lock()

    def _compile(self, connection: BaseDatabaseWrapper, using: str) -> _Compiled[M]:
        placeholders = [_PLACEHOLDERS[t](i) for i, t in enumerate(self.types)]
        queryset = self.build(*placeholders).using(using)
        compiler = queryset.query.get_compiler(connection=connection)
        try:
            sql, params = compiler.as_sql()
        except EmptyResultSet:
            raise ValueError(
                f"this {queryset.model.__name__} query can match no row: nothing to prepare"
            ) from None
        positions = []
        for placeholder in placeholders:
            found = [i for i, p in enumerate(params) if p == placeholder]
            if len(found) != 1:
                raise ValueError(
                    f"placeholder {placeholder!r} appears {len(found)} times in the parameters"
                    f" of {sql!r}: a prepared query takes each parameter exactly once"
                )
            positions.append(found[0])
        klass_info = compiler.klass_info
        start, end = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        columns = [column[0] for column in compiler.select[0 : compiler.col_count]]
        if compiler.has_composite_fields(columns):
            raise ValueError("a prepared query cannot select a composite primary key")
        return _Compiled(
            sql=sql,
            params=tuple(params),
            positions=tuple(positions),
            compiler=compiler,
            converters=compiler.get_converters(columns),
            model=klass_info["model"],
            fields=(start, end),
            init_list=tuple(f[0].target.attname for f in compiler.select[start:end]),
            # Django 5.2's signature (the stubs describe a later one).
            populators=tuple(
                get_related_populators(klass_info, compiler.select, using)  # type: ignore[call-arg]
            ),
        )

    def all(self, *args: Any, using: str = DEFAULT_DB_ALIAS) -> list[M]:
        """The rows, as model instances (with their ``select_related`` objects)."""
        if len(args) != len(self.types):
            raise TypeError(f"expected {len(self.types)} arguments, got {len(args)}")
        connection = connections[using]
        compiled = self._compiled.get(connection)
        if compiled is None:
            compiled = self._compile(connection, using)
            with self._lock:
                self._compiled[connection] = compiled
        params = list(compiled.params)
        for position, value in zip(compiled.positions, args, strict=True):
            params[position] = value
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            raw = cursor.fetchall()
        start, end = compiled.fields
        out = []
        rows = (
            compiled.compiler.apply_converters(raw, compiled.converters)
            if compiled.converters
            else raw
        )
        for row in rows:
            obj = compiled.model.from_db(using, list(compiled.init_list), row[start:end])
            for populator in compiled.populators:
                populator.populate(row, obj)
            out.append(obj)
        return out

    def first(self, *args: Any, using: str = DEFAULT_DB_ALIAS) -> M | None:
        rows = self.all(*args, using=using)
        return rows[0] if rows else None


class _PreparedWrite:
    """SQL for one model's row, built once per connection from the model's fields."""

    def __init__(self, model: type[Model], fields: Sequence[str]) -> None:
        meta = model._meta
        assert meta.pk is not None
        self.model = model
        self.fields = tuple(meta.get_field(name) for name in fields)
        self.table = meta.db_table
        self.columns = tuple(str(getattr(f, "column", "")) for f in self.fields)
        self.pk_column = str(meta.pk.column)
        self._sql: WeakKeyDictionary[BaseDatabaseWrapper, str] = WeakKeyDictionary()

    def _values(self, obj: Model, connection: BaseDatabaseWrapper, *, add: bool) -> list[Any]:
        # As Model.save does: pre_save (auto_now, auto_now_add), then the database's form.
        return [
            field.get_db_prep_save(field.pre_save(obj, add), connection)  # type: ignore[union-attr]
            for field in self.fields
        ]

    def _send(self, signal: Any, obj: Model, using: str, **kwargs: Any) -> None:
        signal.send(sender=self.model, instance=obj, raw=False, using=using, **kwargs)


class PreparedUpdate(_PreparedWrite):
    """``obj.save(update_fields=fields)`` for a row known to exist, with the UPDATE built once
    per connection; sends ``pre_save`` and ``post_save`` as ``save`` does. The row is found
    by its primary key, or by the fields named in ``key`` (which must pick exactly one row)."""

    def __init__(self, model: type[Model], fields: Sequence[str], key: Sequence[str] = ()) -> None:
        super().__init__(model, fields)
        meta = model._meta
        assert meta.pk is not None
        self.key = tuple(meta.get_field(name) for name in key) or (meta.pk,)

    def save(self, obj: Model, using: str = DEFAULT_DB_ALIAS) -> None:
        connection = connections[using]
        sql = self._sql.get(connection)
        if sql is None:
            quote = connection.ops.quote_name
            assignments = ", ".join(f"{quote(c)} = %s" for c in self.columns)
            where = " AND ".join(f"{quote(str(getattr(f, 'column', '')))} = %s" for f in self.key)
            sql = f"UPDATE {quote(self.table)} SET {assignments} WHERE {where}"
            self._sql[connection] = sql
        names = frozenset(f.name for f in self.fields)
        key = [
            f.get_db_prep_value(getattr(obj, str(getattr(f, "attname", ""))), connection)  # type: ignore[union-attr]
            for f in self.key
        ]
        self._send(pre_save, obj, using, update_fields=names)
        with connection.cursor() as cursor:
            cursor.execute(sql, [*self._values(obj, connection, add=False), *key])
            if cursor.rowcount != 1:
                raise ObjectDoesNotExist(
                    f"{cursor.rowcount} {self.model.__name__} rows match {key}: expected one"
                )
        self._send(post_save, obj, using, created=False, update_fields=names)


class PreparedInsert(_PreparedWrite):
    """``obj.save()`` of a new row (every concrete field but the automatic primary key), with
    the INSERT built once per connection; sets the new key and sends ``pre_save`` and
    ``post_save`` as ``save`` does."""

    def __init__(self, model: type[Model]) -> None:
        meta = model._meta
        super().__init__(
            model, [f.name for f in meta.local_concrete_fields if f is not meta.auto_field]
        )

    def save(self, obj: Model, using: str = DEFAULT_DB_ALIAS) -> None:
        connection = connections[using]
        returning = connection.features.can_return_columns_from_insert
        quote = connection.ops.quote_name
        sql = self._sql.get(connection)
        if sql is None:
            columns = ", ".join(quote(c) for c in self.columns)
            marks = ", ".join(["%s"] * len(self.columns))
            sql = f"INSERT INTO {quote(self.table)} ({columns}) VALUES ({marks})"
            if returning:
                sql += f" RETURNING {quote(self.pk_column)}"
            self._sql[connection] = sql
        self._send(pre_save, obj, using, update_fields=None)
        with connection.cursor() as cursor:
            cursor.execute(sql, self._values(obj, connection, add=True))
            if returning:
                obj.pk = cursor.fetchone()[0]
            else:
                obj.pk = connection.ops.last_insert_id(cursor, self.table, self.pk_column)
        obj._state.adding = False
        obj._state.db = using
        self._send(post_save, obj, using, created=True, update_fields=None)
