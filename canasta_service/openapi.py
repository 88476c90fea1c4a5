"""drf-spectacular post-processing of the OpenAPI document for strict generators and linters."""

from __future__ import annotations

import json
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


# ============================================================================== client contract
def _walk(node: Any, schemas: dict[str, Any], found: set[str]) -> None:
    """Add to ``found`` every component ``node`` refers to, directly or through another."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
            name = ref.removeprefix(_REF_PREFIX)
            if name not in found:
                found.add(name)
                _walk(schemas.get(name, {}), schemas, found)
        for value in node.values():
            _walk(value, schemas, found)
    elif isinstance(node, list):
        for value in node:
            _walk(value, schemas, found)


def _operations(result: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, item in result.get("paths", {}).items()
        for method, operation in item.items()
        if isinstance(operation, dict) and "responses" in operation
    ]


def components_by_direction(result: dict[str, Any]) -> tuple[set[str], set[str]]:
    """The components that request bodies and parameters use, and those that responses use."""
    schemas = result.get("components", {}).get("schemas", {})
    requests: set[str] = set()
    responses: set[str] = set()
    for _path, _method, operation in _operations(result):
        _walk(
            [operation.get("requestBody", {}), operation.get("parameters", [])], schemas, requests
        )
        _walk(operation.get("responses", {}), schemas, responses)
    return requests, responses


def _default_text(value: Any) -> str:
    return f"Optional: `{json.dumps(value)}` when left out."


def client_defaults_hook(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular post-processing: what code generators make of a component with their
    default settings is what the service does.

    - A request component (``...Request``) lists in ``required`` only the fields a request must
      send, and none of its properties has a ``default``: openapi-typescript (7.x, by default)
      makes a property with a default required, as it is in a response, so a client would have
      to send every field that has one. The default is told in the property's description.
    - A request field is optional whenever the serializer fills it in (``default``) or does
      without it (``required=False``): drf-spectacular already leaves both out of ``required``,
      and a field with a default listed there anyway is taken out.
    - An answer's field with a default is always written (DRF writes the default when the value
      is missing), so it is ``required`` in the answer's component: openapi-typescript makes it
      so by default, openapi-python-client by ``required`` only."""
    schemas = result.get("components", {}).get("schemas", {})
    requests, responses = components_by_direction(result)
    for name in sorted(requests - responses):
        component = schemas.get(name, {})
        required = component.get("required")
        for field, prop in component.get("properties", {}).items():
            if not isinstance(prop, dict) or "default" not in prop:
                continue
            value = prop.pop("default")
            text = _default_text(value)
            description = prop.get("description", "").rstrip()
            if text not in description:
                joint = "\n\n" if "\n" in description else " "
                prop["description"] = f"{description}{joint}{text}".strip()
            if isinstance(required, list) and field in required:
                required.remove(field)
        if required == []:
            del component["required"]
    for name in sorted(responses - requests):
        component = schemas.get(name, {})
        always = [
            field
            for field, prop in component.get("properties", {}).items()
            if isinstance(prop, dict) and "default" in prop
        ]
        if always:
            component["required"] = sorted({*component.get("required", []), *always})
    return result


# The query parameters that size a page of a list.
PAGE_SIZE_PARAMETERS = ("limit", "page_size")


def _page_bound(pagination_class: Any) -> tuple[str, int | None, list[dict[str, Any]]]:
    """The query parameter sizing a page of ``pagination_class``, its largest value, and every
    paging parameter (name, schema) it reads."""
    paginator = pagination_class()
    size = getattr(paginator, "page_size_query_param", None) or getattr(
        paginator, "limit_query_param", None
    )
    largest = getattr(paginator, "max_page_size", None) or getattr(paginator, "max_limit", None)
    return str(size or ""), largest, list(paginator.get_schema_operation_parameters(None))


def _response_lists(operation: dict[str, Any], schemas: dict[str, Any]) -> list[dict[str, Any]]:
    """The arrays a successful answer of ``operation`` is a page of: the body when it is an
    array, else its array properties."""
    found: list[dict[str, Any]] = []
    for status, response in operation.get("responses", {}).items():
        if not str(status).startswith("2") or not isinstance(response, dict):
            continue
        for media in response.get("content", {}).values():
            schema = media.get("schema", {})
            while "$ref" in schema:
                schema = schemas.get(schema["$ref"].removeprefix(_REF_PREFIX), {})
            if schema.get("type") == "array":
                found.append(schema)
            for prop in schema.get("properties", {}).values():
                while "$ref" in prop:
                    prop = schemas.get(prop["$ref"].removeprefix(_REF_PREFIX), {})
                if prop.get("type") == "array":
                    found.append(prop)
    return found


def bounded_lists_hook(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular post-processing: every paged list documents its limits.

    A view with a ``pagination_class`` documents its paging parameters (drf-spectacular leaves
    them out when the view declares its responses by status), the page size's ``minimum`` and
    ``maximum`` (the paginator's ``max_page_size`` or ``max_limit``), a page's fields as
    ``required`` (the paginator always writes them) and its ``results`` as at most that many
    items. Any operation with a ``limit`` or ``page_size`` query parameter: the parameter has a
    ``maximum`` and the lists of the answer at most that many items. A paged list without a
    bound is a warning (``make schema`` fails on it)."""
    from drf_spectacular.drainage import warn

    schemas = result.get("components", {}).get("schemas", {})
    for path, _regex, method, callback in getattr(generator, "endpoints", None) or []:
        pagination_class = getattr(getattr(callback, "cls", None), "pagination_class", None)
        operation = result.get("paths", {}).get(path, {}).get(method.lower())
        if pagination_class is None or operation is None or method.upper() != "GET":
            continue
        size, largest, parameters = _page_bound(pagination_class)
        if largest is None:
            warn(f"{method} {path}: {pagination_class.__name__} has no largest page size")
            continue
        declared = operation.setdefault("parameters", [])
        by_name = {(p.get("in"), p.get("name")): p for p in declared}
        for parameter in parameters:
            key = (parameter.get("in"), parameter.get("name"))
            if key not in by_name:
                declared.append(parameter)
            schema = by_name.get(key, parameter).setdefault("schema", {})
            if schema.get("type") == "integer":
                schema.setdefault("minimum", 0 if parameter["name"].endswith("offset") else 1)
            if parameter["name"] == size:
                schema["maximum"] = largest
        declared.sort(key=lambda p: (p.get("in", ""), p.get("name", "")))
        for response in operation.get("responses", {}).values():
            for media in response.get("content", {}).values() if isinstance(response, dict) else []:
                ref = media.get("schema", {}).get("$ref", "")
                page = schemas.get(ref.removeprefix(_REF_PREFIX), {})
                if "results" in page.get("properties", {}):
                    page["required"] = sorted(page["properties"])
    for path, method, operation in _operations(result):
        for parameter in operation.get("parameters", []):
            if parameter.get("in") != "query" or parameter.get("name") not in PAGE_SIZE_PARAMETERS:
                continue
            largest = parameter.get("schema", {}).get("maximum")
            if largest is None:
                warn(f"{method.upper()} {path}: `{parameter['name']}` has no maximum")
                continue
            lists = _response_lists(operation, schemas)
            if not lists:
                warn(f"{method.upper()} {path}: `{parameter['name']}` pages no list")
            for found in lists:
                if found.get("maxItems", largest) != largest:
                    warn(f"{method.upper()} {path}: a list shared with another page size")
                found["maxItems"] = largest
    return result
