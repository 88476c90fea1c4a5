"""The service's Prometheus series, and the small functions the apps emit them through.

Every app reports here (``core`` is below all of them), never to ``canasta_service``; the
project's ``/metrics`` view (``canasta_service.metrics``) exposes them with the series it reads
at scrape time (queue lengths, database connections).

Labels are bounded and public: route names, error codes, presets' families, queues, task
names, channels, outcomes. Never an id, a path, an action's body or anything a card could hide
in (docs/operations.md, "Watching it").

Several processes (gunicorn's workers, Celery's pool) each count their own. With
``PROMETHEUS_MULTIPROC_DIR`` set before the process starts, prometheus-client keeps the counts
in files there and one scrape reads them all (its multiprocess mode); without it each process
serves only its own counts.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram, disable_created_metrics

# No ``*_created`` series beside each counter (as in multiprocess mode, which has none).
disable_created_metrics()

# Seconds: from a few milliseconds (a cached read) to the 30 s a task may run.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)
# Seconds a task waits in its queue: up to minutes when workers fall behind.
WAIT_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 15.0, 60.0, 300.0, 1800.0)

HTTP_REQUESTS = Counter(
    "canasta_http_requests",
    "HTTP requests answered, by route name (the URL pattern's name) and status.",
    ["route", "method", "status"],
)
HTTP_LATENCY = Histogram(
    "canasta_http_request_duration_seconds",
    "Time to answer an HTTP request (until the response starts), by route name.",
    ["route", "method"],
    buckets=LATENCY_BUCKETS,
)
MOVES_APPLIED = Counter(
    "canasta_moves_applied",
    "Moves applied (committed), by the preset's rule family and who played (player, bot, timer).",
    ["family", "source"],
)
MOVES_REFUSED = Counter(
    "canasta_moves_refused",
    "Actions refused, by error code.",
    ["code"],
)
TASKS_WAIT = Histogram(
    "canasta_task_wait_seconds",
    "Time a Celery task spent in its queue, from sent to started (or from its ETA when later).",
    ["queue", "task"],
    buckets=WAIT_BUCKETS,
)
TASKS_RUN = Histogram(
    "canasta_task_run_seconds",
    "Time a Celery task ran, by queue, task and state.",
    ["queue", "task", "state"],
    buckets=LATENCY_BUCKETS,
)
LIVE_FOLLOWERS = Gauge(
    "canasta_live_followers",
    "Open live connections in this process (socket, stream, long-poll).",
    ["transport"],
    multiprocess_mode="livesum",
)
DELIVERIES = Counter(
    "canasta_notification_deliveries",
    "Notification delivery attempts, by channel and outcome (delivered, retry, failed, ...).",
    ["channel", "outcome"],
)

# The transports of the live server.
SOCKET = "socket"
STREAM = "stream"
LONG_POLL = "long-poll"
TRANSPORTS = (SOCKET, STREAM, LONG_POLL)


def label(value: str, allowed: tuple[str, ...] | frozenset[str] | None = None) -> str:
    """A label value kept short and, given ``allowed``, one of them ("other" otherwise)."""
    if allowed is not None and value not in allowed:
        return "other"
    return value[:64]


def request_observed(route: str, method: str, status: int, seconds: float) -> None:
    HTTP_REQUESTS.labels(route, method, str(status)).inc()
    HTTP_LATENCY.labels(route, method).observe(seconds)


def move_applied(family: str, source: str) -> None:
    MOVES_APPLIED.labels(label(family), label(source)).inc()


def move_refused(code: str) -> None:
    MOVES_REFUSED.labels(label(code)).inc()


def task_waited(queue: str, task: str, seconds: float) -> None:
    TASKS_WAIT.labels(label(queue), label(task)).observe(max(seconds, 0.0))


def task_ran(queue: str, task: str, state: str, seconds: float) -> None:
    TASKS_RUN.labels(label(queue), label(task), label(state)).observe(max(seconds, 0.0))


def follower_opened(transport: str) -> None:
    LIVE_FOLLOWERS.labels(label(transport, TRANSPORTS)).inc()


def follower_closed(transport: str) -> None:
    LIVE_FOLLOWERS.labels(label(transport, TRANSPORTS)).dec()


def delivery_recorded(channel: str, outcome: str) -> None:
    DELIVERIES.labels(label(channel), label(outcome)).inc()
