"""Proposals the players of a game answer (pause, turn the timer off): a player whose proposal
was declined (or who withdrew it) waits ``PROPOSAL_COOLDOWN_SECONDS`` before proposing the same
again (429 ``proposal_cooldown``, nothing written), so that propose-and-decline cannot fill the
move log with facts (each bumps the game's version: the opponent's pending move goes stale)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.conf import settings

from games.models import Game, GameEvent


def proposal_cooldown_seconds() -> int:
    """How long a declined proposer waits to propose again (``PROPOSAL_COOLDOWN_SECONDS``)."""
    return int(getattr(settings, "PROPOSAL_COOLDOWN_SECONDS", 300))


# The proposals and declines read back to find a seat's declined proposal (a bound: the cooldown
# keeps the log of one window far shorter).
COOLDOWN_SCAN_MAX = 200


def proposal_cooldown_left(
    game: Game, seat: int, now: datetime, *, proposed: str, declined: str
) -> int:
    """Whole seconds until ``seat`` may propose again: a proposal of its (facts ``proposed``)
    declined (fact ``declined``) less than the cooldown ago (0: it may). Reads the game's latest
    such facts, newest first, back to the first decline older than the cooldown (one query)."""
    cooldown = proposal_cooldown_seconds()
    if cooldown <= 0:
        return 0
    since = now - timedelta(seconds=cooldown)
    rows = (
        GameEvent.objects.filter(game=game, type__in=(proposed, declined))
        .order_by("-seq")
        .values_list("type", "seat", "created_at")[:COOLDOWN_SCAN_MAX]
    )
    declined_at: datetime | None = None  # the decline of the proposal before it, newest first
    for kind, by, at in rows:
        if kind == declined:
            if at <= since:
                break
            declined_at = at
        elif declined_at is not None:
            if by == seat:
                return max(1, math.ceil((declined_at - since).total_seconds()))
            declined_at = None
    return 0
