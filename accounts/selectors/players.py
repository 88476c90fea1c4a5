"""Players as others see them, and a player's block and favourite lists (read only)."""

from __future__ import annotations

from typing import Any

from accounts import errors
from accounts.models import Player, PlayerRelation, RelationKind


def player_get(player_id: int) -> Player:
    found = Player.objects.filter(pk=player_id).first()
    if found is None:
        raise errors.PlayerNotFound()
    return found


def relations_get(*, owner: Player) -> dict[str, Any]:
    rows = (
        PlayerRelation.objects.filter(owner=owner).select_related("other").order_by("-created_at")
    )
    out: dict[str, Any] = {"blocked": [], "favourites": []}
    for r in rows:
        key = "blocked" if r.kind == RelationKind.BLOCK else "favourites"
        out[key].append(
            {"id": r.other.pk, "display_name": r.other.display_name, "since": r.created_at}
        )
    return out
