"""A player's ratings and their whole rating history, and their tournaments: the ``ratings``
and ``tournaments`` sections of the player's data export."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from accounts.models import Player
from competition.models import RatingChange, Tournament, TournamentEntry
from competition.selectors.ratings import player_ratings_get, rating_shown


def player_ratings_export(*, player: Player) -> dict[str, Any]:
    """The player's current ratings and every rated game's change, oldest first."""
    history = [
        {
            "game_id": c.game_id,
            "format": c.format,
            "seat": c.seat,
            "team": c.team,
            "rank": c.rank,
            "rating_before": rating_shown(c.mu_before, c.sigma_before),
            "rating_after": rating_shown(c.mu_after, c.sigma_after),
            "mu_before": c.mu_before,
            "sigma_before": c.sigma_before,
            "mu_after": c.mu_after,
            "sigma_after": c.sigma_after,
            "counted": c.counted,
            "unrated_reason": c.unrated_reason or None,
            "created_at": c.created_at,
        }
        for c in RatingChange.objects.filter(player=player).order_by("created_at", "id")
    ]
    return {"current": player_ratings_get(player=player), "history": history}


def player_tournaments_export(*, player: Player) -> list[dict[str, Any]]:
    """The player's tournament entries (as a player or a partner) and the events organised."""
    entries = (
        TournamentEntry.objects.filter(Q(player=player) | Q(partner=player))
        .select_related("tournament")
        .order_by("created_at", "id")
    )
    out: list[dict[str, Any]] = [
        {
            "tournament_id": e.tournament_id,
            "tournament": e.tournament.name,
            "role": "entrant",
            "entry_id": e.pk,
            "partner": e.partner_id if e.player_id == player.pk else e.player_id,
            "status": e.status,
            "points": e.points,
            "played": e.played,
            "registered_at": e.created_at,
        }
        for e in entries
    ]
    out += [
        {
            "tournament_id": t.pk,
            "tournament": t.name,
            "role": "organiser",
            "status": t.status,
            "created_at": t.created_at,
        }
        for t in Tournament.objects.filter(organiser=player).order_by("created_at", "id")
    ]
    return out
