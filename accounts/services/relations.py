"""A player's relations to other players: block and favourite lists."""

from __future__ import annotations

from typing import Any

from accounts import errors
from accounts.models import Player, PlayerRelation
from accounts.selectors.players import player_get, relations_get


def relation_set(*, owner: Player, other_id: int, kind: str, on: bool) -> dict[str, Any]:
    """Block / favour ``other_id`` (``on``) or undo it; returns the owner's lists."""
    if other_id == owner.pk:
        raise errors.RelationSelf()
    other = player_get(other_id)
    if on:
        PlayerRelation.objects.get_or_create(owner=owner, other=other, kind=kind)
    else:
        PlayerRelation.objects.filter(owner=owner, other=other, kind=kind).delete()
    return relations_get(owner=owner)
