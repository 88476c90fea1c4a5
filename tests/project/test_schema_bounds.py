"""Every input of openapi.yaml is bounded, and the server holds requests to the same bounds.

In every request body and parameter, a string has a ``maxLength`` (or is one of an ``enum``, or
a ``date-time`` that the server parses) and an array has ``maxItems``. A request past a bound is
refused: a body's by its serializer (400 ``invalid_request`` naming the field), an action's by
the rules engine (``invalid_action``), a parameter as its case below says.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from asgiref.sync import async_to_sync
from rest_framework.test import APIClient

from games.engine import InvalidAction, action_from_dict
from tests.games.api.conftest import PlayerClient, SchemaCheckedClient, create_game

ROOT = Path(__file__).resolve().parents[2]
REF = "#/components/schemas/"
ITEM = "[]"  # a trail's step into an array's items


@dataclass(frozen=True)
class Bound:
    """One bounded input: where it is, and its limit."""

    method: str
    path: str
    where: str  # "body", or the parameter's "in" and name
    trail: tuple[str, ...]  # the properties (and ITEM steps) from the body to the value
    kind: str  # "string" or "array"
    limit: int
    items: dict[str, Any]  # an array's item schema


@cache
def spec() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    return loaded


def resolve(schema: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].removeprefix(REF)]
    return schema


def alternatives(schema: dict[str, Any], document: dict[str, Any]) -> list[dict[str, Any]]:
    found = []
    for key in ("allOf", "oneOf", "anyOf"):
        found += [resolve(s, document) for s in schema.get(key, [])]
    return found


def _fixed(schema: dict[str, Any], document: dict[str, Any]) -> bool:
    """An enum, or a choice among enums (a nullable choice: ``oneOf: [Enum, NullEnum]``)."""
    if "enum" in schema:
        return True
    options = alternatives(schema, document)
    return bool(options) and all(_fixed(option, document) for option in options)


def walk(
    schema: dict[str, Any],
    document: dict[str, Any],
    trail: tuple[str, ...],
    found: Callable[[tuple[str, ...], str, dict[str, Any]], None],
    seen: frozenset[str] = frozenset(),
) -> None:
    """Call ``found(trail, kind, schema)`` for each string and array under ``schema``."""
    if "$ref" in schema:
        name = schema["$ref"].removeprefix(REF)
        if name not in seen:
            walk(resolve(schema, document), document, trail, found, seen | {name})
        return
    kind = schema.get("type")
    if kind in ("string", "array"):
        found(trail, kind, schema)
    for option in ("allOf", "oneOf", "anyOf"):
        for alternative in schema.get(option, []):
            walk(alternative, document, trail, found, seen)
    for name, child in schema.get("properties", {}).items():
        walk(child, document, (*trail, name), found, seen)
    if isinstance(schema.get("items"), dict):
        walk(schema["items"], document, (*trail, ITEM), found, seen)
    if isinstance(schema.get("additionalProperties"), dict):
        walk(schema["additionalProperties"], document, (*trail, "{}"), found, seen)


def inputs(document: dict[str, Any]) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """(method, path, where, schema) of every request body and parameter."""
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            if not isinstance(operation, dict):
                continue
            for parameter in operation.get("parameters", []):
                where = f"{parameter['in']} {parameter['name']}"
                yield method, path, where, parameter.get("schema", {})
            for media in operation.get("requestBody", {}).get("content", {}).values():
                yield method, path, "body", media.get("schema", {})


def survey(document: dict[str, Any]) -> tuple[list[Bound], list[str]]:
    """The bounded inputs of ``document``, and the unbounded ones named."""
    bounds: list[Bound] = []
    unbounded: list[str] = []
    for method, path, where, root in inputs(document):

        def found(
            trail: tuple[str, ...],
            kind: str,
            schema: dict[str, Any],
            method: str = method,
            path: str = path,
            where: str = where,
        ) -> None:
            name = f"{method.upper()} {path} {where} {'.'.join(trail)}".rstrip()
            limit = schema.get("maxLength" if kind == "string" else "maxItems")
            if limit is not None:
                items = resolve(schema.get("items", {}), document)
                bounds.append(Bound(method, path, where, trail, kind, limit, items))
            elif kind == "array":
                unbounded.append(f"{name}: an array without maxItems")
            elif not (_fixed(schema, document) or schema.get("format") == "date-time"):
                unbounded.append(f"{name}: a string without maxLength")

        walk(root, document, (), found)
    return bounds, sorted(set(unbounded))


def test_every_input_string_and_array_of_openapi_yaml_is_bounded() -> None:
    bounds, unbounded = survey(spec())
    assert not unbounded, "\n".join(unbounded)
    assert len(bounds) > 20


def test_an_unbounded_input_is_named() -> None:
    document = {
        "components": {
            "schemas": {
                "Level": {"type": "string", "enum": ["easy"]},
                "Null": {"enum": [None]},
                "Seat": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string"},
                        "level": {"oneOf": [{"$ref": f"{REF}Level"}, {"$ref": f"{REF}Null"}]},
                        "cards": {"type": "array", "maxItems": 3, "items": {"type": "string"}},
                    },
                },
            }
        },
        "paths": {
            "/t/{code}/": {
                "post": {
                    "parameters": [{"in": "path", "name": "code", "schema": {"type": "string"}}],
                    "requestBody": {
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "array",
                                    "maxItems": 4,
                                    "items": {"$ref": f"{REF}Seat"},
                                }
                            }
                        }
                    },
                }
            }
        },
    }
    bounds, unbounded = survey(document)
    assert unbounded == [
        "POST /t/{code}/ body [].cards.[]: a string without maxLength",
        "POST /t/{code}/ body [].name: a string without maxLength",
        "POST /t/{code}/ path code: a string without maxLength",
    ]
    assert [(b.trail, b.limit) for b in bounds] == [((), 4), ((ITEM, "cards"), 3)]


# ============================================================================== bodies
def minimal(schema: dict[str, Any], document: dict[str, Any]) -> Any:
    """A small value that ``schema`` accepts (its required members only)."""
    schema = resolve(schema, document)
    options = alternatives(schema, document)
    if "enum" in schema:
        return schema["enum"][0]
    if options and "type" not in schema:
        return minimal(options[0], document)
    kind = schema.get("type", "object")
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: minimal(properties[name], document) for name in schema.get("required", [])}
    return {
        "string": "x",
        "integer": schema.get("minimum", 0),
        "number": 0,
        "boolean": False,
        "array": [],
    }[kind]


def past(bound: Bound, document: dict[str, Any]) -> Any:
    """A value one past ``bound``."""
    if bound.kind == "string":
        return "x" * (bound.limit + 1)
    return [minimal(bound.items, document)] * (bound.limit + 1)


def body_at(trail: tuple[str, ...], value: Any) -> Any:
    """A body holding ``value`` at ``trail`` (an array step: the first item)."""
    if not trail:
        return value
    inner = body_at(trail[1:], value)
    return [inner] if trail[0] == ITEM else {trail[0]: inner}


def body_bounds() -> list[Bound]:
    """The bounds of request bodies that their serializers enforce (an action's are the
    engine's: below)."""
    return [b for b in survey(spec())[0] if b.where == "body" and b.trail[:1] != ("action",)]


def sign_up(name: str) -> PlayerClient:
    response = SchemaCheckedClient().post("/api/v1/players/", {"display_name": name}, format="json")
    assert response.status_code == 201, response.content
    client = PlayerClient()
    client.player_id, client.display_name, client.token = (
        response.json()["id"],
        name,
        response.json()["token"],
    )
    client.credentials(HTTP_AUTHORIZATION=f"Token {client.token}")
    return client


@pytest.mark.django_db
@pytest.mark.parametrize(
    "bound",
    body_bounds(),
    ids=lambda b: f"{b.method.upper()} {b.path} {'.'.join(b.trail)}",
)
def test_a_body_past_a_bound_is_refused_naming_the_field(bound: Bound) -> None:
    ada, bob = sign_up("Ada"), sign_up("Bob")
    game = create_game(ada)
    tournament = ada.post(
        "/api/v1/tournaments/",
        {"name": "Bounds", "format": "swiss", "preset": "two_player", "rounds": 1},
        format="json",
    ).json()
    url = "/api/v1" + bound.path.removeprefix("/api/v1").format(
        game_id=game["id"],
        join_code=game["join_code"],
        player_id=bob.player_id,
        tournament_id=tournament["id"],
        entry_id=1,
    )
    body = body_at(bound.trail, past(bound, spec()))
    response = getattr(ada, bound.method)(url, json.dumps(body), content_type="application/json")
    assert response.status_code == 400, response.content
    problem = response.json()
    field = ".".join("0" if step == ITEM else step for step in bound.trail)
    assert problem["code"] == "invalid_request"
    assert field in [error["field"] for error in problem["errors"]], problem


@pytest.mark.parametrize(
    "bound",
    [b for b in survey(spec())[0] if b.where == "body" and b.trail[:1] == ("action",)],
    ids=lambda b: ".".join(b.trail),
)
def test_the_engine_refuses_an_action_past_a_bound(bound: Bound) -> None:
    """An action is read by the rules engine (``invalid_action``); nothing past a bound of the
    schema is an action it plays."""
    trail = bound.trail[1:]
    kind = {
        "card": "discard",
        "cards": "take_pile",
        "melds": "meld",
        "target": "take_pile",
        "merge": "meld",
        "name": "declare_special_hand",
    }[trail[0]]
    value = past(bound, spec())
    if trail[0] == "melds":
        group: dict[str, Any] = {"cards": ["QH", "QS", "QD"]}
        if trail == ("melds",):
            value = [group] * (bound.limit + 1)
        else:
            group = {**group, **body_at(trail[2:], value)}
            value = [group]
    else:
        value = body_at(trail[1:], value)
    with pytest.raises(InvalidAction):
        action_from_dict({"type": kind, trail[0]: value}, 0)


# ============================================================================== parameters
def _join(client: APIClient, game: dict[str, Any], value: str) -> Any:
    return client.post(f"/api/v1/join/{value}/", {}, format="json")


def _resume(client: APIClient, game: dict[str, Any], value: str) -> Any:
    return client.get(f"/api/v1/games/{game['id']}/stream/?last_event_id={value}")


def _idempotency(client: APIClient, game: dict[str, Any], value: str) -> Any:
    body = {"action": {"type": "draw"}, "expected_version": 0}
    url = f"/api/v1/games/{game['id']}/actions/"
    return client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=value)


def _resume_header(client: APIClient, game: dict[str, Any], value: str) -> Any:
    return client.get(f"/api/v1/games/{game['id']}/stream/?timeout=0", HTTP_LAST_EVENT_ID=value)


def _prefer(client: APIClient, game: dict[str, Any], value: str) -> Any:
    body = {"action": {"type": "draw"}, "expected_version": 0}
    url = f"/api/v1/games/{game['id']}/actions/"
    return client.post(url, body, format="json", HTTP_PREFER=value)


def _conditional(path: str) -> Callable[..., Any]:
    def send(client: APIClient, game: dict[str, Any], value: str) -> Any:
        response = client.get(path.format(id=game["id"]), HTTP_IF_NONE_MATCH=value)
        assert "ETag" in response  # a tag past the bound matches nothing: the whole answer
        return response

    return send


def _end_session(client: APIClient, game: dict[str, Any], value: str) -> Any:
    return client.delete(f"/api/v1/account/sessions/{value}/")


def _disconnect(client: APIClient, game: dict[str, Any], value: str) -> Any:
    return client.delete(f"/api/v1/account/apps/{value}/")


def _probe(client: APIClient, game: dict[str, Any], value: str) -> Any:
    return client.get(f"/api/v1/health/probe/{value}/")


# Each bounded parameter: how a value one past its bound is sent, and the answer. Some are
# not refused but can never match anything: a longer Last-Event-ID is ignored (the stream
# starts from `after`), a longer probe token was never recorded, a longer If-None-Match is no
# tag the server made (the whole answer), a longer Prefer asks for nothing the server knows (the
# action is answered as without it: here, refused because the table has not started).
PARAMETERS: dict[tuple[str, str, str], tuple[Callable[..., Any], int, str | None]] = {
    ("post", "/api/v1/join/{join_code}/", "path join_code"): (_join, 404, "not_found"),
    ("get", "/api/v1/games/{game_id}/stream/", "query last_event_id"): (
        _resume,
        400,
        "invalid_request",
    ),
    ("post", "/api/v1/games/{game_id}/actions/", "header Idempotency-Key"): (
        _idempotency,
        400,
        "invalid_request",
    ),
    ("get", "/api/v1/games/{game_id}/stream/", "header Last-Event-ID"): (
        _resume_header,
        200,
        None,
    ),
    ("get", "/api/v1/health/probe/{token}/", "path token"): (_probe, 200, None),
    ("post", "/api/v1/games/{game_id}/actions/", "header Prefer"): (
        _prefer,
        409,
        "game_not_active",
    ),
    ("get", "/api/v1/games/{game_id}/", "header If-None-Match"): (
        _conditional("/api/v1/games/{id}/"),
        200,
        None,
    ),
    ("get", "/api/v1/games/{game_id}/events/", "header If-None-Match"): (
        _conditional("/api/v1/games/{id}/events/"),
        200,
        None,
    ),
    ("get", "/api/v1/rules/", "header If-None-Match"): (_conditional("/api/v1/rules/"), 200, None),
    ("delete", "/api/v1/account/apps/{client_id}/", "path client_id"): (
        _disconnect,
        404,
        "connected_app_not_found",
    ),
    ("delete", "/api/v1/account/sessions/{session_id}/", "path session_id"): (
        _end_session,
        404,
        "session_not_found",
    ),
}


def test_every_bounded_parameter_has_its_case() -> None:
    bounded = {(b.method, b.path, b.where) for b in survey(spec())[0] if b.where != "body"}
    assert bounded == set(PARAMETERS)


@pytest.mark.django_db
@pytest.mark.parametrize("key", list(PARAMETERS), ids=lambda key: " ".join(key))
def test_a_parameter_past_its_bound(key: tuple[str, str, str]) -> None:
    send, status, code = PARAMETERS[key]
    (bound,) = [b for b in survey(spec())[0] if (b.method, b.path, b.where) == key]
    ada = sign_up("Ada")
    game = create_game(ada)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {ada.token}")
    response = send(client, game, "1" * (bound.limit + 1))
    assert response.status_code == status, response.content
    if code is not None:
        assert response.json()["code"] == code
    elif key[1].startswith("/api/v1/health/"):
        assert response.json()["recorded"] is False
    elif key[2] == "header If-None-Match":
        assert response.content
    else:
        assert b"event: sync" in async_to_sync(_read)(response)


async def _read(response: Any) -> bytes:
    return b"".join([chunk async for chunk in response.streaming_content])
