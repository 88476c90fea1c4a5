"""A player's record counts the finished games played on this service, never imported ones.

Importing a finished game's export seated at the winning seat makes a finished game that the
importer "won" without playing; five imports made "played 5, won 5" on the public profile.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from accounts.models import Player
from competition.api.profiles import PlayerRecordSerializer
from competition.selectors.profiles import player_profile_get
from games.models import Game
from tests.games.api.conftest import PlayerClient
from tests.games.selectors.replay.conftest import advance, player_of, started_game

pytestmark = pytest.mark.django_db


def played_out(ada: PlayerClient) -> tuple[Game, dict[str, Any]]:
    """A game ``ada`` played to its end against a bot, and its export."""
    game = advance(started_game(player_of(ada), preset="two_player", seat=0).pk)
    assert game.status == "finished" and game.winner_team is not None
    export = ada.get(f"/api/v1/games/{game.pk}/export/")
    assert export.status_code == 200, export.content
    return game, export.json()


def record_of(player: PlayerClient) -> dict[str, Any]:
    viewer = Player.objects.get(pk=player.player_id)
    return player_profile_get(player_id=player.player_id, viewer=viewer)


def test_imported_wins_do_not_count(make_player: Callable[..., PlayerClient]) -> None:
    ada, eve = make_player("Ada"), make_player("Eve")
    game, document = played_out(ada)
    for _ in range(5):
        response = eve.post(
            "/api/v1/games/import/",
            {"document": document, "seat": game.winner_team, "is_public": True},
            format="json",
        )
        assert response.status_code == 201, response.content
        assert response.json()["game"]["status"] == "finished"
    profile = eve.get(f"/api/v1/players/{eve.player_id}/profile/")
    assert profile.status_code == 200, profile.content
    body = profile.json()
    assert body["record"] == {"played": 0, "won": 0, "lost": 0, "conceded": 0}
    assert body["games"] == []
    # the game played here still counts
    won = int(game.winner_team == 0)
    assert record_of(ada)["record"] == {"played": 1, "won": won, "lost": 1 - won, "conceded": 0}


def test_importing_ones_own_game_does_not_count_it_twice(
    make_player: Callable[..., PlayerClient],
) -> None:
    ada = make_player("Ada")
    game, document = played_out(ada)
    before = record_of(ada)
    response = ada.post("/api/v1/games/import/", {"document": document, "seat": 0}, format="json")
    assert response.status_code == 201, response.content
    after = record_of(ada)
    assert after["record"] == before["record"] and after["record"]["played"] == 1
    assert [g["id"] for g in after["games"]] == [game.pk]


def test_the_profile_says_which_games_count() -> None:
    fields = PlayerRecordSerializer().fields
    assert "imported games do not count" in str(fields["played"].help_text)
