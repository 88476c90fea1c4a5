"""Leaderboards, around me, rating histories and the profile's ratings over HTTP (every
response checked against openapi.yaml by the test client). Ratings are rows built directly:
how games change them is tested with the rating service."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import Player
from competition.models import Rating, RatingChange, RatingFormat
from competition.selectors.ratings import PROFILE_RATED_GAMES_MAX
from games.models import Game
from games.services.lobby import game_create
from tests.games.api.conftest import PlayerClient, SchemaCheckedClient

TWO = RatingFormat.TWO_PLAYER
FOUR = RatingFormat.PARTNERSHIP

# Every rated result counts here (tests/competition/conftest.py: every_result_counts).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("every_result_counts")]


def rate(client: PlayerClient, display: float, format: str = TWO, games: int = 12) -> None:
    Rating.objects.create(
        player_id=client.player_id,
        format=format,
        mu=display + 6.0,
        sigma=2.0,
        display=display,
        games=games,
        wins=games // 3,
    )


def table(client: PlayerClient, preset: str) -> int:
    """A new table created by ``client`` (the rows below need a game)."""
    return game_create(creator=Player.objects.get(pk=client.player_id), preset=preset).pk


def change(game_id: int, client: PlayerClient, before: float, after: float, **kw: Any) -> None:
    RatingChange.objects.create(
        game_id=game_id,
        player_id=client.player_id,
        format=kw.get("format", TWO),
        seat=kw.get("seat", 0),
        team=kw.get("team", 0),
        rank=kw.get("rank", 1),
        mu_before=before + 6.0,
        sigma_before=2.0,
        mu_after=after + 6.0,
        sigma_after=2.0,
        display_before=before,
        display_after=after,
    )


@pytest.fixture
def board(make_player: Callable[..., PlayerClient]) -> list[PlayerClient]:
    """Five rated two-player players, best first (a tie between the 2nd and 3rd)."""
    clients = [make_player(name) for name in ("Ada", "Bob", "Cy", "Di", "Ed")]
    for client, display in zip(clients, [10.0, 5.0, 5.0, 1.0, -2.0], strict=True):
        rate(client, display, games=12 if display > 0 else 4)
    return clients


def test_the_leaderboard_top_and_pages(board: list[PlayerClient]) -> None:
    ada = board[0]
    response = ada.get("/api/v1/leaderboards/two_player/")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["format"] == "two_player" and body["total"] == 5
    assert [e["player_id"] for e in body["entries"]] == [c.player_id for c in board]
    assert [e["rank"] for e in body["entries"]] == [1, 2, 3, 4, 5]
    assert body["entries"][0] == {
        "rank": 1,
        "player_id": ada.player_id,
        "display_name": "Ada",
        "rating": 1400,
        "mu": 16.0,
        "sigma": 2.0,
        "games": 12,
        "wins": 4,
        "provisional": False,
    }
    assert body["entries"][4]["provisional"] is True and body["entries"][4]["rating"] == 920

    page = ada.get("/api/v1/leaderboards/two_player/?limit=2&offset=2").json()
    assert [e["rank"] for e in page["entries"]] == [3, 4]
    assert [e["player_id"] for e in page["entries"]] == [board[2].player_id, board[3].player_id]
    empty = ada.get("/api/v1/leaderboards/partnership/").json()
    assert empty == {"format": "partnership", "total": 0, "entries": []}


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/leaderboards/classic/",
        "/api/v1/leaderboards/TWO_PLAYER/",
        "/api/v1/leaderboards/two_player_x/",
        "/api/v1/leaderboards/two_player/around-me/x/",
        "/api/v1/leaderboards/four/around-me/",
        "/api/v1/players/1/ratings/hoyle/history/",
    ],
)
def test_an_unknown_format_is_not_found(ada: PlayerClient, path: str) -> None:
    # Django's 404 for a path no route matches (some are in no schema path: read unchecked).
    plain = APIClient()
    plain.credentials(HTTP_AUTHORIZATION=f"Token {ada.token}")
    response = plain.get(path)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("application/problem+json")
    assert response.json()["code"] == "not_found"


@pytest.mark.parametrize(
    "query",
    ["limit=0", "limit=101", "offset=-1", "limit=x", f"offset={2**31}", f"offset={10**30}"],
)
def test_leaderboard_parameters_out_of_bounds(ada: PlayerClient, query: str) -> None:
    response = ada.get(f"/api/v1/leaderboards/two_player/?{query}")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_request"


def test_the_leaderboards_need_a_token(board: list[PlayerClient]) -> None:
    for path in (
        "/api/v1/leaderboards/two_player/",
        "/api/v1/leaderboards/two_player/around-me/",
        f"/api/v1/players/{board[0].player_id}/ratings/two_player/history/",
    ):
        response = SchemaCheckedClient().get(path)
        assert response.status_code == 401, path
        assert response.json()["code"] == "not_authenticated"


def test_around_me(board: list[PlayerClient], make_player: Callable[..., PlayerClient]) -> None:
    cy = board[2]
    body = cy.get("/api/v1/leaderboards/two_player/around-me/?size=1").json()
    assert body["format"] == "two_player" and body["total"] == 5
    assert body["me"]["player_id"] == cy.player_id and body["me"]["rank"] == 3
    assert [e["rank"] for e in body["entries"]] == [2, 3, 4]
    assert [e["player_id"] for e in body["entries"]] == [c.player_id for c in board[1:4]]

    top = board[0].get("/api/v1/leaderboards/two_player/around-me/").json()
    assert [e["rank"] for e in top["entries"]] == [1, 2, 3, 4, 5]  # size 5 by default

    newcomer = make_player("New")
    unrated = newcomer.get("/api/v1/leaderboards/two_player/around-me/").json()
    assert unrated == {"format": "two_player", "total": 5, "me": None, "entries": []}

    for size in ("0", "51"):
        refused = cy.get(f"/api/v1/leaderboards/two_player/around-me/?size={size}")
        assert refused.status_code == 400 and refused.json()["code"] == "invalid_request"


def test_the_profile_shows_ratings_and_rated_games(board: list[PlayerClient]) -> None:
    ada, bob = board[0], board[1]
    rate(bob, 3.0, FOUR, games=2)
    games = [table(ada, "two_player") for _ in range(PROFILE_RATED_GAMES_MAX + 1)]
    for i, game_id in enumerate(games):
        change(game_id, bob, float(i), float(i) - 0.5, rank=2, seat=1, team=1)
    partnership = table(ada, "classic")
    change(partnership, bob, 0.0, 3.0, format=FOUR)

    profile = ada.get(f"/api/v1/players/{bob.player_id}/profile/").json()
    assert profile["ratings"] == [
        {
            "format": "partnership",
            "rating": 1120,
            "mu": 9.0,
            "sigma": 2.0,
            "games": 2,
            "wins": 0,
            "provisional": True,
            "rank": 1,
        },
        {
            "format": "two_player",
            "rating": 1200,
            "mu": 11.0,
            "sigma": 2.0,
            "games": 12,
            "wins": 4,
            "provisional": False,
            "rank": 2,
        },
    ] + [
        {
            "format": unrated,
            "rating": 1000,
            "mu": 25.0,
            "sigma": 25.0 / 3.0,
            "games": 0,
            "wins": 0,
            "provisional": True,
            "rank": None,
        }
        for unrated in ("three_player", "mac", "mac_two_player", "samba", "bolivia")
    ]
    rated = profile["rated_games"]
    assert len(rated) == PROFILE_RATED_GAMES_MAX
    assert rated[0] == {
        "game_id": partnership,
        "format": "partnership",
        "finished_at": None,
        "rank": 1,
        "rating_before": 1000,
        "rating_after": 1120,
        "change": 120,
        "private": False,
        "counted": True,
        "unrated_reason": None,
    }
    assert [g["game_id"] for g in rated[1:]] == games[::-1][: PROFILE_RATED_GAMES_MAX - 1]
    assert {g["change"] for g in rated[1:]} == {-20}

    mine = ada.get(f"/api/v1/players/{ada.player_id}/profile/").json()
    assert mine["rated_games"] == []
    assert [r["rank"] for r in mine["ratings"]] == [None, 1, None, None, None, None, None]


def test_rating_history_in_pages(board: list[PlayerClient]) -> None:
    ada, bob = board[0], board[1]
    games = [table(ada, "two_player") for _ in range(3)]
    for i, game_id in enumerate(games):
        change(game_id, bob, float(i), float(i + 1), seat=1, team=1)
    Game.objects.filter(pk=games[0]).update(finished_at="2026-01-02T03:04:05Z")

    url = f"/api/v1/players/{bob.player_id}/ratings/two_player/history/"
    first = ada.get(f"{url}?limit=2").json()
    assert first["player_id"] == bob.player_id and first["format"] == "two_player"
    assert first["total"] == 3
    assert [e["game_id"] for e in first["entries"]] == [games[2], games[1]]
    newest = first["entries"][0]
    assert (newest["rating_before"], newest["rating_after"], newest["change"]) == (1080, 1120, 40)
    assert (newest["seat"], newest["team"], newest["rank"]) == (1, 1, 1)
    assert (newest["mu_after"], newest["sigma_after"]) == (9.0, 2.0)
    rest = ada.get(f"{url}?limit=2&offset=2").json()
    assert [e["game_id"] for e in rest["entries"]] == [games[0]]
    assert rest["entries"][0]["finished_at"] == "2026-01-02T03:04:05Z"

    none = ada.get(f"/api/v1/players/{bob.player_id}/ratings/partnership/history/").json()
    assert none["total"] == 0 and none["entries"] == []
    missing = ada.get("/api/v1/players/999999/ratings/two_player/history/")
    assert missing.status_code == 404 and missing.json()["code"] == "player_not_found"
    refused = ada.get(f"{url}?limit=101")
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_request"


def test_a_rated_game_shows_on_the_board_the_profiles_and_the_histories(
    make_player: Callable[..., PlayerClient],
) -> None:
    """End to end: a rated game played over the API and conceded; what the rating service wrote
    is what every read shows, the same numbers as the game's own rating changes."""
    ada, bob, eve = make_player("Ada"), make_player("Bob"), make_player("Eve")
    created = ada.post(
        "/api/v1/games/", {"preset": "two_player", "seat": 0, "rated": True}, format="json"
    )
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    assert bob.post(f"/api/v1/games/{game_id}/join/", {}, format="json").status_code == 200
    assert ada.post(f"/api/v1/games/{game_id}/start/", {}, format="json").status_code == 200
    assert bob.post(f"/api/v1/games/{game_id}/concede/", {}, format="json").status_code == 200
    lines = {line["player_id"]: line for line in ada.game(game_id)["rating_changes"]}

    board = eve.get("/api/v1/leaderboards/two_player/").json()
    assert board["total"] == 2
    assert [e["player_id"] for e in board["entries"]] == [ada.player_id, bob.player_id]
    for entry in board["entries"]:
        assert entry["rating"] == lines[entry["player_id"]]["rating_after"]
        assert entry["games"] == 1 and entry["provisional"] is True
    assert [e["wins"] for e in board["entries"]] == [1, 0]

    for client, rank in ((ada, 1), (bob, 2)):
        line = lines[client.player_id]
        profile = eve.get(f"/api/v1/players/{client.player_id}/profile/").json()
        two = next(r for r in profile["ratings"] if r["format"] == "two_player")
        assert (two["rating"], two["rank"], two["games"]) == (line["rating_after"], rank, 1)
        (game,) = profile["rated_games"]
        assert game["game_id"] == game_id and game["format"] == "two_player"
        assert game["finished_at"] is not None
        assert (game["rating_before"], game["rating_after"], game["change"]) == (
            line["rating_before"],
            line["rating_after"],
            line["change"],
        )
        assert game["rank"] == rank  # the side that conceded ranks last
        history = eve.get(f"/api/v1/players/{client.player_id}/ratings/two_player/history/")
        assert [e["game_id"] for e in history.json()["entries"]] == [game_id]
        around = client.get("/api/v1/leaderboards/two_player/around-me/").json()
        assert around["me"]["rank"] == rank and len(around["entries"]) == 2
    assert eve.get("/api/v1/leaderboards/two_player/around-me/").json()["me"] is None
