"""A player's friends and friend requests (read only)."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from accounts.models import FriendRequest, Friendship, Player, PlayerRelation, RelationKind


def blocked_between(a_id: int, b_id: int) -> bool:
    """Whether either player has blocked the other."""
    return PlayerRelation.objects.filter(
        Q(owner_id=a_id, other_id=b_id) | Q(owner_id=b_id, other_id=a_id),
        kind=RelationKind.BLOCK,
    ).exists()


def are_friends(a_id: int, b_id: int) -> bool:
    return Friendship.objects.filter(owner_id=a_id, friend_id=b_id).exists()


def _someone(player: Player) -> dict[str, Any]:
    return {"id": player.pk, "display_name": player.display_name, "is_bot": player.is_bot}


def friend_request_doc(request: FriendRequest, status: str = "pending") -> dict[str, Any]:
    """A friend request as both its players see it; ``status`` is ``pending`` for a stored
    request, or what just happened to it (``accepted``, ``declined``, ``cancelled``)."""
    return {
        "id": request.pk,
        "from_player": _someone(request.from_player),
        "to_player": _someone(request.to_player),
        "status": status,
        "created_at": request.created_at,
    }


def friends_list(*, player: Player) -> dict[str, Any]:
    """``player``'s friends, newest friendship first."""
    rows = (
        Friendship.objects.filter(owner=player)
        .select_related("friend")
        .order_by("-created_at", "-id")
    )
    return {"friends": [{**_someone(r.friend), "since": r.created_at} for r in rows]}


def friend_requests_list(*, player: Player) -> dict[str, Any]:
    """The pending requests addressed to ``player`` and those ``player`` sent, newest first."""
    rows = (
        FriendRequest.objects.filter(Q(to_player=player) | Q(from_player=player))
        .select_related("from_player", "to_player")
        .order_by("-created_at", "-id")
    )
    out: dict[str, Any] = {"incoming": [], "outgoing": []}
    for r in rows:
        out["incoming" if r.to_player_id == player.pk else "outgoing"].append(friend_request_doc(r))
    return out
