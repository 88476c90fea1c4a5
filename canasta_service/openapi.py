"""drf-spectacular post-processing of the OpenAPI document for strict generators and linters."""

from __future__ import annotations

from typing import Any

_REF_PREFIX = "#/components/schemas/"
NULL_ENUM = "NullEnum"


def _type_of(alternatives: list[Any], schemas: dict[str, Any]) -> str | None:
    """The JSON type shared by the non-null alternatives, if they declare one."""
    types = set()
    for alternative in alternatives:
        ref = alternative.get("$ref", "") if isinstance(alternative, dict) else ""
        target = schemas.get(ref.removeprefix(_REF_PREFIX), {}) if ref else alternative
        if target.get("enum") == [None]:
            continue
        types.add(target.get("type"))
    return types.pop() if len(types) == 1 else None


def nullable_types_hook(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular post-processing: a nullable schema that is a reference accepts null, and
    ``nullable`` never stands without ``type`` (OpenAPI 3.0.3 ignores it there).

    drf-spectacular writes a nullable choice as ``oneOf: [$ref Enum, $ref NullEnum]``, which
    accepts null, and a nullable object as ``allOf: [$ref]``, which does not (the referenced
    object refuses null). The object becomes ``oneOf: [$ref, $ref NullEnum]`` like the choice;
    both get the type of what they refer to."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    null = {"$ref": _REF_PREFIX + NULL_ENUM}

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("nullable") and "type" not in node:
                all_of = node.get("allOf")
                if isinstance(all_of, list) and len(all_of) == 1 and "$ref" in all_of[0]:
                    node["oneOf"] = [node.pop("allOf")[0], null]
                    schemas.setdefault(NULL_ENUM, {"enum": [None]})
                found = _type_of(node.get("oneOf") or [], schemas)
                if found is not None:
                    node["type"] = found
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(result)
    return result
