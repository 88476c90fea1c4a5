"""OpenAPI links between the operations of a game's life: create, join (by id or by code),
start, read, act. A client (and schemathesis' stateful tests) follows them from one answer to the
next: the game's ``id`` and ``join_code`` into the paths, and from a view of the game in play
its first legal action and version into an action's body.

``legal_actions`` is empty unless the viewer is to act; the action link then resolves nothing
and a client chooses its action itself.
"""

from __future__ import annotations

import copy
from typing import Any

GAME_ID = {"game_id": "$response.body#/id"}
ACTION_BODY = {
    "action": "$response.body#/state/legal_actions/0",
    "expected_version": "$response.body#/version",
}


def _link(operation_id: str, description: str, **fields: Any) -> dict[str, Any]:
    return {"operationId": operation_id, "description": description, **fields}


def _read(game_id: dict[str, str]) -> dict[str, dict[str, Any]]:
    return {
        "GetGame": _link("games_retrieve", "Read the game.", parameters=game_id),
        "GetTable": _link("games_table_retrieve", "Read the table's settings.", parameters=game_id),
    }


def _act(game_id: dict[str, str], body: dict[str, str]) -> dict[str, Any]:
    return _link(
        "games_actions_create",
        "Play the first of your legal actions (when you are to act), against this version.",
        parameters=game_id,
        requestBody=body,
        # The whole body is the action: not merged into another one.
        **{"x-schemathesis": {"merge_body": False}},
    )


START = _link("games_start", "Start the game (its creator).", parameters=GAME_ID)

# operationId -> status -> link name -> link
LINKS: dict[str, dict[str, dict[str, dict[str, Any]]]] = {
    "games_create": {
        "201": {
            "JoinGame": _link(
                "games_join",
                "Take a seat (another player), with the join code a private table needs.",
                parameters=GAME_ID,
                requestBody={"join_code": "$response.body#/join_code"},
            ),
            "JoinGameByCode": _link(
                "games_join_by_code",
                "Take a seat (another player) by the join code alone.",
                parameters={"join_code": "$response.body#/join_code"},
            ),
            "StartGame": START,
            "PostAction": _act(GAME_ID, ACTION_BODY),
            **_read(GAME_ID),
        }
    },
    "games_join": {"200": {"StartGame": START, **_read(GAME_ID)}},
    "games_join_by_code": {"200": {"StartGame": START, **_read(GAME_ID)}},
    "games_start": {"200": {"PostAction": _act(GAME_ID, ACTION_BODY), **_read(GAME_ID)}},
    "games_retrieve": {"200": {"StartGame": START, "PostAction": _act(GAME_ID, ACTION_BODY)}},
    "games_actions_create": {
        "201": {
            "PostAction": _act(
                {"game_id": "$response.body#/game/id"},
                {
                    "action": "$response.body#/game/state/legal_actions/0",
                    "expected_version": "$response.body#/game/version",
                },
            ),
            "GetGame": _link(
                "games_retrieve",
                "Read the game.",
                parameters={"game_id": "$response.body#/game/id"},
            ),
        }
    },
}


def game_links_hook(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular post-processing: ``LINKS`` into the responses they start from."""
    operations = {
        operation["operationId"]: operation
        for path_item in result.get("paths", {}).values()
        for operation in path_item.values()
        if isinstance(operation, dict) and "operationId" in operation
    }
    targets = {
        link["operationId"]
        for by_status in LINKS.values()
        for links in by_status.values()
        for link in links.values()
    }
    missing = sorted((set(LINKS) | targets) - set(operations))
    if missing:
        raise ValueError(f"OpenAPI links name operations the API does not have: {missing}")
    for operation_id, by_status in LINKS.items():
        responses = operations[operation_id]["responses"]
        for status, links in by_status.items():
            responses[status]["links"] = copy.deepcopy(links)
    return result
