"""openapi-python-client, with its default settings (no configuration file, its formatting
post-hooks included), generates a client from the OpenAPI document (generated afresh) without a
warning, and every module of it imports cleanly: request fields the server fills in are
optional, a page's fields are required."""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.project.fresh_schema import fresh_schema_text

PACKAGE = "canasta_default_client"


def _generator() -> Path:
    generator = Path(sys.executable).with_name("openapi-python-client")
    if not generator.exists():
        message = "openapi-python-client is not installed (the dev dependencies)"
        if os.environ.get("CI", "").strip().lower() in ("1", "true", "yes"):
            pytest.fail(f"{message} (CI=true: not skipped)")
        pytest.skip(message)
    return generator


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ModuleType, str]]:
    generator = _generator()
    work = tmp_path_factory.mktemp("default-python-client")
    (work / "openapi.yaml").write_text(fresh_schema_text())
    # Its post-hooks run ruff from PATH, as they would where the client is generated.
    bin_dir = str(Path(sys.executable).parent)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}
    assert shutil.which("ruff", path=env["PATH"]), "ruff (a dev dependency) is missing"
    done = subprocess.run(
        [
            str(generator),
            "generate",
            "--path",
            "openapi.yaml",
            "--output-path",
            PACKAGE,
            "--meta",
            "none",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = done.stdout + done.stderr
    sys.path.insert(0, str(work))
    try:
        yield importlib.import_module(PACKAGE), output if done.returncode == 0 else f"!{output}"
    finally:
        sys.path.remove(str(work))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def test_the_client_is_generated_without_a_warning(generated: tuple[ModuleType, str]) -> None:
    _package, output = generated
    assert not output.startswith("!"), output
    assert "warning" not in output.lower(), output
    assert "error" not in output.lower(), output


def test_every_module_imports_without_a_warning(generated: tuple[ModuleType, str]) -> None:
    package, _output = generated
    names = [m.name for m in pkgutil.walk_packages(package.__path__, PACKAGE + ".")]
    assert len(names) > 100
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in names:
            importlib.import_module(name)


def test_request_defaults_are_optional_and_pages_complete(
    generated: tuple[ModuleType, str],
) -> None:
    package, _output = generated
    models = importlib.import_module(f"{PACKAGE}.models")
    unset = importlib.import_module(f"{PACKAGE}.types").UNSET
    create = inspect.signature(models.GameCreateRequest).parameters
    for field in ("preset", "is_public", "spectate", "rated", "hints"):
        assert create[field].default is unset, field
    page = inspect.signature(models.PaginatedGameSummaryList).parameters
    for field in ("count", "next_", "previous", "results"):  # `next` is a builtin: next_
        assert page[field].default is inspect.Parameter.empty, field
