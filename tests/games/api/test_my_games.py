"""GET /players/me/games/ ("my games"): the player's tables in the lobby and games being played,
their turn first (the soonest deadline first), then the others; one query whatever their
number."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.models import Player
from games.models import Game
from games.selectors.my_games import my_games_get
from games.services.deadlines import TimerOptions
from games.services.lobby import BotSeatSpec, game_create, game_join, game_start
from games.services.pause import game_pause_propose
from games.services.table import game_concede
from tests.games.api.conftest import PlayerClient, problem
from tests.games.services.timers.conftest import play_turn

pytestmark = pytest.mark.django_db

HOUR = 3600
URL = "/api/v1/players/me/games/"


def player_of(client: PlayerClient) -> Player:
    return Player.objects.get(pk=client.player_id)


def game_between(
    ada: Player, bob: Player, *, turn_seconds: int | None, to_act: int | None = 0
) -> int:
    """A two-player game (Ada at seat 0, Bob at 1) with ``to_act`` to act (None: left in the
    lobby, Bob not seated)."""
    game = game_create(
        creator=ada, preset="two_player", seat=0, timer=TimerOptions(turn_seconds=turn_seconds)
    )
    if to_act is None:
        return game.pk
    game_join(player=bob, game_id=game.pk, seat=1)
    game_start(game_id=game.pk, player=ada)
    if Game.objects.get(pk=game.pk).to_act != to_act:
        play_turn(game.pk, 1 - to_act)
    assert Game.objects.get(pk=game.pk).to_act == to_act
    return game.pk


@pytest.fixture
def players(make_player: Callable[..., PlayerClient]) -> list[PlayerClient]:
    return [make_player(name) for name in ("Ada", "Bob", "Cy")]


def test_my_turn_first_soonest_deadline_first_then_the_others(
    players: list[PlayerClient],
) -> None:
    ada_client, bob_client, _ = players
    ada, bob, cy = (player_of(c) for c in players)
    bobs_turn_untimed = game_between(ada, bob, turn_seconds=None, to_act=1)
    lobby = game_between(ada, bob, turn_seconds=HOUR, to_act=None)
    my_turn_in_a_day = game_between(ada, bob, turn_seconds=24 * HOUR)
    my_turn_in_an_hour = game_between(ada, bob, turn_seconds=HOUR)
    my_turn_untimed = game_between(ada, bob, turn_seconds=None)
    bobs_turn_in_two_hours = game_between(ada, bob, turn_seconds=2 * HOUR, to_act=1)
    finished = game_between(ada, bob, turn_seconds=None)
    game_concede(game_id=finished, player=bob)
    paused_my_turn = game_between(ada, bob, turn_seconds=HOUR)
    game_pause_propose(game_id=paused_my_turn, player=ada)
    game_pause_propose(game_id=paused_my_turn, player=bob)
    bob_and_cy = game_between(bob, cy, turn_seconds=None)  # Bob at seat 0, to act

    response = ada_client.get(URL)
    assert response.status_code == 200, response.content
    lines = response.json()["games"]
    assert [line["game_id"] for line in lines] == [
        my_turn_in_an_hour,
        my_turn_in_a_day,
        my_turn_untimed,
        bobs_turn_in_two_hours,
        paused_my_turn,  # no deadline while paused; the most recently changed first
        lobby,
        bobs_turn_untimed,
    ]
    assert [line["my_turn"] for line in lines] == [True, True, True, False, False, False, False]
    by_id = {line["game_id"]: line for line in lines}
    soonest = by_id[my_turn_in_an_hour]
    game = Game.objects.get(pk=my_turn_in_an_hour)
    assert (soonest["seat"], soonest["to_act"], soonest["status"]) == (0, 0, "active")
    assert soonest["turn_seconds"] == HOUR and soonest["version"] == game.version
    assert soonest["paused"] is False and soonest["rated"] is False
    assert soonest["turn_deadline"] is not None and game.turn_deadline is not None
    assert soonest["turn_deadline"].startswith(game.turn_deadline.isoformat()[:19])
    assert soonest["players"] == [
        {
            "seat": 0,
            "player_id": ada.pk,
            "display_name": "Ada",
            "bot_level": None,
            "bot_account": False,
        },
        {
            "seat": 1,
            "player_id": bob.pk,
            "display_name": "Bob",
            "bot_level": None,
            "bot_account": False,
        },
    ]
    assert by_id[paused_my_turn]["paused"] is True and by_id[paused_my_turn]["to_act"] == 0
    assert by_id[lobby]["status"] == "lobby" and by_id[lobby]["to_act"] is None
    assert by_id[lobby]["players"][1] == {
        "seat": 1,
        "player_id": None,
        "display_name": None,
        "bot_level": None,
        "bot_account": False,
    }

    # Bob's own list: his turns first, his seats
    bobs = bob_client.get(URL).json()["games"]
    assert [line["game_id"] for line in bobs] == [
        bobs_turn_in_two_hours,
        bob_and_cy,
        bobs_turn_untimed,
        my_turn_in_an_hour,
        my_turn_in_a_day,
        paused_my_turn,
        my_turn_untimed,
    ]
    assert [line["seat"] for line in bobs] == [1, 0, 1, 1, 1, 1, 1]
    assert [line["my_turn"] for line in bobs] == [True, True, True, False, False, False, False]


def test_bots_are_listed_by_level_and_a_game_over_leaves_the_list(
    players: list[PlayerClient],
) -> None:
    ada_client = players[0]
    ada = player_of(ada_client)
    game = game_create(creator=ada, preset="two_player", seat=0, bots=[BotSeatSpec(1, "hard")])
    [line] = ada_client.get(URL).json()["games"]
    assert line["players"][1] == {
        "seat": 1,
        "player_id": None,
        "display_name": None,
        "bot_level": "hard",
        "bot_account": False,
    }
    game_start(game_id=game.pk, player=ada)
    game_concede(game_id=game.pk, player=ada)
    assert ada_client.get(URL).json()["games"] == []


def test_one_query_whatever_the_number_of_games(players: list[PlayerClient]) -> None:
    ada_client, bob_client, cy_client = players
    ada, bob, cy = (player_of(c) for c in players)
    game_between(bob, cy, turn_seconds=HOUR)
    for timer in (None, HOUR, 24 * HOUR, None, HOUR, 2 * HOUR):
        game_between(ada, bob, turn_seconds=timer)
    game_between(ada, bob, turn_seconds=None, to_act=None)
    with CaptureQueriesContext(connection) as few:
        assert len(my_games_get(player=cy)) == 1
    with CaptureQueriesContext(connection) as many:
        assert len(my_games_get(player=ada)) == 7
    assert len(few) == len(many) == 1
    # the whole request too: the same number of queries for 1 game as for 7
    with CaptureQueriesContext(connection) as request_few:
        cy_client.get(URL)
    with CaptureQueriesContext(connection) as request_many:
        ada_client.get(URL)
    assert len(request_few) == len(request_many)
    assert len(bob_client.get(URL).json()["games"]) == 7  # not the lobby table he is not at


def test_my_games_needs_a_token() -> None:
    problem(APIClient().get(URL), 401, "not_authenticated")
