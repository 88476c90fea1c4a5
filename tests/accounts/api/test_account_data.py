"""POST /account/delete/ and GET /account/export/: a deleted account's games, ratings, channels
and credentials, confirmation refusals, and the export's sections."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from rest_framework.test import APIClient

from accounts.models import Player, PlayerRelation, RelationKind
from accounts.services.account_data import DELETED_PLAYER_NAME
from competition.models import Rating, RatingFormat
from games.engine.history import GAME_CONCEDED
from games.models import Challenge, Game, GameEvent, GameStatus
from games.models.challenges import ChallengeStatus
from games.selectors.verify import game_verify
from games.services.challenges import challenge_issue
from notifications.models import (
    NotificationPreference,
    NotificationSettings,
    PushSubscription,
    WebhookEndpoint,
)
from tests.games.api.conftest import (
    PlayerClient,
    create_game,
    move,
    problem,
    snapshot_of,
    to_act,
    two_player_game,
)

pytestmark = pytest.mark.django_db

DELETE = "/api/v1/account/delete/"
EXPORT = "/api/v1/account/export/"


def plain(client: PlayerClient) -> APIClient:
    """The same player's key on a client that does not check openapi.yaml (these operations are
    added to it when the schema is regenerated)."""
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Token {client.token}")
    return other


def delete(client: PlayerClient, body: dict[str, Any] | None = None) -> Any:
    return plain(client).post(DELETE, body if body is not None else {"confirm": "delete"}, "json")


def seat_of(client: PlayerClient, game_id: int) -> int:
    return int(client.game(game_id)["your_seat"])


def finished_game(ada: PlayerClient, bob: PlayerClient, moves: int = 4) -> int:
    """A game between two humans: a few moves, then ``ada`` concedes."""
    game_id = two_player_game(ada, bob)
    for _ in range(moves):
        move(to_act([ada, bob], game_id), game_id)
    conceded = ada.post(f"/api/v1/games/{game_id}/concede/", {}, format="json")
    assert conceded.status_code == 200, conceded.content
    return game_id


def names_in(data: Any) -> str:
    return json.dumps(data, default=str)


# ============================================================================== deletion
def test_deleting_concedes_a_game_in_play(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    ada_seat = seat_of(ada, game_id)

    assert delete(ada).status_code == 204

    game = Game.objects.get(pk=game_id)
    assert game.status == GameStatus.FINISHED
    conceded = GameEvent.objects.get(game=game, type=GAME_CONCEDED)
    assert conceded.seat == ada_seat
    assert game.winner_team != conceded.payload["team"]
    assert game_verify(game).ok, game_verify(game).problems
    seen = bob.game(game_id)
    names = [s["player"]["display_name"] for s in seen["seats"] if s["player"]]
    assert "Ada" not in names and DELETED_PLAYER_NAME in names


def test_a_finished_game_keeps_its_log_and_shows_no_personal_data(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game_id = finished_game(ada, bob)
    events_before = GameEvent.objects.filter(game_id=game_id).count()

    assert delete(ada).status_code == 204

    assert GameEvent.objects.filter(game_id=game_id).count() == events_before
    game = Game.objects.get(pk=game_id)
    assert game_verify(game).ok, game_verify(game).problems
    assert "Ada" not in names_in(game.seating)
    viewer = plain(bob)
    for path in ("", "replay/", "export/", "table/events/", "scorecard/"):
        response = viewer.get(f"/api/v1/games/{game_id}/{path}")
        assert response.status_code == 200, (path, response.status_code)
        assert "Ada" not in response.content.decode(), path
    assert DELETED_PLAYER_NAME in viewer.get(f"/api/v1/games/{game_id}/").content.decode()
    call_command("replay", "--all", "--verify")  # raises on a game that does not verify


def test_the_player_row_stays_without_personal_data(ada: PlayerClient, bob: PlayerClient) -> None:
    ada_player = Player.objects.get(pk=ada.player_id)
    user = ada_player.user
    user.email = "ada@example.org"
    user.save()
    PlayerRelation.objects.create(
        owner=ada_player, other_id=bob.player_id, kind=RelationKind.FAVOURITE
    )
    PlayerRelation.objects.create(owner_id=bob.player_id, other=ada_player, kind=RelationKind.BLOCK)

    assert delete(ada).status_code == 204

    player = Player.objects.get(pk=ada.player_id)
    assert player.display_name == DELETED_PLAYER_NAME and player.deleted_at is not None
    user = get_user_model().objects.get(pk=player.user_id)
    assert not user.is_active and user.email == "" and not user.has_usable_password()
    assert "guest" not in user.username and user.username.startswith("deleted-")
    assert not PlayerRelation.objects.filter(owner=player).exists()
    assert not PlayerRelation.objects.filter(other=player).exists()


def test_the_deleted_players_key_answers_401(ada: PlayerClient) -> None:
    assert delete(ada).status_code == 204
    problem(ada.get("/api/v1/players/me/"), 401, "authentication_failed")
    assert delete(ada).status_code == 401


def test_the_leaderboards_no_longer_list_the_player(ada: PlayerClient, bob: PlayerClient) -> None:
    for client, display in ((ada, 10.0), (bob, 5.0)):
        Rating.objects.create(
            player_id=client.player_id,
            format=RatingFormat.TWO_PLAYER,
            mu=display + 6.0,
            sigma=2.0,
            display=display,
            games=12,
            wins=4,
        )
    before = bob.get("/api/v1/leaderboards/two_player/").json()
    assert [e["player_id"] for e in before["entries"]] == [ada.player_id, bob.player_id]

    assert delete(ada).status_code == 204

    after = bob.get("/api/v1/leaderboards/two_player/").json()
    assert [e["player_id"] for e in after["entries"]] == [bob.player_id]
    assert after["entries"][0]["rank"] == 1
    assert not Rating.objects.filter(player_id=ada.player_id).exists()


def test_webhooks_push_and_preferences_are_gone(ada: PlayerClient, bob: PlayerClient) -> None:
    for client in (ada, bob):
        pid = client.player_id
        WebhookEndpoint.objects.create(player_id=pid, url=f"https://example.org/{pid}", secret="s")
        PushSubscription.objects.create(
            player_id=pid, endpoint=f"https://push.example.org/{pid}", p256dh="k", auth="a"
        )
        NotificationPreference.objects.create(
            player_id=pid, channel="webhook", kind="chat", enabled=False
        )
        NotificationSettings.objects.create(player_id=pid, email=f"{pid}@example.org")

    assert delete(ada).status_code == 204

    for model in (WebhookEndpoint, PushSubscription, NotificationPreference, NotificationSettings):
        assert not model.objects.filter(player_id=ada.player_id).exists(), model.__name__
        assert model.objects.filter(player_id=bob.player_id).exists(), model.__name__


@pytest.mark.parametrize(
    "body", [{}, {"confirm": ""}, {"confirm": "yes"}, {"confirm": "DELETE "}, {"password": "x"}]
)
def test_an_unconfirmed_deletion_changes_nothing(
    ada: PlayerClient, bob: PlayerClient, body: dict[str, Any]
) -> None:
    game_id = two_player_game(ada, bob)
    problem(delete(ada, body), 400, "account_deletion_unconfirmed")
    assert Game.objects.get(pk=game_id).status == GameStatus.ACTIVE
    assert Player.objects.get(pk=ada.player_id).deleted_at is None
    assert ada.get("/api/v1/players/me/").json()["display_name"] == "Ada"


@pytest.mark.parametrize("password", [None, "", "wrong"])
def test_an_account_with_a_password_needs_it(
    ada: PlayerClient, bob: PlayerClient, password: str | None
) -> None:
    game_id = two_player_game(ada, bob)
    user = Player.objects.get(pk=ada.player_id).user
    user.set_password("correct horse battery")
    user.save()
    body: dict[str, Any] = {"confirm": "delete"}
    if password is not None:
        body["password"] = password

    problem(delete(ada, body), 403, "account_password_invalid")

    assert Game.objects.get(pk=game_id).status == GameStatus.ACTIVE
    assert Player.objects.get(pk=ada.player_id).deleted_at is None
    assert ada.get("/api/v1/players/me/").status_code == 200

    right = delete(ada, {"confirm": "delete", "password": "correct horse battery"})
    assert right.status_code == 204
    assert Game.objects.get(pk=game_id).status == GameStatus.FINISHED


def test_a_lobby_table_of_the_player_goes_and_their_seats_elsewhere_are_given_up(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    own = create_game(ada, preset="two_player", seat=0)["id"]
    other = create_game(bob, preset="two_player", seat=0)["id"]
    joined = ada.post(f"/api/v1/games/{other}/join/", {}, format="json")
    assert joined.status_code == 200, joined.content

    assert delete(ada).status_code == 204

    assert not Game.objects.filter(pk=own).exists()
    seats = Game.objects.get(pk=other).seats.all()
    assert ada.player_id not in {s.player_id for s in seats}


# ============================================================================== export
def test_the_export_has_every_section(ada: PlayerClient, bob: PlayerClient) -> None:
    finished = finished_game(ada, bob)
    NotificationSettings.objects.create(player_id=ada.player_id, email="ada@example.org")
    WebhookEndpoint.objects.create(
        player_id=ada.player_id, url="https://example.org/hook", secret="top-secret"
    )
    PlayerRelation.objects.create(
        owner_id=ada.player_id, other_id=bob.player_id, kind=RelationKind.FAVOURITE
    )

    response = plain(ada).get(EXPORT)

    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment")
    body = response.json()
    for section in ("profile", "relations", "friends", "games", "ratings", "notifications"):
        assert section in body, section
    assert body["profile"]["id"] == ada.player_id
    assert body["profile"]["display_name"] == "Ada"
    assert [f["id"] for f in body["relations"]["favourites"]] == [bob.player_id]
    (game,) = body["games"]
    assert game["game_id"] == finished and game["result"] == "lost" and game["conceded"]
    assert {"current", "history"} <= set(body["ratings"])
    assert body["notifications"]["settings"]["email"] == "ada@example.org"
    assert body["notifications"]["webhooks"][0]["url"] == "https://example.org/hook"
    assert "top-secret" not in response.content.decode()


def _keys(data: Any) -> set[str]:
    if isinstance(data, dict):
        return set(data) | {k for v in data.values() for k in _keys(v)}
    if isinstance(data, list):
        return {k for v in data for k in _keys(v)}
    return set()


def test_the_export_shows_no_other_players_hidden_cards(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game_id = two_player_game(ada, bob)
    bob_seat = seat_of(bob, game_id)
    bob_hand = snapshot_of(game_id).hands[bob_seat]

    body = plain(ada).get(EXPORT).json()

    assert {"hand", "hands", "private", "seed", "stock", "snapshot"}.isdisjoint(_keys(body))
    assert json.dumps(list(bob_hand)) not in json.dumps(body)
    (game,) = body["games"]
    assert game["status"] == "active" and game["result"] is None


def test_the_export_needs_a_key(make_player: Callable[..., PlayerClient]) -> None:
    assert APIClient().get(EXPORT).status_code == 401


def test_open_challenges_are_withdrawn_and_declined(
    ada: PlayerClient, bob: PlayerClient, make_player: Callable[..., PlayerClient]
) -> None:
    cy = make_player("Cy")
    players = {c.player_id: Player.objects.get(pk=c.player_id) for c in (ada, bob, cy)}
    sent = challenge_issue(
        challenger=players[ada.player_id], invitee_id=bob.player_id, preset="two_player"
    )
    received = challenge_issue(
        challenger=players[cy.player_id], invitee_id=ada.player_id, preset="two_player"
    )

    assert delete(ada).status_code == 204

    assert Challenge.objects.get(pk=sent.pk).status == ChallengeStatus.CANCELLED
    assert Challenge.objects.get(pk=received.pk).status == ChallengeStatus.DECLINED
