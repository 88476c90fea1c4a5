"""Browser tests of the web client: headless Chromium from Debian's ``chromium`` package,
driven by Python Playwright (``executable_path``: no browser download), against pytest-django's
``live_server`` (WSGI) with bots playing in-process; on PostgreSQL also against the ASGI live
server (``asgi_server``), whose WebSocket the page then follows the game with.

Tests are marked ``browser``. Without Chromium (or the ``playwright`` package) they are skipped
locally and fail when ``CI`` is true (``make browser-deps`` installs Chromium; .ci/run calls it).
``SCREENSHOTS_DIR=docs/screenshots`` (``make screenshots``) keeps the screenshots they take.
"""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from canasta_service.celery import app as celery_app
from tests.conftest import in_ci

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser")
# No network on the test machines: without these Chromium stalls on lookups at start-up.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]
PHONE = {"width": 390, "height": 844}


def chromium_path() -> str | None:
    configured = os.environ.get("CHROMIUM_PATH")
    if configured:
        return configured if Path(configured).exists() else None
    for name in CHROMIUM_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package (pip install -e '.[dev]')"
    if chromium_path() is None:
        return "Chromium (apt-get install -y chromium, or make browser-deps)"
    return None


@pytest.fixture(autouse=True)
def _browser_available(request: pytest.FixtureRequest) -> None:
    if not request.node.get_closest_marker("browser"):
        return
    missing = _missing()
    if missing is None:
        return
    if in_ci():
        pytest.fail(f"browser test needs {missing} (CI=true: install it, do not skip)")
    pytest.skip(f"needs {missing}")


@pytest.fixture(autouse=True)
def eager_bots() -> Iterator[None]:
    """Bot turns run inside the live server's request (as with no broker)."""
    saved = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    try:
        yield
    finally:
        celery_app.conf.task_always_eager = saved


@pytest.fixture
def playwright_driver() -> Iterator[Any]:
    """Playwright's sync API keeps an asyncio loop running in this thread while it is open, so
    it is opened per test (a session-wide one would break later tests that call asyncio.run).
    Django's ORM takes that loop for an async context; the tests' own queries are synchronous,
    so allow them while it runs."""
    from playwright.sync_api import sync_playwright

    saved = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as driver:
            yield driver
    finally:
        if saved is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = saved


@pytest.fixture
def new_context(playwright_driver: Any) -> Iterator[Any]:
    """``new_context()``: a fresh Chromium (its own --user-data-dir) with a phone-sized
    viewport, a browser per player; all are closed after the test."""
    opened: list[tuple[Any, tempfile.TemporaryDirectory[str]]] = []

    def make() -> Any:
        profile = tempfile.TemporaryDirectory(prefix="canasta-chromium-")
        context = playwright_driver.chromium.launch_persistent_context(
            profile.name,
            executable_path=chromium_path(),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport=PHONE,
            device_scale_factor=2,
            is_mobile=True,
            has_touch=True,
            timeout=60_000,
        )
        context.set_default_timeout(20_000)
        short_polls_on_sqlite(context)
        opened.append((context, profile))
        return context

    try:
        yield make
    finally:
        for context, profile in opened:
            context.close()
            profile.cleanup()


@pytest.fixture
def browser_context(new_context: Any) -> Any:
    return new_context()


def short_polls_on_sqlite(context: Any) -> None:
    """The client follows a game over the socket, the stream or the long-poll while others
    move. SQLite's in-memory test database, shared by the live server's threads, refuses a read
    beside a write ("database table is locked"), so on SQLite the page short-polls, one request
    at a time (its ``canasta.longPoll`` switch); on PostgreSQL (CI) the live server (WSGI) makes
    it fall back from the socket to the stream to the long-poll."""
    from django.db import connection

    if connection.vendor == "sqlite":
        context.add_init_script("localStorage.setItem('canasta.longPoll', 'off')")


@pytest.fixture
def js_errors() -> list[str]:
    """Uncaught JavaScript errors of ``page`` (a test asserts there were none)."""
    return []


@pytest.fixture
def page(browser_context: Any, js_errors: list[str]) -> Any:
    page = browser_context.pages[0] if browser_context.pages else browser_context.new_page()
    page.on("pageerror", lambda exc: js_errors.append(str(exc)))
    return page


@pytest.fixture
def shots(tmp_path: Path) -> Any:
    """``shots(page, "name")`` saves a screenshot (into SCREENSHOTS_DIR when set)."""
    target = Path(os.environ.get("SCREENSHOTS_DIR") or tmp_path)
    target.mkdir(parents=True, exist_ok=True)

    def take(page: Any, name: str, full_page: bool = False) -> Path:
        path = target / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page)
        return path

    return take


# ----------------------------------------------------------------------------- ASGI server
class AsgiServer:
    """uvicorn serving the project's ASGI application on a port the system picks."""

    def __init__(self) -> None:
        import uvicorn

        from canasta_service.asgi import application

        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        config = uvicorn.Config(application, lifespan="off", log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def __enter__(self) -> AsgiServer:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the ASGI server did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)
        self.sock.close()


@pytest.fixture
def asgi_server() -> Iterator[AsgiServer]:
    """The server, its requests' database connections closed when they end (CONN_MAX_AGE 0:
    none is left open on the test database when it is dropped). PostgreSQL only: it reads and
    writes beside the test, which SQLite's shared in-memory test database cannot take."""
    from django.db import connections

    database = connections.settings["default"]
    saved = database["CONN_MAX_AGE"]
    database["CONN_MAX_AGE"] = 0
    try:
        with AsgiServer() as server:
            yield server
    finally:
        database["CONN_MAX_AGE"] = saved


@pytest.fixture(params=["wsgi", pytest.param("asgi", marks=pytest.mark.postgres)])
def server_url(request: pytest.FixtureRequest) -> str:
    """The base URL of ``live_server`` (WSGI: the page falls back to the stream, then the
    long-poll), then of ``asgi_server`` (the page follows the game over the socket)."""
    server = "live_server" if request.param == "wsgi" else "asgi_server"
    return str(request.getfixturevalue(server).url)


# ----------------------------------------------------------------------------- axe-core
# axe-core's minified build, vendored with its licence (MPL-2.0) so that a fresh clone's
# `make test` needs no npm; web/package.json pins the same version (test_axe_vendored.py).
AXE_JS = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
BLOCKING_IMPACTS = ("serious", "critical")


def axe_violations(page: Any, impacts: tuple[str, ...] = BLOCKING_IMPACTS) -> list[dict[str, Any]]:
    """axe-core's WCAG 2.x A/AA (and best-practice) violations of the page as it is now, of
    the given impacts: ``[{"id", "impact", "help", "nodes": [selector, ...]}]``."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_JS))
    found = page.evaluate(
        """async () => {
          const result = await axe.run(document, { resultTypes: ["violations"] });
          return result.violations.map((v) => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.map((n) => n.target.join(" ")),
          }));
        }"""
    )
    return [v for v in found if v["impact"] in impacts]


def describe_violations(violations: list[dict[str, Any]]) -> str:
    return "\n".join(
        f"{v['impact']} {v['id']}: {v['help']} ({len(v['nodes'])}: {', '.join(v['nodes'][:4])})"
        for v in violations
    )
