"""Players, their relations to each other, and their credentials."""

from accounts.models.credentials import Credential, CredentialKind, DeviceSession
from accounts.models.friends import FriendRequest, Friendship
from accounts.models.players import Player, PlayerRelation, RelationKind

__all__ = [
    "Credential",
    "CredentialKind",
    "DeviceSession",
    "FriendRequest",
    "Friendship",
    "Player",
    "PlayerRelation",
    "RelationKind",
]
