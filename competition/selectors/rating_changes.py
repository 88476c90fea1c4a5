"""A rated game's result as players see it: each player's rating before and after the game.

Read from the ``RatingChange`` rows the game's final transaction wrote
(``competition.services.ratings``). Ratings are public: nothing here depends on who asks, and no
card is in it. A result that did not count shows every rating unchanged (``change`` 0); the
players' histories and profiles say why.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, OuterRef, Subquery

from competition.models import RatingChange
from competition.selectors.ratings import PROVISIONAL_GAMES, rating_shown
from games.models import Game, GameStatus

ENDED = (GameStatus.FINISHED, GameStatus.ABANDONED)


def game_rating_changes_get(game: Game) -> list[dict[str, Any]] | None:
    """Each player's change by seat, once a rated game is over (None: casual, or not over):
    ``seat``, ``player_id``, ``rating_before``, ``rating_after``, ``change`` (shown rating
    points) and ``provisional`` (fewer than ``PROVISIONAL_GAMES`` rated games in the format,
    this one included; a result that did not count is not a rated game counted), ``counted``
    and ``unrated_reason`` (why it did not count, or None). One query,
    and none for a casual game or one still being played."""
    if not game.rated or game.status not in ENDED:
        return None
    rated_so_far = (
        RatingChange.objects.filter(
            player=OuterRef("player"),
            format=OuterRef("format"),
            pk__lte=OuterRef("pk"),
            counted=True,
        )
        .order_by()
        .values("player")
        .annotate(n=Count("pk"))
        .values("n")
    )
    rows = (
        RatingChange.objects.filter(game=game)
        .annotate(rated_so_far=Subquery(rated_so_far))
        .order_by("seat")
        .values(
            "seat",
            "player_id",
            "mu_before",
            "sigma_before",
            "mu_after",
            "sigma_after",
            "rated_so_far",
            "counted",
            "unrated_reason",
        )
    )
    lines = []
    for row in rows:
        before = rating_shown(row["mu_before"], row["sigma_before"])
        after = rating_shown(row["mu_after"], row["sigma_after"])
        lines.append(
            {
                "seat": row["seat"],
                "player_id": row["player_id"],
                "rating_before": before,
                "rating_after": after,
                "change": after - before,
                "provisional": (row["rated_so_far"] or 0) < PROVISIONAL_GAMES,
                "counted": row["counted"],
                "unrated_reason": row["unrated_reason"] or None,
            }
        )
    return lines
