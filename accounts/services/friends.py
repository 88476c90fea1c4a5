"""Friends: send a friend request, accept, decline or cancel it, remove a friend.

A request goes from one player to another by player id. Refused: to yourself (400
``friend_self``), to or from a player either of you blocked (403 ``friend_request_blocked``,
also when accepting), to a friend (409 ``already_friends``), a second time (409
``friend_request_exists``), past ``FRIEND_REQUESTS_PENDING_MAX`` unanswered requests out (409
``friend_requests_limit``) or past ``FRIENDS_MAX`` friends on either side (409
``friends_limit``). A request to a player who has already asked you accepts theirs: you become
friends at once. Answering deletes the request; the friendship is two ``Friendship`` rows, one
each way, removed together by either friend.

Every write takes both players' row locks (in id order), so two requests crossing each other, or
an acceptance and a removal at once, are applied one after the other.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction

from accounts import errors
from accounts.models import FriendRequest, Friendship, Player
from accounts.selectors.friends import are_friends, blocked_between, friend_request_doc
from accounts.selectors.players import player_get

FRIEND_REQUESTS_PENDING_MAX = 50
FRIENDS_MAX = 500


def _pending_max() -> int:
    return int(getattr(settings, "FRIEND_REQUESTS_PENDING_MAX", FRIEND_REQUESTS_PENDING_MAX))


def _friends_max() -> int:
    return int(getattr(settings, "FRIENDS_MAX", FRIENDS_MAX))


def _lock_pair(a_id: int, b_id: int) -> None:
    """Both players' rows locked, the lower id first (no deadlock between two writers)."""
    list(
        Player.objects.select_for_update()
        .filter(pk__in=sorted((a_id, b_id)))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def _befriend(a: Player, b: Player) -> None:
    """Make ``a`` and ``b`` friends (the caller holds both row locks)."""
    limit = _friends_max()
    for someone in (a, b):
        if Friendship.objects.filter(owner=someone).count() >= limit:
            raise errors.FriendsLimit(limit)
    Friendship.objects.bulk_create([Friendship(owner=a, friend=b), Friendship(owner=b, friend=a)])


def friend_request_send(*, sender: Player, to_player_id: int) -> tuple[dict[str, Any], bool]:
    """Ask ``to_player_id`` to be friends. Returns the request and whether it is new (False:
    the other player had asked first, and their request was accepted: ``status`` ``accepted``).
    """
    if to_player_id == sender.pk:
        raise errors.FriendSelf()
    other = player_get(to_player_id)
    with transaction.atomic():
        _lock_pair(sender.pk, other.pk)
        if blocked_between(sender.pk, other.pk):
            raise errors.FriendRequestBlocked()
        if are_friends(sender.pk, other.pk):
            raise errors.AlreadyFriends()
        theirs = (
            FriendRequest.objects.select_related("from_player", "to_player")
            .filter(from_player=other, to_player=sender)
            .first()
        )
        if theirs is not None:
            _befriend(sender, other)
            doc = friend_request_doc(theirs, "accepted")
            theirs.delete()
            return doc, False
        if FriendRequest.objects.filter(from_player=sender, to_player=other).exists():
            raise errors.FriendRequestExists()
        limit = _pending_max()
        if FriendRequest.objects.filter(from_player=sender).count() >= limit:
            raise errors.FriendRequestsLimit(limit)
        request = FriendRequest.objects.create(from_player=sender, to_player=other)
    request.from_player, request.to_player = sender, other
    return friend_request_doc(request), True


def _request_for(request_id: int, player: Player, *, incoming: bool) -> FriendRequest:
    """The pending request ``request_id`` addressed to ``player`` (``incoming``) or sent by
    them; 404 ``friend_request_not_found`` otherwise (whoever else asks learns nothing)."""
    side = {"to_player": player} if incoming else {"from_player": player}
    found = (
        FriendRequest.objects.select_related("from_player", "to_player")
        .filter(pk=request_id, **side)
        .first()
    )
    if found is None:
        raise errors.FriendRequestNotFound()
    return found


def friend_request_accept(*, player: Player, request_id: int) -> dict[str, Any]:
    """Accept a request addressed to ``player``: the two become friends."""
    with transaction.atomic():
        request = _request_for(request_id, player, incoming=True)
        _lock_pair(request.from_player_id, request.to_player_id)
        request = _request_for(request_id, player, incoming=True)  # still there, under lock
        if blocked_between(request.from_player_id, request.to_player_id):
            raise errors.FriendRequestBlocked()
        if not are_friends(request.from_player_id, request.to_player_id):
            _befriend(request.to_player, request.from_player)
        doc = friend_request_doc(request, "accepted")
        request.delete()
    return doc


def friend_request_decline(*, player: Player, request_id: int) -> dict[str, Any]:
    """Decline a request addressed to ``player`` (the sender may send another later)."""
    with transaction.atomic():
        request = _request_for(request_id, player, incoming=True)
        doc = friend_request_doc(request, "declined")
        request.delete()
    return doc


def friend_request_cancel(*, player: Player, request_id: int) -> dict[str, Any]:
    """Withdraw a request ``player`` sent."""
    with transaction.atomic():
        request = _request_for(request_id, player, incoming=False)
        doc = friend_request_doc(request, "cancelled")
        request.delete()
    return doc


def friend_remove(*, player: Player, friend_id: int) -> None:
    """End the friendship with ``friend_id`` (either friend may); 404 ``friend_not_found``
    if they are not friends."""
    with transaction.atomic():
        _lock_pair(player.pk, friend_id)
        deleted, _ = Friendship.objects.filter(
            owner_id__in=(player.pk, friend_id), friend_id__in=(player.pk, friend_id)
        ).delete()
        if not deleted:
            raise errors.FriendNotFound()
