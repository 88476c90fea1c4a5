"""A private table does not exist for whoever is not at it.

Every route of every app's api/urls.py that names a game, with every method its view answers, is
tried by an outsider (neither the creator nor seated) on a private table in the lobby, being
played and finished. The answer must be the one a game id that does not exist gets (404
``not_found``, or for the socket the 426 every plain request gets): a 403 such as
``not_seated`` or ``not_game_creator``, or a 409 about the game's status, would tell that the
table exists. The routes are read from the URL configuration, so a new endpoint is covered too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db.models import Max
from django.urls import URLPattern, URLResolver
from rest_framework.test import APIClient

from accounts.api import urls as accounts_urls
from accounts.models import Player
from bots.api import urls as bots_urls
from competition.api import urls as competition_urls
from games.api import urls as games_urls
from games.models import Game
from games.services.lobby import BotSeatSpec, game_create, game_start
from games.services.table import game_concede
from notifications.api import urls as notifications_urls
from tests.games.api.conftest import PlayerClient
from tests.hardening.helpers import footprint

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete")
# A valid body where a route needs one, so that the refusal is about the game, not the body.
BODIES: dict[str, dict[str, Any]] = {
    "game-actions": {"action": {"type": "draw"}, "expected_version": 1},
    "game-table": {"table_talk": False},
    "game-chat": {"phrase": "hello"},
    "game-chat-mute": {"seat": 0, "muted": True},
}
# What a route answers for any game, existing or not, instead of 404.
NOT_404 = {"game-socket": (426, "upgrade_required")}


def game_routes() -> list[tuple[str, str, str]]:
    """(name, route, method) of every game route of the API."""
    found = []

    def flat(patterns: list[Any]) -> list[URLPattern]:
        """The routes, those of included modules too."""
        found: list[URLPattern] = []
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                found += flat(pattern.url_patterns)
            else:
                assert isinstance(pattern, URLPattern)
                found.append(pattern)
        return found

    patterns = flat(
        [
            pattern
            for urls in (accounts_urls, games_urls, competition_urls, notifications_urls, bots_urls)
            for pattern in urls.urlpatterns
        ]
    )
    for pattern in patterns:
        route = str(pattern.pattern)
        if "<id:game_id>" not in route:
            continue
        view = pattern.callback.view_class  # type: ignore[attr-defined]
        for method in METHODS:
            if hasattr(view, method):
                found.append((str(pattern.name), route, method))
    return found


ROUTES = game_routes()


def test_the_routes_are_found() -> None:
    names = {name for name, _, _ in ROUTES}
    assert {"game-detail", "game-join", "game-leave", "game-start", "game-actions"} <= names
    assert {"game-table", "game-chat", "game-timer", "game-replay", "game-export"} <= names
    assert {"game-events", "game-stream", "game-socket", "game-presence"} <= names
    assert {"game-review", "game-hint", "game-notifications-mute"} <= names  # other apps' routes


def private_games(creator: Player) -> dict[str, int]:
    """Private two-player tables of ``creator`` against a bot: in the lobby, being played,
    finished."""

    def table() -> Game:
        return game_create(
            creator=creator,
            preset="two_player",
            is_public=False,
            bots=[BotSeatSpec(seat=1)],
            seat=0,
        )

    lobby = table()
    active = game_start(game_id=table().pk, player=creator)
    finished = game_start(game_id=table().pk, player=creator)
    game_concede(game_id=finished.pk, player=creator)
    return {"lobby": lobby.pk, "active": active.pk, "finished": finished.pk}


def answer(client: APIClient, name: str, route: str, method: str, game_id: int) -> Any:
    path = "/api/v1/" + route.replace("<id:game_id>", str(game_id))
    call: Callable[..., Any] = getattr(client, method)
    if method == "get":
        return call(path)
    return call(path, BODIES.get(name, {}), format="json")


def code_of(response: Any) -> tuple[int, str | None]:
    body = response.json() if response.get("Content-Type", "").endswith("json") else {}
    return response.status_code, body.get("code")


@pytest.mark.parametrize(
    "name, route, method", ROUTES, ids=[f"{m.upper()} {r}" for _, r, m in ROUTES]
)
def test_an_outsider_gets_what_a_missing_game_gets(
    make_player: Callable[..., PlayerClient], name: str, route: str, method: str
) -> None:
    ada, eve = make_player("Ada"), make_player("Eve")
    games = private_games(Player.objects.get(pk=ada.player_id))
    missing = (Game.objects.aggregate(top=Max("pk"))["top"] or 0) + 1000
    nowhere = code_of(answer(eve, name, route, method, missing))
    assert nowhere == NOT_404.get(name, (404, "not_found"))
    insider = APIClient()  # unchecked: a stream's body is not read here
    insider.credentials(HTTP_AUTHORIZATION=f"Token {ada.token}")
    for state, game_id in games.items():
        before = footprint(game_id)
        got = code_of(answer(eve, name, route, method, game_id))
        assert got == nowhere, (state, got)
        assert footprint(game_id) == before
        # The creator is answered otherwise: the route does reach the game.
        if name not in NOT_404:
            assert answer(insider, name, route, method, game_id).status_code != 404, state
