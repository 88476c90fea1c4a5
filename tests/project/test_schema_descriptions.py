"""Every property of every schema in openapi.yaml says what it means to a client: those of the
components and those written inline in an operation (parameters, bodies, responses)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]


def undescribed(node: Any, where: str) -> Iterator[str]:
    """The properties under ``node`` (a schema or any part of the document) that have no
    description, as `<where>.<property>`."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from undescribed(item, f"{where}[{index}]")
        return
    if not isinstance(node, dict):
        return
    properties = node.get("properties")
    if isinstance(properties, dict):
        for name, schema in properties.items():
            if not (isinstance(schema, dict) and str(schema.get("description", "")).strip()):
                yield f"{where}.{name}"
            yield from undescribed(schema, f"{where}.{name}")
    for key, value in node.items():
        if key not in ("properties", "examples", "example"):
            yield from undescribed(value, f"{where}/{key}")


def schema_undescribed(spec: dict[str, Any]) -> list[str]:
    found = [
        missing
        for name, schema in spec.get("components", {}).get("schemas", {}).items()
        for missing in undescribed(schema, name)
    ]
    for path, operations in spec.get("paths", {}).items():
        for method, operation in operations.items():
            if isinstance(operation, dict):
                found += undescribed(operation, f"{method.upper()} {path}")
    return found


def test_every_property_of_openapi_yaml_is_described() -> None:
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    missing = schema_undescribed(spec)
    assert not missing, f"{len(missing)} properties without a description:\n" + "\n".join(missing)


def test_a_property_without_a_description_is_named() -> None:
    spec = {
        "components": {
            "schemas": {
                "Pile": {
                    "type": "object",
                    "properties": {
                        "size": {"type": "integer", "description": "Cards in it."},
                        "top": {"type": "string", "nullable": True},
                        "view": {
                            "type": "object",
                            "description": "Nested.",
                            "properties": {"frozen": {"type": "boolean", "description": " "}},
                        },
                    },
                }
            }
        },
        "paths": {
            "/x/": {
                "get": {
                    "responses": {
                        "200": {
                            "content": {
                                "application/json": {
                                    "schema": {
                                        "type": "object",
                                        "properties": {"inline": {"type": "integer"}},
                                    }
                                }
                            }
                        }
                    }
                }
            }
        },
    }
    assert schema_undescribed(spec) == [
        "Pile.top",
        "Pile.view.frozen",
        "GET /x//responses/200/content/application/json/schema.inline",
    ]
