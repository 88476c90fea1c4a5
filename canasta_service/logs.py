"""Log lines: plain or JSON, each with the request id of the request (or task) that wrote it;
and error reports to Sentry (docs/operations.md, "Watching it").

**Request ids.** ``request_id_middleware`` (first in ``MIDDLEWARE``) takes the request's
``X-Request-ID`` when it is a short token (``REQUEST_ID_PATTERN``: letters, digits, ``-``,
``_``, ``.``, at most 64) or makes one, answers it in ``X-Request-ID``, and holds it in a context
variable until the response is closed (``request_finished``); ``RequestIdFilter`` writes it on
every log record (``request_id``, ``-`` outside any request). A task sent meanwhile carries it
in its message's headers (``before_task_publish``) and the worker holds it while the task runs
(``task_prerun`` to ``task_postrun``), so a task's lines carry the id of the request that caused
them. Without a broker a task runs in the sending request's context and has its id already.

**Formats.** ``LOG_FORMAT=plain`` (the default: ``make run``) or ``json`` (docker-compose): one
JSON object a line (python-json-logger) with ``time``, ``level``, ``logger``, ``process``,
``request_id`` and ``message``, plus any ``extra`` the call gave (but Django's request object,
whose text holds the query string).

**Sentry.** ``sentry_init`` (settings.py, only when ``SENTRY_DSN`` is set): the Django and
Celery integrations, no personal data (``send_default_pii=False``), and ``event_scrub`` drops
request bodies, cookies and the ``Authorization`` and ``Cookie`` headers before anything is
sent.
"""

from __future__ import annotations

import contextvars
import logging
import re
import uuid
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from celery import signals
from django.core.signals import request_finished
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponseBase
from pythonjsonlogger.core import RESERVED_ATTRS

REQUEST_ID_HEADER = "X-Request-ID"
REQUEST_ID_PATTERN = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
# The task message header that carries the request id to the worker.
TASK_HEADER = "canasta_request_id"
NO_REQUEST = "-"

request_id_var: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "canasta_request_id", default=None
)


def request_id_get() -> str | None:
    return request_id_var.get()


def request_id_choose(offered: str | None) -> str:
    """The client's id when it is a short token, else a new one (32 hex digits)."""
    if offered and REQUEST_ID_PATTERN.match(offered):
        return offered
    return uuid.uuid4().hex


# ============================================================================== middleware
Handler = Callable[[HttpRequest], Any]


def request_id_middleware(get_response: Handler) -> Handler:
    """Hold the request's id while it is answered; answer it in ``X-Request-ID``."""
    if iscoroutinefunction(get_response):

        async def middleware_async(request: HttpRequest) -> HttpResponseBase:
            rid = request_id_choose(request.headers.get(REQUEST_ID_HEADER))
            request_id_var.set(rid)
            response: HttpResponseBase = await get_response(request)
            response[REQUEST_ID_HEADER] = rid
            return response

        markcoroutinefunction(middleware_async)
        return middleware_async

    def middleware(request: HttpRequest) -> HttpResponseBase:
        rid = request_id_choose(request.headers.get(REQUEST_ID_HEADER))
        request_id_var.set(rid)
        response: HttpResponseBase = get_response(request)
        response[REQUEST_ID_HEADER] = rid
        return response

    return middleware


@receiver(request_finished, weak=False)
def _request_id_clear(**_: Any) -> None:
    """The id stays set until the response is closed (Django logs a 4xx or 5xx after the
    middleware), then the thread's next lines belong to no request."""
    request_id_var.set(None)


request_id_middleware.sync_capable = True  # type: ignore[attr-defined]
request_id_middleware.async_capable = True  # type: ignore[attr-defined]


# ============================================================================== logging
class RequestIdFilter(logging.Filter):
    """Writes the current request id on each record (``-`` outside any request or task)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = request_id_var.get() or NO_REQUEST
        return True


PLAIN_FORMAT = "%(asctime)s %(levelname)s %(name)s %(process)d [%(request_id)s] %(message)s"
JSON_FIELDS = "%(asctime)s %(levelname)s %(name)s %(process)d %(request_id)s %(message)s"


def logging_config(log_format: str, level: str) -> dict[str, Any]:
    """The ``LOGGING`` dict: every line to stdout, plain or JSON, with its request id."""
    formatters: dict[str, Any] = {
        "plain": {"format": PLAIN_FORMAT},
        "json": {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": JSON_FIELDS,
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger"},
            # Django's request object (its repr holds the query string) and socket: not logged.
            "reserved_attrs": [*RESERVED_ATTRS, "request", "server_time"],
        },
    }
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": "canasta_service.logs.RequestIdFilter"}},
        "formatters": formatters,
        "handlers": {
            "stdout": {
                "class": "logging.StreamHandler",
                "stream": "ext://sys.stdout",
                "formatter": log_format,
                "filters": ["request_id"],
            },
        },
        "root": {"handlers": ["stdout"], "level": level},
        "loggers": {
            "django": {"handlers": ["stdout"], "level": level, "propagate": False},
            "django.db.backends": {"level": "WARNING"},
            # httpx logs each request's URL at INFO: an APNs URL holds the device's token.
            "httpx": {"level": "WARNING"},
        },
    }


# ============================================================================== Celery
_task_tokens: dict[str, contextvars.Token[str | None]] = {}


@signals.before_task_publish.connect(weak=False)
def _request_id_publish(headers: dict[str, Any] | None = None, **_: Any) -> None:
    rid = request_id_var.get()
    if rid is not None and headers is not None:
        headers[TASK_HEADER] = rid


def task_header(task: Any, name: str) -> Any:
    """A header the sender put on ``task``'s message (Celery keeps them on the request)."""
    request = getattr(task, "request", None)
    if request is None:
        return None
    value = getattr(request, name, None)
    if value is None:
        headers = getattr(request, "headers", None) or {}
        value = headers.get(name) if isinstance(headers, dict) else None
    return value


@signals.task_prerun.connect(weak=False)
def _request_id_restore(task_id: str | None = None, task: Any = None, **_: Any) -> None:
    rid = task_header(task, TASK_HEADER)
    if task_id and isinstance(rid, str) and REQUEST_ID_PATTERN.match(rid):
        _task_tokens[task_id] = request_id_var.set(rid)
    logging.getLogger("canasta_service.tasks").debug("task %s started", getattr(task, "name", "?"))


@signals.task_postrun.connect(weak=False)
def _request_id_forget(task_id: str | None = None, **_: Any) -> None:
    token = _task_tokens.pop(task_id, None) if task_id else None
    if token is not None:
        try:
            request_id_var.reset(token)
        except ValueError:  # set in another context (a thread pool's worker): just clear
            request_id_var.set(None)


# ============================================================================== Sentry
SCRUBBED_HEADERS = frozenset({"authorization", "cookie", "proxy-authorization", "x-api-key"})


def event_scrub(event: dict[str, Any], hint: dict[str, Any]) -> dict[str, Any]:
    """``before_send``: no request body, cookies or credentials leave the service."""
    request = event.get("request")
    if isinstance(request, dict):
        request.pop("data", None)
        request.pop("cookies", None)
        headers = request.get("headers")
        if isinstance(headers, dict):
            request["headers"] = {
                k: ("[Filtered]" if k.lower() in SCRUBBED_HEADERS else v)
                for k, v in headers.items()
            }
    return event


def sentry_init(dsn: str, environment: str | None, traces_sample_rate: float = 0.0) -> None:
    """Report errors to Sentry (Django and Celery integrations, no personal data)."""
    import sentry_sdk
    from sentry_sdk.integrations.celery import CeleryIntegration
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=dsn,
        environment=environment,
        integrations=[DjangoIntegration(), CeleryIntegration()],
        send_default_pii=False,
        max_request_body_size="never",
        traces_sample_rate=traces_sample_rate,
        before_send=event_scrub,  # type: ignore[arg-type]
    )
