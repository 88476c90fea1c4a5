"""Turn timers with Redis and real Celery processes (PostgreSQL test database).

- the ETA task sent at the start fires on the project's worker at the deadline;
- with a tiny visibility timeout the waiting ETA message is redelivered and runs several
  times, and the expiry still applies once;
- a worker killed while holding the ETA message: once a worker is back, beat's sweep applies
  the overdue expiry within one sweep interval.

The last two start their own worker (and beat) processes on a queue of their own
(``TASK_QUEUE_INTERACTIVE``), so the session's worker never takes their messages.
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
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.utils import timezone

from canasta_service.celery import app as celery_app
from games.engine.history import TIMER_FACTS
from games.models import Game, GameEvent
from games.services.deadlines import grace
from games.services.timers import timer_off_accept, timer_off_propose
from tests.conftest import ROOT, WorkerProcess, worker_environment
from tests.games.services.timers.conftest import Table, assert_log_consistent, timed_table, timeouts

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

SWEEP_SECONDS = 1


def wait_for(
    condition: Callable[[], Any], seconds: float, what: str, log: Callable[[], str]
) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}; log:\n{log()[-6000:]}")
        time.sleep(0.1)


def stop_timer(table: Table) -> None:
    """Both players agree to turn the timer off (so nothing keeps firing after the test)."""
    timer_off_propose(game_id=table.game_id, player=table.players[0])
    timer_off_accept(game_id=table.game_id, player=table.players[1])


def test_the_eta_task_expires_the_turn_on_a_real_worker(
    celery_worker_process: WorkerProcess,
) -> None:
    assert not celery_app.conf.task_always_eager
    untimed = timed_table(turn_seconds=None)
    table = timed_table(turn_seconds=2, timeout_limit=0)
    game = table.game()
    assert game.turn_deadline is not None
    due = game.turn_deadline + grace()
    [timeout] = wait_for(
        lambda: timeouts(table.game_id), 30, "the timer task", celery_worker_process.log_text
    )
    stop_timer(table)
    assert timeout.payload["via"] == "task" and timeout.seq == game.version + 1
    assert timeout.created_at >= due
    assert len(timeouts(table.game_id)) == 1
    assert_log_consistent(table.game_id)
    # the table without a timer, started first: nothing fired for it
    assert untimed.game().version == 1 and untimed.game().turn_deadline is None
    assert not GameEvent.objects.filter(game_id=untimed.game_id, type__in=TIMER_FACTS).exists()


# ============================================================================== own processes
@dataclass
class CeleryProcess:
    process: subprocess.Popen[bytes]
    log_path: Path
    hostname: str

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL, as a crash or an OOM kill would: no warm shutdown, nothing acknowledged."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()


@dataclass
class Celery:
    queue: str
    env: dict[str, str]
    tmp: Path
    started: list[CeleryProcess]

    def start(self, kind: str, name: str, **extra_env: str) -> CeleryProcess:
        hostname = f"{name}-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
        log_path = self.tmp / f"{name}.log"
        if kind == "worker":
            args = [
                "worker",
                "--pool=solo",
                "--loglevel=INFO",
                f"--hostname={hostname}",
                f"--queues={self.queue}",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
            ]
        else:
            args = ["beat", "--loglevel=INFO", f"--schedule={self.tmp / 'beat-schedule'}"]
        with log_path.open("ab") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "tests.games.services.timers.celery_main", *args],
                cwd=ROOT,
                env={**self.env, **extra_env},
                stdout=log,
                stderr=subprocess.STDOUT,
            )  # in pytest's process group: a CI run that stops pytest stops these too
        proc = CeleryProcess(process, log_path, hostname)
        self.started.append(proc)
        if kind == "worker":
            wait_for(
                lambda: (
                    proc.process.poll() is not None
                    or celery_app.control.ping(destination=[hostname], timeout=0.5)
                ),
                60,
                f"worker {hostname} to answer a ping",
                proc.log_text,
            )
            assert proc.process.poll() is None, proc.log_text()
        return proc


@pytest.fixture
def celery_processes(tmp_path: Path, settings: Any, django_db_setup: None) -> Iterator[Celery]:
    """Start workers and beat of one's own, all on a fresh queue; stopped after the test."""
    queue = f"timers-test-{uuid.uuid4().hex[:8]}"
    # The messages this process sends go there too.
    settings.TASK_QUEUES = {**settings.TASK_QUEUES, "interactive": queue}
    env = worker_environment(
        str(settings.CELERY_BROKER_URL),
        TASK_QUEUE_INTERACTIVE=queue,
        TURN_TIMER_SWEEP_SECONDS=str(SWEEP_SECONDS),
        TURN_TIMER_GRACE_MS=str(settings.TURN_TIMER_GRACE_MS),
    )
    celery = Celery(queue, env, tmp_path, [])
    try:
        yield celery
    finally:
        for proc in reversed(celery.started):
            proc.stop()
        log_dir = Path(os.environ.get("CELERY_WORKER_LOG", ROOT / ".ci/logs/worker.log")).parent
        for proc in celery.started:  # kept next to the CI worker log for the record
            target = log_dir / f"timers-{proc.log_path.name}"
            target.write_text(proc.log_text())


def _task_runs(log: str) -> dict[str, list[str]]:
    """Each turn_timer_expire task id with the results its runs logged."""
    runs: dict[str, list[str]] = {}
    pattern = r"Task games\.turn_timer_expire\[([0-9a-f-]+)\] succeeded in [0-9.e-]+s: (\w+)"
    for task_id, value in re.findall(pattern, log):
        runs.setdefault(task_id, []).append(value)
    return runs


def test_a_redelivered_eta_message_still_expires_once(celery_processes: Celery) -> None:
    worker = celery_processes.start("worker", "tiny-visibility", TIMER_TEST_VISIBILITY_TIMEOUT="1")
    table = timed_table(turn_seconds=4, timeout_limit=0)
    version = table.game().version
    wait_for(lambda: timeouts(table.game_id), 30, "the expiry", worker.log_text)
    stop_timer(table)  # no further deadlines
    time.sleep(2.5)  # copies still held are redelivered and run (late: they find nothing)

    [timeout] = timeouts(table.game_id)
    assert timeout.seq == version + 1 and timeout.payload["via"] == "task"
    runs = _task_runs(worker.log_text())
    first = [values for values in runs.values() if "True" in values]
    assert len(first) == 1, runs
    assert len(first[0]) >= 2, f"the ETA message was not redelivered: {runs}"
    assert first[0].count("True") == 1, runs
    assert_log_consistent(table.game_id)


def test_a_killed_worker_is_covered_by_the_sweep_once_a_worker_is_back(
    celery_processes: Celery,
) -> None:
    worker = celery_processes.start("worker", "doomed")
    celery_processes.start("beat", "beat")
    table = timed_table(turn_seconds=3, timeout_limit=0)
    game = table.game()
    assert game.turn_deadline is not None
    # the worker has taken the ETA message (reserved, unacknowledged, waiting for its time)
    wait_for(
        lambda: "games.turn_timer_expire[" in worker.log_text(),
        20,
        "the worker to receive the ETA task",
        worker.log_text,
    )
    worker.kill()
    due = game.turn_deadline + grace()
    while timezone.now() < due + timedelta(seconds=1.5):
        time.sleep(0.1)
    assert timeouts(table.game_id) == [], "nothing can expire with no worker"
    assert Game.objects.get(pk=table.game_id).version == game.version

    back = celery_processes.start("worker", "restarted")
    ready = time.monotonic()
    [timeout] = wait_for(
        lambda: timeouts(table.game_id), 30, "the sweep after the restart", back.log_text
    )
    took = time.monotonic() - ready
    stop_timer(table)
    assert timeout.payload["via"] == "sweep", timeout.payload
    assert took <= SWEEP_SECONDS + 2, f"applied {took:.1f} s after the worker was back"
    assert GameEvent.objects.filter(game_id=table.game_id, type="turn_timed_out").count() == 1
    assert_log_consistent(table.game_id)
