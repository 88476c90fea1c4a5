"""POST /players/ (guest sign-up) and GET /players/me/."""

from __future__ import annotations

import pytest

from tests.games.api.conftest import PlayerClient, SchemaCheckedClient, problem

pytestmark = pytest.mark.django_db


def test_guest_sign_up_returns_a_token_that_authenticates() -> None:
    response = SchemaCheckedClient().post(
        "/api/v1/players/", {"display_name": "Ada"}, format="json"
    )
    assert response.status_code == 201
    body = response.json()
    assert body["display_name"] == "Ada" and body["token"] and body["id"]

    client = SchemaCheckedClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    me = client.get("/api/v1/players/me/")
    assert me.status_code == 200
    assert me.json()["id"] == body["id"]
    assert me.json()["display_name"] == "Ada"


@pytest.mark.parametrize("payload", [{}, {"display_name": ""}, {"display_name": "x" * 41}])
def test_sign_up_needs_a_display_name(payload: dict[str, str]) -> None:
    body = problem(
        SchemaCheckedClient().post("/api/v1/players/", payload, format="json"),
        400,
        "invalid_request",
    )
    assert body["errors"][0]["field"] == "display_name"


def test_malformed_json_is_a_problem() -> None:
    response = SchemaCheckedClient().post(
        "/api/v1/players/", data="{not json", content_type="application/json"
    )
    problem(response, 400, "malformed_body")


def test_me_needs_a_token() -> None:
    problem(SchemaCheckedClient().get("/api/v1/players/me/"), 401, "not_authenticated")


def test_a_wrong_token_is_refused() -> None:
    client = SchemaCheckedClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    problem(client.get("/api/v1/players/me/"), 401, "authentication_failed")


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/games/",
        "/api/v1/games/1/",
        "/api/v1/games/1/events/",
        "/api/v1/games/1/scorecard/",
        "/api/v1/rules/",
    ],
)
def test_game_endpoints_need_a_token(path: str) -> None:
    problem(SchemaCheckedClient().get(path), 401, "not_authenticated")


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/games/",
        "/api/v1/games/1/join/",
        "/api/v1/join/ABCDEFGH/",
        "/api/v1/games/1/leave/",
        "/api/v1/games/1/start/",
        "/api/v1/games/1/actions/",
    ],
)
def test_game_writes_need_a_token(path: str) -> None:
    problem(SchemaCheckedClient().post(path, {}, format="json"), 401, "not_authenticated")


def test_rules_describe_presets_and_options(ada: PlayerClient) -> None:
    body = ada.get("/api/v1/rules/").json()
    assert {"classic", "hoyle", "two_player", "three_player"} <= set(body["presets"])
    assert body["options"]["target_score"]["min"] == 1000
    assert "draw" in body["action_types"]
    assert body["bot_levels"] == ["easy", "medium", "hard"]
