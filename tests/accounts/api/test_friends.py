"""Friends over HTTP: requests sent, listed, accepted, declined and cancelled; friends listed
and removed; what is refused (yourself, blocked players, twice, friends already, the limit).
Answers are checked against the schema generated from the code."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import FriendRequest, Friendship
from tests.accounts.api.generated_schema import checked
from tests.games.api.conftest import problem
from tests.notifications.notification_players import Someone, someone

pytestmark = pytest.mark.django_db

FRIENDS = "/api/v1/friends/"
REQUESTS = "/api/v1/friends/requests/"


@pytest.fixture
def ada(db: None) -> Someone:
    return someone("Ada")


@pytest.fixture
def bob(db: None) -> Someone:
    return someone("Bob")


def refused(response: Any, status: int, code: str) -> dict[str, Any]:
    checked(response, status)
    return problem(response, status, code)


def send(sender: Someone, to: Someone) -> Any:
    return sender.client.post(REQUESTS, {"player_id": to.player_id}, format="json")


def friend_ids(player: Someone) -> list[int]:
    return [f["id"] for f in checked(player.client.get(FRIENDS), 200)["friends"]]


def test_a_request_is_listed_for_both_and_accepting_makes_friends(ada: Someone, bob: Someone):
    sent = checked(send(ada, bob), 201)
    assert sent["status"] == "pending"
    assert (sent["from_player"]["id"], sent["to_player"]["id"]) == (ada.player_id, bob.player_id)

    mine = checked(ada.client.get(REQUESTS), 200)
    theirs = checked(bob.client.get(REQUESTS), 200)
    assert [r["id"] for r in mine["outgoing"]] == [sent["id"]] and mine["incoming"] == []
    assert [r["id"] for r in theirs["incoming"]] == [sent["id"]] and theirs["outgoing"] == []
    assert friend_ids(ada) == friend_ids(bob) == []

    accepted = checked(bob.client.post(f"{REQUESTS}{sent['id']}/accept/"), 200)
    assert accepted["status"] == "accepted"
    assert friend_ids(ada) == [bob.player_id]
    assert friend_ids(bob) == [ada.player_id]
    assert checked(bob.client.get(REQUESTS), 200) == {"incoming": [], "outgoing": []}


def test_only_the_addressee_answers_a_request(ada: Someone, bob: Someone):
    sent = checked(send(ada, bob), 201)
    carol = someone("Carol")
    for who in (ada, carol):
        refused(who.client.post(f"{REQUESTS}{sent['id']}/accept/"), 404, "friend_request_not_found")
        refused(
            who.client.post(f"{REQUESTS}{sent['id']}/decline/"), 404, "friend_request_not_found"
        )
    refused(bob.client.delete(f"{REQUESTS}{sent['id']}/"), 404, "friend_request_not_found")
    assert FriendRequest.objects.filter(pk=sent["id"]).exists()
    assert not Friendship.objects.exists()


def test_declining_deletes_the_request_and_it_may_be_sent_again(ada: Someone, bob: Someone):
    sent = checked(send(ada, bob), 201)
    declined = checked(bob.client.post(f"{REQUESTS}{sent['id']}/decline/"), 200)
    assert declined["status"] == "declined"
    assert checked(ada.client.get(REQUESTS), 200)["outgoing"] == []
    assert friend_ids(ada) == []
    refused(bob.client.post(f"{REQUESTS}{sent['id']}/accept/"), 404, "friend_request_not_found")
    checked(send(ada, bob), 201)


def test_the_sender_cancels_a_request(ada: Someone, bob: Someone):
    sent = checked(send(ada, bob), 201)
    cancelled = checked(ada.client.delete(f"{REQUESTS}{sent['id']}/"), 200)
    assert cancelled["status"] == "cancelled"
    assert checked(bob.client.get(REQUESTS), 200)["incoming"] == []
    refused(bob.client.post(f"{REQUESTS}{sent['id']}/accept/"), 404, "friend_request_not_found")


def test_a_request_back_accepts_the_first_one(ada: Someone, bob: Someone):
    first = checked(send(ada, bob), 201)
    back = checked(send(bob, ada), 200)
    assert back["id"] == first["id"] and back["status"] == "accepted"
    assert friend_ids(ada) == [bob.player_id]
    assert not FriendRequest.objects.exists()


def test_a_second_request_and_a_request_to_a_friend_are_refused(ada: Someone, bob: Someone):
    sent = checked(send(ada, bob), 201)
    refused(send(ada, bob), 409, "friend_request_exists")
    assert FriendRequest.objects.count() == 1
    checked(bob.client.post(f"{REQUESTS}{sent['id']}/accept/"), 200)
    refused(send(ada, bob), 409, "already_friends")
    refused(send(bob, ada), 409, "already_friends")
    assert not FriendRequest.objects.exists()


def test_yourself_and_nobody_are_refused(ada: Someone):
    refused(
        ada.client.post(REQUESTS, {"player_id": ada.player_id}, format="json"), 400, "friend_self"
    )
    refused(
        ada.client.post(REQUESTS, {"player_id": 999999}, format="json"), 404, "player_not_found"
    )
    refused(ada.client.post(REQUESTS, {"player_id": "x"}, format="json"), 400, "invalid_request")
    assert not FriendRequest.objects.exists()


@pytest.mark.parametrize("blocker", ["sender", "addressee"])
def test_blocked_players_cannot_send_requests(ada: Someone, bob: Someone, blocker: str):
    owner, other = (ada, bob) if blocker == "sender" else (bob, ada)
    assert owner.client.put(f"/api/v1/players/me/blocked/{other.player_id}/").status_code == 200
    body = refused(send(ada, bob), 403, "friend_request_blocked")
    assert "blocked" in body["detail"]
    assert not FriendRequest.objects.exists()


def test_a_block_after_the_request_withdraws_it(ada: Someone, bob: Someone):
    sent = checked(send(ada, bob), 201)
    assert ada.client.put(f"/api/v1/players/me/blocked/{bob.player_id}/").status_code == 200
    refused(bob.client.post(f"{REQUESTS}{sent['id']}/accept/"), 404, "friend_request_not_found")
    assert friend_ids(bob) == []


def test_either_friend_removes_the_friendship(ada: Someone, bob: Someone):
    sent = checked(send(ada, bob), 201)
    checked(bob.client.post(f"{REQUESTS}{sent['id']}/accept/"), 200)
    checked(bob.client.delete(f"{FRIENDS}{ada.player_id}/"), 204)
    assert friend_ids(ada) == friend_ids(bob) == []
    assert not Friendship.objects.exists()
    refused(ada.client.delete(f"{FRIENDS}{bob.player_id}/"), 404, "friend_not_found")


def test_unanswered_requests_out_are_bounded(ada: Someone, settings: Any):
    settings.FRIEND_REQUESTS_PENDING_MAX = 2
    others = [someone(f"P{i}") for i in range(3)]
    checked(send(ada, others[0]), 201)
    checked(send(ada, others[1]), 201)
    refused(send(ada, others[2]), 409, "friend_requests_limit")
    assert FriendRequest.objects.count() == 2
    # An answer frees a place.
    request_id = FriendRequest.objects.get(to_player_id=others[0].player_id).pk
    checked(others[0].client.post(f"{REQUESTS}{request_id}/decline/"), 200)
    checked(send(ada, others[2]), 201)


def test_friends_need_a_token(ada: Someone):
    from rest_framework.test import APIClient

    assert APIClient().get(FRIENDS).status_code == 401
    assert (
        APIClient().post(REQUESTS, {"player_id": ada.player_id}, format="json").status_code == 401
    )


def token_client(player: Someone, *granted: str) -> Any:
    """A client with a personal access token of ``player`` holding only ``granted``."""
    from rest_framework.test import APIClient

    from accounts.models import Player
    from accounts.services.credentials import personal_token_create

    user = Player.objects.get(pk=player.player_id).user
    _, key = personal_token_create(user, name="a program", scopes_given=list(granted), days=None)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client


def test_reading_friends_needs_profile_read_and_changing_them_profile_write(
    ada: Someone, bob: Someone
) -> None:
    reader = token_client(ada, "profile:read")
    checked(reader.get(FRIENDS), 200)
    checked(reader.get(REQUESTS), 200)
    problem(
        reader.post(REQUESTS, {"player_id": bob.player_id}, format="json"),
        403,
        "insufficient_scope",
    )
    writer = token_client(ada, "profile:write")
    problem(writer.get(FRIENDS), 403, "insufficient_scope")
    checked(writer.post(REQUESTS, {"player_id": bob.player_id}, format="json"), 201)
