"""/metrics: protected, out of the schema, the series move as a game is played, no card in any
label; the multiprocess mode; the worker's endpoint; the alert rules and the dashboard."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from canasta_service import metrics as service_metrics
from core import metrics
from games.engine import card_text
from tests.games.api.conftest import (  # noqa: F401 - fixtures
    PlayerClient,
    against_a_bot,
    eager_bots,
    make_player,
    snapshot_of,
)
from tests.games.api.test_leak import cards_in

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "metrics-test-token"
CARD_WORD = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9JQKA])[CDHS](?![A-Za-z0-9])|(?<![A-Za-z0-9])JK")


def scrape(token: str = TOKEN) -> str:
    response = Client().get("/metrics", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain")
    return response.content.decode()


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    found = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            found[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return found


def value(text: str, name: str, **labels: str) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    total = 0.0
    for (sample, sample_labels), v in samples(text).items():
        if sample == name and set(labels.items()) <= set(sample_labels):
            total += v
    return total


def card_leaks(text: str) -> list[str]:
    """The project's scanner (``cards_in``) over every label value, and any card-like word."""
    labels = [
        v
        for family in text_string_to_metric_families(text)
        for s in family.samples
        for v in s.labels.values()
    ]
    return [*cards_in(labels), *CARD_WORD.findall(text)]


# ============================================================================== access
@pytest.mark.django_db
def test_without_a_token_setting_metrics_are_not_there(settings: Any) -> None:
    settings.METRICS_TOKEN = ""
    settings.DEBUG = False
    assert Client().get("/metrics").status_code == 404
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer anything").status_code == 404


@pytest.mark.django_db
def test_metrics_need_the_bearer_token(settings: Any) -> None:
    settings.METRICS_TOKEN = TOKEN
    missing = Client().get("/metrics")
    assert missing.status_code == 401
    assert missing["WWW-Authenticate"].startswith("Bearer")
    assert missing.json()["code"] == "not_authenticated"
    assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    assert Client().get("/metrics", HTTP_AUTHORIZATION=f"Token {TOKEN}").status_code == 401
    assert "canasta_http_requests_total" in scrape()


def test_token_comparison() -> None:
    assert service_metrics.token_allows(f"Bearer {TOKEN}", TOKEN)
    assert service_metrics.token_allows(f"bearer {TOKEN}", TOKEN)
    assert not service_metrics.token_allows(f"Bearer {TOKEN}x", TOKEN)
    assert not service_metrics.token_allows(None, TOKEN)
    assert not service_metrics.token_allows(TOKEN, TOKEN)


def test_metrics_are_not_in_the_openapi_document() -> None:
    schema = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    assert not [p for p in schema["paths"] if "metrics" in p]
    from drf_spectacular.generators import SchemaGenerator

    generated = SchemaGenerator().get_schema(request=None, public=True)
    assert not [p for p in generated["paths"] if "metrics" in p]


# ============================================================================== a game played
# Bots play after each commit (transaction.on_commit), and moves are counted then.
@pytest.mark.django_db(transaction=True)
def test_a_game_moves_the_series_and_no_label_names_a_card(
    settings: Any,
    make_player: Any,  # noqa: F811
) -> None:
    settings.METRICS_TOKEN = TOKEN
    ada: PlayerClient = make_player("Ada")
    before = scrape()
    game_id = against_a_bot(ada, moves=10)  # the bot's turns come between hers
    state = snapshot_of(game_id)
    # A discard of a card only the bot holds: refused, by code.
    mine = {card_text(c) for c in state.hands[0]}
    hidden = [card_text(c) for c in state.hands[1] if card_text(c) not in mine]
    version = ada.game(game_id)["version"]
    refused = ada.act(game_id, {"type": "discard", "card": hidden[0]}, version)
    assert 400 <= refused.status_code < 500
    code = refused.json()["code"]
    stale = ada.act(game_id, {"type": "draw"}, version - 1)
    assert stale.status_code == 409
    after = scrape()

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved("canasta_moves_applied_total", family="classic", source="player") == 10
    assert moved("canasta_moves_applied_total", family="classic", source="bot") >= 2
    assert moved("canasta_moves_refused_total", code=code) == 1
    assert moved("canasta_moves_refused_total", code="stale_version") == 1
    assert moved("canasta_http_requests_total", route="game-actions", status="201") == 10
    assert moved("canasta_http_requests_total", route="game-actions", status="409") == 1
    assert moved("canasta_http_request_duration_seconds_count", route="game-actions") == 12
    # The bots' turns ran as tasks (in-process here), each timed.
    assert moved("canasta_task_run_seconds_count", task="bots.bot_turn_play") >= 1
    # Routes by name: no path, no id.
    assert f"/games/{game_id}" not in after
    assert card_leaks(after) == []
    assert hidden[0] not in after


# ============================================================================== emitted series
def test_task_wait_is_measured_from_the_sent_stamp() -> None:
    headers: dict[str, Any] = {}
    service_metrics._stamp_sent(headers=headers)
    assert isinstance(headers[service_metrics.SENT_AT_HEADER], float)
    name = "bots.test_wait_probe"
    request = SimpleNamespace(
        canasta_sent_at=time.time() - 3.0, delivery_info={"routing_key": "interactive"}, eta=None
    )
    task = SimpleNamespace(name=name, request=request)
    service_metrics._task_started(task_id="t-wait", task=task)
    service_metrics._task_ended(task_id="t-wait", task=task, state="SUCCESS")
    text = service_metrics.metrics_text(scrape=False).decode()
    assert value(text, "canasta_task_wait_seconds_count", task=name, queue="interactive") == 1
    assert value(text, "canasta_task_wait_seconds_sum", task=name) >= 3.0
    assert value(text, "canasta_task_run_seconds_count", task=name, state="SUCCESS") == 1


@pytest.mark.django_db
def test_live_followers_are_counted_per_transport() -> None:
    import asyncio

    from games.realtime.limits import connection_acquire

    def followers() -> float:
        text = service_metrics.metrics_text(scrape=False).decode()
        return value(text, "canasta_live_followers", transport="stream")

    start = followers()

    async def hold() -> None:
        lease = await connection_acquire(1, metrics.STREAM)
        assert followers() == start + 1
        await lease.release()
        await lease.release()  # idempotent: counted down once

    asyncio.run(hold())
    assert followers() == start


def test_delivery_outcomes_are_counted() -> None:
    text = service_metrics.metrics_text(scrape=False).decode()
    before = value(text, "canasta_notification_deliveries_total", channel="webhook")
    metrics.delivery_recorded("webhook", "delivered")
    text = service_metrics.metrics_text(scrape=False).decode()
    after = value(text, "canasta_notification_deliveries_total", channel="webhook")
    assert after == before + 1


def test_labels_are_bounded() -> None:
    assert metrics.label("x" * 500) == "x" * 64
    assert metrics.label("telnet", metrics.TRANSPORTS) == "other"


@pytest.mark.postgres
@pytest.mark.django_db
def test_database_connections_are_read_at_scrape_time() -> None:
    found = list(service_metrics.database_connections())
    names = {m.name for m in found}
    assert names == {"canasta_db_connections", "canasta_db_connections_max"}
    used = next(m for m in found if m.name == "canasta_db_connections")
    assert sum(s.value for s in used.samples) >= 1


def test_queue_lengths_are_read_from_redis(settings: Any) -> None:
    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.skip("needs Redis (REDIS_URL)")
    import redis

    client = redis.Redis.from_url(url)
    queue = f"metrics-test-{os.getpid()}"
    client.delete(queue)
    client.rpush(queue, "a", "b")
    settings.CELERY_BROKER_URL = url
    settings.TASK_QUEUES = {"interactive": queue}
    try:
        (family,) = service_metrics.queue_lengths()
        assert [(s.labels["queue"], s.value) for s in family.samples] == [(queue, 2.0)]
    finally:
        client.delete(queue)
        client.close()


# ============================================================================== processes
def test_multiprocess_mode_sums_every_process(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
        "DJANGO_SETTINGS_MODULE": "canasta_service.test_settings",
    }
    count = "from core import metrics; metrics.move_applied('classic', 'timer')"
    for _ in range(2):
        subprocess.run([sys.executable, "-c", count], env=env, check=True, cwd=ROOT)
    read = (
        "import django; django.setup(); from canasta_service import metrics; "
        "print(metrics.metrics_text(scrape=False).decode())"
    )
    out = subprocess.run(
        [sys.executable, "-c", read], env=env, check=True, cwd=ROOT, capture_output=True
    ).stdout.decode()
    assert value(out, "canasta_moves_applied_total", family="classic", source="timer") == 2


def test_the_worker_endpoint_needs_the_token() -> None:
    app = service_metrics.worker_metrics_app(TOKEN)
    statuses: list[str] = []

    def call(path: str, authorization: str | None) -> bytes:
        environ = {"PATH_INFO": path}
        if authorization:
            environ["HTTP_AUTHORIZATION"] = authorization
        return b"".join(app(environ, lambda status, headers: statuses.append(status)))

    call("/metrics", None)
    call("/other", f"Bearer {TOKEN}")
    body = call("/metrics", f"Bearer {TOKEN}")
    assert statuses == ["401 Unauthorized", "404 Not Found", "200 OK"]
    assert b"canasta_moves_applied_total" in body


# ============================================================================== alerts, dashboard
SERIES = {
    "canasta_http_requests_total",
    "canasta_http_request_duration_seconds_bucket",
    "canasta_moves_applied_total",
    "canasta_moves_refused_total",
    "canasta_task_wait_seconds_bucket",
    "canasta_task_run_seconds_bucket",
    "canasta_task_run_seconds_count",
    "canasta_live_followers",
    "canasta_notification_deliveries_total",
    "canasta_celery_queue_length",
    "canasta_db_connections",
    "canasta_db_connections_max",
    "canasta_scrape_errors",
}


def series_named(expr: str) -> set[str]:
    return set(re.findall(r"\bcanasta_[a-z_]+", expr))


def test_alert_rules_are_complete() -> None:
    document = yaml.safe_load((ROOT / "deploy" / "prometheus" / "alerts.yml").read_text())
    rules = [rule for group in document["groups"] for rule in group["rules"]]
    names = {rule["alert"] for rule in rules}
    assert {
        "CanastaBotQueueStalled",
        "CanastaDeliveriesFailing",
        "CanastaHttp5xx",
        "CanastaDatabaseConnectionsNearMax",
    } <= names
    for rule in rules:
        assert rule.keys() >= {"alert", "expr", "for", "labels", "annotations"}, rule
        assert re.fullmatch(r"\d+[smh]", rule["for"]), rule
        assert rule["labels"]["severity"] in ("warning", "critical")
        assert rule["annotations"]["summary"]
        used = series_named(rule["expr"])
        assert used and used <= SERIES, (rule["alert"], used - SERIES)


def test_the_dashboard_reads_only_series_the_service_exports() -> None:
    dashboard = json.loads((ROOT / "deploy" / "grafana" / "canasta.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    used = set().union(*(series_named(e) for e in exprs))
    assert used <= SERIES, used - SERIES
    assert {"canasta_moves_applied_total", "canasta_celery_queue_length"} <= used
    assert len({p["id"] for p in dashboard["panels"]}) == len(dashboard["panels"])


def test_gunicorn_empties_the_directory_and_forgets_dead_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from canasta_service import gunicorn_conf

    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    (tmp_path / "counter_1.db").write_bytes(b"old run")
    gunicorn_conf.on_starting(server=None)
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "gauge_livesum_41.db").write_bytes(b"")
    (tmp_path / "counter_41.db").write_bytes(b"")
    gunicorn_conf.child_exit(server=None, worker=SimpleNamespace(pid=41))
    # A dead worker's counts stay (they were counted); its live gauges go.
    assert [p.name for p in tmp_path.iterdir()] == ["counter_41.db"]
