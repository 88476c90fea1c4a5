"""Rated tables over HTTP: create one, the refusals (nothing created or changed), and the game's
rating changes once it is over (every response checked against openapi.yaml)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone

from competition.models import QueueEntry, Rating, RatingChange
from games.models import Game, GameEvent, Seat
from tests.games.api.conftest import PlayerClient, create_game, problem

# Every rated result counts here (tests/competition/conftest.py: every_result_counts).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("every_result_counts")]


def rated_pair(creator: PlayerClient, other: PlayerClient, **body: Any) -> int:
    """A started rated two-player table (``creator`` at seat 0)."""
    game = create_game(creator, preset="two_player", seat=0, rated=True, **body)
    assert game["rated"] is True and game["rating_changes"] is None
    joined = other.post(f"/api/v1/games/{game['id']}/join/", {}, format="json")
    assert joined.status_code == 200, joined.content
    started = creator.post(f"/api/v1/games/{game['id']}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    return int(game["id"])


def test_a_rated_table_is_created_listed_and_shown_as_rated(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game = create_game(ada, preset="classic", rated=True, turn_seconds=60, timeout_outcome="bot")
    assert game["rated"] is True
    assert game["timer"]["timeout_outcome"] == "abandon"  # a rated table's timer abandons
    listed = bob.get("/api/v1/games/").json()["results"]
    assert [(g["id"], g["rated"]) for g in listed] == [(game["id"], True)]
    casual = create_game(bob, preset="two_player")
    assert casual["rated"] is False and casual["rating_changes"] is None


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"preset": "classic", "options": {"target_score": 1000}}, "rated_custom_options"),
        ({"preset": "two_player", "players": 4}, "rated_custom_options"),
        ({"preset": "classic", "bots": [{"seat": 1, "level": "hard"}]}, "rated_humans_only"),
    ],
)
def test_rated_creation_refusals_are_422_and_create_nothing(
    ada: PlayerClient, body: dict[str, Any], code: str
) -> None:
    problem(ada.post("/api/v1/games/", {**body, "rated": True}, format="json"), 422, code)
    assert not Game.objects.exists() and not Seat.objects.exists()


def test_a_rated_table_does_not_start_with_bots(ada: PlayerClient, bob: PlayerClient) -> None:
    game = create_game(ada, preset="classic", rated=True)
    bob.post(f"/api/v1/games/{game['id']}/join/", {}, format="json")
    refused = ada.post(
        f"/api/v1/games/{game['id']}/start/", {"fill_with_bots": True}, format="json"
    )
    problem(refused, 422, "rated_humans_only")
    after = ada.game(game["id"])
    assert after["status"] == "lobby" and after["version"] == 0
    assert [s["kind"] for s in after["seats"]] == ["player", "player", "empty", "empty"]


def test_a_queued_player_neither_creates_nor_joins(ada: PlayerClient, bob: PlayerClient) -> None:
    table = create_game(ada, preset="two_player")
    QueueEntry.objects.create(
        player_id=bob.player_id,
        preset="classic",
        format="partnership",
        rated=False,
        rating=25.0,
        joined_at=timezone.now(),
    )
    problem(
        bob.post("/api/v1/games/", {"preset": "two_player"}, format="json"), 409, "queued_for_match"
    )
    problem(
        bob.post(f"/api/v1/games/{table['id']}/join/", {}, format="json"), 409, "queued_for_match"
    )
    assert Game.objects.count() == 1
    assert not Seat.objects.filter(player_id=bob.player_id).exists()


def test_a_conceded_rated_game_shows_each_players_rating_change(
    ada: PlayerClient, bob: PlayerClient, make_player: Callable[..., PlayerClient]
) -> None:
    game_id = rated_pair(ada, bob)
    playing = ada.game(game_id)
    assert playing["rated"] is True and playing["rating_changes"] is None  # not over yet
    conceded = bob.post(f"/api/v1/games/{game_id}/concede/", {}, format="json")
    assert conceded.status_code == 200, conceded.content

    spectator = make_player("Eve")  # ratings are public: everyone sees the same lines
    seen = [client.game(game_id) for client in (ada, bob, spectator)]
    for detail in seen:
        assert detail["status"] == "finished" and detail["rated"] is True
        assert detail["rating_changes"] == seen[0]["rating_changes"]
    card = spectator.get(f"/api/v1/games/{game_id}/scorecard/").json()  # the game's result
    assert card["rated"] is True and card["rating_changes"] == seen[0]["rating_changes"]
    lines = {line["seat"]: line for line in seen[0]["rating_changes"]}
    assert lines[0]["player_id"] == ada.player_id and lines[1]["player_id"] == bob.player_id
    assert lines[0]["rating_before"] == lines[1]["rating_before"] == 1000
    assert lines[0]["change"] > 0 > lines[1]["change"]  # the side that left lost
    assert all(line["provisional"] for line in lines.values())
    for line in lines.values():
        row = Rating.objects.get(player_id=line["player_id"], format="two_player")
        assert row.games == 1
        assert line["rating_after"] == round(1000 + 40 * (row.mu - 3 * row.sigma))

    # The change is the log's last event, typed in the schema like every other.
    events = ada.get(f"/api/v1/games/{game_id}/events/").json()["events"]
    assert [e["type"] for e in events[-2:]] == ["game_conceded", "ratings_changed"]
    fact = events[-1]
    assert fact["seat"] is None and fact["effects"] == []
    assert [c["seat"] for c in fact["payload"]["changes"]] == [0, 1]
    assert fact["payload"]["format"] == "two_player"

    # The log still replays, to its last event (the rating change) and to the one before.
    for at in (fact["seq"], fact["seq"] - 1):
        replay = spectator.get(f"/api/v1/games/{game_id}/replay/", {"at": at})
        assert replay.status_code == 200, replay.content
    steps = spectator.get(f"/api/v1/games/{game_id}/replay/steps/")
    assert steps.status_code == 200, steps.content
    exported = spectator.get(f"/api/v1/games/{game_id}/export/")
    assert exported.status_code == 200, exported.content
    # An imported copy is a record, not a rated game: no rating moves again.
    imported = spectator.post(
        "/api/v1/games/import/", {"document": exported.json(), "seat": 0}, format="json"
    )
    assert imported.status_code == 201, imported.content
    copy = imported.json()["game"]
    assert copy["rated"] is False and copy["rating_changes"] is None
    assert not RatingChange.objects.filter(game_id=copy["id"]).exists()
    assert not Rating.objects.filter(player_id=spectator.player_id).exists()

    # Conceding again changes nothing.
    again = ada.post(f"/api/v1/games/{game_id}/concede/", {}, format="json")
    problem(again, 422, "game_over")
    assert RatingChange.objects.filter(game_id=game_id).count() == 2
    assert GameEvent.objects.filter(game_id=game_id, type="ratings_changed").count() == 1


def test_a_casual_game_over_has_no_rating_changes(ada: PlayerClient, bob: PlayerClient) -> None:
    game = create_game(ada, preset="two_player", seat=0)
    bob.post(f"/api/v1/games/{game['id']}/join/", {}, format="json")
    ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json")
    ada.post(f"/api/v1/games/{game['id']}/concede/", {}, format="json")
    detail = bob.game(game["id"])
    assert detail["status"] == "finished" and detail["rated"] is False
    assert detail["rating_changes"] is None
    card = bob.get(f"/api/v1/games/{game['id']}/scorecard/").json()
    assert card["rated"] is False and card["rating_changes"] is None
    assert not RatingChange.objects.exists() and not Rating.objects.exists()
