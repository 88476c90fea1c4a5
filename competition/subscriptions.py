"""What competition hears of a game (``games.hooks``) and of an account (``accounts.hooks``),
subscribed at app start: a rated result is rated in the transaction that ended the game, a
player waiting in quick play is kept from other tables, and a deleted player's ratings leave
the leaderboards."""

from __future__ import annotations

from typing import Any

from accounts import hooks as account_hooks
from competition import errors
from competition.models import QueueEntry, TournamentFormat, TournamentTable
from competition.selectors.account_export import (
    player_ratings_export,
    player_tournaments_export,
)
from competition.selectors.rating_changes import game_rating_changes_get
from competition.services.departures import player_competition_leave
from competition.services.ratings import ranks_by_score, ranks_with_last, ratings_apply
from competition.services.tournament_rounds import deals_revealed, game_result
from competition.services.tournaments import player_tournaments_leave
from games import hooks


def game_ended(event: hooks.GameEnded) -> None:
    """A rated game's result changes the ratings, once: the side that conceded or abandoned
    ranks last, otherwise the scores rank the sides. A tournament's game scores its table."""
    game_result(event.game, event.scores, event.losing_team)
    if not event.game.rated:
        return
    if event.losing_team is None:
        ranks = ranks_by_score(event.scores)
    else:
        ranks = ranks_with_last(event.scores, event.losing_team)
    ratings_apply(event.game, event.seats, ranks)


def seat_wanted(event: hooks.SeatWanted) -> None:
    """Refuse (409 ``queued_for_match``) a player waiting in a quick-play queue: the pairing
    run may seat them at any moment (a matched entry no longer waits)."""
    if QueueEntry.objects.filter(player=event.player, match__isnull=True).exists():
        raise errors.QueuedForMatch()


def rating_changes(event: hooks.RatingChangesWanted) -> list[dict[str, Any]] | None:
    return game_rating_changes_get(event.game)


def reveal_held(event: hooks.RevealHeld) -> bool | None:
    """A duplicate board's game stays hidden until the event's deal set is revealed (other
    tables play, or will play, the same cards)."""
    table = TournamentTable.objects.filter(game=event.game).select_related("tournament").first()
    if table is None or table.tournament.format != TournamentFormat.DUPLICATE:
        return None
    return True if not deals_revealed(table.tournament_id) else None


def account_deleting(event: account_hooks.AccountDeleting) -> None:
    player_tournaments_leave(event.player)
    player_competition_leave(event.player)


def account_export(event: account_hooks.AccountExportWanted) -> dict[str, Any]:
    return {
        "ratings": player_ratings_export(player=event.player),
        "tournaments": player_tournaments_export(player=event.player),
    }


def subscribe() -> None:
    hooks.subscribe(hooks.GameEnded, game_ended)
    hooks.subscribe(hooks.SeatWanted, seat_wanted)
    hooks.subscribe(hooks.RatingChangesWanted, rating_changes)
    hooks.subscribe(hooks.RevealHeld, reveal_held)
    account_hooks.subscribe(account_hooks.AccountDeleting, account_deleting)
    account_hooks.subscribe(account_hooks.AccountExportWanted, account_export)
