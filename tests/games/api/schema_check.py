"""Every API response the tests receive is checked against the committed openapi.yaml.

The schema is OpenAPI 3.0 (``nullable``); it is converted to JSON Schema once, with
``additionalProperties: false`` on documented objects so an undocumented field fails too
(problem documents may carry extension members, so they stay open). A response whose operation,
status or media type the schema does not list fails as well.
"""

from __future__ import annotations

import json
import os
import re
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

ROOT = Path(__file__).resolve().parents[3]
# The schema checked against: the committed one, or another (a schema generated from a working
# tree before it is committed) named by CANASTA_OPENAPI.
SCHEMA_FILE = Path(os.environ.get("CANASTA_OPENAPI") or ROOT / "openapi.yaml")
OPEN_SCHEMAS = {"Problem", "GameProblem"}


def _convert(node: Any, *, open_object: bool = False) -> Any:
    if isinstance(node, list):
        return [_convert(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _convert(value) for key, value in node.items() if key != "nullable"}
    if "properties" in out and "additionalProperties" not in out and not open_object:
        out["additionalProperties"] = False
    if node.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out


@cache
def _schema() -> tuple[dict[str, Any], list[tuple[re.Pattern[str], str]]]:
    spec = yaml.safe_load(SCHEMA_FILE.read_text())
    components = {
        name: _convert(schema, open_object=name in OPEN_SCHEMAS)
        for name, schema in spec["components"]["schemas"].items()
    }
    # Literal paths before templated ones (OpenAPI: /games/import/ wins over /games/{game_id}/).
    routes = [
        (re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", path) + "$"), path)
        for path in sorted(spec["paths"], key=lambda p: p.count("{"))
    ]
    return {"spec": spec, "components": {"schemas": components}}, routes


@cache
def _validator(method: str, template: str, status: int, media_type: str) -> Draft202012Validator:
    root, _ = _schema()
    operation = root["spec"]["paths"][template].get(method.lower())
    assert operation is not None, f"{method} {template} is not in openapi.yaml"
    response = operation["responses"].get(str(status))
    assert response is not None, f"{method} {template} does not document status {status}"
    content = response.get("content", {})
    assert media_type in content, f"{method} {template} {status}: {media_type} not documented"
    schema = _convert(content[media_type]["schema"])
    return Draft202012Validator({**schema, "components": root["components"]})


def check_response(method: str, path: str, response: Any) -> None:
    """Fail if ``response`` (a Django test response) is not what openapi.yaml documents."""
    _, routes = _schema()
    path = path.split("?")[0]
    template = next((t for pattern, t in routes if pattern.match(path)), None)
    assert template is not None, f"{path} is not in openapi.yaml"
    if response.status_code == 304:  # Not Modified: documented, and without a body
        operation = _schema()[0]["spec"]["paths"][template].get(method.lower()) or {}
        assert "304" in operation.get("responses", {}), f"{method} {template}: 304 undocumented"
        assert response.content == b"", f"{method} {path}: a 304 with a body"
        return
    media_type = response.get("Content-Type", "").split(";")[0].strip()
    validator = _validator(method.upper(), template, response.status_code, media_type)
    body = json.loads(response.content)
    errors = sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path))
    assert not errors, (
        f"{method} {path} {response.status_code} does not match openapi.yaml: "
        + "; ".join(f"{list(e.absolute_path)}: {e.message[:200]}" for e in errors[:5])
    )


def example_errors(operation_ids: set[str] | None = None) -> list[str]:
    """The examples in openapi.yaml (requests and responses) checked against their schemas:
    of every operation, or of those named in ``operation_ids``."""
    root, _ = _schema()
    problems: list[str] = []
    for template, operations in root["spec"]["paths"].items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            if operation_ids is not None and operation.get("operationId") not in operation_ids:
                continue
            bodies = [("request", operation.get("requestBody", {}).get("content", {}))]
            bodies += [
                (f"{status}", r.get("content", {})) for status, r in operation["responses"].items()
            ]
            for where, content in bodies:
                for media_type, entry in content.items():
                    if "schema" not in entry:
                        continue
                    schema = {**_convert(entry["schema"]), "components": root["components"]}
                    validator = Draft202012Validator(schema)
                    for name, example in entry.get("examples", {}).items():
                        for error in validator.iter_errors(example.get("value")):
                            problems.append(
                                f"{method.upper()} {template} {where} {media_type} example "
                                f"{name!r} at {list(error.absolute_path)}: {error.message[:150]}"
                            )
    return problems
