"""The friends services: a friendship is two rows, made and removed together; a request back
accepts the first; the friends limit; refusals change nothing."""

from __future__ import annotations

from typing import Any

import pytest

from accounts import errors
from accounts.models import FriendRequest, Friendship, Player, PlayerRelation, RelationKind
from accounts.selectors.friends import friend_requests_list, friends_list
from accounts.services.friends import (
    friend_remove,
    friend_request_accept,
    friend_request_cancel,
    friend_request_decline,
    friend_request_send,
)
from accounts.services.players import player_create

pytestmark = pytest.mark.django_db


def player(name: str) -> Player:
    return player_create(display_name=name)[0]


def befriend(a: Player, b: Player) -> None:
    doc, created = friend_request_send(sender=a, to_player_id=b.pk)
    assert created
    friend_request_accept(player=b, request_id=doc["id"])


def test_accepting_writes_one_row_each_way_and_removing_deletes_both() -> None:
    ada, bob = player("Ada"), player("Bob")
    befriend(ada, bob)
    assert set(Friendship.objects.values_list("owner_id", "friend_id")) == {
        (ada.pk, bob.pk),
        (bob.pk, ada.pk),
    }
    assert [f["id"] for f in friends_list(player=ada)["friends"]] == [bob.pk]
    friend_remove(player=ada, friend_id=bob.pk)
    assert not Friendship.objects.exists()
    with pytest.raises(errors.FriendNotFound):
        friend_remove(player=ada, friend_id=bob.pk)


def test_a_request_back_accepts_and_leaves_no_request() -> None:
    ada, bob = player("Ada"), player("Bob")
    first, _ = friend_request_send(sender=ada, to_player_id=bob.pk)
    back, created = friend_request_send(sender=bob, to_player_id=ada.pk)
    assert not created and back["id"] == first["id"] and back["status"] == "accepted"
    assert not FriendRequest.objects.exists()
    assert Friendship.objects.count() == 2


def test_the_friends_limit_counts_either_side(settings: Any) -> None:
    settings.FRIENDS_MAX = 1
    ada, bob, carol = player("Ada"), player("Bob"), player("Carol")
    befriend(ada, bob)
    doc, _ = friend_request_send(sender=carol, to_player_id=ada.pk)
    with pytest.raises(errors.FriendsLimit):
        friend_request_accept(player=ada, request_id=doc["id"])
    assert FriendRequest.objects.filter(pk=doc["id"]).exists()  # nothing changed
    assert Friendship.objects.count() == 2


def test_answers_belong_to_their_side() -> None:
    ada, bob = player("Ada"), player("Bob")
    doc, _ = friend_request_send(sender=ada, to_player_id=bob.pk)
    with pytest.raises(errors.FriendRequestNotFound):
        friend_request_accept(player=ada, request_id=doc["id"])
    with pytest.raises(errors.FriendRequestNotFound):
        friend_request_decline(player=ada, request_id=doc["id"])
    with pytest.raises(errors.FriendRequestNotFound):
        friend_request_cancel(player=bob, request_id=doc["id"])
    lists = friend_requests_list(player=bob)
    assert [r["id"] for r in lists["incoming"]] == [doc["id"]]


def test_a_block_either_way_refuses_a_request() -> None:
    ada, bob = player("Ada"), player("Bob")
    PlayerRelation.objects.create(owner=bob, other=ada, kind=RelationKind.BLOCK)
    with pytest.raises(errors.FriendRequestBlocked):
        friend_request_send(sender=ada, to_player_id=bob.pk)
    with pytest.raises(errors.FriendRequestBlocked):
        friend_request_send(sender=bob, to_player_id=ada.pk)
    assert not FriendRequest.objects.exists()
    # A favourite is no block.
    PlayerRelation.objects.filter(kind=RelationKind.BLOCK).delete()
    PlayerRelation.objects.create(owner=bob, other=ada, kind=RelationKind.FAVOURITE)
    assert friend_request_send(sender=ada, to_player_id=bob.pk)[1]


def test_a_block_ends_the_friendship_and_the_requests_between_the_two() -> None:
    from accounts.services.relations import relation_set

    ada, bob, cid = player("Ada"), player("Bob"), player("Cid")
    befriend(ada, bob)
    befriend(ada, cid)
    friend_request_send(sender=bob, to_player_id=cid.pk)
    relation_set(owner=bob, other_id=ada.pk, kind=RelationKind.BLOCK, on=True)
    assert not Friendship.objects.filter(owner__in=(ada, bob), friend__in=(ada, bob)).exists()
    # Ada's other friendship and Bob's request to Cid are not touched; a favourite ends nothing.
    assert Friendship.objects.filter(owner=ada, friend=cid).exists()
    assert FriendRequest.objects.filter(from_player=bob, to_player=cid).exists()
    relation_set(owner=ada, other_id=cid.pk, kind=RelationKind.FAVOURITE, on=True)
    assert Friendship.objects.filter(owner=ada, friend=cid).exists()


def test_a_block_withdraws_a_pending_request_either_way() -> None:
    from accounts.services.relations import relation_set

    ada, bob = player("Ada"), player("Bob")
    friend_request_send(sender=ada, to_player_id=bob.pk)
    relation_set(owner=bob, other_id=ada.pk, kind=RelationKind.BLOCK, on=True)
    assert not FriendRequest.objects.exists()
