"""Challenges as their two players see them (read only)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import Q
from django.utils import timezone

from accounts.models import Player
from games import errors
from games.models import Challenge, ChallengeStatus

EXPIRED = "expired"  # a pending challenge past its expiry, as the documents say


def challenge_status(challenge: Challenge, now: dt.datetime | None = None) -> str:
    """``pending``, ``expired`` (pending past ``expires_at``), ``accepted``, ``declined`` or
    ``cancelled``."""
    if challenge.status == ChallengeStatus.PENDING and challenge.expires_at <= (
        now or timezone.now()
    ):
        return EXPIRED
    return str(challenge.status)


def _someone(player: Player) -> dict[str, Any]:
    return {"id": player.pk, "display_name": player.display_name, "is_bot": player.is_bot}


def challenge_doc(challenge: Challenge, now: dt.datetime | None = None) -> dict[str, Any]:
    return {
        "id": challenge.pk,
        "challenger": _someone(challenge.challenger),
        "invitee": _someone(challenge.invitee),
        "preset": challenge.preset,
        "options": dict(challenge.options),
        "rated": challenge.rated,
        "seat": challenge.seat,
        "fill_with_bots": challenge.fill_with_bots,
        "bot_level": challenge.bot_level,
        "status": challenge_status(challenge, now),
        "created_at": challenge.created_at,
        "expires_at": challenge.expires_at,
        "answered_at": challenge.answered_at,
        "game_id": challenge.game_id,
    }


def challenge_get(*, challenge_id: int, player: Player) -> dict[str, Any]:
    """One challenge ``player`` sent or received, whatever its status (else 404)."""
    found = (
        Challenge.objects.select_related("challenger", "invitee")
        .filter(Q(challenger=player) | Q(invitee=player), pk=challenge_id)
        .first()
    )
    if found is None:
        raise errors.ChallengeNotFound()
    return challenge_doc(found)


def challenges_open_list(*, player: Player) -> dict[str, Any]:
    """The open (pending, unexpired) challenges sent to ``player`` and by them, newest first."""
    now = timezone.now()
    rows = (
        Challenge.objects.select_related("challenger", "invitee")
        .filter(Q(challenger=player) | Q(invitee=player))
        .filter(status=ChallengeStatus.PENDING, expires_at__gt=now)
        .order_by("-created_at", "-id")
    )
    out: dict[str, Any] = {"incoming": [], "outgoing": []}
    for c in rows:
        out["incoming" if c.invitee_id == player.pk else "outgoing"].append(challenge_doc(c, now))
    return out
