"""A player leaves for good (their account is deleted): their ratings leave the leaderboards and
their place in a quick-play queue goes. Each rated game keeps its ``RatingChange`` rows (the
game's record and its log's ``ratings_changed`` fact name players by id only)."""

from __future__ import annotations

from django.db import transaction

from accounts.models import Player
from competition.models import QueueEntry, Rating
from games import live


def player_competition_leave(player: Player) -> None:
    """Delete ``player``'s ratings and queue entry (in the caller's transaction). A matched
    entry goes too: the pairing run deals its table without the player, or puts the others
    back in the queue (``match_table_create``)."""
    with transaction.atomic():
        entry = QueueEntry.objects.select_for_update().filter(player=player).first()
        if entry is not None:
            entry.delete()
            live.player_notify_on_commit(player.pk)
        Rating.objects.filter(player=player).delete()
