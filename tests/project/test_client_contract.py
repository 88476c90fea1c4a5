"""The OpenAPI document as generators read it with their default settings
(canasta_service/openapi.py): request fields with a default are optional and carry no
``default`` (openapi-typescript would make them required), every paged list documents its
limits, and every list input is bounded. The document is generated afresh."""

from __future__ import annotations

from typing import Any

import pytest

from canasta_service import openapi
from canasta_service.openapi import (
    PAGE_SIZE_PARAMETERS,
    bounded_lists_hook,
    client_defaults_hook,
    components_by_direction,
)
from games.api.views import GamePagination
from tests.project.fresh_schema import fresh_schema
from tests.project.test_schema_bounds import survey

REF = "#/components/schemas/"


def resolve(schema: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].removeprefix(REF)]
    return schema


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (method.upper(), path, operation)
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict) and "responses" in operation
    ]


# ============================================================================== request defaults
def test_no_request_component_has_a_default_or_requires_a_field_that_has_one() -> None:
    document = fresh_schema()
    schemas = document["components"]["schemas"]
    requests, responses = components_by_direction(document)
    found = [
        f"{name}.{field}"
        for name in requests - responses
        for field, prop in schemas[name].get("properties", {}).items()
        if "default" in prop
    ]
    assert not found, found
    create = schemas["GameCreateRequest"]
    assert "preset" in create["properties"] and "preset" not in create.get("required", [])
    assert 'Optional: `"classic"` when left out.' in create["properties"]["preset"]["description"]
    assert "Optional: `true` when left out." in create["properties"]["is_public"]["description"]


def test_the_hook_takes_a_request_default_into_the_description() -> None:
    document: dict[str, Any] = {
        "components": {
            "schemas": {
                "SeatRequest": {
                    "type": "object",
                    "required": ["level", "seat"],
                    "properties": {
                        "seat": {"type": "integer"},
                        "level": {"type": "string", "default": "easy", "description": "Level."},
                    },
                },
                "Seat": {
                    "type": "object",
                    "properties": {"level": {"type": "string", "default": "easy"}},
                },
            }
        },
        "paths": {
            "/s/": {
                "post": {
                    "requestBody": {
                        "content": {"application/json": {"schema": {"$ref": f"{REF}SeatRequest"}}}
                    },
                    "responses": {
                        "200": {"content": {"application/json": {"schema": {"$ref": f"{REF}Seat"}}}}
                    },
                }
            }
        },
    }
    client_defaults_hook(document, None, None, True)
    request, response = document["components"]["schemas"].values()
    assert request["required"] == ["seat"]
    assert request["properties"]["level"] == {
        "type": "string",
        "description": 'Level. Optional: `"easy"` when left out.',
    }
    # An answer keeps its default, and a field with one is always written: required.
    assert response["properties"]["level"]["default"] == "easy"
    assert response["required"] == ["level"]


# ============================================================================== paged lists
def test_every_paged_list_is_bounded() -> None:
    document = fresh_schema()
    unbounded: list[str] = []
    paged = 0
    for method, path, operation in operations(document):
        sizes = [
            p
            for p in operation.get("parameters", [])
            if p["in"] == "query" and p["name"] in PAGE_SIZE_PARAMETERS
        ]
        for parameter in sizes:
            paged += 1
            schema = parameter["schema"]
            if "maximum" not in schema or schema.get("minimum", 0) < 1:
                unbounded.append(f"{method} {path}: `{parameter['name']}` unbounded")
                continue
            lists = openapi._response_lists(operation, document["components"]["schemas"])
            if not lists:
                unbounded.append(f"{method} {path}: no list for `{parameter['name']}`")
            for found in lists:
                if found.get("maxItems") != schema["maximum"]:
                    unbounded.append(f"{method} {path}: a list without maxItems")
        for response in operation["responses"].values():
            for media in response.get("content", {}).values():
                page = resolve(media["schema"], document)
                if "results" in page.get("properties", {}):
                    results = page["properties"]["results"]
                    if "maxItems" not in results or not sizes:
                        unbounded.append(f"{method} {path}: a page without its bounds")
                    if set(page["required"]) != set(page["properties"]):
                        unbounded.append(f"{method} {path}: a page with optional fields")
    assert not unbounded, "\n".join(unbounded)
    assert paged >= 6


def test_the_games_list_documents_its_pages() -> None:
    operation = fresh_schema()["paths"]["/api/v1/games/"]["get"]
    parameters = {p["name"]: p["schema"] for p in operation["parameters"]}
    assert parameters["page"]["minimum"] == 1
    assert parameters["page_size"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": GamePagination.max_page_size,
    }
    answer = operation["responses"]["200"]["content"]["application/json"]["schema"]
    assert answer == {"$ref": f"{REF}PaginatedGameSummaryList"}
    listed = fresh_schema()["components"]["schemas"]["PaginatedGameSummaryList"]
    assert listed["properties"]["results"]["maxItems"] == GamePagination.max_page_size
    assert set(listed["required"]) == {"count", "next", "previous", "results"}


def test_every_list_input_is_bounded() -> None:
    _bounds, unbounded = survey(fresh_schema())
    assert not unbounded, "\n".join(unbounded)


def test_the_hook_warns_of_a_page_size_without_a_maximum(monkeypatch: pytest.MonkeyPatch) -> None:
    warned: list[str] = []
    monkeypatch.setattr("drf_spectacular.drainage.warn", warned.append)

    class Generator:
        endpoints: list[Any] = []

    def document(limit: dict[str, Any]) -> dict[str, Any]:
        return {
            "components": {"schemas": {}},
            "paths": {
                "/l/": {
                    "get": {
                        "parameters": [{"in": "query", "name": "limit", "schema": limit}],
                        "responses": {
                            "200": {
                                "content": {
                                    "application/json": {
                                        "schema": {"type": "array", "items": {"type": "string"}}
                                    }
                                }
                            }
                        },
                    }
                }
            },
        }

    bounded_lists_hook(document({"type": "integer"}), Generator(), None, True)
    assert warned == ["GET /l/: `limit` has no maximum"]
    bounded = document({"type": "integer", "minimum": 1, "maximum": 7})
    bounded_lists_hook(bounded, Generator(), None, True)
    answer = bounded["paths"]["/l/"]["get"]["responses"]["200"]["content"]["application/json"]
    assert answer["schema"]["maxItems"] == 7 and len(warned) == 1
