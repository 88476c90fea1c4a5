"""Answers checked against the schema generated from the code (drf-spectacular), for routes
that openapi.yaml may not list yet: the status, and the body against the documented response."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from drf_spectacular.generators import SchemaGenerator
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

OPEN = ("Problem", "GameProblem")


def _json_schema(node: Any) -> Any:
    """OpenAPI 3.0's ``nullable`` as JSON Schema, documented objects closed."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    out = {k: _json_schema(v) for k, v in node.items() if k != "nullable"}
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return {"anyOf": [out, {"type": "null"}]} if node.get("nullable") else out


@cache
def spec() -> dict[str, Any]:
    schema: dict[str, Any] = SchemaGenerator().get_schema(request=None, public=True)
    return schema


def checked(response: Any, status: int) -> Any:
    """``response`` has ``status`` and a body the generated schema documents for it."""
    assert response.status_code == status, (response.status_code, response.content)
    path = response.request["PATH_INFO"]
    method = response.request["REQUEST_METHOD"].lower()
    templates = sorted(spec()["paths"], key=lambda p: p.count("{"))
    template = next(
        t for t in templates if re.fullmatch(re.sub(r"\{[^}]+\}", "[^/]+", t), path) is not None
    )
    documented = spec()["paths"][template][method]["responses"][str(status)]
    if status == 204:
        assert "content" not in documented and not response.content
        return None
    content = documented["content"]
    media_type = response["Content-Type"].split(";")[0].strip()
    assert media_type in content, (template, status, media_type)
    schemas = {
        k: _json_schema(v) if k not in OPEN else v
        for k, v in spec()["components"]["schemas"].items()
    }
    schema = {**_json_schema(content[media_type]["schema"]), "components": {"schemas": schemas}}
    Draft202012Validator(schema).validate(response.json())
    return response.json()
