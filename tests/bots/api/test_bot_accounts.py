"""Bot accounts over HTTP: a player flagged as a bot at sign-up, shown as one wherever its seat
is listed, kept from rated tables and the quick-play queue, playing casual tables through the
same API as a person (every response checked against openapi.yaml)."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import Player
from accounts.services.players import player_create
from competition.models import QueueEntry
from games.models import Game, Seat
from tests.games.api.conftest import (
    PlayerClient,
    SchemaCheckedClient,
    choose,
    create_game,
    problem,
    to_act,
)

pytestmark = pytest.mark.django_db


def sign_up(name: str, **body: Any) -> tuple[PlayerClient, dict[str, Any]]:
    response = SchemaCheckedClient().post(
        "/api/v1/players/", {"display_name": name, **body}, format="json"
    )
    assert response.status_code == 201, response.content
    created = response.json()
    client = PlayerClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {created['token']}")
    client.player_id, client.display_name, client.token = created["id"], name, created["token"]
    return client, created


@pytest.fixture
def robo() -> PlayerClient:
    return sign_up("Robo", bot=True)[0]


def test_sign_up_as_a_bot_account(ada: PlayerClient) -> None:
    client, created = sign_up("Robo", bot=True)
    assert created["is_bot"] is True
    assert Player.objects.get(pk=created["id"]).is_bot is True
    me = client.get("/api/v1/players/me/").json()
    assert me["is_bot"] is True and me["display_name"] == "Robo"
    assert ada.get("/api/v1/players/me/").json()["is_bot"] is False  # the default: a person
    profile = ada.get(f"/api/v1/players/{created['id']}/profile/").json()
    assert profile["is_bot"] is True
    assert client.get(f"/api/v1/players/{ada.player_id}/profile/").json()["is_bot"] is False
    # Bad input: a clear code, nobody signed up.
    before = Player.objects.count()
    problem(
        SchemaCheckedClient().post(
            "/api/v1/players/", {"display_name": "X", "bot": "maybe"}, format="json"
        ),
        400,
        "invalid_request",
    )
    assert Player.objects.count() == before


def test_every_seat_a_bot_account_holds_shows_it(ada: PlayerClient, robo: PlayerClient) -> None:
    game = create_game(ada, preset="two_player", seat=0, bots=[])
    joined = robo.post(f"/api/v1/games/{game['id']}/join/", {}, format="json")
    assert joined.status_code == 200, joined.content
    seats = joined.json()["seats"]
    assert [(s["kind"], s["bot_account"]) for s in seats] == [("player", False), ("player", True)]
    listed = ada.get("/api/v1/games/?mine=true").json()["results"]
    assert [s["bot_account"] for s in listed[0]["seats"]] == [False, True]
    mine = robo.get("/api/v1/players/me/games/").json()["games"]
    assert [p["bot_account"] for p in mine[0]["players"]] == [False, True]
    # A server bot is not a bot account: it is a seat of kind `bot`.
    with_bot = create_game(ada, preset="two_player", seat=0, bots=[{"seat": 1, "level": "easy"}])
    assert [(s["kind"], s["bot_account"]) for s in with_bot["seats"]] == [
        ("player", False),
        ("bot", False),
    ]


def test_a_bot_account_creates_and_joins_casual_tables_by_id_or_code(
    ada: PlayerClient, robo: PlayerClient
) -> None:
    own = create_game(robo, preset="two_player", seat=0, is_public=False)
    assert own["seats"][0]["bot_account"] is True
    joined = ada.post(f"/api/v1/join/{own['join_code']}/", {}, format="json")
    assert joined.status_code == 200, joined.content
    private = create_game(ada, preset="two_player", is_public=False)
    by_code = robo.post(f"/api/v1/join/{private['join_code']}/", {}, format="json")
    assert by_code.status_code == 200, by_code.content
    assert by_code.json()["seats"][1]["bot_account"] is True


def test_a_bot_account_is_kept_from_rated_tables(ada: PlayerClient, robo: PlayerClient) -> None:
    refused = robo.post("/api/v1/games/", {"preset": "two_player", "rated": True}, format="json")
    problem(refused, 422, "rated_humans_only")
    assert not Game.objects.exists()
    rated = create_game(ada, preset="two_player", seat=0, rated=True)
    problem(
        robo.post(f"/api/v1/games/{rated['id']}/join/", {}, format="json"), 422, "rated_humans_only"
    )
    problem(
        robo.post(f"/api/v1/join/{rated['join_code']}/", {}, format="json"),
        422,
        "rated_humans_only",
    )
    assert not Seat.objects.filter(player_id=robo.player_id).exists()
    assert ada.game(rated["id"])["seats"][1]["kind"] == "empty"


def test_a_bot_account_is_kept_from_the_queue(robo: PlayerClient) -> None:
    for body in ({"preset": "two_player"}, {"preset": "classic", "rated": True}):
        problem(robo.post("/api/v1/queue/", body, format="json"), 403, "bot_account_not_allowed")
    assert not QueueEntry.objects.exists()


def test_the_service_flags_the_account_at_sign_up() -> None:
    player, token = player_create(display_name="  Robo  ", bot=True)
    player.refresh_from_db()
    assert player.is_bot is True and player.display_name == "Robo" and token
    person, _ = player_create(display_name="Ada")
    person.refresh_from_db()
    assert person.is_bot is False


@pytest.mark.django_db(transaction=True)
def test_a_bot_account_plays_through_the_actions_api(ada: PlayerClient, robo: PlayerClient) -> None:
    game = create_game(robo, preset="two_player", seat=0)
    game_id = game["id"]
    ada.post(f"/api/v1/games/{game_id}/join/", {}, format="json")
    started = robo.post(f"/api/v1/games/{game_id}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    moved_by = set()
    for _ in range(6):
        player = to_act([robo, ada], game_id)
        detail = player.game(game_id)
        played = player.act(game_id, choose(detail["state"]["legal_actions"]), detail["version"])
        assert played.status_code == 201, played.content
        moved_by.add(player.player_id)
    assert robo.player_id in moved_by
    events = robo.get(f"/api/v1/games/{game_id}/events/").json()["events"]
    assert events[0]["type"] == "game_started"
    assert any(e["seat"] == 0 and e["source"] == "player" for e in events[1:])
    # Who was a bot account is a fact of the log, and of the export.
    started = events[0]["payload"]["seats"]
    assert [(s["player"], s["bot_account"]) for s in started] == [
        (robo.player_id, True),
        (ada.player_id, False),
    ]
    exported = ada.get(f"/api/v1/games/{game_id}/export/")
    assert exported.status_code == 200, exported.content
    assert [s["bot_account"] for s in exported.json()["seats"]] == [True, False]


def test_a_game_a_bot_account_imports_records_its_seat(robo: PlayerClient) -> None:
    game = create_game(robo, preset="two_player", seat=0, bots=[{"seat": 1, "level": "easy"}])
    started = robo.post(f"/api/v1/games/{game['id']}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    conceded = robo.post(f"/api/v1/games/{game['id']}/concede/", {}, format="json")
    assert conceded.status_code == 200, conceded.content
    document = robo.get(f"/api/v1/games/{game['id']}/export/").json()
    assert [s["bot_account"] for s in document["seats"]] == [True, False]
    imported = robo.post("/api/v1/games/import/", {"document": document, "seat": 1}, format="json")
    assert imported.status_code == 201, imported.content
    new_id = imported.json()["game"]["id"]
    events = robo.get(f"/api/v1/games/{new_id}/events/").json()["events"]
    assert [(s["player"], s["bot_account"]) for s in events[0]["payload"]["seats"]] == [
        (None, False),
        (robo.player_id, True),
    ]
