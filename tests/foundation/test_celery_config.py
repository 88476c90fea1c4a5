"""The task policy documented in canasta_service/celery.py is the one in effect."""

from canasta_service.celery import app


def test_task_policy() -> None:
    conf = app.conf
    assert conf.accept_content == ["json"]
    assert conf.task_serializer == "json"
    assert (conf.task_soft_time_limit, conf.task_time_limit) == (30, 60)
    assert conf.task_acks_late is True
    assert conf.task_reject_on_worker_lost is True
    assert conf.worker_prefetch_multiplier == 1
    assert conf.broker_transport_options["visibility_timeout"] > conf.task_time_limit


def test_tasks_are_discovered() -> None:
    app.loader.import_default_modules()
    assert "games.record_worker_probe" in app.tasks
