"""Traces: one move's trace holds every hop, and no span names a card.

An in-memory exporter stands in for the OTLP endpoint. A player moves through the API against
a bot (tasks eager, as without a broker: the bot's turn runs in the request, in the Celery
task's span); the trace of that request must hold the view's span (named after the route
pattern), the service's, SQL statements (placeholders, no values), the on-commit hand-offs, the
Celery task and the live publish, all under one trace id. Then the project's leak scanner
(``tests.games.api.test_leak.cards_in``) reads every span's name and attributes.
"""

from __future__ import annotations

import gzip
import re
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind

from canasta_service import tracing as service_tracing
from canasta_service.celery import app as celery_app
from core import tracing
from games.engine import card_text
from games.models import Game
from tests.conftest import process_stop, worker_environment
from tests.games.api.conftest import (
    PlayerClient,
    SchemaCheckedClient,
    choose,
    create_game,
    snapshot_of,
)
from tests.games.api.test_leak import CARD_TOKENS, cards_in

pytestmark = pytest.mark.django_db(transaction=True)

ACTIONS_ROUTE = "POST api/v1/games/<id:game_id>/actions/"


@pytest.fixture
def eager(tasks_in_process: None) -> None:
    """Tasks run in-process (as with no broker), whatever the environment configures."""


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """Tracing on in this process, spans kept in memory; off again afterwards."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    assert service_tracing.tracing_init(provider)
    # The test database's connection was opened before: traced from here on too.
    raw = connection.connection
    if connection.vendor == "sqlite" and raw is not None:
        from opentelemetry.instrumentation.sqlite3 import SQLite3Instrumentor

        connection.connection = SQLite3Instrumentor.instrument_connection(
            raw, tracer_provider=provider
        )
    else:
        connection.close()  # the next statement connects through the instrumented driver
    try:
        yield exporter
    finally:
        service_tracing.tracing_shutdown()
        if connection.vendor == "sqlite" and raw is not None:
            connection.connection = raw
        else:
            connection.close()  # the next test's connection is not traced
        exporter.clear()


def _player(name: str) -> PlayerClient:
    """A guest player's client (as ``make_player`` of the API tests)."""
    response = SchemaCheckedClient().post("/api/v1/players/", {"display_name": name}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    client = PlayerClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    client.player_id, client.display_name, client.token = body["id"], name, body["token"]
    return client


def _move_handing_to_the_bot(player: PlayerClient, game_id: int) -> None:
    """``player`` acts until the turn passes to the bot; only the last request's spans stay."""
    for _ in range(10):
        game = player.game(game_id)
        assert game["state"]["to_act"] == game["your_seat"]
        response = player.act(game_id, choose(game["state"]["legal_actions"]), game["version"])
        assert response.status_code == 201, response.content
        if Game.objects.get(pk=game_id).version > game["version"] + 1:
            return  # the bot played after this move
    raise AssertionError("the turn never passed to the bot")


def _one_move_trace(
    spans: InMemorySpanExporter,
) -> tuple[PlayerClient, int, list[ReadableSpan]]:
    """A game of a player against a bot, and the trace of the player's move that handed the
    turn to the bot."""
    assert celery_app.conf.task_always_eager
    ada = _player("Ada")
    game = create_game(ada, preset="two_player", seat=0, bots=[{"seat": 1, "level": "easy"}])
    game_id = int(game["id"])
    started = ada.post(f"/api/v1/games/{game_id}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    spans.clear()
    _move_handing_to_the_bot(ada, game_id)
    finished = list(spans.get_finished_spans())
    views = [s for s in finished if s.kind == SpanKind.SERVER and s.name == ACTIONS_ROUTE]
    assert views, sorted({s.name for s in finished})
    view = views[-1]  # the move that handed the turn to the bot
    assert view.context is not None
    trace_id = view.context.trace_id
    trace = [s for s in finished if s.context is not None and s.context.trace_id == trace_id]
    return ada, game_id, trace


def test_a_moves_trace_holds_every_hop(eager: None, spans: InMemorySpanExporter) -> None:
    _, _, trace = _one_move_trace(spans)
    names = Counter(s.name for s in trace)

    assert names[ACTIONS_ROUTE] == 1, names
    assert names["game.action_apply"] == 1, names
    assert names["game.move_apply"] >= 2, names  # the player's move and the bot's
    assert names["on_commit live.notify"] >= 1, names
    assert names["on_commit bots.turn_schedule"] >= 1, names
    assert names["run/bots.bot_turn_play"] >= 1, names
    assert names["live publish"] >= 2, names
    sql = [s for s in trace if s.attributes and s.attributes.get("db.system") == "sqlite"] or [
        s for s in trace if s.attributes and s.attributes.get("db.system") == "postgresql"
    ]
    assert sql, names

    # One tree: every span but the view's has its parent in the trace.
    by_id = {s.context.span_id: s for s in trace if s.context is not None}
    roots = [s for s in trace if s.parent is None or s.parent.span_id not in by_id]
    assert [s.name for s in roots] == [ACTIONS_ROUTE]

    def ancestors(span: ReadableSpan) -> list[str]:
        found = []
        while span.parent is not None and span.parent.span_id in by_id:
            span = by_id[span.parent.span_id]
            found.append(span.name)
        return found

    task = next(s for s in trace if s.name == "run/bots.bot_turn_play")
    assert "on_commit bots.turn_schedule" in ancestors(task)
    assert "game.action_apply" in ancestors(task)
    publish = next(s for s in trace if s.name == "live publish")
    assert ancestors(publish)[0] == "on_commit live.notify"


def _strings(span: ReadableSpan) -> list[tuple[str, str]]:
    """(attribute, text) of everything a span carries: its name, attributes, events'."""
    found = [("name", span.name)]
    attributes: list[tuple[str, Any]] = list((span.attributes or {}).items())
    for event in span.events:
        attributes += [(f"{event.name}.{k}", v) for k, v in (event.attributes or {}).items()]
    for key, value in attributes:
        values = value if isinstance(value, tuple) else (value,)
        found += [(key, str(v)) for v in values]
    return found


def _leaks(spans: list[ReadableSpan]) -> list[tuple[str, str, str]]:
    """The leak scanner over every span's name and attributes: (span, attribute, text) of each
    text that names a card."""
    leaked: list[tuple[str, str, str]] = []
    for span in spans:
        for key, text in _strings(span):
            if cards_in(text):
                leaked.append((span.name, key, text))
            elif key == "db.statement":
                # SQL keywords may spell a card ("AS"): only a quoted literal would be one.
                if re.search(f"""['"]({"|".join(CARD_TOKENS)})['"]""", text):
                    leaked.append((span.name, key, text))
            elif any(token in CARD_TOKENS for token in re.split(r"[^0-9A-Z]+", text)):
                leaked.append((span.name, key, text))
    return leaked


def test_no_span_names_a_card_a_body_or_a_query_value(
    eager: None, spans: InMemorySpanExporter
) -> None:
    ada, game_id, trace = _one_move_trace(spans)
    assert not _leaks(trace)

    # A refused action naming a card of the bot's hand: the refusal's spans name no card either.
    state = snapshot_of(game_id)
    mine = {card_text(c) for c in state.hands[0]}
    foreign = next(card_text(c) for c in state.hands[1] if card_text(c) not in mine)
    version = Game.objects.get(pk=game_id).version
    spans.clear()
    refused = ada.act(game_id, {"type": "discard", "card": foreign}, version)
    assert 400 <= refused.status_code < 500, refused.content
    refusal = list(spans.get_finished_spans())
    assert any(s.name == "game.move_apply" for s in refusal)
    assert [s for s in refusal if (s.attributes or {}).get("error.type")]
    assert not _leaks(refusal)

    view = next(s for s in trace if s.name == ACTIONS_ROUTE)
    attributes = dict(view.attributes or {})
    assert not [k for k in attributes if k.startswith(("http.request.header", "http.response."))]
    assert all("?" not in str(v) for v in attributes.values())
    for span in trace:
        for key, _ in _strings(span):
            assert "parameters" not in key, (span.name, key)


def test_the_query_string_is_cut_from_the_request_span(
    eager: None, spans: InMemorySpanExporter
) -> None:
    ada = _player("Ada")
    game = create_game(ada, preset="two_player", seat=0, bots=[{"seat": 1, "level": "easy"}])
    spans.clear()
    response = ada.get(f"/api/v1/games/{game['id']}/events/?after=0&secret=hunter2")
    assert response.status_code == 200, response.content
    server = [s for s in spans.get_finished_spans() if s.kind == SpanKind.SERVER]
    assert server
    for span in server:
        assert "hunter2" not in repr(dict(span.attributes or {})), span.attributes
        assert "<id:game_id>" in span.name


def test_off_unless_configured(settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", raising=False)
    assert not service_tracing.tracing_wanted()
    assert not service_tracing.tracing_init()
    assert not tracing.enabled()
    assert tracing.span("anything", x=1) is tracing.span("other")  # one shared no-op
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    assert service_tracing.tracing_wanted()
    settings.TRACING_ENABLED = False
    assert not service_tracing.tracing_wanted()
    settings.TRACING_ENABLED = True
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT")
    assert service_tracing.tracing_wanted()


# ------------------------------------------------------------------------- with a real worker
class _Collector(ThreadingHTTPServer):
    """An OTLP/HTTP receiver on loopback: the spans a worker exports, decoded."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _CollectorHandler)
        self.spans: list[Any] = []  # opentelemetry.proto Span messages
        self.lock = threading.Lock()


class _CollectorHandler(BaseHTTPRequestHandler):
    server: _Collector

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        request = ExportTraceServiceRequest.FromString(body)
        with self.server.lock:
            for resource in request.resource_spans:
                for scope in resource.scope_spans:
                    self.server.spans.extend(scope.spans)
        answer = ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        return


@pytest.fixture
def collector() -> Iterator[_Collector]:
    server = _Collector()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.worker
def test_a_task_run_by_a_real_worker_is_a_child_of_the_trace_that_sent_it(
    spans: InMemorySpanExporter, collector: _Collector, tmp_path: Path
) -> None:
    """A prefork worker (tracing set up in its child process) exporting over OTLP/HTTP: the
    task's span carries the sender's trace id, its parent the publish span."""
    from django.conf import settings

    from core import dispatch

    assert not celery_app.conf.task_always_eager
    queue = f"tracing-{uuid.uuid4().hex[:8]}"  # this worker's alone
    hostname = f"tracing-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
    env = worker_environment(
        str(settings.CELERY_BROKER_URL),
        OTEL_EXPORTER_OTLP_ENDPOINT=f"http://127.0.0.1:{collector.server_address[1]}",
        OTEL_BSP_SCHEDULE_DELAY="100",
        OTEL_SERVICE_NAME="canasta-worker-test",
    )
    log_path = tmp_path / "worker.log"
    command = [
        *(sys.executable, "-m", "celery", "-A", "canasta_service", "worker"),
        *("--pool=prefork", "--concurrency=1", f"--queues={queue}", f"--hostname={hostname}"),
        *("--loglevel=INFO", "--without-gossip", "--without-mingle"),
    ]
    with log_path.open("wb") as log:
        process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60
        while not celery_app.control.ping(destination=[hostname], timeout=0.5):
            assert process.poll() is None, log_path.read_text()
            assert time.monotonic() < deadline, log_path.read_text()

        token = uuid.uuid4().hex
        with tracing.span("test.sender"):
            dispatch.send("games.record_worker_probe", token, queue=queue)
        sent = {s.name: s for s in spans.get_finished_spans()}
        sender, publish = sent["test.sender"], sent["apply_async/games.record_worker_probe"]
        assert sender.context is not None and publish.context is not None
        assert publish.parent is not None and publish.parent.span_id == sender.context.span_id

        def runs() -> list[Any]:
            with collector.lock:
                return [s for s in collector.spans if s.name == "run/games.record_worker_probe"]

        deadline = time.monotonic() + 30
        while not runs():
            assert time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.1)
        run = runs()[0]
        assert int.from_bytes(run.trace_id, "big") == sender.context.trace_id
        assert int.from_bytes(run.parent_span_id, "big") == publish.context.span_id
        with collector.lock:
            in_trace = [s for s in collector.spans if s.trace_id == run.trace_id]
        assert any(s.name in {"INSERT", "SELECT"} for s in in_trace), [s.name for s in in_trace]
    finally:
        process_stop(process)
