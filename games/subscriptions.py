"""What games hears of an account (``accounts.hooks``), subscribed at app start: a deleted
player's games in play are conceded and their seats name the deleted player; their export
lists the games they played."""

from __future__ import annotations

from typing import Any

from accounts import hooks
from games.selectors.played import player_games_export
from games.services.departures import player_games_leave


def account_deleting(event: hooks.AccountDeleting) -> None:
    player_games_leave(event.player)


def account_export(event: hooks.AccountExportWanted) -> dict[str, Any]:
    return {"games": player_games_export(player=event.player)}


def subscribe() -> None:
    hooks.subscribe(hooks.AccountDeleting, account_deleting)
    hooks.subscribe(hooks.AccountExportWanted, account_export)
