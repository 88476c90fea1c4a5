"""Fixtures for API tests: guest players with token clients, bots run in-process."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from rest_framework.test import APIClient

from canasta_service.asgi import application as asgi_application
from canasta_service.celery import app as celery_app
from games.engine import GameState
from games.models import Game
from games.services.bots import FALLBACK_PREFERENCE
from tests.games.api.schema_check import check_response


class SchemaCheckedClient(APIClient):
    """An API client that checks every /api/v1/ response against openapi.yaml."""

    def request(self, **kwargs: Any) -> Any:
        response = super().request(**kwargs)
        path = kwargs.get("PATH_INFO", "")
        if path.startswith("/api/v1/") and not path.startswith("/api/v1/health/"):
            check_response(kwargs["REQUEST_METHOD"], path, response)
        return response


class PlayerClient(SchemaCheckedClient):
    """An API client signed in as one guest player."""

    player_id: int
    display_name: str
    token: str

    def clone(self) -> PlayerClient:
        """Another client for the same player (one per thread)."""
        other = PlayerClient()
        other.credentials(HTTP_AUTHORIZATION=f"Token {self.token}")
        other.player_id, other.display_name, other.token = (
            self.player_id,
            self.display_name,
            self.token,
        )
        return other

    def game(self, game_id: int) -> dict[str, Any]:
        response = self.get(f"/api/v1/games/{game_id}/")
        assert response.status_code == 200, response.content
        return response.json()

    def act(self, game_id: int, action: dict[str, Any], version: int, **headers: str) -> Any:
        return self.post(
            f"/api/v1/games/{game_id}/actions/",
            {"action": action, "expected_version": version},
            format="json",
            headers=headers or None,
        )


@pytest.fixture(autouse=True)
def eager_bots() -> Iterator[None]:
    """Bot turns run in-process (as with no broker), whatever the environment configures."""
    saved = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    try:
        yield
    finally:
        celery_app.conf.task_always_eager = saved


@pytest.fixture
def make_player(db: None) -> Callable[..., PlayerClient]:
    def make(name: str = "Ada") -> PlayerClient:
        response = SchemaCheckedClient().post(
            "/api/v1/players/", {"display_name": name}, format="json"
        )
        assert response.status_code == 201, response.content
        body = response.json()
        client = PlayerClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
        client.player_id = body["id"]
        client.display_name = name
        client.token = body["token"]
        return client

    return make


@pytest.fixture
def ada(make_player: Callable[..., PlayerClient]) -> PlayerClient:
    return make_player("Ada")


@pytest.fixture
def bob(make_player: Callable[..., PlayerClient]) -> PlayerClient:
    return make_player("Bob")


def snapshot_of(game: Game | int) -> GameState:
    """The engine state a game's snapshot holds (read afresh when given an id)."""
    if isinstance(game, int):
        game = Game.objects.get(pk=game)
    assert game.snapshot is not None, "the game has not started"
    return GameState.from_dict(game.snapshot)


def create_game(client: APIClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/v1/games/", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def choose(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A simple legal player: take the pile or meld when it can, else draw, then discard."""
    return min(legal, key=lambda a: FALLBACK_PREFERENCE.index(a["type"]))


def move(player: PlayerClient, game_id: int) -> int:
    """``player`` (to act) plays one simple legal action over HTTP; the new version."""
    game = player.game(game_id)
    response = player.act(game_id, choose(game["state"]["legal_actions"]), game["version"])
    assert response.status_code == 201, response.content
    return int(response.json()["game"]["version"])


def to_act(clients: list[PlayerClient], game_id: int) -> PlayerClient:
    """Which of ``clients`` is to act at the game."""
    by_seat = {c.game(game_id)["your_seat"]: c for c in clients}
    return by_seat[clients[0].game(game_id)["state"]["to_act"]]


def two_player_game(creator: PlayerClient, other: PlayerClient, **body: Any) -> int:
    """A started two-player game between two humans (``creator`` at seat 0)."""
    game = create_game(creator, preset="two_player", seat=0, **body)
    joined = other.post(f"/api/v1/games/{game['id']}/join/", {}, format="json")
    assert joined.status_code == 200, joined.content
    started = creator.post(f"/api/v1/games/{game['id']}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    return int(game["id"])


def against_a_bot(player: PlayerClient, moves: int = 3) -> int:
    """``player`` against an easy bot: started, ``moves`` moves of the player (the bot
    answering), then a chat message."""
    game = create_game(player, preset="two_player", seat=0, bots=[{"seat": 1, "level": "easy"}])
    game_id = int(game["id"])
    started = player.post(f"/api/v1/games/{game_id}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    for _ in range(moves):
        move(player, game_id)
    chat = player.post(f"/api/v1/games/{game_id}/chat/", {"phrase": "good_luck"}, format="json")
    assert chat.status_code == 201, chat.content
    return game_id


def problem(response: Any, status: int, code: str) -> dict[str, Any]:
    """Assert ``response`` is an RFC 9457 problem document with ``status`` and ``code``."""
    assert response.status_code == status, (response.status_code, response.content)
    assert response["Content-Type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["code"] == code, body
    assert body["status"] == status
    assert body["type"] == f"urn:canasta:problem:{code}"
    return body


def play_until(
    clients: list[PlayerClient],
    game_id: int,
    stop: Callable[[dict[str, Any]], bool],
    max_steps: int = 3000,
) -> dict[str, Any]:
    """Seated human clients play through HTTP (bots play in-process) until ``stop(game)``."""
    viewer = clients[0]
    by_seat = {c.game(game_id)["your_seat"]: c for c in clients}
    for _ in range(max_steps):
        game = viewer.game(game_id)
        if stop(game) or game["status"] != "active":
            return game
        actor = by_seat[game["state"]["to_act"]]  # a bot's turn is never pending here
        mine = game if actor is viewer else actor.game(game_id)
        response = actor.act(game_id, choose(mine["state"]["legal_actions"]), mine["version"])
        assert response.status_code == 201, response.content
    raise AssertionError("the game did not reach the stop condition")


@pytest.fixture
def django_calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The paths of the requests the live application hands to Django."""
    live_http = asgi_application.application_mapping["http"].app  # inside the body limit
    original = live_http.django
    handed: list[str] = []

    async def spy(scope: Any, receive: Any, send: Any) -> None:
        handed.append(scope["path"])
        await original(scope, receive, send)

    monkeypatch.setattr(live_http, "django", spy)
    yield handed
