"""The examples in openapi.yaml are valid instances of the schemas they illustrate."""

from __future__ import annotations

from tests.games.api.schema_check import _schema, example_errors

# The operations of games/api/views.py (other modules' examples are theirs to check).
GAME_API = {
    "players_create",
    "players_me",
    "rules_get",
    "games_list",
    "games_create",
    "games_retrieve",
    "games_join",
    "games_join_by_code",
    "games_leave",
    "games_start",
    "games_actions_create",
    "games_events_list",
    "games_scorecard",
}


def test_every_example_of_the_game_api_matches_its_schema() -> None:
    operation_ids = {
        op.get("operationId")
        for operations in _schema()[0]["spec"]["paths"].values()
        for op in operations.values()
        if isinstance(op, dict)
    }
    assert operation_ids >= GAME_API
    assert example_errors(GAME_API) == []


def test_the_game_endpoints_have_examples() -> None:
    spec = _schema()[0]["spec"]
    detail = spec["paths"]["/api/v1/games/{game_id}/"]["get"]["responses"]["200"]
    assert detail["content"]["application/json"]["examples"]
    actions = spec["paths"]["/api/v1/games/{game_id}/actions/"]["post"]
    assert len(actions["requestBody"]["content"]["application/json"]["examples"]) >= 4
    assert actions["responses"]["201"]["content"]["application/json"]["examples"]
    assert actions["responses"]["409"]["content"]["application/problem+json"]["examples"]
