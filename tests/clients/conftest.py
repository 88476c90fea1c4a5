"""Fixtures of the client tests: a Python client generated from the committed openapi.yaml, and
the ASGI application served by uvicorn on a migrated SQLite database (one of each per module)."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from bench import harness
from tests.notifications.push_receivers import (  # noqa: F401 - fixtures (test_phone_app.py)
    _apns_server,
    _fcm_server,
    apns_receiver,
    fcm_receiver,
    push_tls,
)

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
PACKAGE = "canasta_client"


def run(command: list[str], env: dict[str, str] | None = None) -> None:
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="module")
def client_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The generated client, imported (its folder: ``Path(package.__file__).parents[1]``)."""
    work = tmp_path_factory.mktemp("python-client")
    config = work / "config.yaml"
    config.write_text("post_hooks: []\n")  # no formatter run on the generated code
    generator = Path(sys.executable).with_name("openapi-python-client")
    run(
        [
            str(generator),
            "generate",
            "--path",
            str(ROOT / "openapi.yaml"),
            "--output-path",
            str(work / PACKAGE),
            "--meta",
            "none",
            "--config",
            str(config),
            "--fail-on-warning",
        ]
    )
    sys.path.insert(0, str(work))
    try:
        yield importlib.import_module(PACKAGE)
    finally:
        sys.path.remove(str(work))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def server_env(database: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": "python-client-test-only",
        "ALLOWED_HOSTS": HOST,
        "DATABASE_URL": f"sqlite:///{database}",
        "THROTTLE_SIGNUP": "off",
        "THROTTLE_ACTIONS": "off",
        "LOG_LEVEL": "WARNING",
    }
    for name in ("DJANGO_SETTINGS_MODULE", "REDIS_URL", "CACHE_URL", "CELERY_BROKER_URL"):
        env.pop(name, None)
    return env


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of the ASGI application served by uvicorn (as `make run` serves it)."""
    work = tmp_path_factory.mktemp("python-client-server")
    env = server_env(work / "db.sqlite3")
    run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], env)
    port = harness.free_port()
    command = [sys.executable, "-m", "uvicorn", "canasta_service.asgi:application"]
    command += [f"--host={HOST}", f"--port={port}"]
    with harness.listening_process(command, env, work / "server.log", port, "uvicorn"):
        yield f"http://{HOST}:{port}"
