"""The production chain, end to end: HTTP request -> broker -> a real worker -> PostgreSQL."""

import time
from collections.abc import Callable

import pytest
from django.test import Client

from canasta_service.celery import app as celery_app
from games.models import WorkerProbe
from tests.conftest import WorkerProcess

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def wait_for(
    condition: Callable[[], bool], seconds: float, what: str, worker: WorkerProcess
) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}; worker log:\n{worker.log_text()}")
        time.sleep(0.1)


def test_request_enqueues_a_task_a_real_worker_records(
    client: Client, celery_worker_process: WorkerProcess
) -> None:
    assert not celery_app.conf.task_always_eager

    response = client.post("/api/v1/health/probe/")
    assert response.status_code == 202
    token = response.json()["token"]

    def recorded() -> bool:
        return bool(client.get(f"/api/v1/health/probe/{token}/").json()["recorded"])

    wait_for(recorded, 30, f"probe {token} to be recorded", celery_worker_process)
    assert WorkerProbe.objects.filter(token=token).count() == 1

    def logged() -> bool:
        log = celery_worker_process.log_text()
        return "games.record_worker_probe[" in log and "succeeded" in log

    wait_for(logged, 10, "the worker to log the task", celery_worker_process)


def test_health_reports_a_reachable_broker(client: Client) -> None:
    body = client.get("/api/v1/health/").json()
    assert body["checks"]["broker"]["status"] == "ok"
    assert body["status"] == "ok"
