"""Players and their relations to each other."""

from accounts.models.players import Player, PlayerRelation, RelationKind

__all__ = ["Player", "PlayerRelation", "RelationKind"]
