"""Friends: a request from one player to another, and the friendship once it is accepted."""

from django.db import models

from accounts.models.players import Player


class FriendRequest(models.Model):
    """``from_player`` asks ``to_player`` to be friends; pending until answered (accepting,
    declining or cancelling it deletes the row). One pending request per pair and direction;
    a request the other way is accepted instead (``accounts.services.friends``)."""

    from_player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="friend_requests_sent"
    )
    to_player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="friend_requests_received"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-created_at", "-id")
        constraints = [
            models.UniqueConstraint(
                fields=["from_player", "to_player"], name="friend_request_once"
            ),
            models.CheckConstraint(
                condition=~models.Q(from_player=models.F("to_player")),
                name="friend_request_not_self",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.from_player_id} asks {self.to_player_id} to be friends"


class Friendship(models.Model):
    """``owner`` and ``friend`` are friends: two rows per friendship, one each way, so a
    player's friends are one indexed lookup by ``owner``."""

    owner = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="friendships")
    friend = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="friend_of")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("owner", "-created_at")
        constraints = [
            models.UniqueConstraint(fields=["owner", "friend"], name="friendship_once"),
            models.CheckConstraint(
                condition=~models.Q(owner=models.F("friend")), name="friendship_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.owner_id} and {self.friend_id} are friends"
