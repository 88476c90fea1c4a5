"""The error catalogue (core/errors.py, filled by each app's errors module) is the one source of
every code the API answers.

Checked here: the catalogue's own rules (engine codes generated with their status rule, every
ServiceError class taking its code from it, each code declared once, unknown codes and
undeclared members refused), that it is complete (every installed app's errors module
registered), that no code is raised inline anywhere else, that openapi.yaml documents every code
(and each response only codes of its status), and that docs/api.md's error table is the
generated one.
"""

from __future__ import annotations

import ast
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from django.apps import apps
from django.utils.module_loading import module_has_submodule

from core import errors
from core.exceptions import problem_exception_handler
from core.problems import GameProblemSerializer, ProblemSerializer, problem_body, problem_responses
from games import errors as game_errors
from games.engine import ERROR_CODES, IllegalAction, InvalidAction, InvalidOptions

ROOT = Path(__file__).resolve().parents[2]
DOCS_TABLE = re.compile(r"<!-- errors:start -->\n(.*?)\n<!-- errors:end -->", re.DOTALL)
# Where the codes are declared: the catalogue's machinery (with the framework's codes) and each
# app's errors module.
APPS = ("accounts", "games", "competition", "notifications", "bots")
CATALOGUE_MODULES = {ROOT / "core" / "errors.py", *(ROOT / app / "errors.py" for app in APPS)}
# Codes no operation lists: the check stays as a guard, but cannot be reached through the API.
NOT_PER_OPERATION = {
    # Every user has a player profile, made with the user.
    "player_profile_missing",
    # Answered on the game's socket only, in its messages (docs/live.md#limits).
    "socket_rate_limited",
    "action_in_flight",
    # Answered by the OpenID Connect provider's endpoints (/identity/o/, /.well-known/), outside
    # the API's schema, when it has no signing key (docs/accounts.md).
    "identity_provider_unavailable",
}


def service_error_classes() -> list[type[errors.ServiceError]]:
    found = []
    for app in APPS:
        module = importlib.import_module(f"{app}.errors")
        found += [
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and issubclass(value, errors.ServiceError)
            and value.__module__ == module.__name__
            and value is not game_errors.EngineRefusal
        ]
    return found


# ============================================================================== the catalogue
def test_every_engine_code_is_in_the_catalogue_with_the_status_rule() -> None:
    expected = {"invalid_action": 400, "invalid_option": 400, "not_your_turn": 403}
    for code, text in ERROR_CODES.items():
        spec = errors.spec_of(code)
        assert spec.kind == "engine"
        assert spec.status == expected.get(code, 422)
        assert spec.message == text
    assert errors.spec_of("invalid_option").members == ("option",)
    assert {s.code for s in errors.specs_of("engine")} == set(ERROR_CODES)


def test_every_declaration_is_complete() -> None:
    assert errors.CATALOGUE
    for code, spec in errors.CATALOGUE.items():
        assert code == spec.code
        assert spec.title and spec.message, code
        assert spec.type == f"urn:canasta:problem:{code}"
        assert set(spec.members) <= set(errors.MEMBERS)
    assert {spec.kind for spec in errors.CATALOGUE.values()} == set(errors.KINDS)


def test_every_installed_app_with_codes_has_registered_them() -> None:
    """The catalogue read whole holds the codes of every installed app's errors module, and
    the apps that have one are the ones this test knows."""
    with_errors = {
        config.name
        for config in apps.get_app_configs()
        if module_has_submodule(config.module, "errors")
    }
    assert with_errors == set(APPS)
    declared = {cls.spec.code for cls in service_error_classes() if cls.spec is not None}
    assert declared <= set(errors.CATALOGUE)
    assert set(errors.CATALOGUE) == (
        {s.code for s in errors.specs_of("framework")}
        | {s.code for s in errors.specs_of("service")}
        | set(ERROR_CODES)
    )


def test_each_service_code_is_declared_once_on_its_class() -> None:
    """Every service code has one class that declares it; the other classes only name a code."""
    declaring: dict[str, list[str]] = {}
    for cls in service_error_classes():
        assert cls.spec is not None
        if cls.spec.kind == "service":
            declaring.setdefault(cls.spec.code, []).append(cls.__name__)
    assert {code for code, names in declaring.items() if len(names) > 1} == set()
    assert set(declaring) == {spec.code for spec in errors.specs_of("service")}
    with pytest.raises(ValueError, match="declared twice"):

        class Again(errors.ServiceError, code="game_full", status=409, title="T", message="M"):
            pass

    with pytest.raises(TypeError, match="game_full"):

        class Twice(errors.ServiceError, code="game_full", members=("retry_after",)):
            pass


def test_codes_listed_after_another_follow_it_in_the_table() -> None:
    order = list(errors.CATALOGUE)
    assert order[: len(errors.specs_of("framework"))] == [
        s.code for s in errors.specs_of("framework")
    ]
    assert order[-len(ERROR_CODES) :] == list(ERROR_CODES)  # the engine's codes come last
    quick_play = order.index("already_queued")
    assert order[quick_play - 4 : quick_play + 6] == [
        "rated_no_hints",
        "bot_account_not_allowed",  # competition
        "hints_off",  # bots: after the same code, alphabetically
        "rated_custom_options",
        "already_queued",
        "queued_for_match",
        "at_table",
        "not_queued",
        "queue_matched",
        "idempotency_key_reused",
    ]


def test_the_framework_codes_are_declared() -> None:
    framework = {spec.code for spec in errors.specs_of("framework")}
    assert {
        "invalid_request",
        "malformed_body",
        "body_too_large",
        "bad_request",
        "not_authenticated",
        "authentication_failed",
        "permission_denied",
        "not_found",
        "method_not_allowed",
        "not_acceptable",
        "length_required",
        "unsupported_media_type",
        "throttled",
        "database_unavailable",
        "internal_error",
    } == framework
    assert errors.spec_of("invalid_request").members == ("errors",)
    assert errors.spec_of("throttled").members == ("retry_after",)


def test_every_service_error_class_takes_its_code_from_the_catalogue() -> None:
    classes = service_error_classes()
    assert len(classes) > 30
    for cls in classes:
        assert cls.spec is errors.CATALOGUE[cls.code], cls
        assert (cls.status, cls.title) == (cls.spec.status, cls.spec.title)
    assert game_errors.StaleVersion.status == 409
    assert game_errors.GameNotFound.code == "not_found"


def test_the_service_errors_keep_their_signatures_and_members() -> None:
    stale = game_errors.StaleVersion(7)
    assert (stale.code, stale.status, stale.title) == ("stale_version", 409, "Stale version")
    assert stale.extra == {"current_version": 7}
    assert game_errors.GameOver().message == "The game is over."
    assert game_errors.GameFull().message == errors.spec_of("game_full").message
    assert game_errors.GameFull("Seat 3 is a bot's.").message == "Seat 3 is a bot's."
    rejected = game_errors.ImportEventRejected(37, "card_not_in_hand", "You do not hold QH.")
    assert rejected.extra == {
        "seq": 37,
        "engine_code": "card_not_in_hand",
        "engine_message": "You do not hold QH.",
    }
    unsupported = game_errors.RulesVersionUnsupported("0", ["1"])
    assert set(unsupported.extra) == {"rules_version", "supported_rules_versions"}
    assert game_errors.ChatRateLimited(4).extra == {"retry_after": 4}
    assert game_errors.IdempotencyKeyTooLong(255).code == "invalid_request"


def test_an_unknown_code_is_refused_at_definition_and_at_construction() -> None:
    with pytest.raises(errors.UnknownErrorCode):

        class Nonsense(errors.ServiceError, code="no_such_code"):
            pass

    with pytest.raises(errors.UnknownErrorCode):

        class Nonsense2(errors.ServiceError):
            code = "no_such_code"

    with pytest.raises(errors.UnknownErrorCode):
        errors.ServiceError("x", code="no_such_code")
    with pytest.raises(errors.UnknownErrorCode):
        errors.ServiceError("a code is needed")
    with pytest.raises(errors.UnknownErrorCode):
        problem_body(code="no_such_code", detail="x")


def test_a_status_other_than_the_catalogues_is_refused() -> None:
    with pytest.raises(ValueError, match="409"):

        class WrongStatus(errors.ServiceError):
            code = "stale_version"
            status = 400

    with pytest.raises(ValueError, match="409"):
        errors.ServiceError("x", code="stale_version", status=400)
    with pytest.raises(ValueError, match="game_full"):
        game_errors.GameFull("x", code="seat_taken")
    direct = errors.ServiceError(
        "x", code="stale_version", status=409, extra={"current_version": 1}
    )
    assert direct.title == "Stale version"


def test_an_undeclared_extension_member_is_refused() -> None:
    with pytest.raises(ValueError, match="seat"):
        errors.ServiceError("x", code="not_your_turn", extra={"seat": 2})
    with pytest.raises(ValueError, match="max_body_bytes"):
        problem_body(code="bad_request", detail="x", extra={"max_body_bytes": 1})
    with pytest.raises(ValueError):
        errors.ErrorSpec("some_code", 400, "Some", "Something.", ("undeclared_member",))


def test_engine_refusals_become_service_errors_with_their_status() -> None:
    cases = [
        (InvalidAction("'discard' needs a 'card'"), "invalid_action", 400, {}),
        (
            InvalidOptions("target_score", "too low"),
            "invalid_option",
            400,
            {"option": "target_score"},
        ),
        (IllegalAction("not_your_turn", "Not yours."), "not_your_turn", 403, {}),
        (IllegalAction("pile_frozen", "Frozen."), "pile_frozen", 422, {}),
    ]
    for exc, code, status, extra in cases:
        error = game_errors.engine_error(exc)
        assert isinstance(error, errors.ServiceError)
        assert (error.code, error.status, error.extra) == (code, status, extra)
        assert error.message == exc.message
    with pytest.raises(errors.UnknownErrorCode):
        game_errors.engine_error(IllegalAction("no_such_refusal", "?"))


def test_the_handler_renders_the_catalogues_status_and_title() -> None:
    response = problem_exception_handler(game_errors.GameFull(), {"request": None})
    assert response is not None
    assert response.status_code == 409
    assert response.data == {
        "type": "urn:canasta:problem:game_full",
        "title": "Game full",
        "status": 409,
        "detail": "Every seat at this table is taken.",
        "code": "game_full",
    }


def test_no_code_is_raised_inline() -> None:
    """Outside the catalogue, errors are raised as its classes, never as ``code="..."``."""
    found = []
    for package in ("core", *APPS, "canasta_service"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path in CATALOGUE_MODULES or "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (
                    isinstance(node, ast.Raise)
                    and isinstance(node.exc, ast.Call)
                    and any(k.arg in ("code", "status") for k in node.exc.keywords)
                ):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name | ast.Attribute)
                    and (getattr(node.func, "id", None) or getattr(node.func, "attr", None))
                    == "ServiceError"
                ):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} ServiceError(...)")
    assert found == []


# ============================================================================== documentation
def openapi() -> dict[str, Any]:
    schema: dict[str, Any] = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    return schema


def problem_responses_of(schema: dict[str, Any]) -> list[tuple[str, int, dict[str, Any]]]:
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if not isinstance(operation, dict):
                continue
            for status, response in operation["responses"].items():
                if "application/problem+json" in response.get("content", {}):
                    found.append((f"{method.upper()} {path}", int(status), response))
    return found


def test_every_code_of_the_catalogue_appears_in_openapi_yaml() -> None:
    schema = openapi()
    components = schema["components"]["schemas"]
    game_problem = components["GameProblem"]
    assert errors.markdown_table() in game_problem["description"]
    for spec in errors.CATALOGUE.values():
        assert f"| `{spec.code}` | {spec.status} |" in game_problem["description"]
        for member in spec.members:
            assert member in game_problem["properties"], (spec.code, member)
    framework = components["Problem"]
    for spec in errors.specs_of("framework"):
        assert f"| `{spec.code}` | {spec.status} |" in framework["description"]
        for member in spec.members:
            assert member in framework["properties"], (spec.code, member)


def test_every_problem_response_lists_codes_of_its_status_with_an_example() -> None:
    listed: set[str] = set()
    for operation, status, response in problem_responses_of(openapi()):
        codes = re.findall(r"^- `([a-z_]+)`", response["description"], re.MULTILINE)
        assert codes, operation
        for code in codes:
            assert errors.spec_of(code).status == status, (operation, code)
        listed.update(codes)
        examples = response["content"]["application/problem+json"]["examples"]
        (example,) = examples.values()
        assert example["value"]["code"] == codes[0]
        assert example["value"]["status"] == status
    expected = {s.code for s in errors.CATALOGUE.values() if s.kind != "framework"}
    assert expected - NOT_PER_OPERATION <= listed


def test_the_builder_refuses_codes_its_schema_does_not_document() -> None:
    with pytest.raises(ValueError, match="stale_version"):
        problem_responses("stale_version", serializer=ProblemSerializer)
    with pytest.raises(errors.UnknownErrorCode):
        problem_responses("no_such_code")
    responses = problem_responses(("not_found", "throttled"), game_errors.StaleVersion, "not_found")
    assert sorted(status for status, _ in responses) == [404, 409, 429]
    assert all(r.response is GameProblemSerializer for r in responses.values())


def test_the_docs_error_table_is_the_generated_one() -> None:
    match = DOCS_TABLE.search((ROOT / "docs" / "api.md").read_text())
    assert match is not None, "docs/api.md has no <!-- errors:start --> ... <!-- errors:end -->"
    assert match.group(1) == errors.markdown_table(), (
        "docs/api.md's error table is stale: replace it with the output of "
        "`DEBUG=1 .venv/bin/python manage.py errors`"
    )


def test_manage_py_errors_prints_the_table() -> None:
    done = subprocess.run(
        [sys.executable, "manage.py", "errors"],
        cwd=ROOT,
        env={**os.environ, "DEBUG": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout == errors.markdown_table() + "\n"
