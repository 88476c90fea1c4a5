"""Every API path answers the same with or without its trailing slash (no redirect), with DEBUG
on (``make run``) and off; an unknown path is still the 404 problem document."""

from __future__ import annotations

import re
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient
from pytest_django.fixtures import Settings as SettingsWrapper
from rest_framework.test import APIClient

from tests.games.api.conftest import problem

pytestmark = pytest.mark.django_db


@pytest.fixture(params=[False, True], ids=["debug-off", "debug-on"])
def debug(request: pytest.FixtureRequest, settings: SettingsWrapper) -> bool:
    settings.DEBUG = request.param
    return bool(request.param)


def without_clock(game: dict[str, Any]) -> dict[str, Any]:
    """A game body without the server's clock (it moves between two reads)."""
    return {**game, "timer": {k: v for k, v in game["timer"].items() if k != "server_time"}}


def sign_up(client: APIClient, path: str) -> dict[str, Any]:
    response = client.post(path, {"display_name": "Ada"}, format="json")
    assert response.status_code == 201, (response.status_code, response.content[:300])
    body: dict[str, Any] = response.json()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    return body


@pytest.mark.usefixtures("debug")
def test_post_and_get_without_the_slash_answer_as_with_it() -> None:
    client = APIClient()
    me = sign_up(client, "/api/v1/players")
    assert client.get("/api/v1/players/me").json() == client.get("/api/v1/players/me/").json()
    assert client.get("/api/v1/players/me").json()["id"] == me["id"]

    created = client.post("/api/v1/games", {"preset": "two_player", "seat": 0}, format="json")
    assert created.status_code == 201, created.content[:300]
    game_id = created.json()["id"]
    lobby = client.get("/api/v1/games", {"mine": "true"})
    assert lobby.status_code == 200 and [g["id"] for g in lobby.json()["results"]] == [game_id]
    detail = client.get(f"/api/v1/games/{game_id}")
    assert detail.status_code == 200
    assert without_clock(detail.json()) == without_clock(
        client.get(f"/api/v1/games/{game_id}/").json()
    )

    started = client.post(f"/api/v1/games/{game_id}/start", {"fill_with_bots": True}, format="json")
    assert started.status_code == 200, started.content[:300]
    game = client.get(f"/api/v1/games/{game_id}").json()
    draw = next(a for a in game["state"]["legal_actions"] if a["type"] == "draw")
    moved = client.post(
        f"/api/v1/games/{game_id}/actions",
        {"action": draw, "expected_version": game["version"]},
        format="json",
    )
    assert moved.status_code == 201, moved.content[:300]
    assert moved.json()["event"]["seq"] == game["version"] + 1
    replay = client.get(f"/api/v1/games/{game_id}/replay", {"at": "last"})
    assert replay.status_code == 200 and replay.json()["at"] == moved.json()["event"]["seq"]
    assert client.get("/api/v1/health").status_code == client.get("/api/v1/health/").status_code


@pytest.mark.usefixtures("debug")
def test_errors_without_the_slash_are_the_same_problem_documents() -> None:
    client = APIClient()
    problem(client.get("/api/v1/players/me"), 401, "not_authenticated")
    sign_up(client, "/api/v1/players/")
    refused = client.post("/api/v1/games", {"preset": "nonsense"}, format="json")
    assert refused.json() == client.post("/api/v1/games/", {"preset": "nonsense"}).json()
    problem(refused, 400, "invalid_request")
    problem(client.get("/api/v1/games/999999"), 404, "not_found")
    problem(client.delete("/api/v1/rules"), 405, "method_not_allowed")


@pytest.mark.parametrize("method", ["get", "post"])
@pytest.mark.parametrize(
    "path", ["/api/v1/nothing-here", "/api/v1/nothing-here/", "/api/v1/games/1/nothing"]
)
def test_unknown_paths_are_the_404_problem_document(method: str, path: str) -> None:
    client = APIClient()
    response = getattr(client, method)(path)
    body = problem(response, 404, "not_found")
    assert body["instance"] == path


def test_no_redirect_for_any_route_of_the_api(settings: SettingsWrapper) -> None:
    """A path of every documented operation, without its slash, never redirects."""
    import yaml

    from tests.games.api.schema_check import ROOT

    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    client = APIClient()
    for debug in (False, True):
        settings.DEBUG = debug
        for template, operations in spec["paths"].items():
            path = template.replace("{game_id}", "1").replace("{player_id}", "1")
            path = path.replace("{token}", "x").replace("{join_code}", "ABC")
            path = path.replace("{rating_format}", "two_player")
            path = re.sub(r"\{[^}/]+\}", "1", path)  # any other id
            assert path.endswith("/"), template
            for method in operations:
                if method not in ("get", "post", "put", "patch", "delete"):
                    continue
                response = getattr(client, method)(path.rstrip("/"))
                assert response.status_code not in (301, 302, 307, 308, 500), (
                    method,
                    path,
                    response.status_code,
                )
                assert response["Content-Type"].startswith("application/"), (method, path)


def test_asgi_without_the_slash() -> None:
    """The middleware's async path (the ASGI application under ``make run``)."""

    async def requests() -> tuple[Any, Any, Any]:
        client = AsyncClient()
        signed_up = await client.post(
            "/api/v1/players", {"display_name": "Ada"}, content_type="application/json"
        )
        return signed_up, await client.get("/api/v1/health"), await client.get("/api/v1/health/")

    signed_up, bare, slashed = async_to_sync(requests)()
    assert signed_up.status_code == 201, signed_up.content[:300]
    assert signed_up.json()["display_name"] == "Ada"
    assert bare.status_code == slashed.status_code == 200
    assert bare.json() == slashed.json()
