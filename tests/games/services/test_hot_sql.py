"""games/hot_sql.py against the ORM it stands for, on the database the suite runs on.

Run on SQLite (the default) and on PostgreSQL (``DATABASE_URL=postgres://...``): every test
compares the hand-written SQL with the ORM call it replaces on the same database, field by
field and type by type, including what "nothing silently dropped" means here: every column of
the model is read and inserted, every named column is updated and no other, a write that
matches no row raises, and no model signal is sent (nothing listens: the live wake-up goes
with the event, ``games.services.log``). The ``postgres`` tests check
what only PostgreSQL has: the row lock is taken, on the game row only.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db import (
    DatabaseError,
    IntegrityError,
    OperationalError,
    connection,
    connections,
    transaction,
)
from django.db.models import F, Field, Model
from django.db.models.signals import post_save, pre_save
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Player
from accounts.services.players import player_create
from games import errors, hot_sql, live
from games.engine.view import player_view
from games.hot_sql import game_lock_read, game_read, row_insert, row_update
from games.models import EventSource, Game, GameEvent, GameStatus
from games.services.lobby import game_create, game_join, game_start
from games.services.locks import game_lock
from games.services.log import log_append
from games.services.moves import MOVE_FIELDS, move_apply
from tests.games.api.conftest import choose, snapshot_of

pytestmark = pytest.mark.django_db

ON_POSTGRES = connection.vendor == "postgresql"


def columns(model: type[Model]) -> list[str]:
    """Every column of ``model``, found independently of hot_sql (the documented _meta API)."""
    return [f.attname for f in model._meta.get_fields() if isinstance(f, Field) and f.concrete]


def row(obj: Model) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in columns(type(obj))}


def typed(values: dict[str, Any]) -> dict[str, tuple[type, Any]]:
    """Values with their types: 1 == True and naive == aware comparisons must not pass."""
    return {k: (type(v), v) for k, v in values.items()}


def started(seed: str = "") -> Game:
    ada, _ = player_create(display_name="Ada")
    bob, _ = player_create(display_name="Bob")
    game = game_create(creator=ada, preset="two_player")
    if seed:  # the same seed deals the same cards
        Game.objects.filter(pk=game.pk).update(seed=seed)
    game_join(game_id=game.pk, player=bob)
    return game_start(game_id=game.pk, player=ada)


@pytest.fixture
def saves() -> Iterator[list[tuple[str, type, dict[str, Any]]]]:
    """The pre_save / post_save signals sent for games and events: (signal, sender, kwargs)."""
    sent: list[tuple[str, type, dict[str, Any]]] = []

    def record(name: str) -> Callable[..., None]:
        def receiver(sender: type, **kwargs: Any) -> None:
            kwargs.pop("signal")
            instance = kwargs.pop("instance")
            sent.append((name, sender, {**kwargs, "pk": instance.pk}))

        return receiver

    receivers = {"pre_save": record("pre_save"), "post_save": record("post_save")}
    for model in (Game, GameEvent):
        pre_save.connect(receivers["pre_save"], sender=model, dispatch_uid=f"hot-pre-{model}")
        post_save.connect(receivers["post_save"], sender=model, dispatch_uid=f"hot-post-{model}")
    yield sent
    for model in (Game, GameEvent):
        pre_save.disconnect(sender=model, dispatch_uid=f"hot-pre-{model}")
        post_save.disconnect(sender=model, dispatch_uid=f"hot-post-{model}")


# ----------------------------------------------------------------------------- the read


def test_the_locked_read_returns_what_the_orm_returns() -> None:
    game = started()
    with transaction.atomic():
        orm = (
            Game.objects.select_for_update(of=("self",))
            .select_related("created_by")
            .get(pk=game.pk)
        )
        with CaptureQueriesContext(connection) as ctx:
            hot = game_lock_read(game.pk)
            assert hot is not None
            creator = hot.created_by  # joined: no query
        assert len(ctx.captured_queries) == 1
    sql = ctx.captured_queries[0]["sql"]
    assert ("FOR UPDATE OF" in sql) == ON_POSTGRES  # SQLite has no row locks (nor has the ORM)
    assert typed(row(hot)) == typed(row(orm))
    assert typed(row(creator)) == typed(row(orm.created_by))
    assert set(row(hot)) == {f.attname for f in Game._meta.concrete_fields}  # every column
    assert isinstance(hot.snapshot, dict) and isinstance(hot.seating, list)
    assert hot.created_at.tzinfo is not None and hot.started_at is not None
    for obj in (hot, creator):
        assert not obj._state.adding and obj._state.db == "default"
        assert not obj.get_deferred_fields()


def test_the_plain_read_returns_what_the_orm_returns_and_locks_nothing() -> None:
    game = started()
    orm = Game.objects.select_related("created_by").get(pk=game.pk)
    with CaptureQueriesContext(connection) as ctx:
        hot = game_read(game.pk)
        assert hot is not None
        creator = hot.created_by  # joined: no query
    assert len(ctx.captured_queries) == 1
    assert "FOR UPDATE" not in ctx.captured_queries[0]["sql"]
    assert typed(row(hot)) == typed(row(orm))
    assert typed(row(creator)) == typed(row(orm.created_by))
    assert game_read(game.pk + 999) is None


def test_a_missing_game_reads_as_none_and_its_lock_is_not_found() -> None:
    with transaction.atomic():
        assert game_lock_read(10**9) is None
        with pytest.raises(errors.GameNotFound):
            game_lock(10**9)


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_lock_is_refused_as_by_the_orm() -> None:
    game = started()
    orm = Game.objects.select_for_update(of=("self",)).select_related("created_by")
    if ON_POSTGRES:
        with pytest.raises(TransactionManagementError):
            orm.get(pk=game.pk)
        with pytest.raises(TransactionManagementError):
            game_lock_read(game.pk)
    else:  # the ORM leaves the lock out on SQLite, and so does hot_sql
        assert orm.get(pk=game.pk).pk == game_lock_read(game.pk).pk  # type: ignore[union-attr]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_read_locks_the_game_row_and_not_the_creators() -> None:
    game = started()
    outcome: dict[str, Any] = {}

    def other_connection() -> None:
        try:
            with transaction.atomic():
                try:
                    Game.objects.select_for_update(nowait=True).get(pk=game.pk)
                    outcome["game"] = "free"
                except OperationalError:
                    outcome["game"] = "locked"
            with transaction.atomic():
                Player.objects.select_for_update(nowait=True).get(pk=game.created_by_id)
                outcome["creator"] = "free"
        finally:
            connections.close_all()

    with transaction.atomic():
        assert game_lock_read(game.pk) is not None
        thread = threading.Thread(target=other_connection)
        thread.start()
        thread.join(timeout=30)
    assert outcome == {"game": "locked", "creator": "free"}


# ----------------------------------------------------------------------------- the writes


def event_for(game: Game, seq: int) -> GameEvent:
    return GameEvent(
        game=game,
        seq=seq,
        seat=1,
        type="discard",
        source=EventSource.BOT,
        payload={"type": "discard", "card": "QH", "nested": [1, None, "é"]},
        effects=[{"kind": "discarded", "seat": 1, "public": {"card": "QH"}, "private": {}}],
    )


def test_an_inserted_event_is_what_save_stores(
    saves: list[tuple[str, type, dict[str, Any]]], replay_unverified: None
) -> None:
    game = started()
    by_orm, by_hot = event_for(game, 901), event_for(game, 902)
    saves[:] = []
    by_orm.save(force_insert=True)
    orm_signals, saves[:] = list(saves), []
    with CaptureQueriesContext(connection) as ctx:
        row_insert(by_hot)
    assert len(ctx.captured_queries) == 1
    assert ctx.captured_queries[0]["sql"].startswith('INSERT INTO "games_gameevent"')
    assert by_hot.pk is not None and by_hot.pk != by_orm.pk
    assert not by_hot._state.adding and by_hot._state.db == "default"
    assert by_hot.created_at is not None  # auto_now_add, set on the instance as save sets it
    stored_orm = GameEvent.objects.get(pk=by_orm.pk)
    stored_hot = GameEvent.objects.get(pk=by_hot.pk)
    assert row(stored_hot) == row(by_hot)  # the instance holds what was stored
    differ = {"id", "seq", "created_at"}
    assert {k: v for k, v in typed(row(stored_hot)).items() if k not in differ} == {
        k: v for k, v in typed(row(stored_orm)).items() if k not in differ
    }
    # save sends its signals (nobody listens to them); the hot insert sends none.
    assert [n for n, _, _ in orm_signals] == ["pre_save", "post_save"]
    assert saves == []


def test_every_column_of_an_event_is_inserted(replay_unverified: None) -> None:
    game = started()
    event = event_for(game, 903)
    event.seat = None  # a nullable column, stored as NULL and not left out
    row_insert(event)
    stored = GameEvent.objects.get(pk=event.pk)
    assert set(row(stored)) == set(columns(GameEvent))
    for name in columns(GameEvent):
        assert getattr(stored, name) == getattr(event, name), name


def test_an_appended_event_wakes_live_clients_on_commit_and_a_bare_insert_does_not(
    django_capture_on_commit_callbacks: Any, replay_unverified: None, monkeypatch: Any
) -> None:
    game = started()
    woken: list[int] = []
    monkeypatch.setattr(live, "notify", woken.append)
    with django_capture_on_commit_callbacks(execute=True) as bare:
        row_insert(event_for(game, 904))
        event_for(game, 905).save(force_insert=True)  # no receiver: the log's writer wakes
    assert bare == [] and woken == []
    with django_capture_on_commit_callbacks(execute=True) as appended:
        log_append(game, seq=906, type="discard", source=EventSource.BOT, payload={})
    assert len(appended) == 1 and woken == [game.pk]


def test_a_duplicate_event_is_an_integrity_error_as_with_save(replay_unverified: None) -> None:
    game = started()  # event seq 1 exists
    for insert in (lambda e: e.save(force_insert=True), row_insert):
        with transaction.atomic():
            with pytest.raises(IntegrityError):
                insert(event_for(game, 1))
            assert transaction.get_rollback()  # the block is marked for rollback, as by save


def test_an_event_with_a_key_or_an_expression_is_refused(replay_unverified: None) -> None:
    game = started()
    existing = GameEvent.objects.get(game=game, seq=1)
    with pytest.raises(ValueError):
        row_insert(existing)
    event = event_for(game, 906)
    event.seat = F("seq")
    with pytest.raises(TypeError):
        row_insert(event)
    assert not GameEvent.objects.filter(game=game, seq=906).exists()


def moved(game: Game, now: datetime) -> None:
    """Change every column a move writes, and one it does not (``seed``)."""
    game.version += 7
    game.status = GameStatus.FINISHED
    game.finished_at = now - timedelta(minutes=3)
    game.snapshot = {**(game.snapshot or {}), "extra": [1, 2.5, None, {"é": True}]}
    game.to_act = None
    game.winner_team = 1
    game.turn_deadline = now + timedelta(seconds=30)
    game.seed = "not written: not among the fields"


def test_an_update_writes_the_named_columns_as_save_does(
    saves: list[tuple[str, type, dict[str, Any]]], replay_unverified: None
) -> None:
    game = started()
    before = row(Game.objects.get(pk=game.pk))
    results, signals, now = {}, {}, timezone.now()
    updates: dict[str, Callable[[Game, list[str]], None]] = {
        "orm": lambda g, f: g.save(update_fields=f),
        "hot": row_update,
    }
    for name, update in updates.items():
        Game.objects.filter(pk=game.pk).update(**{k: v for k, v in before.items() if k != "id"})
        obj = Game.objects.get(pk=game.pk)
        moved(obj, now)
        saves[:] = []
        with CaptureQueriesContext(connection) as ctx:
            update(obj, MOVE_FIELDS)
        assert len(ctx.captured_queries) == 1
        signals[name] = list(saves)
        stored = Game.objects.get(pk=game.pk)
        assert stored.seed == before["seed"]  # not among the fields: not written
        assert stored.updated_at == obj.updated_at > before["updated_at"]  # auto_now
        results[name] = typed({k: v for k, v in row(stored).items() if k != "updated_at"})
        for field in MOVE_FIELDS:
            assert getattr(stored, field) == getattr(obj, field), (name, field)
    assert results["hot"] == results["orm"]
    assert [n for n, _, _ in signals["orm"]] == ["pre_save", "post_save"]
    assert signals["hot"] == []  # no model signal from the hot path


def test_an_update_of_no_row_or_of_an_unknown_field_fails_as_save_does(
    replay_unverified: None,
) -> None:
    game = started()
    gone = Game.objects.get(pk=game.pk)
    gone.pk = 10**9
    for update in (lambda g, f: g.save(update_fields=f), row_update):
        with (
            transaction.atomic(),
            pytest.raises(DatabaseError, match="did not affect any rows"),
        ):
            update(gone, ["version"])
        with pytest.raises(ValueError, match="do not exist in this model"):
            update(game, ["version", "no_such_field"])
        with pytest.raises(ValueError):
            update(game, ["id"])  # the key is not updatable
    with CaptureQueriesContext(connection) as ctx:
        row_update(game, [])  # as save(update_fields=[]): nothing at all
    assert ctx.captured_queries == []


# ----------------------------------------------------------------------------- a whole game


def play(game: Game, moves: int) -> None:
    for _ in range(moves):
        state = snapshot_of(game.pk)
        if state.game_over:
            return
        seat = state.to_act
        version = Game.objects.get(pk=game.pk).version
        action = choose(player_view(state, seat)["legal_actions"])
        move_apply(game_id=game.pk, seat=seat, action=action, expected_version=version)


def test_moves_store_the_same_rows_as_through_the_orm(monkeypatch: pytest.MonkeyPatch) -> None:
    seed = "a" * 64
    hot = started(seed)
    play(hot, 60)
    monkeypatch.setattr(hot_sql, "SUPPORTED", ())  # every hot_sql call goes to the ORM
    with CaptureQueriesContext(connection) as ctx, transaction.atomic():
        game_lock(hot.pk)
    (read,) = [q["sql"] for q in ctx.captured_queries if q["sql"].startswith("SELECT")]
    assert "ORDER BY" in read  # the ORM's query, not hot_sql's
    orm = started(seed)
    play(orm, 60)
    differ = {"id", "join_code", "created_by_id", "created_at", "updated_at", "started_at"}
    differ |= {"finished_at", "turn_deadline", "seating"}  # times and the seated player ids
    hot_row, orm_row = row(Game.objects.get(pk=hot.pk)), row(Game.objects.get(pk=orm.pk))
    assert hot_row["version"] > 40
    assert typed({k: v for k, v in hot_row.items() if k not in differ}) == typed(
        {k: v for k, v in orm_row.items() if k not in differ}
    )
    seats = [[s["index"] for s in g["seating"]] for g in (hot_row, orm_row)]
    assert seats[0] == seats[1]

    def events(game: Game) -> list[dict[str, tuple[type, Any]]]:
        return [
            typed({k: v for k, v in row(e).items() if k not in {"id", "game_id", "created_at"}})
            for e in GameEvent.objects.filter(game=game).order_by("seq")
        ]

    hot_events, orm_events = events(hot), events(orm)
    assert len(hot_events) == hot_row["version"]
    # event 1 (the deal) names the seated players; the moves after it are the same
    assert hot_events[1:] == orm_events[1:]
