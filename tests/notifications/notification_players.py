"""Players and games for the notification tests, over plain API clients: these tests check
their answers against the schema generated from the code, not against openapi.yaml."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rest_framework.test import APIClient


@dataclass(frozen=True)
class Someone:
    """A guest player: their id, token and a client signed in as them."""

    player_id: int
    token: str
    client: APIClient


def someone(name: str) -> Someone:
    response = APIClient().post("/api/v1/players/", {"display_name": name}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    return Someone(player_id=body["id"], token=body["token"], client=client)


def game_of_two(first: Someone, second: Someone, **body: Any) -> int:
    """A started two-player game between two humans (``first`` at seat 0)."""
    created = first.client.post(
        "/api/v1/games/", {"preset": "two_player", "seat": 0, **body}, format="json"
    )
    assert created.status_code == 201, created.content
    game_id = int(created.json()["id"])
    joined = second.client.post(f"/api/v1/games/{game_id}/join/", {}, format="json")
    assert joined.status_code == 200, joined.content
    started = first.client.post(f"/api/v1/games/{game_id}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    return game_id
