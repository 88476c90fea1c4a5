"""A player's relations to other players: block and favourite lists."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Q

from accounts import errors
from accounts.models import FriendRequest, Friendship, Player, PlayerRelation, RelationKind
from accounts.selectors.players import player_get, relations_get


def relation_set(*, owner: Player, other_id: int, kind: str, on: bool) -> dict[str, Any]:
    """Block / favour ``other_id`` (``on``) or undo it; returns the owner's lists. A block
    also ends a friendship between the two and any friend request either way."""
    if other_id == owner.pk:
        raise errors.RelationSelf()
    other = player_get(other_id)
    if on:
        with transaction.atomic():
            PlayerRelation.objects.get_or_create(owner=owner, other=other, kind=kind)
            if kind == RelationKind.BLOCK:
                pair = (owner.pk, other.pk)
                Friendship.objects.filter(owner_id__in=pair, friend_id__in=pair).delete()
                FriendRequest.objects.filter(
                    Q(from_player=owner, to_player=other) | Q(from_player=other, to_player=owner)
                ).delete()
    else:
        PlayerRelation.objects.filter(owner=owner, other=other, kind=kind).delete()
    return relations_get(owner=owner)
