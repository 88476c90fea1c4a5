"""``/metrics``: the service's Prometheus series (docs/operations.md, "Watching it").

What is counted where:

- the apps' series (``core.metrics``): moves applied and refused, notification deliveries,
  live followers;
- here: HTTP requests by route name, method and status, with their latency
  (``http_metrics_middleware``); Celery tasks' wait in their queue and their run time
  (``before_task_publish`` stamps the message, ``task_prerun``/``task_postrun`` time it);
- read at scrape time (``ScrapeCollector``): each queue's length in Redis, and on PostgreSQL the
  database's connections (``pg_stat_activity``) and ``max_connections``.

**Processes.** ``PROMETHEUS_MULTIPROC_DIR`` (set in the environment before the process starts,
an empty directory of the server's own) puts prometheus-client in multiprocess mode: every
process (gunicorn's workers, uvicorn's, a Celery worker's pool) writes its counts there and a
scrape of any of them sums them all. The gunicorn servers remove a dead worker's live gauges
(``canasta_service.gunicorn_conf``); a Celery worker serves its processes' series on
``WORKER_METRICS_PORT`` (``worker_metrics_serve``; the same bearer token). Without the
variable each process serves its own counts.

**Access.** ``METRICS_TOKEN`` set: ``Authorization: Bearer <token>`` (compared in constant
time), else 401. Unset: 404, except with DEBUG (open, for development). The route is not in the
OpenAPI document (a plain Django view).
"""

from __future__ import annotations

import hmac
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, make_server

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from celery import signals
from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBase, JsonResponse
from prometheus_client import REGISTRY, CollectorRegistry, generate_latest, multiprocess
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST, ThreadingWSGIServer
from prometheus_client.registry import Collector

from core import dispatch
from core import metrics as core_metrics

logger = logging.getLogger(__name__)

REDIS_TIMEOUT_SECONDS = 1.0
# kombu's Redis transport keeps a queue's messages with a priority in lists of their own.
PRIORITY_SUFFIXES = ("", "\x06\x163", "\x06\x166", "\x06\x169")
SENT_AT_HEADER = "canasta_sent_at"
UNMATCHED = "unmatched"


def multiproc_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


# ============================================================================== access
def token_allows(authorization: str | None, token: str) -> bool:
    """Whether ``Authorization`` is ``Bearer <token>`` (compared in constant time)."""
    scheme, _, given = (authorization or "").partition(" ")
    if scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode(), token.encode())


def metrics_view(request: HttpRequest) -> HttpResponseBase:
    """The series, for a scraper holding ``METRICS_TOKEN``."""
    token: str = getattr(settings, "METRICS_TOKEN", "") or ""
    if not token:
        if not settings.DEBUG:
            raise Http404()
    elif not token_allows(request.headers.get("Authorization"), token):
        from core.problems import PROBLEM_CONTENT_TYPE, problem_body  # the catalogue: apps loaded

        body = problem_body(
            code="not_authenticated",
            detail="A bearer token (METRICS_TOKEN) is required.",
            instance=request.path,
        )
        refusal = JsonResponse(body, status=401, content_type=PROBLEM_CONTENT_TYPE)
        refusal["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return refusal
    response = HttpResponse(metrics_text(), content_type=CONTENT_TYPE_LATEST)
    response["Cache-Control"] = "no-store"
    return response


def metrics_text(scrape: bool = True) -> bytes:
    """The exposition text: every process's series (multiprocess mode) or this process's, and
    with ``scrape`` what is read now (queues, database)."""
    directory = multiproc_dir()
    if directory:
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=directory)
        text = generate_latest(registry)
    else:
        text = generate_latest(REGISTRY)
    if scrape:
        now = CollectorRegistry()
        now.register(ScrapeCollector())
        text += generate_latest(now)
    return text


# ============================================================================== read at scrape
class ScrapeCollector(Collector):
    """Series read when scraped: queue lengths (Redis) and database connections (PostgreSQL)."""

    def collect(self) -> Iterator[Metric]:
        errors = GaugeMetricFamily(
            "canasta_scrape_errors",
            "1 when a series could not be read at this scrape.",
            labels=["source"],
        )
        try:
            yield from queue_lengths()
            errors.add_metric(["redis"], 0)
        except Exception as exc:
            logger.warning("metrics: queue lengths unreadable (%s)", type(exc).__name__)
            errors.add_metric(["redis"], 1)
        try:
            yield from database_connections()
            errors.add_metric(["database"], 0)
        except Exception as exc:
            logger.warning("metrics: database connections unreadable (%s)", type(exc).__name__)
            errors.add_metric(["database"], 1)
        yield errors


def queue_lengths() -> Iterable[Metric]:
    """Messages waiting in each Celery queue (Redis list lengths); nothing without Redis."""
    url = getattr(settings, "CELERY_BROKER_URL", None)
    if not url or not str(url).startswith(("redis://", "rediss://")):
        return []
    import redis  # celery[redis]

    queues: dict[str, str] = dict(getattr(settings, "TASK_QUEUES", {}))
    family = GaugeMetricFamily(
        "canasta_celery_queue_length",
        "Messages waiting in a Celery queue (read from Redis at scrape time).",
        labels=["queue"],
    )
    client = redis.Redis.from_url(
        str(url),
        socket_timeout=REDIS_TIMEOUT_SECONDS,
        socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
    )
    try:
        with client.pipeline(transaction=False) as pipe:
            for name in queues.values():
                for suffix in PRIORITY_SUFFIXES:
                    pipe.llen(name + suffix)
            lengths = pipe.execute()
    finally:
        client.close()
    per = len(PRIORITY_SUFFIXES)
    for i, name in enumerate(queues.values()):
        family.add_metric([name], float(sum(lengths[i * per : (i + 1) * per])))
    return [family]


def database_connections() -> Iterable[Metric]:
    """The database's connections by state, and its ``max_connections`` (PostgreSQL only)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(state, 'unknown'), count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() GROUP BY 1"
        )
        rows = cursor.fetchall()
        cursor.execute("SELECT setting::int FROM pg_settings WHERE name = 'max_connections'")
        limit = cursor.fetchone()
    used = GaugeMetricFamily(
        "canasta_db_connections",
        "Connections to the service's database, by state (pg_stat_activity).",
        labels=["state"],
    )
    for state, count in rows:
        used.add_metric([str(state)[:32]], float(count))
    most = GaugeMetricFamily("canasta_db_connections_max", "The server's max_connections setting.")
    most.add_metric([], float(limit[0] if limit else 0))
    return [used, most]


# ============================================================================== HTTP
Handler = Callable[[HttpRequest], Any]


def _route(request: HttpRequest) -> str:
    match = getattr(request, "resolver_match", None)
    name = getattr(match, "view_name", None) if match is not None else None
    return str(name)[:64] if name else UNMATCHED


def http_metrics_middleware(get_response: Handler) -> Handler:
    """Count each request by its route's name (never its path: ids stay out) and status."""
    if iscoroutinefunction(get_response):

        async def middleware_async(request: HttpRequest) -> HttpResponseBase:
            started = time.perf_counter()
            response: HttpResponseBase = await get_response(request)
            core_metrics.request_observed(
                _route(request),
                _method(request),
                response.status_code,
                time.perf_counter() - started,
            )
            return response

        markcoroutinefunction(middleware_async)
        return middleware_async

    def middleware(request: HttpRequest) -> HttpResponseBase:
        started = time.perf_counter()
        response: HttpResponseBase = get_response(request)
        core_metrics.request_observed(
            _route(request), _method(request), response.status_code, time.perf_counter() - started
        )
        return response

    return middleware


http_metrics_middleware.sync_capable = True  # type: ignore[attr-defined]
http_metrics_middleware.async_capable = True  # type: ignore[attr-defined]

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def _method(request: HttpRequest) -> str:
    method = request.method or ""
    return method if method in METHODS else "other"


# ============================================================================== Celery
_started: dict[str, float] = {}
_started_lock = threading.Lock()


def task_queue(task: Any) -> str:
    """The queue a task came from: its delivery's routing key, else where dispatch routes it."""
    request = getattr(task, "request", None)
    info = getattr(request, "delivery_info", None) or {}
    key = info.get("routing_key") if isinstance(info, dict) else None
    if key:
        return str(key)
    kind = dispatch.TASK_KINDS.get(getattr(task, "name", ""), dispatch.INTERACTIVE)
    queues: dict[str, str] = getattr(settings, "TASK_QUEUES", {})
    return queues.get(kind, kind)


@signals.before_task_publish.connect(weak=False)
def _stamp_sent(headers: dict[str, Any] | None = None, **_: Any) -> None:
    if headers is not None:
        headers[SENT_AT_HEADER] = time.time()


@signals.task_prerun.connect(weak=False)
def _task_started(task_id: str | None = None, task: Any = None, **_: Any) -> None:
    if not task_id or task is None:
        return
    now = time.time()
    with _started_lock:
        _started[task_id] = time.perf_counter()
    from canasta_service.logs import task_header

    sent = task_header(task, SENT_AT_HEADER)
    if isinstance(sent, int | float):
        eta = _eta_seconds(getattr(task.request, "eta", None))
        waited = now - max(float(sent), eta or 0.0)
        core_metrics.task_waited(task_queue(task), task.name, waited)


def _eta_seconds(eta: Any) -> float | None:
    """A task's ETA (an ISO 8601 string in the message) as a Unix time."""
    if not eta:
        return None
    from datetime import datetime

    try:
        when = eta if isinstance(eta, datetime) else datetime.fromisoformat(str(eta))
    except ValueError:
        return None
    return when.timestamp()


@signals.task_postrun.connect(weak=False)
def _task_ended(task_id: str | None = None, task: Any = None, state: Any = None, **_: Any) -> None:
    if not task_id or task is None:
        return
    with _started_lock:
        started = _started.pop(task_id, None)
    if started is None:
        return
    core_metrics.task_ran(
        task_queue(task), task.name, str(state or "UNKNOWN"), time.perf_counter() - started
    )


@signals.worker_process_shutdown.connect(weak=False)
def _process_gone(**_: Any) -> None:
    if multiproc_dir():
        multiprocess.mark_process_dead(os.getpid())


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        return


def worker_metrics_app(token: str) -> Callable[..., Iterable[bytes]]:
    """A WSGI app serving this worker's processes' series behind the bearer token."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("PATH_INFO", "/") != "/metrics":
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"not found\n"]
        if not token_allows(environ.get("HTTP_AUTHORIZATION"), token):
            start_response(
                "401 Unauthorized",
                [("Content-Type", "text/plain"), ("WWW-Authenticate", 'Bearer realm="metrics"')],
            )
            return [b"a bearer token is required\n"]
        start_response("200 OK", [("Content-Type", CONTENT_TYPE_LATEST)])
        return [metrics_text(scrape=False)]

    return app


@signals.worker_ready.connect(weak=False)
def worker_metrics_serve(**_: Any) -> None:
    """Serve this worker's series on ``WORKER_METRICS_PORT`` (with ``METRICS_TOKEN``)."""
    port = int(getattr(settings, "WORKER_METRICS_PORT", 0) or 0)
    token: str = getattr(settings, "METRICS_TOKEN", "") or ""
    if not port or not token:
        return
    server = make_server(
        "0.0.0.0",
        port,
        worker_metrics_app(token),
        ThreadingWSGIServer,
        handler_class=_QuietHandler,
    )
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    logger.info("metrics: serving the worker's series on port %s", port)
