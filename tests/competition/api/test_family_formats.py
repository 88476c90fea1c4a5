"""Each preset of the rule families beside classic is a rating format of its own: its rated
games, its quick-play queue and its leaderboard are apart from the classic ones."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from competition.models import RatingChange, rating_format_of
from tests.games.api.conftest import PlayerClient, create_game

QUEUE = "/api/v1/queue/"


@pytest.fixture(autouse=True)
def in_process_pairing(settings: Any) -> None:
    """No beat in the suite: the web process pairs (as without a broker)."""
    settings.MATCHMAKING_IN_PROCESS = True


def test_a_family_preset_is_its_own_format() -> None:
    assert rating_format_of(4, "mac") == "mac"
    assert rating_format_of(2, "mac_two_player") == "mac_two_player"
    assert rating_format_of(4, "samba") == "samba" and rating_format_of(4, "bolivia") == "bolivia"
    assert rating_format_of(4, "hoyle") == rating_format_of(4) == "partnership"
    assert rating_format_of(2, "two_player") == "two_player"


@pytest.mark.django_db
def test_a_family_queue_rates_in_its_own_format(ada: PlayerClient) -> None:
    joined = ada.post(QUEUE, {"preset": "samba", "rated": True}, format="json")
    assert joined.status_code == 201, joined.content
    assert joined.json()["format"] == "samba" and joined.json()["preset"] == "samba"
    board = ada.get("/api/v1/leaderboards/samba/")
    assert board.status_code == 200, board.content
    assert board.json()["format"] == "samba"


# Matches are made after a commit (transaction.on_commit): these tests must really commit.
@pytest.mark.django_db(transaction=True)
def test_two_players_are_matched_at_a_family_table(
    make_player: Callable[..., PlayerClient],
) -> None:
    ada, bob = make_player("Ada"), make_player("Bob")
    assert ada.post(QUEUE, {"preset": "mac_two_player"}, format="json").status_code == 201
    assert bob.post(QUEUE, {"preset": "mac_two_player"}, format="json").status_code == 201
    mine = bob.get(QUEUE).json()
    assert mine["status"] == "matched" and mine["format"] == "mac_two_player"
    game = ada.game(mine["game_id"])
    assert game["preset"] == "mac_two_player" and game["rules_version"] == "mac-1"
    assert game["status"] == "active" and game["state"]["family"] == "mac"


@pytest.mark.django_db(transaction=True)
def test_a_rated_family_game_is_rated_in_its_format(
    make_player: Callable[..., PlayerClient],
) -> None:
    ada, bob = make_player("Ada"), make_player("Bob")
    game = create_game(ada, preset="mac_two_player", seat=0, rated=True)
    assert bob.post(f"/api/v1/games/{game['id']}/join/", {}, format="json").status_code == 200
    assert ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json").status_code == 200
    assert ada.post(f"/api/v1/games/{game['id']}/concede/").status_code == 200
    # Too few moves for the result to count: each player's line is kept, in the game's format.
    changes = RatingChange.objects.filter(game_id=game["id"])
    assert {c.format for c in changes} == {"mac_two_player"} and len(changes) == 2
    history = ada.get(f"/api/v1/players/{ada.player_id}/ratings/mac_two_player/history/")
    assert history.status_code == 200, history.content
