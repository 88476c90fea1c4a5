"""Log lines: the request id (X-Request-ID) on the answer, on every line, and carried into the
tasks a request sends; JSON lines (LOG_FORMAT=json) that name no card; Sentry's scrubbing."""

from __future__ import annotations

import io
import json
import logging
import logging.config
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.test import Client

from canasta_service import logs
from games.engine import card_text
from tests.games.api.conftest import (  # noqa: F401 - fixtures
    PlayerClient,
    choose,
    create_game,
    make_player,
    snapshot_of,
)
from tests.games.api.test_leak import cards_in
from tests.project.test_metrics import CARD_WORD

ROOT = Path(__file__).resolve().parents[2]
HEX32 = re.compile(r"^[0-9a-f]{32}$")


# ============================================================================== the header
@pytest.mark.django_db
def test_a_request_id_is_echoed_or_made() -> None:
    client = Client()
    given = client.get("/api/v1/health/", HTTP_X_REQUEST_ID="edge-7f3a.1_b")
    assert given["X-Request-ID"] == "edge-7f3a.1_b"
    made = client.get("/api/v1/health/")
    assert HEX32.match(made["X-Request-ID"])
    assert client.get("/api/v1/health/")["X-Request-ID"] != made["X-Request-ID"]
    # Not a short token: replaced, never echoed.
    for bad in ("a b", "x" * 65, "<script>", "id\u00e9"):
        answered = client.get("/api/v1/health/", HTTP_X_REQUEST_ID=bad)["X-Request-ID"]
        assert HEX32.match(answered), bad
    # Every answer carries one, errors too.
    assert HEX32.match(client.get("/api/v1/no-such-route/")["X-Request-ID"])


def test_the_filter_writes_the_current_id() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "m", None, None)
    logs.RequestIdFilter().filter(record)
    assert getattr(record, "request_id", None) == logs.NO_REQUEST
    token = logs.request_id_var.set("abc")
    try:
        record = logging.LogRecord("x", logging.INFO, __file__, 1, "m", None, None)
        logs.RequestIdFilter().filter(record)
        assert getattr(record, "request_id", None) == "abc"
    finally:
        logs.request_id_var.reset(token)


# ============================================================================== JSON lines
def configured(log_format: str, level: str) -> io.StringIO:
    """The project's logging as ``LOGGING`` would set it, its stdout handler writing to the
    returned buffer instead."""
    logging.config.dictConfig(logs.logging_config(log_format, level))
    buffer = io.StringIO()
    (handler,) = logging.getLogger().handlers
    assert isinstance(handler, logging.StreamHandler)
    handler.setStream(buffer)
    return buffer


@pytest.fixture
def bots_in_process(tasks_in_process: None) -> None:
    """Bot turns run in-process (as with no broker), whatever the environment configures."""


@pytest.fixture
def json_lines() -> Iterator[Callable[[], list[dict[str, Any]]]]:
    """The project's logging in JSON at DEBUG, its lines read back parsed."""
    buffer = configured("json", "DEBUG")

    def read() -> list[dict[str, Any]]:
        out = buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
        return [json.loads(line) for line in out.splitlines()]

    try:
        yield read
    finally:
        logging.config.dictConfig(django_settings.LOGGING)


# Bots play after each commit (transaction.on_commit): the test must really commit.
@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("bots_in_process")
def test_a_task_sent_by_a_request_logs_with_its_id_and_no_line_names_a_card(
    make_player: Any,  # noqa: F811
    json_lines: Callable[[], list[dict[str, Any]]],
) -> None:
    ada: PlayerClient = make_player("Ada")
    game = create_game(ada, preset="two_player", seat=0, bots=[{"seat": 1, "level": "easy"}])
    game_id = int(game["id"])
    assert ada.post(f"/api/v1/games/{game_id}/start/", {}, format="json").status_code == 200
    json_lines()
    rid = "turn-0001"
    # Ada plays until her move hands the turn to the bot (its task runs in-process).
    for step in range(40):
        view = ada.game(game_id)
        action = choose(view["state"]["legal_actions"])
        answer = ada.act(game_id, action, view["version"], X_Request_ID=f"{rid}-{step}")
        assert answer.status_code == 201, answer.content
        assert answer["X-Request-ID"] == f"{rid}-{step}"
        if action["type"] == "discard":
            break
    state = snapshot_of(game_id)
    hidden = {card_text(c) for c in [*state.hands[1], *state.stock]}
    # A refusal naming a card only the bot holds.
    mine = {card_text(c) for c in state.hands[0]}
    foreign = next(c for c in sorted(hidden) if c not in mine)
    version = ada.game(game_id)["version"]
    refused = ada.act(game_id, {"type": "discard", "card": foreign}, version, X_Request_ID="bad-1")
    assert 400 <= refused.status_code < 500

    lines = json_lines()
    assert lines, "no log line was written"
    for line in lines:
        assert {"time", "level", "logger", "message", "request_id"} <= line.keys(), line
    tasks = [line for line in lines if line["logger"] == "canasta_service.tasks"]
    assert tasks and all(line["request_id"] == f"{rid}-{step}" for line in tasks), tasks
    warning = next(line for line in lines if line["request_id"] == "bad-1")  # Django's 4xx
    assert warning["status_code"] == refused.status_code
    assert "request" not in warning  # its text would hold the query string
    # The project's scanner over every value, and no card-like word anywhere.
    for line in lines:
        assert not cards_in(line), line
        assert not CARD_WORD.findall(json.dumps(line)), line


def test_plain_lines_carry_the_id() -> None:
    buffer = configured("plain", "INFO")
    try:
        token = logs.request_id_var.set("plain-1")
        try:
            logging.getLogger("canasta_service.test").info("hello")
        finally:
            logs.request_id_var.reset(token)
        assert "[plain-1] hello" in buffer.getvalue()
    finally:
        logging.config.dictConfig(django_settings.LOGGING)


def test_log_format_must_be_plain_or_json() -> None:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "canasta_service.test_settings"}
    env["LOG_FORMAT"] = "xml"
    run = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=env,
        cwd=ROOT,
        capture_output=True,
    )
    assert run.returncode != 0
    assert b"LOG_FORMAT='xml' is invalid" in run.stderr


# ============================================================================== Celery
def test_the_id_travels_in_the_task_headers() -> None:
    headers: dict[str, Any] = {}
    logs._request_id_publish(headers=headers)  # outside a request: nothing
    assert logs.TASK_HEADER not in headers
    token = logs.request_id_var.set("sent-1")
    try:
        logs._request_id_publish(headers=headers)
    finally:
        logs.request_id_var.reset(token)
    assert headers[logs.TASK_HEADER] == "sent-1"
    # The worker: held from prerun to postrun.
    task = SimpleNamespace(name="t", request=SimpleNamespace(canasta_request_id="sent-1"))
    logs._request_id_restore(task_id="id-1", task=task)
    assert logs.request_id_get() == "sent-1"
    logs._request_id_forget(task_id="id-1")
    assert logs.request_id_get() is None
    # Not a token: ignored.
    task = SimpleNamespace(name="t", request=SimpleNamespace(canasta_request_id="a b"))
    logs._request_id_restore(task_id="id-2", task=task)
    assert logs.request_id_get() is None
    logs._request_id_forget(task_id="id-2")


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_real_workers_task_logs_with_the_request_id(celery_worker_process: Any) -> None:
    rid = f"probe-{os.getpid()}-{int(time.time())}"
    response = Client().post("/api/v1/health/probe/", HTTP_X_REQUEST_ID=rid)
    assert response.status_code == 202
    deadline = time.monotonic() + 30
    while f"[{rid}]" not in celery_worker_process.log_text():
        if time.monotonic() > deadline:
            pytest.fail(f"no worker line with [{rid}]:\n{celery_worker_process.log_text()}")
        time.sleep(0.1)
    line = next(x for x in celery_worker_process.log_text().splitlines() if f"[{rid}]" in x)
    assert "games.record_worker_probe" in line


# ============================================================================== Sentry
def test_sentry_events_lose_bodies_cookies_and_credentials() -> None:
    event = {
        "request": {
            "url": "https://canasta.example/api/v1/games/1/actions/",
            "data": {"action": {"type": "discard", "card": "QH"}},
            "cookies": {"sessionid": "s"},
            "headers": {"Authorization": "Token abc", "Cookie": "sessionid=s", "Accept": "x"},
        }
    }
    scrubbed = logs.event_scrub(event, {})
    request = scrubbed["request"]
    assert "data" not in request and "cookies" not in request
    assert request["headers"] == {
        "Authorization": "[Filtered]",
        "Cookie": "[Filtered]",
        "Accept": "x",
    }
    assert "QH" not in json.dumps(scrubbed)


def test_sentry_is_off_without_a_dsn() -> None:
    import sentry_sdk

    assert not django_settings.SENTRY_DSN
    assert not sentry_sdk.get_client().is_active()


def test_sentry_starts_with_a_dsn_and_the_scrubber() -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "canasta_service.test_settings",
        # Nothing listens there: no event is sent by this check anyway.
        "SENTRY_DSN": "http://public@127.0.0.1:9/1",
        "SENTRY_ENVIRONMENT": "test",
    }
    check = (
        "import django; django.setup(); import sentry_sdk; o = sentry_sdk.get_client().options; "
        "print(sentry_sdk.get_client().is_active(), o['send_default_pii'], "
        "o['before_send'].__name__, o['environment'], "
        "sorted(type(i).__name__ for i in o['integrations']"
        " if type(i).__name__ in ('DjangoIntegration', 'CeleryIntegration')))"
    )
    run = subprocess.run(
        [sys.executable, "-c", check], env=env, cwd=ROOT, capture_output=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.decode().strip() == (
        "True False event_scrub test ['CeleryIntegration', 'DjangoIntegration']"
    )
