"""Ratings as players see them: the shown value, the provisional flag, leaderboards, histories.

A format's leaderboard is its ``Rating`` rows ordered by ``display`` (``mu - 3 sigma``) high to
low, ties by player id, read from the index ``(format, -display, player)``. A rank is the
position in that order: 1 + the number of rows ahead (a higher display, or the same display
and a lower player id), so ranks are distinct and a page's ranks follow from its offset. Every
read here is a fixed number of queries whatever the page size.

A player's rated games (history, profile) name a private game only to someone who sat at it: to
anyone else its ``game_id`` is null and ``private`` true (ratings are public, which private
tables a player sits at is not).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet

from accounts import errors
from accounts.models import Player
from competition.models import Rating, RatingChange, RatingFormat

# A rating is provisional until this many rated games in its format (the games' documents say so).
from games.hooks import PROVISIONAL_GAMES
from games.models import Seat

# openskill's PlackettLuce defaults: a player nobody has rated yet.
DEFAULT_MU = 25.0
DEFAULT_SIGMA = 25.0 / 3.0
# Bounds of the reads (the API validates its parameters against them).
BOARD_LIMIT_DEFAULT = 20
BOARD_LIMIT_MAX = 100
AROUND_SIZE_DEFAULT = 5
AROUND_SIZE_MAX = 50
HISTORY_LIMIT_DEFAULT = 20
HISTORY_LIMIT_MAX = 100
# An offset beyond any board (and within the databases' integers).
OFFSET_MAX = 2**31 - 1
# The profile's latest rated games.
PROFILE_RATED_GAMES_MAX = 20

RATING_FORMATS: tuple[str, ...] = tuple(RatingFormat.values)


def rating_shown(mu: float, sigma: float) -> int:
    """The rating shown to people: the conservative estimate ``mu - 3 sigma`` on a familiar
    scale (a new player shows 1000; each point of skill is 40 rating points)."""
    return round(1000 + 40 * (mu - 3 * sigma))


def rating_provisional(games: int) -> bool:
    """Too few rated games in the format for the rating to mean much yet."""
    return games < PROVISIONAL_GAMES


# ============================================================================== order
def _board(format: str) -> QuerySet[Rating]:
    return Rating.objects.filter(format=format)


# The redundant bound on ``display`` (``gte`` / ``lte``) makes it part of the index condition
# (PostgreSQL does not take a bound out of an OR): the read is a range of the board's index.
def _ahead_of(display: float, player_id: int) -> Q:
    """Rows before (display, player_id) in the board's order."""
    return Q(display__gte=display) & (
        Q(display__gt=display) | Q(display=display, player_id__lt=player_id)
    )


def _behind(display: float, player_id: int) -> Q:
    """Rows after (display, player_id) in the board's order."""
    return Q(display__lte=display) & (
        Q(display__lt=display) | Q(display=display, player_id__gt=player_id)
    )


def _names(rows: list[Rating]) -> dict[int, str]:
    """The rows' players' display names (one query), read after the page is cut: joined in the
    page's query, each row skipped by ``offset`` would be joined too."""
    ids = [r.player_id for r in rows]
    return dict(Player.objects.filter(pk__in=ids).values_list("pk", "display_name"))


def _entry(row: Rating, rank: int, names: dict[int, str] | None = None) -> dict[str, Any]:
    return {
        "rank": rank,
        "player_id": row.player_id,
        "display_name": row.player.display_name if names is None else names[row.player_id],
        "rating": rating_shown(row.mu, row.sigma),
        "mu": row.mu,
        "sigma": row.sigma,
        "games": row.games,
        "wins": row.wins,
        "provisional": rating_provisional(row.games),
    }


def rating_rank(*, format: str, display: float, player_id: int) -> int:
    """The rank of the rating (display, player_id) in ``format``'s board (one count)."""
    return 1 + _board(format).filter(_ahead_of(display, player_id)).count()


# ============================================================================== leaderboards
def leaderboard_page(*, format: str, limit: int, offset: int) -> dict[str, Any]:
    """``limit`` entries of ``format``'s board from position ``offset`` (0 = the top), with the
    board's size. Provisional ratings are listed too (flagged). Three queries: the size, the
    page (a range of the board's index), the page's names."""
    total = _board(format).count()
    rows = list(_board(format).order_by("-display", "player_id")[offset : offset + limit])
    names = _names(rows)
    return {
        "format": format,
        "total": total,
        "entries": [_entry(row, offset + i + 1, names) for i, row in enumerate(rows)],
    }


def leaderboard_around(*, format: str, player: Player, size: int) -> dict[str, Any]:
    """The viewer's entry (``me``) and the board from ``size`` places above it to ``size``
    below, in order. A viewer with no rating in ``format`` is on no board: ``me`` null and no
    entries. Five queries: the viewer's row, its rank, the rows above, the rows below, the size."""
    total = _board(format).count()
    mine = _board(format).select_related("player").filter(player=player).first()
    if mine is None:
        return {"format": format, "total": total, "me": None, "entries": []}
    rank = rating_rank(format=format, display=mine.display, player_id=mine.player_id)
    above = list(
        _board(format)
        .filter(_ahead_of(mine.display, mine.player_id))
        .select_related("player")
        .order_by("display", "-player_id")[:size]
    )
    above.reverse()
    below = list(
        _board(format)
        .filter(_behind(mine.display, mine.player_id))
        .select_related("player")
        .order_by("-display", "player_id")[:size]
    )
    me = _entry(mine, rank)
    entries = [_entry(row, rank - len(above) + i) for i, row in enumerate(above)]
    entries.append(me)
    entries.extend(_entry(row, rank + 1 + i) for i, row in enumerate(below))
    return {"format": format, "total": total, "me": me, "entries": entries}


# ============================================================================== a player's
def player_ratings_get(*, player: Player) -> list[dict[str, Any]]:
    """The player's rating in every format, in ``RatingFormat`` order; a format never played
    rated shows the defaults (a new player's rating), provisional, with no rank. Two queries:
    the player's rows, and the ranks of all of them in one count."""
    rows = {r.format: r for r in Rating.objects.filter(player=player)}
    ranks: dict[str, int] = {}
    if rows:
        ahead = {f: Q(format=f) & _ahead_of(r.display, r.player_id) for f, r in rows.items()}
        anywhere = Q()
        for q in ahead.values():
            anywhere |= q
        # Filtered by the union first: each format's part is a range of the board's index.
        counts = Rating.objects.filter(anywhere).aggregate(
            **{f: Count("id", filter=q) for f, q in ahead.items()}
        )
        ranks = {f: 1 + counts[f] for f in rows}
    out: list[dict[str, Any]] = []
    for f in RATING_FORMATS:
        row = rows.get(f)
        mu, sigma = (row.mu, row.sigma) if row else (DEFAULT_MU, DEFAULT_SIGMA)
        games = row.games if row else 0
        out.append(
            {
                "format": f,
                "rating": rating_shown(mu, sigma),
                "mu": mu,
                "sigma": sigma,
                "games": games,
                "wins": row.wins if row else 0,
                "provisional": rating_provisional(games),
                "rank": ranks.get(f),
            }
        )
    return out


def _change(c: RatingChange, hidden: set[int]) -> dict[str, Any]:
    before = rating_shown(c.mu_before, c.sigma_before)
    after = rating_shown(c.mu_after, c.sigma_after)
    return {
        "game_id": None if c.game_id in hidden else c.game_id,
        "private": not c.game.is_public,
        "format": c.format,
        "finished_at": c.game.finished_at,
        "rank": c.rank,
        "rating_before": before,
        "rating_after": after,
        "change": after - before,
        "counted": c.counted,
        "unrated_reason": c.unrated_reason or None,
    }


def _hidden_games(rows: list[RatingChange], player_id: int, viewer: Player | None) -> set[int]:
    """The private games among ``rows`` that ``viewer`` did not sit at (their ids are not
    shown); none when the viewer is the player. One query, none without a private game."""
    private = {c.game_id for c in rows if not c.game.is_public}
    if not private or (viewer is not None and viewer.pk == player_id):
        return set()
    if viewer is None:
        return private
    sat = Seat.objects.filter(player=viewer, game_id__in=private).values_list("game_id", flat=True)
    return private - set(sat)


def player_rated_games(
    *, player: Player, viewer: Player | None = None, limit: int = PROFILE_RATED_GAMES_MAX
) -> list[dict[str, Any]]:
    """The player's latest rated games (any format), newest first, each with what it did to
    the player's shown rating (a result that did not count: unchanged, with the reason). A
    private game's id is shown only to someone who sat at it (``viewer``; None: nobody). Two
    queries at most."""
    rows = list(
        RatingChange.objects.filter(player=player)
        .select_related("game")
        .order_by("-created_at", "-id")[:limit]
    )
    hidden = _hidden_games(rows, player.pk, viewer)
    return [_change(c, hidden) for c in rows]


def rating_history_get(
    *, player_id: int, format: str, limit: int, offset: int, viewer: Player | None = None
) -> dict[str, Any]:
    """One player's rating history in ``format``, newest first: every rated game with the
    rating before and after it (shown, and ``mu`` / ``sigma`` after; a result that did not
    count: unchanged, with the reason). A private game's id is shown only to someone who sat
    at it (``viewer``; None: nobody). 404 ``player_not_found`` for a player that does not
    exist; a player with no rated game in the format has an empty history. Four queries at
    most."""
    if not Player.objects.filter(pk=player_id).exists():
        raise errors.PlayerNotFound()
    changes = RatingChange.objects.filter(player_id=player_id, format=format)
    total = changes.count()
    rows = list(
        changes.select_related("game").order_by("-created_at", "-id")[offset : offset + limit]
    )
    hidden = _hidden_games(rows, player_id, viewer)
    entries = []
    for c in rows:
        entry = _change(c, hidden)
        del entry["format"]
        entry.update(
            seat=c.seat,
            team=c.team,
            mu_after=c.mu_after,
            sigma_after=c.sigma_after,
            created_at=c.created_at,
        )
        entries.append(entry)
    return {"player_id": player_id, "format": format, "total": total, "entries": entries}
