"""Rating integrity over HTTP (every response checked against openapi.yaml): a rated result
conceded at the start does not count and the player's profile and history say why; a private
rated game's id is shown in a rating history and a profile only to those who sat at it."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.test import override_settings

from competition.models import Rating
from tests.games.api.conftest import PlayerClient, create_game

pytestmark = pytest.mark.django_db


def rated_private_pair(creator: PlayerClient, other: PlayerClient) -> int:
    """A started private rated two-player table (``creator`` at seat 0)."""
    game = create_game(creator, preset="two_player", seat=0, rated=True, is_public=False)
    joined = other.post(
        f"/api/v1/games/{game['id']}/join/", {"join_code": game["join_code"]}, format="json"
    )
    assert joined.status_code == 200, joined.content
    started = creator.post(f"/api/v1/games/{game['id']}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    return int(game["id"])


@override_settings(RATED_MIN_MOVES_PER_SIDE=6)
def test_a_rated_table_conceded_at_the_start_is_shown_as_not_counted(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game_id = rated_private_pair(ada, bob)
    conceded = bob.post(f"/api/v1/games/{game_id}/concede/", {}, format="json")
    assert conceded.status_code == 200, conceded.content
    detail = ada.game(game_id)
    assert detail["rated"] is True
    assert [line["change"] for line in detail["rating_changes"]] == [0, 0]
    assert [(line["counted"], line["unrated_reason"]) for line in detail["rating_changes"]] == [
        (False, "too_few_moves")
    ] * 2
    profile = ada.get(f"/api/v1/players/{ada.player_id}/profile/").json()
    assert [r["rating"] for r in profile["ratings"] if r["format"] == "two_player"] == [1000]
    [line] = profile["rated_games"]
    assert line["game_id"] == game_id and line["private"] is True
    assert (line["counted"], line["unrated_reason"], line["change"]) == (
        False,
        "too_few_moves",
        0,
    )
    history = ada.get(f"/api/v1/players/{ada.player_id}/ratings/two_player/history/").json()
    assert [(e["counted"], e["unrated_reason"]) for e in history["entries"]] == [
        (False, "too_few_moves")
    ]
    assert not Rating.objects.exists()


@override_settings(RATED_MIN_MOVES_PER_SIDE=0)
def test_a_private_rated_games_id_is_hidden_from_those_who_did_not_sit_at_it(
    ada: PlayerClient, bob: PlayerClient, make_player: Callable[..., PlayerClient]
) -> None:
    outsider = make_player("Cy")
    private = rated_private_pair(ada, bob)
    assert bob.post(f"/api/v1/games/{private}/concede/", {}, format="json").status_code == 200
    path = f"/api/v1/players/{ada.player_id}/ratings/two_player/history/"
    for viewer, shown in ((ada, private), (bob, private), (outsider, None)):
        [entry] = viewer.get(path).json()["entries"]
        assert (entry["game_id"], entry["private"]) == (shown, True), viewer.display_name
        assert entry["counted"] is True and entry["change"] > 0  # the rating itself is public
        [line] = viewer.get(f"/api/v1/players/{ada.player_id}/profile/").json()["rated_games"]
        assert (line["game_id"], line["private"]) == (shown, True), viewer.display_name
