"""The Django admin shows every model of the game app and changes none of a game's truth; a
player's display name is the one thing it changes, through ``player_rename``."""

from __future__ import annotations

from typing import Any

import pytest
from django.apps import apps
from django.contrib import admin
from django.contrib.auth.models import User
from django.db import models
from django.forms.models import model_to_dict
from django.test import Client
from django.urls import reverse

from accounts import errors
from accounts.models import Player
from accounts.services.players import player_create
from core.errors import ServiceError
from games.models import Game, GameEvent, Seat
from games.selectors.seating import seating_of
from games.selectors.verify import game_verify
from games.services.lobby import BotSeatSpec, game_create, game_join, game_start
from games.services.players import player_rename

pytestmark = pytest.mark.django_db

# Every model of the service's apps, each in the admin.
GAME_MODELS = [
    model
    for app in ("accounts", "games", "competition", "notifications", "bots")
    for model in apps.get_app_config(app).get_models()
]


@pytest.fixture
def staff(client: Client) -> Client:
    User.objects.create_superuser("root", "root@example.com", "pw")
    client.login(username="root", password="pw")
    return client


@pytest.fixture
def game() -> Game:
    """A started two-player game: Ada (seat 0) against a bot."""
    ada = player_create(display_name="Ada")[0]
    created = game_create(creator=ada, preset="two_player", bots=[BotSeatSpec(seat=1)])
    return game_start(game_id=created.pk, player=ada)


def _url(model: type[models.Model], view: str, pk: Any = None) -> str:
    """The admin's ``view`` (changelist, add, change, delete) of ``model``."""
    name = f"admin:{model._meta.app_label}_{model._meta.model_name}_{view}"
    return reverse(name, args=() if pk is None else (pk,))


def _state(obj: models.Model) -> dict[str, Any]:
    """Every concrete field of the row as stored now."""
    fresh = type(obj)._default_manager.get(pk=obj.pk)
    return {f.attname: getattr(fresh, f.attname) for f in fresh._meta.concrete_fields}


def _form_post(obj: models.Model, **changes: Any) -> dict[str, Any]:
    """What a change form would post for ``obj``, with ``changes`` over it."""
    data = {k: v for k, v in model_to_dict(obj).items() if v is not None}
    data.update(changes)
    data["_save"] = "Save"
    return data


# ------------------------------------------------------------------------------ every model
def test_the_app_has_models_and_the_admin_registers_every_one() -> None:
    assert len(GAME_MODELS) >= 23
    missing = [m.__name__ for m in GAME_MODELS if not admin.site.is_registered(m)]
    assert missing == [], f"game models missing from the admin: {missing}"


@pytest.mark.parametrize("model", GAME_MODELS, ids=lambda m: m.__name__)
def test_every_model_has_a_changelist(staff: Client, game: Game, model: type[models.Model]) -> None:
    assert staff.get(_url(model, "changelist")).status_code == 200


@pytest.mark.parametrize("model", GAME_MODELS, ids=lambda m: m.__name__)
def test_no_model_but_player_can_be_added_changed_or_deleted(
    staff: Client, game: Game, model: type[models.Model]
) -> None:
    model_admin = admin.site.get_model_admin(model)
    request = staff.get("/admin/").wsgi_request
    writable = {
        "add": model_admin.has_add_permission(request),
        "change": model_admin.has_change_permission(request),
        "delete": model_admin.has_delete_permission(request),
    }
    expected = {"add": False, "change": model is Player, "delete": False}
    assert writable == expected
    assert staff.get(_url(model, "add")).status_code == 403


# ------------------------------------------------------------------------------ a game's truth
def test_a_post_to_a_game_change_view_is_refused_and_changes_nothing(
    staff: Client, game: Game
) -> None:
    page = staff.get(_url(Game, "change", game.pk))
    assert page.status_code == 200 and b'name="_save"' not in page.content
    before = _state(game)
    events = list(GameEvent.objects.filter(game=game).values())
    seats = list(Seat.objects.filter(game=game).values())
    tampered = _form_post(
        game,
        status="finished",
        version=99,
        seed="0" * 64,
        options='{"target_score": 50}',
        snapshot="{}",
        seating="[]",
        winner_team=1,
        to_act=1,
        is_public="",
        join_code="STOLEN",
    )
    response = staff.post(_url(Game, "change", game.pk), tampered)
    assert response.status_code == 403
    assert _state(game) == before
    assert list(GameEvent.objects.filter(game=game).values()) == events
    assert list(Seat.objects.filter(game=game).values()) == seats
    assert game_verify(Game.objects.get(pk=game.pk)).ok


@pytest.mark.parametrize("model", [GameEvent, Seat], ids=lambda m: m.__name__)
def test_a_post_to_a_log_or_seat_change_view_is_refused(
    staff: Client, game: Game, model: type[models.Model]
) -> None:
    row = model._default_manager.filter(game=game).first()
    assert row is not None
    before = _state(row)
    page = staff.get(_url(model, "change", row.pk))
    assert page.status_code == 200 and b'name="_save"' not in page.content
    response = staff.post(_url(model, "change", row.pk), _form_post(row, seat=1, index=1, team=1))
    assert response.status_code == 403
    assert _state(row) == before
    deleted = staff.post(_url(model, "delete", row.pk), {"post": "yes"})
    assert deleted.status_code == 403
    assert model._default_manager.filter(pk=row.pk).exists()


def test_the_game_page_shows_its_seats_without_editing_them(staff: Client, game: Game) -> None:
    page = staff.get(_url(Game, "change", game.pk))
    assert page.status_code == 200
    assert b"Ada" in page.content
    assert b'name="seats-0-player"' not in page.content


# ------------------------------------------------------------------------------ renaming
def test_renaming_through_the_admin_goes_through_the_service(staff: Client, game: Game) -> None:
    ada = Player.objects.get(display_name="Ada")
    lobby = game_create(creator=ada, preset="two_player", seat=1)
    game_before = _state(game)
    page = staff.get(_url(Player, "change", ada.pk))
    assert page.status_code == 200 and b'name="display_name"' in page.content
    assert b'name="user"' not in page.content  # shown, not editable

    response = staff.post(
        _url(Player, "change", ada.pk),
        {"display_name": "  Ada Lovelace  ", "user": "", "_save": "Save"},
    )
    assert response.status_code == 302, response.content
    ada.refresh_from_db()
    assert ada.display_name == "Ada Lovelace"
    # the seating copies were renamed with her, and nothing else of the game changed
    for renamed in (Game.objects.get(pk=game.pk), Game.objects.get(pk=lobby.pk)):
        seats = list(Seat.objects.filter(game=renamed).select_related("player"))
        assert renamed.seating == seating_of(seats)
        assert "Ada Lovelace" in [entry["name"] for entry in renamed.seating]
        assert game_verify(renamed).ok
    after = _state(game)
    assert {k: v for k, v in after.items() if k not in ("seating", "updated_at")} == {
        k: v for k, v in game_before.items() if k not in ("seating", "updated_at")
    }


@pytest.mark.parametrize("name", ["", "   ", "x" * 41])
def test_the_admin_refuses_a_name_the_service_refuses(staff: Client, game: Game, name: str) -> None:
    ada = Player.objects.get(display_name="Ada")
    response = staff.post(_url(Player, "change", ada.pk), {"display_name": name, "_save": "Save"})
    assert response.status_code == 200  # the form again, with its error
    assert b"errornote" in response.content or b"errorlist" in response.content
    ada.refresh_from_db()
    assert ada.display_name == "Ada"


def test_player_rename_strips_and_renames_every_seat_copy() -> None:
    ada, bob = player_create(display_name="Ada")[0], player_create(display_name="Bob")[0]
    first = game_create(creator=ada, preset="two_player", seat=0)
    game_join(player=bob, game_id=first.pk)
    second = game_create(creator=bob, preset="two_player", seat=0, bots=[BotSeatSpec(seat=1)])
    game_start(game_id=second.pk, player=bob)

    assert player_rename(bob, "  Robert ").display_name == "Robert"
    assert Player.objects.get(pk=bob.pk).display_name == "Robert"
    for game in Game.objects.filter(pk__in=[first.pk, second.pk]):
        names = {entry["player"]: entry["name"] for entry in game.seating}
        assert names[bob.pk] == "Robert"
        assert game_verify(game).ok
    assert {e["name"] for e in Game.objects.get(pk=first.pk).seating} == {"Ada", "Robert"}


@pytest.mark.parametrize("name", ["", "  ", "\t\n", "y" * 41])
def test_player_rename_refuses_an_empty_or_long_name(name: str) -> None:
    ada = player_create(display_name="Ada")[0]
    with pytest.raises(errors.DisplayNameInvalid) as refused:
        player_rename(ada, name)
    assert isinstance(refused.value, ServiceError)
    assert (refused.value.status, refused.value.code) == (400, "invalid_request")
    assert Player.objects.get(pk=ada.pk).display_name == "Ada"


def test_player_rename_takes_forty_characters() -> None:
    ada = player_create(display_name="Ada")[0]
    assert player_rename(ada, " " + "z" * 40 + " ").display_name == "z" * 40
