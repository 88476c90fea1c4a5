"""GET /api/v1/health/ and the eager path of the worker probe."""

from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from django.db import OperationalError
from django.test import Client

from canasta_service.celery import app as celery_app
from games.models import WorkerProbe

pytestmark = pytest.mark.django_db


@pytest.fixture
def eager_tasks(tasks_in_process: None) -> None:
    """Run tasks in-process whatever the environment says (as with no broker configured)."""


@pytest.fixture
def unreachable_broker() -> Iterator[None]:
    saved = celery_app.conf.task_always_eager, celery_app.conf.broker_url
    # The discard port: nothing listens there.
    celery_app.conf.update(task_always_eager=False, broker_url="redis://127.0.0.1:9/0")
    try:
        yield
    finally:
        celery_app.conf.update(task_always_eager=saved[0], broker_url=saved[1])


def test_healthy_without_a_broker(client: Client, eager_tasks: None) -> None:
    response = client.get("/api/v1/health/")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["checks"]["database"]["status"] == "ok"
    assert body["checks"]["broker"]["status"] == "eager"


def test_unreachable_broker_is_503(client: Client, unreachable_broker: None) -> None:
    response = client.get("/api/v1/health/")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["database"]["status"] == "ok"
    assert body["checks"]["broker"]["status"] == "error"


def test_broken_database_is_503(client: Client, eager_tasks: None) -> None:
    broken = mock.MagicMock()
    broken.cursor.side_effect = OperationalError("connection refused")
    with mock.patch("canasta_service.health.connection", broken):
        response = client.get("/api/v1/health/")
    assert response.status_code == 503
    body = response.json()
    assert body["checks"]["database"] == {"status": "error", "detail": "OperationalError"}


def test_health_needs_no_credentials_even_when_a_bad_token_is_sent(client: Client) -> None:
    response = client.get("/api/v1/health/", HTTP_AUTHORIZATION="Token wrong")
    assert response.status_code in (200, 503)


def test_probe_runs_eagerly_after_commit(
    client: Client, eager_tasks: None, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post("/api/v1/health/probe/")
    assert response.status_code == 202
    assert len(callbacks) == 1
    token = response.json()["token"]
    assert response.json()["status_url"] == f"http://testserver/api/v1/health/probe/{token}/"
    assert WorkerProbe.objects.filter(token=token).exists()

    status = client.get(f"/api/v1/health/probe/{token}/").json()
    assert status["recorded"] is True
    assert status["recorded_at"] is not None


def test_probe_task_is_idempotent(eager_tasks: None) -> None:
    from games.tasks import record_worker_probe

    assert record_worker_probe.delay("abc").get() is True
    assert record_worker_probe.delay("abc").get() is False
    assert WorkerProbe.objects.filter(token="abc").count() == 1


def test_unknown_probe_is_not_recorded(client: Client) -> None:
    body = client.get("/api/v1/health/probe/0123abcd/").json()
    assert body == {"token": "0123abcd", "recorded": False, "recorded_at": None}


@pytest.mark.postgres
def test_health_reports_postgresql(client: Client) -> None:
    body = client.get("/api/v1/health/").json()
    assert body["checks"]["database"] == {"status": "ok", "detail": "postgresql"}
