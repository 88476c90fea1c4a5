"""Where the work the services send after a commit runs: on a worker, or in this process.

With a broker (``CELERY_BROKER_URL``) a task is a message: ``send`` sends it by name (a service
sits below the ``tasks`` module that defines it), to a queue, at once or with a countdown or an
ETA. Without one (``CELERY_TASK_ALWAYS_EAGER``: ``make run`` without Redis, the embedded
default, most tests) nothing leaves the process: ``send`` runs the task here, at once in this
thread, or, delayed, in a daemon thread once it is due. ``is_eager`` is the one test of which it
is: the services ask it, never Celery's configuration, and no app imports the project's Celery
app. The app used is Celery's current app, which is the project's once ``canasta_service``
has loaded it (Celery's Django fix-up makes it the default of every thread).

Two ways of running work in this process, for services whose eager mode is not the task run
at once:

- ``InThreadQueue``: calls that would nest (a bot's move whose commit sends the next bot's turn)
  wait in line and run one after another in the outermost call, at constant stack depth;
- ``InProcessWorker``: one daemon thread works through the items put to it, in order, and tries
  an item that failed again a few times (no sweep runs without a broker).

**Queues.** With a broker every task travels on one of three queues, chosen here and nowhere
else (``TASK_KINDS``; the project's Celery app routes by ``route``, so beat's schedule and a
task's ``delay`` go the same way as ``send``):

- ``interactive``: what a player at a table waits for: bot turns, turn timers, the sweeps that
  resend them, quick-play pairing. Short tasks (a bot thinks at most 0.45 s); its workers run
  nothing else, so no bulk work or slow receiver ever stands in front of a bot's turn;
- ``bulk``: CPU-heavy work nobody at a table waits for (post-game reviews, the bot turns of
  tables where only bots sit): its own workers,
  at a lower CPU priority, one task at a time each; the reviewer serves players in turn
  (``bots.services.reviews``), so one player's backlog waits behind itself only;
- ``deliveries``: notifications to webhooks, Web Push and e-mail: I/O-bound, on a worker of
  threads, each attempt bounded in time and each endpoint behind a circuit breaker
  (``notifications.services.delivery``).

A task not in ``TASK_KINDS`` goes to the interactive queue (Celery's default queue here). The
queue names are settings (``TASK_QUEUES``), so that a test or a second deployment sharing one
Redis can use queues of its own.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import deque
from collections.abc import Callable, Hashable, Iterable
from datetime import datetime, timedelta
from typing import Any, Generic, TypeVar

from celery import current_app
from django import db
from django.conf import settings
from django.utils import timezone

logger = logging.getLogger(__name__)

Item = TypeVar("Item", bound=Hashable)


INTERACTIVE = "interactive"
BULK = "bulk"
DELIVERIES = "deliveries"
KINDS = (INTERACTIVE, BULK, DELIVERIES)

# Every task of the project, by name, and the kind of queue it travels on.
TASK_KINDS: dict[str, str] = {
    "bots.bot_turn_play": INTERACTIVE,
    "bots.bot_turns_sweep": INTERACTIVE,
    "games.turn_timer_expire": INTERACTIVE,
    "games.turn_timers_sweep": INTERACTIVE,
    "games.matchmaking_pair": INTERACTIVE,
    "games.match_table_create": INTERACTIVE,
    # Tournaments: a round's tables are dealt on the bulk queue (a 1,000-table round must not
    # hold up moves); the advance step and the sweep are cheap.
    "competition.tournament_table_deal": BULK,
    "competition.tournament_tables_deal": BULK,
    "competition.tournament_advance": INTERACTIVE,
    "competition.tournaments_sweep": INTERACTIVE,
    "games.record_worker_probe": INTERACTIVE,
    # Cheap (it only sends the deliveries due): with the sweeps, never behind a slow receiver.
    "games.notifications_sweep": INTERACTIVE,
    "games.notification_deliver": DELIVERIES,
    "bots.game_review_compute": BULK,
    # A bot's turn at a table where only bots sit: nobody waits for it.
    "bots.unattended_bot_turn_play": BULK,
}


def queue_of(task: str) -> str:
    """The queue the task named ``task`` is sent to (``TASK_QUEUES`` names each kind's)."""
    kind = TASK_KINDS.get(task, INTERACTIVE)
    names: dict[str, str] = getattr(settings, "TASK_QUEUES", {})
    return names.get(kind, kind)


def route(
    name: str, args: Any = None, kwargs: Any = None, options: Any = None, **_: Any
) -> dict[str, str]:
    """Celery's router (``task_routes``): the queue of every message the app sends, by task
    name. A queue given with the message (``send(queue=...)``) wins."""
    return {"queue": queue_of(name)}


def is_eager() -> bool:
    """Whether tasks run in this process (no broker: ``CELERY_TASK_ALWAYS_EAGER``)."""
    return bool(current_app.conf.task_always_eager)


def send(
    task: str,
    *args: Any,
    countdown: float | None = None,
    eta: datetime | None = None,
    queue: str | None = None,
) -> None:
    """Have the task named ``task`` run with ``args``: ``countdown`` seconds from now or at
    ``eta`` (at once if neither), on ``queue`` (None or empty: its kind's, ``queue_of``).

    With a broker, the message is sent (what the broker raises propagates: the caller decides
    whether a sweep sends it again). Eager, the task runs in this process: at once in this
    thread (what it raises propagates, as from a call), or, with a countdown or an ETA, in a
    daemon thread once it is due (Celery's eager mode would run it at once).
    """
    delayed = eta is not None or (countdown is not None and countdown > 0)
    if is_eager():
        if not delayed:
            task_of(task).apply(args, throw=True)
            return
        due = eta if eta is not None else timezone.now() + timedelta(seconds=countdown or 0.0)
        _thread_at(task, args, due)
        return
    options: dict[str, Any] = {}
    if queue:
        options["queue"] = queue
    if eta is not None:
        options["eta"] = eta
    elif countdown is not None and countdown > 0:
        options["countdown"] = countdown
    current_app.send_task(task, args, **options)


def task_of(name: str) -> Any:
    """The task registered as ``name``. A process that is not a worker has imported only the
    tasks modules something imported: the others are imported as a worker does at its start
    (Celery's autodiscovery: the ``tasks`` module of every installed app)."""
    if name not in current_app.tasks:
        current_app.loader.import_default_modules()
    return current_app.tasks[name]


def _thread_at(task: str, args: tuple[Any, ...], due: datetime) -> None:
    """Eager mode: run ``task`` (looked up by name in Celery's registry) in a daemon thread of
    this process once ``due`` has passed."""

    def run() -> None:
        try:
            task_of(task).apply(args)
        except Exception:
            logger.exception("the in-process task %s%r failed", task, args)
        finally:
            db.connections.close_all()

    delay = max(0.0, (due - timezone.now()).total_seconds())
    timer = threading.Timer(delay, run)
    timer.daemon = True
    timer.start()


class InThreadQueue:
    """Eager mode: calls that would nest run one after another, at constant stack depth.

    ``run(fn, *args)`` calls ``fn(*args)`` at once, unless a ``run`` of this queue is under way
    in this thread (``fn`` was sent by the call being run): then it waits in line and runs when
    that call returns. A call that raises ends the run; those waiting are dropped.
    """

    def __init__(self) -> None:
        self._local = threading.local()

    @property
    def busy(self) -> bool:
        """Whether a run is under way in this thread (a call now would wait in line)."""
        return getattr(self._local, "line", None) is not None

    def run(self, fn: Callable[..., object], *args: Any) -> None:
        line: deque[tuple[Callable[..., object], tuple[Any, ...]]] | None = getattr(
            self._local, "line", None
        )
        if line is not None:
            line.append((fn, args))
            return
        line = self._local.line = deque([(fn, args)])
        try:
            while line:
                call, call_args = line.popleft()
                call(*call_args)
        finally:
            self._local.line = None


class InProcessWorker(Generic[Item]):
    """Eager mode: one daemon thread of this process calls ``handler(item)`` for each item put,
    in order (started, or started again, by ``put``). An item whose handler raised is put again
    ``retry_delay(tries)`` seconds later, up to ``retries`` times."""

    def __init__(
        self,
        name: str,
        handler: Callable[[Item], object],
        *,
        retries: int,
        retry_delay: Callable[[int], float],
    ) -> None:
        self.name = name
        self.handler = handler
        self.retries = retries
        self.retry_delay = retry_delay
        self._items: queue.SimpleQueue[Item] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._runner: threading.Thread | None = None

    def put(self, items: Iterable[Item], countdown: float = 0.0) -> None:
        """Have ``items`` handled, after ``countdown`` seconds."""
        with self._lock:
            if self._runner is None or not self._runner.is_alive():
                self._runner = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._runner.start()
        if countdown > 0:
            timer = threading.Timer(countdown, self._put_now, (list(items),))
            timer.daemon = True
            timer.start()
        else:
            self._put_now(items)

    def _put_now(self, items: Iterable[Item]) -> None:
        for item in items:
            self._items.put(item)

    def _run(self) -> None:
        failures: dict[Item, int] = {}
        while True:
            item = self._items.get()
            try:
                self.handler(item)
                failures.pop(item, None)
            except Exception:
                failures[item] = tries = failures.get(item, 0) + 1
                logger.exception("%s: the in-process run of %r failed (%s)", self.name, item, tries)
                if tries <= self.retries:
                    self.put([item], self.retry_delay(tries))
                else:
                    failures.pop(item, None)
            finally:
                db.connections.close_all()
