"""Faults: the database connection dropped mid-request, a worker killed mid-task, Redis
restarted. In each case no event is lost or doubled and the game goes on (bot turns recovered).

The worker tests run their own Celery worker (``tests/hardening/fault_worker.py``, prefork, one
child) against their own temporary ``redis-server`` on a free port, so that killing either
touches nothing else; the test process sends its tasks there too. They need PostgreSQL (the
worker must see the test database) and ``redis-server``.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.db import connection
from rest_framework.test import APIClient

from bots.tasks import bot_turns_sweep
from canasta_service.celery import app as celery_app
from games.models import Game, GameEvent
from games.selectors.games import game_replay_state
from tests.conftest import ROOT, database_url, in_ci, process_stop, worker_environment
from tests.games.api.conftest import PlayerClient, choose, create_game, snapshot_of
from tests.hardening.helpers import footprint, started_game

# ============================================================================== helpers


def _log_whole(game_id: int) -> None:
    """Every seq from 1 to the version exactly once, and the log replays to the snapshot."""
    game = Game.objects.get(pk=game_id)
    seqs = sorted(GameEvent.objects.filter(game_id=game_id).values_list("seq", flat=True))
    assert seqs == list(range(1, game.version + 1))
    assert game_replay_state(game) == snapshot_of(game)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Redis:
    """A throwaway redis-server on a free port (nothing kept on disk)."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is needed"
        self.process = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


class Worker:
    def __init__(self, redis: Redis, fault_dir: Path, log: Path) -> None:
        self.hostname = f"fault-{uuid.uuid4().hex[:8]}@{socket.gethostname()}"
        env = worker_environment(redis.url, REDIS_URL=redis.url, FAULT_DIR=str(fault_dir))
        command = [
            sys.executable, "-m", "tests.hardening.fault_worker", "worker", "--pool=prefork",
            "--concurrency=1", "--loglevel=INFO", f"--hostname={self.hostname}",
            "--without-gossip", "--without-mingle",
        ]  # fmt: skip
        with log.open("ab") as out:
            # A session of its own: killing its process group kills the worker and its children.
            self.process = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + 60
        while not celery_app.control.ping(destination=[self.hostname], timeout=0.5):
            assert self.process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()

    def stop(self) -> None:
        process_stop(self.process)


def _use_broker(url: str | None) -> None:
    """Send this process's tasks to ``url`` (drop the cached producer pool, as after a fork)."""
    celery_app.conf.update(broker_url=url)
    celery_app._after_fork()  # type: ignore[attr-defined]


@pytest.fixture
def faults(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """Own Redis, the test process sending to it (not eager), and a way to start workers."""
    if shutil.which("redis-server") is None:
        if in_ci():
            pytest.fail("redis-server is needed (CI=true)")
        pytest.skip("redis-server is not installed")
    redis = Redis()
    redis.start()
    saved = (celery_app.conf.broker_url, celery_app.conf.task_always_eager)
    _use_broker(redis.url)
    celery_app.conf.task_always_eager = False
    workers: list[Worker] = []
    log = Path(os.environ.get("CELERY_WORKER_LOG") or ROOT / ".ci/logs/worker.log")
    log = log.with_name("fault-worker.log")
    log.parent.mkdir(parents=True, exist_ok=True)

    def start_worker() -> Worker:
        worker = Worker(redis, tmp_path, log)
        workers.append(worker)
        return worker

    try:
        yield {"redis": redis, "dir": tmp_path, "start_worker": start_worker}
    finally:
        for worker in workers:
            worker.stop()
        redis.kill()
        _use_broker(saved[0])
        celery_app.conf.task_always_eager = saved[1]


def _bot_game(make_player: Callable[..., PlayerClient]) -> tuple[int, PlayerClient]:
    human = make_player("Ada")
    game_id = create_game(human, preset="two_player", bots=[{"seat": 1, "level": "easy"}])["id"]
    response = human.post(f"/api/v1/games/{game_id}/start/", {}, format="json")
    assert response.status_code == 200, response.content
    return game_id, human


def _hand_to_bot(game_id: int, human: PlayerClient) -> int:
    """The human plays until the bot is to act; the version the bot must answer."""
    for _ in range(50):
        view = human.game(game_id)
        if view["state"]["to_act"] != 0:
            return int(view["version"])
        response = human.act(game_id, choose(view["state"]["legal_actions"]), view["version"])
        assert response.status_code == 201, response.content
    raise AssertionError("the turn never passed to the bot")


def _bot_turn_in_flight(
    make_player: Callable[..., PlayerClient], faults: dict[str, Any]
) -> tuple[int, PlayerClient, int, Path]:
    """A game against a bot whose turn is being computed (slowly) by the worker now."""
    game_id, human = _bot_game(make_player)
    (faults["dir"] / "slow").touch()
    version = _hand_to_bot(game_id, human)
    return game_id, human, version, _wait_file("running-*", faults["dir"])


def _wait_bot(game_id: int, version: int, timeout: float = 60) -> Game:
    deadline = time.monotonic() + timeout
    while True:
        game = Game.objects.get(pk=game_id)
        if game.version > version and (game.to_act == 0 or game.status != "active"):
            return game
        assert time.monotonic() < deadline, f"the bot did not play (version {game.version})"
        time.sleep(0.05)


def _wait_file(pattern: str, where: Path, timeout: float = 30) -> Path:
    deadline = time.monotonic() + timeout
    while not (found := sorted(where.glob(pattern))):
        assert time.monotonic() < deadline, f"no {pattern} in {where}"
        time.sleep(0.02)
    return found[0]


def _bot_events_after(game_id: int, version: int) -> list[int]:
    return list(
        GameEvent.objects.filter(game_id=game_id, seq__gt=version, source="bot")
        .order_by("seq")
        .values_list("seq", flat=True)
    )


# ============================================================================== database


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_connection_dropped_mid_request_answers_503_and_a_retry_applies_once(
    make_player: Callable[..., PlayerClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's database session is terminated (pg_terminate_backend) after the event row
    was inserted, before the commit: the request answers 503 database_unavailable with
    Retry-After, nothing of it stays, and the client's retry with the same Idempotency-Key
    applies the move exactly once."""
    from games.services import moves

    game_id, (ada, _) = started_game(make_player)
    before = footprint(game_id)
    original = moves.projections_write
    url = database_url(connection.settings_dict)

    def dropped(game: Game, state: Any) -> None:
        pid = connection.connection.info.backend_pid
        with psycopg.connect(url.replace("postgres://", "postgresql://"), autocommit=True) as c:
            c.execute("SELECT pg_terminate_backend(%s)", [pid])
        original(game, state)

    monkeypatch.setattr(moves, "projections_write", dropped)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {ada.token}")
    key = {"Idempotency-Key": "drop-1"}
    response = client.post(
        f"/api/v1/games/{game_id}/actions/",
        {"action": {"type": "draw"}, "expected_version": before[0]},
        format="json",
        headers=key,
    )
    # Not a bug in the request: 503, safe to retry, after the time Retry-After says.
    assert response.status_code == 503, response.content
    assert response["Content-Type"].startswith("application/problem+json")
    assert response.json()["code"] == "database_unavailable"
    assert response["Retry-After"] == str(response.json()["retry_after"]) == "2"
    assert "pg_terminate" not in response.content.decode()
    connection.close()
    assert footprint(game_id) == before  # rolled back: no event, no new snapshot

    monkeypatch.setattr(moves, "projections_write", original)
    retry = ada.act(game_id, {"type": "draw"}, before[0], **key)
    assert retry.status_code == 201, retry.content
    again = ada.act(game_id, {"type": "draw"}, before[0], **key)
    assert again.json() == retry.json() and again["Idempotent-Replayed"] == "true"
    assert footprint(game_id)[:2] == (before[0] + 1, before[1] + 1)
    _log_whole(game_id)


# ============================================================================== worker, Redis


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_child_killed_mid_task_is_retried_and_the_bot_moves_once(
    make_player: Callable[..., PlayerClient], faults: dict[str, Any]
) -> None:
    faults["start_worker"]()
    game_id, human, version, running = _bot_turn_in_flight(make_player, faults)
    os.kill(int(running.name.split("-")[1]), signal.SIGKILL)  # the pool child, mid-task
    running.unlink()
    (faults["dir"] / "slow").unlink()
    # acks_late + reject_on_worker_lost: the message goes back to the queue and is run again.
    game = _wait_bot(game_id, version)
    assert _bot_events_after(game_id, version)[0] == version + 1
    assert game.version == len(GameEvent.objects.filter(game_id=game_id))
    _log_whole(game_id)
    # The game goes on.
    version = _hand_to_bot(game_id, human)
    _wait_bot(game_id, version)
    _log_whole(game_id)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_outright_mid_task_is_recovered_by_the_sweep(
    make_player: Callable[..., PlayerClient], faults: dict[str, Any]
) -> None:
    """SIGKILL to the whole worker: its unacknowledged message would come back only after the
    visibility timeout (an hour); the bot turn sweep sends the turn again to a new worker."""
    first = faults["start_worker"]()
    game_id, human, version, _ = _bot_turn_in_flight(make_player, faults)
    os.killpg(first.process.pid, signal.SIGKILL)  # the worker and its child, mid-task
    first.process.wait(timeout=10)
    (faults["dir"] / "slow").unlink()
    assert Game.objects.get(pk=game_id).version == version  # the turn is stuck
    faults["start_worker"]()
    assert bot_turns_sweep(stall_seconds=0) == 1
    game = _wait_bot(game_id, version)
    assert _bot_events_after(game_id, version)[0] == version + 1
    assert bot_turns_sweep(stall_seconds=0) == 0 or game.to_act != 1
    _log_whole(game_id)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_redis_restarted_loses_no_move_and_the_bot_turn_is_recovered(
    make_player: Callable[..., PlayerClient], faults: dict[str, Any]
) -> None:
    """Redis goes down: a human move still commits and answers 201 (sending the bot's turn
    fails, logged); Redis comes back (empty: nothing was kept), the worker reconnects, and the
    sweep sends the waiting bot turn: the bot moves once and the game goes on."""
    faults["start_worker"]()
    game_id, human = _bot_game(make_player)
    # One normal exchange first.
    _wait_bot(game_id, _hand_to_bot(game_id, human))
    faults["redis"].kill()
    version = _hand_to_bot(game_id, human)  # the move that hands the turn to the bot: 201
    assert Game.objects.get(pk=game_id).to_act == 1
    faults["redis"].start()  # same port, empty
    deadline = time.monotonic() + 60
    while not celery_app.control.ping(timeout=0.5):
        assert time.monotonic() < deadline, "the worker did not reconnect"
    assert bot_turns_sweep(stall_seconds=0) == 1
    _wait_bot(game_id, version)
    assert _bot_events_after(game_id, version)[0] == version + 1
    _wait_bot(game_id, _hand_to_bot(game_id, human))
    _log_whole(game_id)
