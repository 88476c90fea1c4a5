"""Challenges over HTTP: issue, list, accept (the table is created with both seated and both can
play), decline, cancel, expiry, blocks, the rated-table rules, the quotas, and the invitee's
notification. Answers are checked against the schema generated from the code."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from games.models import Challenge, ChallengeStatus, Game, GameStatus
from notifications.models import (
    Channel,
    Delivery,
    Notification,
    NotificationKind,
    NotificationPreference,
    NotificationSettings,
)
from tests.accounts.api.generated_schema import checked
from tests.games.api.conftest import choose, problem
from tests.notifications.notification_players import Someone, someone

pytestmark = pytest.mark.django_db

CHALLENGES = "/api/v1/challenges/"


@pytest.fixture
def ada(db: None) -> Someone:
    return someone("Ada")


@pytest.fixture
def bob(db: None) -> Someone:
    return someone("Bob")


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    checked(response, status)
    return problem(response, status, code)


def issue(challenger: Someone, invitee: Someone | int, **body: Any) -> Any:
    player_id = invitee if isinstance(invitee, int) else invitee.player_id
    return challenger.client.post(
        CHALLENGES, {"player_id": player_id, "preset": "two_player", **body}, format="json"
    )


def issued(challenger: Someone, invitee: Someone, **body: Any) -> dict[str, Any]:
    return checked(issue(challenger, invitee, **body), 201)


def accept(invitee: Someone, challenge_id: int) -> Any:
    return invitee.client.post(f"{CHALLENGES}{challenge_id}/accept/")


def game_of(player: Someone, game_id: int) -> dict[str, Any]:
    response = player.client.get(f"/api/v1/games/{game_id}/")
    assert response.status_code == 200, response.content
    return response.json()


def play(players: list[Someone], game_id: int, moves: int) -> None:
    """The players play ``moves`` moves over HTTP, each when it is their turn."""
    for _ in range(moves):
        views = {p.player_id: game_of(p, game_id) for p in players}
        actor = next(
            p
            for p in players
            if views[p.player_id]["state"]["to_act"] == views[p.player_id]["your_seat"]
        )
        mine = views[actor.player_id]
        response = actor.client.post(
            f"/api/v1/games/{game_id}/actions/",
            {"action": choose(mine["state"]["legal_actions"]), "expected_version": mine["version"]},
            format="json",
        )
        assert response.status_code == 201, response.content


# ============================================================================== issue, list
def test_an_issued_challenge_is_open_for_both(ada: Someone, bob: Someone) -> None:
    sent = issued(ada, bob, seat=1, expires_in=3600)
    assert sent["status"] == "pending" and sent["game_id"] is None
    assert (sent["challenger"]["id"], sent["invitee"]["id"], sent["seat"]) == (
        ada.player_id,
        bob.player_id,
        1,
    )
    expires = dt.datetime.fromisoformat(sent["expires_at"].replace("Z", "+00:00"))
    assert abs((expires - timezone.now()).total_seconds() - 3600) < 60
    mine = checked(ada.client.get(CHALLENGES), 200)
    theirs = checked(bob.client.get(CHALLENGES), 200)
    assert [c["id"] for c in mine["outgoing"]] == [sent["id"]] and mine["incoming"] == []
    assert [c["id"] for c in theirs["incoming"]] == [sent["id"]] and theirs["outgoing"] == []
    assert checked(bob.client.get(f"{CHALLENGES}{sent['id']}/"), 200)["id"] == sent["id"]
    refused(someone("Eve").client.get(f"{CHALLENGES}{sent['id']}/"), 404, "challenge_not_found")


def test_the_expiry_defaults_to_a_day_and_is_bounded(ada: Someone, bob: Someone) -> None:
    sent = issued(ada, bob)
    expires = dt.datetime.fromisoformat(sent["expires_at"].replace("Z", "+00:00"))
    assert abs((expires - timezone.now()).total_seconds() - 86400) < 60
    checked(ada.client.post(f"{CHALLENGES}{sent['id']}/cancel/"), 200)
    refused(issue(ada, bob, expires_in=10), 400, "invalid_request")
    refused(issue(ada, bob, expires_in=8 * 86400), 400, "invalid_request")
    assert Challenge.objects.count() == 1


def test_bad_challenges_are_refused_and_change_nothing(ada: Someone, bob: Someone) -> None:
    refused(issue(ada, ada), 400, "challenge_self")
    refused(issue(ada, 999999), 404, "player_not_found")
    refused(issue(ada, bob, options={"no_such_option": 1}), 400, "invalid_option")
    refused(issue(ada, bob, seat=2), 400, "invalid_seat")
    refused(issue(ada, bob, preset="nope"), 400, "invalid_request")
    assert not Challenge.objects.exists()


# ============================================================================== accept
def test_accepting_creates_a_dealt_table_both_play_at(ada: Someone, bob: Someone) -> None:
    sent = issued(ada, bob, seat=1)
    answered = checked(accept(bob, sent["id"]), 200)
    assert answered["status"] == "accepted" and answered["game_id"] is not None
    game_id = answered["game_id"]
    game = Game.objects.get(pk=game_id)
    assert game.status == GameStatus.ACTIVE and not game.is_public and not game.rated
    assert game.created_by_id == ada.player_id
    assert {s.index: s.player_id for s in game.seats.all()} == {
        1: ada.player_id,
        0: bob.player_id,
    }
    assert game_of(ada, game_id)["your_seat"] == 1
    assert game_of(bob, game_id)["your_seat"] == 0
    play([ada, bob], game_id, 4)  # both act: the game moves on
    assert Game.objects.get(pk=game_id).version > 1
    # It is no longer open, and is not accepted twice.
    assert checked(bob.client.get(CHALLENGES), 200)["incoming"] == []
    refused(accept(bob, sent["id"]), 409, "challenge_closed")
    assert Game.objects.count() == 1


def test_a_random_seat_is_drawn_on_acceptance(ada: Someone, bob: Someone) -> None:
    sent = issued(ada, bob)
    assert sent["seat"] is None
    game_id = checked(accept(bob, sent["id"]), 200)["game_id"]
    seats = {s.player_id: s.index for s in Game.objects.get(pk=game_id).seats.all()}
    assert sorted(seats.values()) == [0, 1]
    assert set(seats) == {ada.player_id, bob.player_id}


def test_only_the_invitee_accepts_or_declines(ada: Someone, bob: Someone) -> None:
    sent = issued(ada, bob)
    refused(accept(ada, sent["id"]), 403, "challenge_not_yours")
    refused(ada.client.post(f"{CHALLENGES}{sent['id']}/decline/"), 403, "challenge_not_yours")
    refused(bob.client.post(f"{CHALLENGES}{sent['id']}/cancel/"), 403, "challenge_not_yours")
    refused(accept(someone("Eve"), sent["id"]), 404, "challenge_not_found")
    assert not Game.objects.exists()
    assert Challenge.objects.get().status == ChallengeStatus.PENDING


def test_a_four_seat_challenge_seats_an_opponent_and_leaves_the_rest_open(
    ada: Someone, bob: Someone
) -> None:
    sent = issued(ada, bob, preset="classic", seat=0)
    game_id = checked(accept(bob, sent["id"]), 200)["game_id"]
    game = Game.objects.get(pk=game_id)
    assert game.status == GameStatus.LOBBY
    seats = {s.index: (s.player_id, s.bot_level) for s in game.seats.all()}
    assert seats[0] == (ada.player_id, None)
    assert seats[1] == (bob.player_id, None)  # the other team: an opponent
    assert seats[2] == seats[3] == (None, None)
    # The challenger starts it like any table they created.
    started = ada.client.post(
        f"/api/v1/games/{game_id}/start/", {"fill_with_bots": True}, format="json"
    )
    assert started.status_code == 200, started.content
    assert Game.objects.get(pk=game_id).status == GameStatus.ACTIVE


def test_a_four_seat_challenge_with_bots_is_dealt_at_once(ada: Someone, bob: Someone) -> None:
    sent = issued(ada, bob, preset="classic", seat=3, fill_with_bots=True, bot_level="medium")
    game_id = checked(accept(bob, sent["id"]), 200)["game_id"]
    game = Game.objects.get(pk=game_id)
    assert game.status == GameStatus.ACTIVE
    seats = {s.index: (s.player_id, s.bot_level) for s in game.seats.all()}
    assert seats[3] == (ada.player_id, None)
    assert seats[0] == (bob.player_id, None)
    assert seats[1] == seats[2] == (None, "medium")


# ============================================================================== decline, cancel
def test_declined_and_cancelled_challenges_cannot_be_accepted(ada: Someone, bob: Someone) -> None:
    first = issued(ada, bob)
    assert checked(bob.client.post(f"{CHALLENGES}{first['id']}/decline/"), 200)["status"] == (
        "declined"
    )
    refused(accept(bob, first["id"]), 409, "challenge_closed")
    second = issued(ada, bob)  # the first is closed: a new one may be sent
    assert checked(ada.client.post(f"{CHALLENGES}{second['id']}/cancel/"), 200)["status"] == (
        "cancelled"
    )
    refused(accept(bob, second["id"]), 409, "challenge_closed")
    refused(ada.client.post(f"{CHALLENGES}{second['id']}/cancel/"), 409, "challenge_closed")
    assert checked(bob.client.get(CHALLENGES), 200)["incoming"] == []
    assert not Game.objects.exists()


def test_an_expired_challenge_cannot_be_accepted(ada: Someone, bob: Someone) -> None:
    sent = issued(ada, bob)
    Challenge.objects.filter(pk=sent["id"]).update(
        expires_at=timezone.now() - dt.timedelta(seconds=1)
    )
    refused(accept(bob, sent["id"]), 409, "challenge_expired")
    assert checked(bob.client.get(f"{CHALLENGES}{sent['id']}/"), 200)["status"] == "expired"
    assert checked(bob.client.get(CHALLENGES), 200)["incoming"] == []
    assert not Game.objects.exists()
    issued(ada, bob)  # an expired challenge is no longer open


# ============================================================================== blocks, rated
@pytest.mark.parametrize("blocker", ["challenger", "invitee"])
def test_blocked_players_cannot_challenge(ada: Someone, bob: Someone, blocker: str) -> None:
    owner, other = (ada, bob) if blocker == "challenger" else (bob, ada)
    assert owner.client.put(f"/api/v1/players/me/blocked/{other.player_id}/").status_code == 200
    refused(issue(ada, bob), 403, "challenge_blocked")
    assert not Challenge.objects.exists()


def test_a_block_after_the_challenge_refuses_its_acceptance(ada: Someone, bob: Someone) -> None:
    sent = issued(ada, bob)
    assert ada.client.put(f"/api/v1/players/me/blocked/{bob.player_id}/").status_code == 200
    refused(accept(bob, sent["id"]), 403, "challenge_blocked")
    assert not Game.objects.exists()


def test_rated_challenges_follow_the_rated_table_rules(ada: Someone, bob: Someone) -> None:
    refused(
        issue(ada, bob, rated=True, options={"target_score": 3000}), 422, "rated_custom_options"
    )
    bot_body = {"display_name": "Botty", "bot": True}
    made = bob.client.post("/api/v1/players/", bot_body, format="json").json()
    refused(issue(ada, made["id"], rated=True), 422, "rated_humans_only")
    refused(
        issue(ada, bob, rated=True, preset="classic", fill_with_bots=True), 422, "rated_humans_only"
    )
    assert not Challenge.objects.exists()
    sent = issued(ada, bob, rated=True)
    game_id = checked(accept(bob, sent["id"]), 200)["game_id"]
    game = Game.objects.get(pk=game_id)
    assert game.rated and game.status == GameStatus.ACTIVE


# ============================================================================== quotas
def test_open_challenges_are_bounded(ada: Someone, bob: Someone, settings: Any) -> None:
    settings.CHALLENGES_OPEN_MAX = 2
    first = issued(ada, bob)
    refused(issue(ada, bob), 409, "challenge_exists")
    issued(ada, someone("Carol"))
    refused(issue(ada, someone("Dan")), 409, "challenges_limit")
    assert Challenge.objects.count() == 2
    checked(ada.client.post(f"{CHALLENGES}{first['id']}/cancel/"), 200)
    issued(ada, someone("Dan"))  # a closed challenge frees a place


def test_challenges_waiting_for_one_player_are_bounded(bob: Someone, settings: Any) -> None:
    settings.CHALLENGES_INCOMING_MAX = 1
    issued(someone("Carol"), bob)
    refused(issue(someone("Dan"), bob), 409, "challenges_limit")


# ============================================================================== notification
def test_the_invitee_is_notified_on_the_channels_they_chose(ada: Someone, bob: Someone) -> None:
    NotificationSettings.objects.create(player_id=bob.player_id, email="bob@example.com")
    sent = issued(ada, bob, rated=True)
    note = Notification.objects.get(player_id=bob.player_id, kind=NotificationKind.CHALLENGE)
    assert note.game_id is None
    assert note.payload["challenge_id"] == sent["id"]
    assert note.payload["challenger_id"] == ada.player_id
    assert note.payload["preset"] == "two_player" and note.payload["rated"] is True
    assert "Ada" in note.payload["title"]
    assert list(Delivery.objects.filter(notification=note).values_list("channel", flat=True)) == [
        Channel.EMAIL
    ]
    assert not Notification.objects.filter(player_id=ada.player_id).exists()


def test_a_channel_switched_off_for_challenges_is_not_used(ada: Someone, bob: Someone) -> None:
    NotificationSettings.objects.create(player_id=bob.player_id, email="bob@example.com")
    NotificationPreference.objects.create(
        player_id=bob.player_id,
        channel=Channel.EMAIL,
        kind=NotificationKind.CHALLENGE,
        enabled=False,
    )
    issued(ada, bob)
    assert not Notification.objects.filter(kind=NotificationKind.CHALLENGE).exists()


def test_reading_challenges_needs_play_or_challenge_write_and_sending_challenge_write(
    ada: Someone, bob: Someone
) -> None:
    from tests.accounts.api.test_friends import token_client

    player = token_client(ada, "play")
    checked(player.get(CHALLENGES), 200)
    body = {"player_id": bob.player_id, "preset": "two_player"}
    problem(player.post(CHALLENGES, body, format="json"), 403, "insufficient_scope")
    challenger = token_client(ada, "challenge:write")
    checked(challenger.get(CHALLENGES), 200)
    checked(challenger.post(CHALLENGES, body, format="json"), 201)
    problem(token_client(bob, "profile:read").get(CHALLENGES), 403, "insufficient_scope")
