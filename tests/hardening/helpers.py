"""Shared helpers of the hardening tests: a started table, the game's row and log counts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from games.models import Game, GameEvent
from tests.games.api.conftest import PlayerClient, create_game


def started_game(
    make_player: Callable[..., PlayerClient],
    names: tuple[str, ...] = ("Ada", "Bob"),
    preset: str = "two_player",
    **options: Any,
) -> tuple[int, list[PlayerClient]]:
    """A started game of ``preset`` with one human per name (seat order), no bots."""
    players = [make_player(name) for name in names]
    body: dict[str, Any] = {"preset": preset}
    if options:
        body["options"] = options
    game_id = create_game(players[0], **body)["id"]
    for client in players[1:]:
        response = client.post(f"/api/v1/games/{game_id}/join/", {}, format="json")
        assert response.status_code == 200, response.content
    response = players[0].post(f"/api/v1/games/{game_id}/start/", {}, format="json")
    assert response.status_code == 200, response.content
    by_seat = sorted(players, key=lambda c: c.game(game_id)["your_seat"])
    return game_id, by_seat


def footprint(game_id: int) -> tuple[int, int, Any]:
    """What an action would change: the version, the number of events and the snapshot."""
    game = Game.objects.get(pk=game_id)
    return game.version, GameEvent.objects.filter(game_id=game_id).count(), game.snapshot
