"""Shared test configuration.

Markers (declared in pyproject.toml):

- ``postgres``: needs ``DATABASE_URL`` to point at PostgreSQL.
- ``worker``: needs PostgreSQL and a Celery broker (``REDIS_URL``); the tests use the
  ``celery_worker_process`` fixture, which starts a real worker process against the test
  database. (With SQLite the worker could not see the test database, hence PostgreSQL.)

When what a marked test needs is missing it is skipped locally, but it fails when ``CI`` is
true, so a CI run can never pass by skipping the parts that exercise production services.

The suite runs in parallel (pytest-xdist, ``-n auto --dist loadscope`` in pyproject.toml: the
tests of a module stay together, so a module's fixtures are made once; ``-n 0`` runs it in one
process). Each xdist worker has a test database of its own (pytest-django adds ``_gw0``,
``_gw1``... to its name) and, with a Redis broker, a Redis database of its own: worker ``gwN``
uses the N-th index of ``TEST_REDIS_DBS`` (``"3 4"``; .ci/run picks empty ones), or without it
the broker URL's index plus N, so that no task sent for one test database reaches a Celery
worker bound to another. An xdist worker that runs ``worker`` tests starts its own Celery worker
(log ``worker-gwN.log``). Live servers and the servers tests start listen on ports the system
picks; files go to per-test temporary folders.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

ROOT = Path(__file__).resolve().parent.parent

# After every test that used the database, every game it left must replay from its move log.
pytest_plugins = ["tests.games.selectors.replay.verify_plugin"]

# Hypothesis: the CI machine is small and shared, so no per-example deadline; the CI profile
# prints the blob needed to reproduce a failure. HYPOTHESIS_PROFILE picks one explicitly.
hypothesis_settings.register_profile(
    "ci", deadline=None, print_blob=True, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.register_profile("dev", deadline=None)


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")


hypothesis_settings.load_profile(
    os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if in_ci() else "dev")
)


# ----------------------------------------------------------------------------- xdist
XDIST_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1"... ("" without xdist)


def _redis_db_for_worker(url: str, worker: str) -> str:
    """``url`` with the Redis database index of xdist worker ``worker`` (see the docstring)."""
    number = int(worker.removeprefix("gw"))
    parts = urlsplit(url)
    chosen = [int(i) for i in re.split(r"[,\s]+", os.environ.get("TEST_REDIS_DBS", "")) if i]
    if chosen:
        if number >= len(chosen):
            raise pytest.UsageError(
                f"TEST_REDIS_DBS={os.environ['TEST_REDIS_DBS']!r} names {len(chosen)} Redis "
                f"database(s), too few for xdist worker {worker}: name one per worker"
            )
        index = chosen[number]
    else:
        index = int(parts.path.strip("/") or 0) + number
    return urlunsplit(parts._replace(path=f"/{index}"))


def _xdist_broker_isolate() -> None:
    """On xdist worker gwN, send tasks to (and start Celery workers on) its own Redis database.

    Runs when this conftest is imported: after Django's settings are loaded, before any task is
    sent. The Celery worker subprocesses get the URL through their environment."""
    from django.conf import settings

    from canasta_service.celery import app as celery_app

    cache = settings.CACHES["default"]
    if XDIST_WORKER and cache["BACKEND"].endswith("RedisCache"):
        # A cache of its own too: one worker emptying its cache between tests must not empty
        # another's (presence, rate-limit counts).
        cache["LOCATION"] = _redis_db_for_worker(cache["LOCATION"], XDIST_WORKER)
    broker = settings.CELERY_BROKER_URL
    if not XDIST_WORKER or not broker or urlsplit(broker).scheme not in ("redis", "rediss"):
        return
    isolated = _redis_db_for_worker(broker, XDIST_WORKER)
    settings.CELERY_BROKER_URL = isolated
    celery_app.conf.update(broker_url=isolated)
    # Celery reads CELERY_BROKER_URL from the environment before its configuration: replace it
    # only if it is set (tests that send to a broker of their own change the configuration).
    if "CELERY_BROKER_URL" in os.environ:
        os.environ["CELERY_BROKER_URL"] = isolated
    if broker == settings.REDIS_URL:  # pub/sub ignores the index; kept equal for clarity
        settings.REDIS_URL = isolated
        os.environ["REDIS_URL"] = isolated


_xdist_broker_isolate()


# ----------------------------------------------------------------------------- markers


def _uses_postgres() -> bool:
    from django.conf import settings

    return bool(settings.DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql")


def _has_broker() -> bool:
    from django.conf import settings

    return not settings.CELERY_TASK_ALWAYS_EAGER


def _missing_requirements(item: pytest.Item) -> list[str]:
    missing = []
    needs_postgres = item.get_closest_marker("postgres") or item.get_closest_marker("worker")
    if needs_postgres and not _uses_postgres():
        missing.append("DATABASE_URL=postgres://...")
    if item.get_closest_marker("worker") and not _has_broker():
        missing.append("REDIS_URL=redis://...")
    return missing


def pytest_runtest_setup(item: pytest.Item) -> None:
    missing = _missing_requirements(item)
    if not missing:
        return
    message = f"needs {' and '.join(missing)}"
    if in_ci():
        pytest.fail(f"{message} (CI=true: services must be configured, not skipped)")
    pytest.skip(message)


# ----------------------------------------------------------------------------- celery worker


@dataclass(frozen=True)
class WorkerProcess:
    process: subprocess.Popen[bytes]
    hostname: str
    log_path: Path

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")


def database_url(settings_dict: dict[str, Any]) -> str:
    """Rebuild a PostgreSQL URL from Django's connection settings (test database included)."""
    user = quote(settings_dict.get("USER") or "", safe="")
    password = quote(settings_dict.get("PASSWORD") or "", safe="")
    credentials = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = settings_dict.get("HOST") or "localhost"
    host = quote(host, safe="") if host.startswith("/") else host
    port = f":{settings_dict['PORT']}" if settings_dict.get("PORT") else ""
    name = quote(settings_dict["NAME"], safe="")
    return f"postgres://{credentials}{host}{port}/{name}"


def worker_environment(broker_url: str, **extra: str) -> dict[str, str]:
    """The environment of a Celery process a test starts: the production settings on the test
    database and ``broker_url``, plus ``extra``."""
    from django.conf import settings
    from django.db import connection

    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "canasta_service.settings",
        "SECRET_KEY": settings.SECRET_KEY,
        "DEBUG": "0",
        "DATABASE_URL": database_url(connection.settings_dict),
        # Close the connection after every task so the test database can be flushed and
        # dropped while the worker is idle.
        "DATABASE_CONN_MAX_AGE": "0",
        "CELERY_BROKER_URL": broker_url,
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


def _worker_log_path() -> Path:
    """``CELERY_WORKER_LOG`` (default .ci/logs/worker.log); under xdist ``worker-gwN.log``."""
    configured = os.environ.get("CELERY_WORKER_LOG")
    path = Path(configured) if configured else ROOT / ".ci" / "logs" / "worker.log"
    if XDIST_WORKER:
        path = path.with_name(f"{path.stem}-{XDIST_WORKER}{path.suffix}")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def process_stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)  # warm shutdown: finish the current task, then exit
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup: None) -> Iterator[WorkerProcess]:
    """A real ``celery worker`` subprocess bound to the pytest-django test database.

    Started once per session (after the test database exists) and stopped before the test
    database is dropped. Its output goes to ``.ci/logs/worker.log`` (or ``CELERY_WORKER_LOG``;
    ``worker-gwN.log`` on xdist worker gwN); its pid to ``<log>.pid`` so a CI script can clean up
    if pytest itself is killed. Tests using
    it must be ``@pytest.mark.django_db(transaction=True)`` so the worker sees committed rows.
    """
    from django.conf import settings

    from canasta_service.celery import app as celery_app

    if not _uses_postgres() or not _has_broker():
        pytest.fail("celery_worker_process needs PostgreSQL and a broker; mark the test 'worker'")
    assert not celery_app.conf.task_always_eager, "the test process must send to the broker"

    hostname = f"pytest-{uuid.uuid4().hex[:10]}@{socket.gethostname()}"
    log_path = _worker_log_path()
    pid_path = log_path.with_name(log_path.name + ".pid")
    env = worker_environment(str(settings.CELERY_BROKER_URL))
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "canasta_service",
        "worker",
        "--pool=solo",
        "--concurrency=1",
        # Every queue (core.dispatch): one worker stands in for the interactive, bulk and
        # deliveries workers of the production layout.
        "--queues=" + ",".join(settings.TASK_QUEUES.values()),
        "--loglevel=INFO",
        f"--hostname={hostname}",
        "--without-gossip",
        "--without-mingle",
    ]
    print(f"\n[celery_worker_process] starting {hostname}; log: {log_path}", file=sys.stderr)
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    pid_path.write_text(f"{process.pid}\n")
    worker = WorkerProcess(process=process, hostname=hostname, log_path=log_path)
    try:
        deadline = time.monotonic() + 60
        while not celery_app.control.ping(destination=[hostname], timeout=0.5):
            if process.poll() is not None:
                pytest.fail(f"celery worker exited with {process.returncode}:\n{worker.log_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"celery worker did not answer a ping in 60 s:\n{worker.log_text()}")
        yield worker
    finally:
        process_stop(process)
        pid_path.unlink(missing_ok=True)
        print(f"\n[celery_worker_process] stopped {hostname}; log: {log_path}", file=sys.stderr)


@pytest.fixture(autouse=True)
def _fresh_key_cache() -> Iterator[None]:
    """Each test starts with no key remembered (accounts/services/key_cache.py)."""
    from accounts.services import key_cache

    key_cache.forget_all()
    yield
    key_cache.forget_all()


@pytest.fixture(autouse=True)
def _fresh_cache() -> Iterator[None]:
    """Each test starts with an empty cache (presence lives there; ids are reused between
    tests)."""
    cache_empty()
    yield
    cache_empty()


def cache_empty() -> None:
    """Empty the default cache. A Redis cache shares its database with the Celery broker
    (REDIS_URL), so only the cache's own prefixed keys go, never the broker's queues."""
    from django.core.cache import cache
    from django.core.cache.backends.redis import RedisCache

    if not isinstance(cache, RedisCache):
        cache.clear()
        return
    client = cache._cache.get_client(write=True)
    keys = list(client.scan_iter(match=f"{cache.key_prefix}:*", count=1000))
    if keys:
        client.delete(*keys)


@pytest.fixture
def rates(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """``rates(scope="N/period", ...)`` sets throttle rates for this test (the suite runs with
    most scopes off; DRF reads the rates once, into the throttle class)."""
    from rest_framework.throttling import ScopedRateThrottle

    def set_rates(**scopes: str) -> None:
        merged = {**ScopedRateThrottle.THROTTLE_RATES, **scopes}
        monkeypatch.setattr(ScopedRateThrottle, "THROTTLE_RATES", merged)

    cache_empty()
    yield set_rates
    cache_empty()


@pytest.fixture
def tasks_in_process() -> Iterator[None]:
    """Celery tasks run in-process (as with no broker), whatever the environment configures."""
    from canasta_service.celery import app as celery_app

    saved = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    try:
        yield
    finally:
        celery_app.conf.task_always_eager = saved
