"""openapi.yaml as strict generators read it (`make lint-schema` runs Redocly's rules; these
are the ones this project had broken): a nullable schema has a type and accepts null, and no
two paths match the same URL."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

import yaml

from canasta_service.openapi import nullable_types_hook

ROOT = Path(__file__).resolve().parents[2]


def spec() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    return loaded


def nodes(node: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            yield from nodes(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from nodes(value, f"{where}/{index}")


def test_every_nullable_schema_has_a_type_and_no_reference_that_refuses_null() -> None:
    found = [
        where
        for where, node in nodes(spec())
        if node.get("nullable") and ("type" not in node or "allOf" in node)
    ]
    assert not found, found


def test_the_hook_makes_a_nullable_reference_accept_null() -> None:
    schemas = {
        "Pile": {"type": "object", "properties": {}},
        "Level": {"type": "string", "enum": ["easy"]},
    }
    result = {
        "components": {"schemas": schemas},
        "paths": {
            "/x/": {
                "get": {
                    "pile": {"allOf": [{"$ref": "#/components/schemas/Pile"}], "nullable": True},
                    "level": {
                        "oneOf": [
                            {"$ref": "#/components/schemas/Level"},
                            {"$ref": "#/components/schemas/NullEnum"},
                        ],
                        "nullable": True,
                    },
                    "count": {"type": "integer", "nullable": True},
                }
            }
        },
    }
    operation = nullable_types_hook(result, None, None, True)["paths"]["/x/"]["get"]
    assert operation["pile"] == {
        "oneOf": [
            {"$ref": "#/components/schemas/Pile"},
            {"$ref": "#/components/schemas/NullEnum"},
        ],
        "nullable": True,
        "type": "object",
    }
    assert operation["level"]["type"] == "string"
    assert operation["count"] == {"type": "integer", "nullable": True}
    assert schemas["NullEnum"] == {"enum": [None]}


def ambiguous(first: str, second: str) -> bool:
    """Whether one URL can match both path templates while neither is the more specific
    (a literal segment wins over a parameter, so /games/import/ beside /games/{id}/ is not)."""
    a, b = first.strip("/").split("/"), second.strip("/").split("/")
    if len(a) != len(b):
        return False
    a_wins = b_wins = False
    for x, y in zip(a, b, strict=True):
        x_param, y_param = x.startswith("{"), y.startswith("{")
        if not x_param and not y_param and x != y:
            return False
        a_wins |= y_param and not x_param
        b_wins |= x_param and not y_param
    return a_wins == b_wins


def test_no_two_paths_match_the_same_url() -> None:
    found = [(a, b) for a, b in combinations(spec()["paths"], 2) if ambiguous(a, b)]
    assert not found, found


def test_the_join_links_former_path_was_ambiguous() -> None:
    assert ambiguous("/api/v1/games/{game_id}/actions/", "/api/v1/games/join/{join_code}/")
    assert not ambiguous("/api/v1/games/{game_id}/actions/", "/api/v1/join/{join_code}/")
    assert not ambiguous("/api/v1/games/{game_id}/", "/api/v1/games/import/")
