"""Schemathesis against real servers, on every operation that takes a body: a body sent in
chunks (``Transfer-Encoding: chunked``, no Content-Length) is answered as the same body sent
with its length, and a body over the limit is refused with 413 ``body_too_large`` however it is
sent (the wrappers of core/request_bodies.py).

Each serving (uvicorn on the ASGI app, as ``make run``; gunicorn gthread on the WSGI app, as the
REST API in production) runs as twins: two servers on copies of one SQLite database in which Ada
is seated at a started two-player game, with a small body limit (``LIMIT``). Every generated
request goes to both, with its length to one and in chunks to the other, so that both see the
same requests in the same order and must give the same answers: no 5xx, documented and
conforming (the checks of tests/hardening/fuzzing.py), the same status and problem code, and a
created game with the preset, visibility and options its body asked for.

Then a valid body (the schema's examples, generated ones) padded past the limit, sent with its
length and in chunks, must get 413 ``application/problem+json`` with code ``body_too_large``
and the limit, on every one of those operations.

Requests are the schema's examples and generated ones, valid and invalid, deterministic; the
coverage phase's hundreds of boundary values per operation are left to test_schemathesis.py.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode

from bench import harness
from core.problems import PROBLEM_CONTENT_TYPE
from tests.hardening.fuzzing import MODES, ROOT, excluded_checks, load_schema

HOST = "127.0.0.1"
LIMIT = 4096  # MAX_REQUEST_BODY_BYTES of the servers started here
CHUNKED_EXAMPLES = 25  # generated requests per operation, each sent to both twins of a serving
OVERSIZED_EXAMPLES = 5
SERVINGS = {
    "uvicorn-asgi": [
        "-m",
        "uvicorn",
        "canasta_service.asgi:application",
        "--host={host}",
        "--port={port}",
        "--ws-per-message-deflate=false",
        "--log-level=warning",
    ],
    "gunicorn-wsgi": [
        "-m",
        "gunicorn",
        "canasta_service.wsgi:application",
        "--worker-class=gthread",
        "--threads=2",
        "--workers=1",
        "--bind={host}:{port}",
    ],
}


def bodies_schema(max_examples: int, modes: tuple[GenerationMode, ...] = MODES) -> Any:
    """The operations that take a body; their examples and generated requests only."""
    schema = load_schema(max_examples, modes)
    schema.config.phases.coverage.enabled = False
    return schema.include(lambda context: "requestBody" in context.operation.definition.raw)


chunked_schema = bodies_schema(CHUNKED_EXAMPLES)
oversized_schema = bodies_schema(OVERSIZED_EXAMPLES, (GenerationMode.POSITIVE,))


# ------------------------------------------------------------------------------ the servers
def server_env(database: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": "schemathesis-bodies-test-only",
        "ALLOWED_HOSTS": HOST,
        "DATABASE_URL": f"sqlite:///{database}",
        "DATABASE_CONN_MAX_AGE": "0",
        "THROTTLE_SIGNUP": "off",
        "THROTTLE_ACTIONS": "off",
        "THROTTLE_CHAT": "off",
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
        "MAX_REQUEST_BODY_BYTES": str(LIMIT),
        # Web Push on (a test-only VAPID key), as a production server has it: without a key,
        # subscribing answers 503 web_push_unavailable.
        "WEBPUSH_VAPID_PRIVATE_KEY": "-YYPts0pzv_2c6JNOLpDD8-9IsnWeDefqCG76xzBiaA",
    }
    for name in ("DJANGO_SETTINGS_MODULE", "REDIS_URL", "CACHE_URL", "CELERY_BROKER_URL"):
        env.pop(name, None)
    return env


@contextlib.contextmanager
def serving(name: str, database: Path) -> Iterator[str]:
    """A ``name`` server on ``database``; its base URL."""
    port = harness.free_port()
    command = [sys.executable, *(a.format(host=HOST, port=port) for a in SERVINGS[name])]
    env = server_env(database)
    with harness.listening_process(command, env, database.with_suffix(".log"), port, name):
        yield f"http://{HOST}:{port}"


def api(base_url: str, method: str, path: str, token: str = "", body: Any = None) -> Any:
    conn = http.client.HTTPConnection(base_url.removeprefix("http://"), timeout=30)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Token {token}"
    conn.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = conn.getresponse()
    document = json.loads(response.read())
    conn.close()
    assert 200 <= response.status < 300, (method, path, response.status, document)
    return document


@dataclass(frozen=True)
class World:
    """One server, and Ada's token and game on it."""

    base_url: str
    token: str
    game_id: int


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    database = tmp_path_factory.mktemp("schemathesis-bodies") / "migrated.sqlite3"
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"],
        cwd=ROOT,
        env=server_env(database),
        check=True,
    )
    return database


@pytest.fixture(scope="module", params=list(SERVINGS))
def twins(request: pytest.FixtureRequest, migrated: Path) -> Iterator[tuple[World, World]]:
    """Two servers of one serving on copies of one database: Ada seated at a game with Bob."""
    name = request.param
    folder = migrated.parent / name
    folder.mkdir()
    template = folder / "template.sqlite3"
    shutil.copy(migrated, template)
    with serving(name, template) as base_url:
        ada = api(base_url, "POST", "/api/v1/players/", body={"display_name": "Ada"})["token"]
        bob = api(base_url, "POST", "/api/v1/players/", body={"display_name": "Bob"})["token"]
        game = api(base_url, "POST", "/api/v1/games/", ada, {"preset": "two_player"})["id"]
        api(base_url, "POST", f"/api/v1/games/{game}/join/", bob, {})
        api(base_url, "POST", f"/api/v1/games/{game}/start/", ada, {})
    copies = [folder / "framed.sqlite3", folder / "chunked.sqlite3"]
    for copy in copies:
        shutil.copy(template, copy)
    with serving(name, copies[0]) as framed, serving(name, copies[1]) as chunked:
        yield World(framed, ada, game), World(chunked, ada, game)


# ------------------------------------------------------------------------------ the checks
def pieces(data: bytes) -> Iterator[bytes]:
    """``data`` in three chunks (some may be empty: requests skips them)."""
    third = max(1, len(data) // 3)
    yield from (data[:third], data[third : 2 * third], data[2 * third :])


def aimed(case: Any, world: World) -> dict[str, Any]:
    """``case`` pointed at ``world``'s game; the headers to send it with."""
    if case.path_parameters and "game_id" in case.path_parameters:
        case.path_parameters["game_id"] = world.game_id
    return {"Authorization": f"Token {world.token}"}


def validated(case: Any, world: World, headers: dict[str, str], **send: Any) -> Any:
    """``case`` sent to ``world`` (``send``: how), its answer checked against the schema."""
    response = case.call(base_url=world.base_url, headers=headers, **send)
    case.validate_response(
        response,
        excluded_checks=excluded_checks(case.operation.path),
        headers=headers,
        transport_kwargs={"base_url": world.base_url, "headers": headers},
    )
    return response


def problem_code(response: Any) -> str | None:
    if response.headers.get("content-type", [""])[0] != PROBLEM_CONTENT_TYPE:
        return None
    code: str = json.loads(response.content)["code"]
    return code


def chunked_was_sent(response: Any) -> bool:
    headers = response.request.headers
    return headers.get("Transfer-Encoding") == "chunked" and "Content-Length" not in headers


CREATED_FIELDS = ("preset", "options", "is_public", "your_seat", "seats", "status")


def created_as_asked(body: Any, game: dict[str, Any]) -> None:
    """A created game has the preset, visibility and options its body asked for."""
    if not isinstance(body, dict):
        return
    for field in ("preset", "is_public"):
        if field in body:
            assert game[field] == body[field], (field, body, game)
    if isinstance(body.get("options"), dict):
        for option, value in body["options"].items():
            assert game["options"].get(option) == value, (option, body, game)


@chunked_schema.parametrize()
@settings(suppress_health_check=list(HealthCheck), deadline=None)
def test_a_chunked_body_is_answered_as_with_its_length(
    case: Any, twins: tuple[World, World]
) -> None:
    framed_world, chunked_world = twins
    headers = aimed(case, framed_world)
    framed = validated(case, framed_world, headers)
    data = framed.request.body or b""
    data = data.encode() if isinstance(data, str) else data
    chunked = validated(case, chunked_world, headers, data=pieces(data))
    assert chunked_was_sent(chunked), dict(chunked.request.headers)
    assert (chunked.status_code, problem_code(chunked)) == (
        framed.status_code,
        problem_code(framed),
    ), (data[:500], framed.content[:500], chunked.content[:500])
    if case.operation.label == "POST /api/v1/games/" and chunked.status_code == 201:
        game, twin = json.loads(chunked.content), json.loads(framed.content)
        assert {f: game[f] for f in CREATED_FIELDS} == {f: twin[f] for f in CREATED_FIELDS}
        created_as_asked(case.body, game)


@oversized_schema.parametrize()
@settings(suppress_health_check=list(HealthCheck), deadline=None)
def test_an_oversized_body_is_refused_with_413(case: Any, twins: tuple[World, World]) -> None:
    world = twins[0]
    headers = aimed(case, world)
    document = case.as_transport_kwargs(base_url=world.base_url).get("json", {})
    data = json.dumps(document).encode()
    padded = data + b" " * max(0, LIMIT + 1 - len(data))
    for send in (padded, pieces(padded)):
        response = validated(case, world, headers, data=send)
        assert response.status_code == 413, response.content[:500]
        assert problem_code(response) == "body_too_large"
        assert json.loads(response.content)["max_body_bytes"] == LIMIT
