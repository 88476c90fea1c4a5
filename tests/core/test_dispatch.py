"""core.dispatch: the one place that decides "broker or in-process" for the tasks the services
send, and the two ways of running work in this process without a broker."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from celery import current_app, shared_task
from django.utils import timezone

from core import dispatch

ran: list[tuple[str, Any]] = []
ran_lock = threading.Lock()
ran_event = threading.Event()


@shared_task(name="tests.dispatch_probe")
def dispatch_probe(value: int) -> int:
    with ran_lock:
        ran.append((threading.current_thread().name, value))
    ran_event.set()
    return value


@pytest.fixture
def eager(request: pytest.FixtureRequest) -> Iterator[bool]:
    """Eager or not, as the test's parameter says (restored afterwards)."""
    saved = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = request.param
    ran.clear()
    ran_event.clear()
    try:
        yield request.param
    finally:
        current_app.conf.task_always_eager = saved


@pytest.mark.parametrize("eager", [True, False], indirect=True)
def test_is_eager_is_celerys_setting_of_the_projects_app(eager: bool) -> None:
    from canasta_service.celery import app

    assert current_app.main == app.main
    assert dispatch.is_eager() is eager


@pytest.mark.parametrize("eager", [False], indirect=True)
def test_with_a_broker_a_task_is_sent_by_name_with_its_options(
    eager: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent: list[tuple[str, Any, dict[str, Any]]] = []
    monkeypatch.setattr(
        current_app, "send_task", lambda name, args=None, **kw: sent.append((name, args, kw))
    )
    at = timezone.now() + timedelta(minutes=5)
    dispatch.send("tests.dispatch_probe", 1)
    dispatch.send("tests.dispatch_probe", 2, countdown=30, queue="slow")
    dispatch.send("tests.dispatch_probe", 3, countdown=0, queue="")
    dispatch.send("tests.dispatch_probe", 4, eta=at, queue=None)
    assert sent == [
        ("tests.dispatch_probe", (1,), {}),
        ("tests.dispatch_probe", (2,), {"countdown": 30, "queue": "slow"}),
        ("tests.dispatch_probe", (3,), {}),
        ("tests.dispatch_probe", (4,), {"eta": at}),
    ]
    assert ran == []


@pytest.mark.parametrize("eager", [True], indirect=True)
def test_without_a_broker_a_task_runs_here_now_or_in_a_thread_when_due(eager: bool) -> None:
    dispatch.send("tests.dispatch_probe", 1, queue="slow")
    assert ran == [(threading.current_thread().name, 1)]
    ran_event.clear()
    started = time.monotonic()
    dispatch.send("tests.dispatch_probe", 2, countdown=0.2)
    assert ran_event.wait(10)
    assert time.monotonic() - started >= 0.2
    assert ran[-1][1] == 2 and ran[-1][0] != threading.current_thread().name
    ran_event.clear()
    dispatch.send("tests.dispatch_probe", 3, eta=timezone.now() - timedelta(seconds=1))
    assert ran_event.wait(10)  # an ETA already past: in a thread, at once
    assert ran[-1][1] == 3 and ran[-1][0] != threading.current_thread().name


@pytest.mark.parametrize("eager", [True], indirect=True)
def test_without_a_broker_what_the_task_raises_propagates(eager: bool) -> None:
    with pytest.raises(KeyError):
        dispatch.send("tests.no_such_task")


def test_calls_that_would_nest_run_in_line_at_constant_depth() -> None:
    line = dispatch.InThreadQueue()
    order: list[tuple[int, int, bool]] = []

    def step(n: int) -> None:
        order.append((n, len(_stack()), line.busy))
        if n < 50:
            line.run(step, n + 1)  # a call sending the next: it waits in line

    assert not line.busy
    line.run(step, 0)
    assert [n for n, _, _ in order] == list(range(51))
    assert len({depth for _, depth, _ in order}) == 1  # no nesting
    assert all(busy for _, _, busy in order)
    assert not line.busy

    def fail(n: int) -> None:
        line.run(order.append, (n, 0, False))  # waiting: dropped when the run ends in error
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        line.run(fail, 1)
    assert not line.busy and len(order) == 51


def _stack() -> list[Any]:
    import inspect

    return inspect.stack(0)


def test_the_in_process_worker_handles_items_in_order_and_tries_failures_again() -> None:
    handled: list[int] = []
    tries: dict[int, int] = {}
    done = threading.Event()

    def handle(item: int) -> None:
        tries[item] = tries.get(item, 0) + 1
        if item == 2 and tries[item] < 3:
            raise RuntimeError("not yet")
        if item == 3:
            raise RuntimeError("never")
        handled.append(item)
        if len(handled) == 3:
            done.set()

    worker: dispatch.InProcessWorker[int] = dispatch.InProcessWorker(
        "test-worker", handle, retries=2, retry_delay=lambda n: 0.01 * n
    )
    worker.put([1, 2, 3])
    worker.put([4], countdown=0.05)
    assert done.wait(10)
    time.sleep(0.2)  # item 3's last retry
    assert handled == [1, 4, 2] or handled == [1, 2, 4]
    assert tries[2] == 3 and tries[3] == 3  # the first try and two retries


# ============================================================================== queues
def test_every_task_of_the_project_has_a_queue_kind() -> None:
    current_app.loader.import_default_modules()
    ours = {
        name
        for name in current_app.tasks
        if not name.startswith(("celery.", "tests.", "policy_probe."))
    }
    assert ours == set(dispatch.TASK_KINDS)
    assert set(dispatch.TASK_KINDS.values()) == set(dispatch.KINDS)


def test_the_celery_app_routes_every_message_by_its_kind(settings: Any) -> None:
    """The router Celery consults for every message (``send``, ``delay``, beat's schedule):
    reviews on the bulk queue, deliveries on theirs, everything a table waits for on the
    interactive one; a queue named with the message wins."""
    settings.TASK_QUEUES = {"interactive": "i-1", "bulk": "b-1", "deliveries": "d-1"}
    router = current_app.amqp.router

    def queue(name: str, **options: Any) -> str:
        return str(router.route(options, name, (), {}, None)["queue"].name)

    assert queue("bots.game_review_compute") == "b-1"
    assert queue("games.notification_deliver") == "d-1"
    for name in ("bots.bot_turn_play", "games.turn_timer_expire", "games.matchmaking_pair"):
        assert queue(name) == "i-1"
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert queue(entry["task"]) in {"i-1", "d-1"}
    assert queue("bots.game_review_compute", queue="elsewhere") == "elsewhere"


@pytest.mark.worker
def test_with_the_broker_each_kind_of_message_waits_on_its_own_queue(settings: Any) -> None:
    """Sent through Redis: a review's message is on the bulk list, a bot turn's on the
    interactive one, a delivery's on the deliveries one (queues of this test's own, which no
    worker consumes)."""
    from redis import Redis

    tag = uuid.uuid4().hex[:8]
    names = {kind: f"{kind}-routing-{tag}" for kind in dispatch.KINDS}
    settings.TASK_QUEUES = names
    redis = Redis.from_url(str(settings.CELERY_BROKER_URL))
    saved = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = False
    try:
        dispatch.send("bots.game_review_compute", 0)
        dispatch.send("bots.bot_turn_play", 0, 0)
        dispatch.send("games.notification_deliver", 0)
        current_app.send_task("games.turn_timers_sweep")  # as beat sends it

        def tasks_on(kind: str) -> list[str]:
            return [json.loads(m)["headers"]["task"] for m in redis.lrange(names[kind], 0, -1)]

        assert tasks_on("bulk") == ["bots.game_review_compute"]
        assert sorted(tasks_on("interactive")) == ["bots.bot_turn_play", "games.turn_timers_sweep"]
        assert tasks_on("deliveries") == ["games.notification_deliver"]
    finally:
        current_app.conf.task_always_eager = saved
        redis.delete(*names.values())
