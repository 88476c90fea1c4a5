"""Redis stopped and started again while a turn timer's ETA task waits, unacknowledged, in the
worker: the worker survives, reconnects and consumes, and the turn expires exactly once.

A worker as docker-compose.yml runs it (prefork) and beat (sweeping every second) use a
redis-server of the test's own, and the test process sends its tasks there too. Two cases:

- Redis comes back empty: the ETA message went with it; beat's sweep applies the expiry;
- Redis comes back with its data (append-only file, as in docker-compose.yml): the message the
  worker held unacknowledged is still in Redis's unacknowledged set and is delivered again once
  its visibility timeout passes (shortened here to one second; an hour in production). That
  copy, arriving after the expiry was applied, does nothing.

Before the fix (canasta_service/celery.py, ``Consumer``) the worker exited at the restart with
``Unrecoverable error: AttributeError("'NoneType' object has no attribute 'hostname'")``.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from canasta_service.celery import app as celery_app
from games.models import WorkerProbe
from games.services.timers import timer_off_accept, timer_off_propose
from tests.conftest import ROOT, in_ci, process_stop, worker_environment
from tests.games.services.timers.conftest import Table, assert_log_consistent, timed_table, timeouts
from tests.project.redis_server import RedisServer

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

TURN_SECONDS = 5  # the deadline falls after Redis is back


@dataclass
class CeleryProcess:
    process: subprocess.Popen[bytes]
    log_path: Path
    hostname: str

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")


@dataclass
class Stack:
    redis: RedisServer
    worker: CeleryProcess
    beat: CeleryProcess

    def logs(self) -> str:
        return "\n".join(
            f"--- {name} ---\n{proc.log_text()[-8000:]}"
            for name, proc in (("worker", self.worker), ("beat", self.beat))
        )


def wait_for(condition: Callable[[], Any], seconds: float, what: str, stack: Stack) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if stack.worker.process.poll() is not None:
            pytest.fail(f"the worker exited waiting for {what}:\n{stack.logs()}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}:\n{stack.logs()}")
        time.sleep(0.1)


def answers_ping(hostname: str) -> bool:
    try:
        return bool(celery_app.control.ping(destination=[hostname], timeout=0.5))
    except Exception:  # the test process's own connection to the restarted Redis
        return False


def use_broker(url: str) -> None:
    """Send this process's tasks to ``url`` (drop the cached producer pool, as after a fork)."""
    celery_app.conf.update(broker_url=url)
    celery_app._after_fork()  # type: ignore[attr-defined]


def stop_timer(table: Table) -> None:
    timer_off_propose(game_id=table.game_id, player=table.players[0])
    timer_off_accept(game_id=table.game_id, player=table.players[1])


@pytest.fixture(params=["empty", "persistent"])
def stack(request: pytest.FixtureRequest, tmp_path: Path, django_db_setup: None) -> Iterator[Stack]:
    """Own Redis (empty or persistent after a restart), a worker and beat on it, and this
    process sending there; all stopped after the test, their logs kept in .ci/logs."""
    if shutil.which("redis-server") is None:
        if in_ci():
            pytest.fail("redis-server is needed (CI=true)")
        pytest.skip("redis-server is not installed")
    persistent = request.param == "persistent"
    redis = RedisServer(tmp_path if persistent else None)
    redis.start()
    saved_broker = celery_app.conf.broker_url
    use_broker(redis.url)
    env = worker_environment(redis.url, REDIS_URL=redis.url, TURN_TIMER_SWEEP_SECONDS="1")
    if persistent:  # a message left unacknowledged comes back after a second, not an hour
        env["TIMER_TEST_VISIBILITY_TIMEOUT"] = "1"
    started: list[CeleryProcess] = []

    def start(kind: str, *args: str) -> CeleryProcess:
        hostname = f"{kind}-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
        if kind == "worker":
            args = (*args, f"--hostname={hostname}")
        log_path = tmp_path / f"{kind}.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "tests.games.services.timers.celery_main", kind, *args],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )  # in pytest's process group: a CI run that stops pytest stops these too
        started.append(CeleryProcess(process, log_path, hostname))
        return started[-1]

    try:
        worker = start(
            "worker",
            "--pool=prefork",  # as docker-compose.yml runs it
            "--concurrency=1",
            "--loglevel=INFO",
            "--without-gossip",
            "--without-mingle",
        )
        beat = start("beat", "--loglevel=INFO", f"--schedule={tmp_path / 'beat-schedule'}")
        built = Stack(redis, worker, beat)
        wait_for(lambda: answers_ping(worker.hostname), 60, "the worker to start", built)
        yield built
    finally:
        for proc in reversed(started):
            process_stop(proc.process)
        redis.stop()
        use_broker(saved_broker)
        log_dir = ROOT / ".ci" / "logs"
        log_dir.mkdir(parents=True, exist_ok=True)
        for proc in started:  # kept next to the CI worker log for the record
            target = log_dir / f"redis-restart-{request.param}-{proc.log_path.name}"
            target.write_text(proc.log_text())


def _expiry_runs(log: str) -> list[str]:
    """The results logged by the runs of turn_timer_expire ("True": it applied the expiry)."""
    pattern = r"Task games\.turn_timer_expire\[[0-9a-f-]+\] succeeded in [0-9.e-]+s: (\w+)"
    return re.findall(pattern, log)


def test_redis_restarted_while_a_timer_waits_in_the_worker(stack: Stack) -> None:
    worker = stack.worker
    table = timed_table(turn_seconds=TURN_SECONDS, timeout_limit=0)
    version = table.game().version
    # The worker has taken the ETA message: reserved until the deadline, not acknowledged.
    held = wait_for(
        lambda: re.search(r"games\.turn_timer_expire\[([0-9a-f-]+)\] received", worker.log_text()),
        20,
        "the worker to receive the timer's ETA task",
        stack,
    ).group(1)
    assert timeouts(table.game_id) == []

    stack.redis.stop()
    wait_for(
        lambda: "Connection to broker lost" in worker.log_text(),
        20,
        "the worker to notice that Redis is gone",
        stack,
    )
    time.sleep(0.5)
    restarted_at = len(worker.log_text())
    stack.redis.start()  # same port; empty, or with its data
    wait_for(lambda: answers_ping(worker.hostname), 60, "the worker to reconnect", stack)

    [timeout] = wait_for(lambda: timeouts(table.game_id), 30, "the turn to expire", stack)
    stop_timer(table)  # no further deadlines
    assert timeout.seq == version + 1
    held_again = f"games.turn_timer_expire[{held}] received"
    if stack.redis.data_dir is None:
        assert timeout.payload["via"] == "sweep", timeout.payload
        assert held_again not in worker.log_text()[restarted_at:]
    else:  # the held message came back from Redis (whichever of it and the sweep came first)
        wait_for(
            lambda: held_again in worker.log_text()[restarted_at:],
            20,
            "the unacknowledged message to be delivered again",
            stack,
        )
    # Still consuming: a task sent now is run.
    token = f"redis-restart-{uuid.uuid4().hex}"
    celery_app.send_task("games.record_worker_probe", (token,))
    wait_for(lambda: WorkerProbe.objects.filter(token=token).exists(), 30, "a task after", stack)
    time.sleep(2)  # late copies and sweeps have had their chance

    assert worker.process.poll() is None, stack.logs()
    assert stack.beat.process.poll() is None, stack.logs()
    assert "Unrecoverable error" not in worker.log_text(), stack.logs()
    assert len(timeouts(table.game_id)) == 1
    assert _expiry_runs(worker.log_text()).count("True") <= 1, stack.logs()
    assert_log_consistent(table.game_id)
