"""The Django admin lists every game model; the move log and projections are read-only."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from games.models import Game, GameEvent
from games.services.lobby import BotSeatSpec, game_create, game_start
from games.services.players import player_create

pytestmark = pytest.mark.django_db

MODELS = ("player", "game", "seat", "meld", "roundscore", "gameevent", "idempotencyrecord")


@pytest.fixture
def admin_client_logged_in(client: Client) -> Client:
    User.objects.create_superuser("root", "root@example.com", "pw")
    client.login(username="root", password="pw")
    ada = player_create(display_name="Ada")[0]
    game = game_create(creator=ada, preset="two_player", bots=[BotSeatSpec(seat=1)])
    game_start(game_id=game.pk, player=ada)
    return client


@pytest.mark.parametrize("model", MODELS)
def test_every_model_has_a_changelist(admin_client_logged_in: Client, model: str) -> None:
    assert admin_client_logged_in.get(f"/admin/games/{model}/").status_code == 200


def test_the_move_log_is_read_only(admin_client_logged_in: Client) -> None:
    event = GameEvent.objects.get(seq=1)
    page = admin_client_logged_in.get(f"/admin/games/gameevent/{event.pk}/change/")
    assert page.status_code == 200 and b'name="_save"' not in page.content
    assert admin_client_logged_in.get("/admin/games/gameevent/add/").status_code == 403
    game = Game.objects.get()
    assert admin_client_logged_in.get(f"/admin/games/game/{game.pk}/change/").status_code == 200


def test_seats_are_read_only(admin_client_logged_in: Client) -> None:
    game = Game.objects.get()
    seat = game.seats.get(index=1)
    page = admin_client_logged_in.get(f"/admin/games/seat/{seat.pk}/change/")
    assert page.status_code == 200 and b'name="_save"' not in page.content
    page = admin_client_logged_in.get(f"/admin/games/game/{game.pk}/change/")
    assert b'name="seats-0-player"' not in page.content  # the inline shows, does not edit
