"""The task policy of canasta_service/celery.py, checked by what it does on a real worker.

A Celery worker process (prefork, one child, as many as the policy lets it take at once) runs
the project's app with its policy as configured; only the broker is swapped for kombu's
filesystem transport in a temporary folder, so no Redis is needed and a queued message is a file
one can count. Probe tasks, defined by the worker script below, stand in for the real ones:

- ``task_acks_late`` + ``task_reject_on_worker_lost``: a task whose worker process dies in the
  middle is delivered again and runs to its end (acknowledged at receipt, it would be lost);
- ``worker_prefetch_multiplier = 1``: while a task runs, the next messages stay on the broker
  (another worker could take them) instead of being held by the busy one;
- ``task_serializer = "json"`` and ``accept_content = ["json"]``: a sender cannot put anything
  but JSON on the broker, and a worker refuses to decode a pickled message.

(The time limits, 30 s soft and 60 s hard, are not waited for here.)
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from kombu import Connection
from kombu.exceptions import EncodeError

from canasta_service.celery import app

ROOT = Path(__file__).resolve().parents[2]
POLL = 0.1  # seconds between two looks at the queue folder (worker and sender)

WORKER_SCRIPT = """
import os, signal, sys, time
from pathlib import Path

from canasta_service.celery import app

folder = Path(sys.argv[1])
app.conf.update(
    broker_url="filesystem://",
    broker_transport_options={
        "data_folder_in": str(folder / "queue"),
        "data_folder_out": str(folder / "queue"),
        "control_folder": str(folder / "control"),
        "polling_interval": float(sys.argv[2]),
    },
    worker_enable_remote_control=False,
    # How long the pool waits for a dead child's result before it declares it lost (10 s).
    worker_lost_wait=1.0,
)


def note(name, text):
    with (folder / f"{name}.runs").open("a") as out:
        out.write(f"{text}\\n")


@app.task(name="policy_probe.die_once")
def die_once(name):
    note(name, os.getpid())
    if not (folder / f"{name}.died").exists():
        (folder / f"{name}.died").touch()
        os.kill(os.getpid(), signal.SIGKILL)  # the process dies mid-task, as in an OOM kill
    note(name, "done")


@app.task(name="policy_probe.hold")
def hold(name):
    note(name, "started")
    deadline = time.monotonic() + 60
    while not (folder / f"{name}.release").exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    note(name, "done")


@app.task(name="policy_probe.record")
def record(name, value):
    note(name, repr(value))


app.worker_main([
    "worker", "--pool=prefork", "--concurrency=1", "--loglevel=INFO",
    "--without-gossip", "--without-mingle", "--without-heartbeat",
    "--hostname=policy-probe@%h",
])
"""


@dataclass
class PolicyWorker:
    folder: Path
    process: subprocess.Popen[bytes]
    send: Callable[..., None]

    def log(self) -> str:
        return (self.folder / "worker.log").read_text(errors="replace")

    def runs(self, name: str) -> list[str]:
        path = self.folder / f"{name}.runs"
        return path.read_text().split() if path.exists() else []

    def queued(self) -> int:
        """Messages on the broker, not taken by any worker."""
        return len(list((self.folder / "queue").glob("*.msg")))

    def wait_for(self, what: str, condition: Callable[[], bool], seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while not condition():
            if self.process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"timed out waiting for {what}; worker log:\n{self.log()[-6000:]}")
            time.sleep(0.02)


@pytest.fixture(scope="module")
def policy_worker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PolicyWorker]:
    folder = tmp_path_factory.mktemp("celery-policy")
    (folder / "queue").mkdir()
    (folder / "control").mkdir()
    options = {
        "data_folder_in": str(folder / "queue"),
        "data_folder_out": str(folder / "queue"),
        "control_folder": str(folder / "control"),
        "polling_interval": POLL,
    }
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "canasta_service.test_settings",
        "PYTHONUNBUFFERED": "1",
    }
    with (folder / "worker.log").open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-c", WORKER_SCRIPT, str(folder), str(POLL)],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    connection = Connection("filesystem://", transport_options=options)

    def send(name: str, *args: Any, **options: Any) -> None:
        """Send probe task ``name`` through the project's app (its serializer, its routing)."""
        saved = app.conf.task_always_eager
        app.conf.task_always_eager = False  # send_task sends in any case; no warning about it
        try:
            app.send_task(f"policy_probe.{name}", args=args, connection=connection, **options)
        finally:
            app.conf.task_always_eager = saved

    worker = PolicyWorker(folder, process, send)
    try:
        worker.send("record", "ready", 1)
        worker.wait_for("the worker to start", lambda: worker.runs("ready") == ["1"])
        yield worker
    finally:
        connection.release()
        if process.poll() is None:  # a cold shutdown: nothing is left to finish
            os.killpg(process.pid, signal.SIGQUIT)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


def test_a_task_whose_worker_process_dies_runs_again(policy_worker: PolicyWorker) -> None:
    policy_worker.send("die_once", "dying")
    policy_worker.wait_for("the task to run again", lambda: "done" in policy_worker.runs("dying"))
    first, second, done = policy_worker.runs("dying")
    assert first != second, "the second run is in the new child process"
    assert done == "done"
    assert "WorkerLostError" in policy_worker.log()
    assert policy_worker.queued() == 0


def test_a_busy_worker_leaves_the_next_messages_on_the_broker(
    policy_worker: PolicyWorker,
) -> None:
    policy_worker.send("hold", "busy")
    policy_worker.wait_for("the long task to start", lambda: policy_worker.runs("busy") != [])
    policy_worker.send("record", "next", 1)
    policy_worker.send("record", "next", 2)
    # The worker looks at the queue every POLL seconds: give it many chances to take them.
    time.sleep(POLL * 15)
    assert policy_worker.queued() == 2, "the busy worker took messages it cannot run yet"
    assert policy_worker.runs("next") == []
    (policy_worker.folder / "busy.release").touch()
    policy_worker.wait_for("the next tasks", lambda: len(policy_worker.runs("next")) == 2)
    assert sorted(policy_worker.runs("next")) == ["1", "2"]
    assert policy_worker.runs("busy") == ["started", "done"]


def test_only_json_reaches_the_broker_and_a_worker_refuses_anything_else(
    policy_worker: PolicyWorker,
) -> None:
    with pytest.raises(EncodeError):
        policy_worker.send("record", "object", object())  # not JSON: refused by the sender
    assert policy_worker.queued() == 0
    policy_worker.send("record", "pickled", 1, serializer="pickle")
    policy_worker.send("record", "after", 2)
    policy_worker.wait_for("the JSON task", lambda: policy_worker.runs("after") == ["2"])
    policy_worker.wait_for("the pickled message to be refused", lambda: policy_worker.queued() == 0)
    assert policy_worker.runs("pickled") == [], "a pickled message was decoded and run"
    # the worker logs the refusal after dropping the message: wait for the line, not the queue
    policy_worker.wait_for(
        "the refusal to be logged",
        lambda: "Refusing to deserialize untrusted content of type pickle" in policy_worker.log(),
    )


def test_redis_hands_a_message_to_another_worker_only_after_a_task_could_have_ended() -> None:
    """With Redis, an unacknowledged message goes to another worker after the visibility
    timeout: it must outlast the hard time limit, or a running task would be run twice."""
    visibility = app.conf.broker_transport_options["visibility_timeout"]
    assert visibility > app.conf.task_time_limit > app.conf.task_soft_time_limit


def test_tasks_are_discovered() -> None:
    app.loader.import_default_modules()
    assert "games.record_worker_probe" in app.tasks
