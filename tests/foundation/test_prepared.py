"""Prepared queries (canasta_service/prepared.py) return what the ORM returns, on any database."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from canasta_service.prepared import PreparedQuery
from games.models import Game, Player, Seat
from games.services.lobby import game_create
from games.services.players import player_create

pytestmark = pytest.mark.django_db

GAME = PreparedQuery(lambda pk: Game.objects.select_related("created_by").filter(pk=pk), int)
SEATS = PreparedQuery(
    lambda game_id: Seat.objects.filter(game_id=game_id).select_related("player").order_by("index"),
    int,
)
BY_NAME = PreparedQuery(
    lambda name, pk: Player.objects.filter(display_name=name).exclude(pk=pk), str, int
)


@pytest.fixture
def game() -> Game:
    ada, _ = player_create(display_name="Ada")
    return game_create(creator=ada, preset="classic", options={"target_score": 1000})


def test_a_prepared_query_returns_the_rows_the_orm_returns(game: Game) -> None:
    orm = Game.objects.select_related("created_by").get(pk=game.pk)
    for _ in range(2):  # compiled on the first run, reused on the second
        with CaptureQueriesContext(connection) as ctx:
            prepared = GAME.first(game.pk)
            assert prepared is not None
            assert prepared.created_by.display_name == "Ada"  # joined, no query
        assert len(ctx.captured_queries) == 1
        for field in Game._meta.concrete_fields:
            assert getattr(prepared, field.attname) == getattr(orm, field.attname), field.name
        assert not prepared._state.adding and prepared._state.db == "default"
        assert isinstance(prepared.options, dict) and prepared.created_at.tzinfo is not None


def test_rows_come_in_the_querysets_order_with_nullable_joins(game: Game) -> None:
    seats = SEATS.all(game.pk)
    assert [s.index for s in seats] == [0, 1, 2, 3]
    orm = list(Seat.objects.filter(game=game).select_related("player").order_by("index"))
    assert [(s.pk, s.player_id) for s in seats] == [(s.pk, s.player_id) for s in orm]
    with CaptureQueriesContext(connection) as ctx:
        assert [s.player.display_name if s.player else None for s in seats][0] == "Ada"
        assert all(s.player is None for s in seats[1:])  # empty seats: the join gave nothing
    assert not ctx.captured_queries


def test_parameters_go_where_they_belong_and_no_row_is_none(game: Game) -> None:
    bob, _ = player_create(display_name="Bob")
    ada = Player.objects.get(display_name="Ada")
    assert [p.pk for p in BY_NAME.all("Bob", ada.pk)] == [bob.pk]
    assert BY_NAME.all("Bob", bob.pk) == []
    assert GAME.first(game.pk + 1000) is None


def test_a_parameter_must_appear_exactly_once() -> None:
    twice = PreparedQuery(lambda pk: Game.objects.filter(pk=pk, version=pk), int)
    constant = PreparedQuery(lambda pk: Game.objects.filter(pk=pk, version=32_101), int)
    with pytest.raises(ValueError, match="appears 2 times"):
        twice.first(1)
    with pytest.raises(ValueError, match="appears 2 times"):
        constant.first(1)
    with pytest.raises(TypeError, match="expected 1 arguments"):
        GAME.first()
    with pytest.raises(TypeError, match="int or str"):
        PreparedQuery(lambda when: Game.objects.filter(created_at=when), float)


def test_prepared_writes_store_what_save_stores_and_send_the_signals(
    game: Game, replay_unverified: None
) -> None:
    from django.db.models.signals import post_save

    from canasta_service.prepared import PreparedInsert, PreparedUpdate
    from games.models import GameEvent

    saved: list[tuple[str, bool, object]] = []

    def record(sender: type, instance: object, created: bool, **kwargs: object) -> None:
        saved.append((sender.__name__, created, kwargs.get("update_fields")))

    post_save.connect(record, dispatch_uid="test_prepared")
    try:
        event = GameEvent(game=game, seq=7, seat=1, type="draw", payload={"type": "draw"})
        PreparedInsert(GameEvent).save(event)
        assert event.pk is not None and not event._state.adding
        stored = GameEvent.objects.get(pk=event.pk)
        assert (stored.seq, stored.seat, stored.payload, stored.effects, stored.source) == (
            7,
            1,
            {"type": "draw"},
            [],
            "player",
        )
        assert stored.created_at == event.created_at and stored.created_at is not None

        before = Game.objects.get(pk=game.pk).updated_at
        game.version, game.snapshot, game.preset = 9, {"melds": [1, "x"]}, "not written"
        PreparedUpdate(Game, ["version", "snapshot", "updated_at"]).save(game)
        fresh = Game.objects.get(pk=game.pk)
        assert (fresh.version, fresh.snapshot, fresh.preset) == (9, {"melds": [1, "x"]}, "classic")
        assert fresh.updated_at > before  # auto_now, as save() does it
    finally:
        post_save.disconnect(dispatch_uid="test_prepared")
    assert saved == [
        ("GameEvent", True, None),
        ("Game", False, frozenset({"version", "snapshot", "updated_at"})),
    ]


def test_an_update_of_a_missing_row_is_an_error(game: Game) -> None:
    from django.core.exceptions import ObjectDoesNotExist

    from canasta_service.prepared import PreparedUpdate

    gone = Game(pk=game.pk + 1000, version=1)
    with pytest.raises(ObjectDoesNotExist):
        PreparedUpdate(Game, ["version"]).save(gone)


def test_an_update_by_key_fields_changes_that_row_only(game: Game) -> None:
    from canasta_service.prepared import PreparedUpdate
    from games.models import Meld

    values = {"cards": ["5H", "5S", "5D"], "natural_count": 3, "wild_count": 0, "is_canasta": False}
    Meld.objects.create(game=game, team=0, rank="5", **values)
    Meld.objects.create(game=game, team=1, rank="5", **values)
    grown = {**values, "cards": ["5H", "5S", "5D", "2C"], "wild_count": 1}
    PreparedUpdate(Meld, Meld.VALUES, key=("game", "team", "rank")).save(
        Meld(game=game, team=1, rank="5", **grown)
    )
    rows = {m.team: m for m in Meld.objects.filter(game=game)}
    assert rows[0].cards == values["cards"] and rows[0].wild_count == 0
    assert rows[1].cards == grown["cards"] and rows[1].wild_count == 1
