"""OpenTelemetry traces: set up once per process, off unless configured.

On when ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) is set, or
the setting ``TRACING_ENABLED`` is true (``TRACING_ENABLED`` false turns it off whatever the
environment says). Off, nothing of OpenTelemetry is imported and ``core.tracing`` is a no-op.

On, spans go in batches to the OTLP/HTTP endpoint (the exporter reads the standard ``OTEL_*``
variables: endpoint, headers, timeout; ``OTEL_SERVICE_NAME`` names the service, by default
``canasta-service``), and the standard instrumentations are installed:

- Django: one server span per request, named after the route pattern (``POST
  api/v1/games/<int:pk>/actions/``). No header is captured (the capture variables are ignored),
  no body ever is, and the query string is cut from the URL attributes (it may hold a token);
- psycopg (PostgreSQL) and sqlite3: one span per statement, its text with placeholders and
  never its parameter values;
- Celery: a span per task sent and per task run, the trace context carried in the task's
  headers, so a worker's task is a child of the request that sent it;
- Redis: one span per command, arguments replaced by ``?``.

Called by the ASGI and WSGI entry points before Django builds its middleware, and by the Celery
app in each worker process (after the fork of a prefork pool: the exporter's thread must belong
to the process that uses it).
"""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings

from core import tracing

SERVICE_NAME_DEFAULT = "canasta-service"
TRACER_NAME = "canasta"

# Header capture of the HTTP instrumentations: never, whatever the environment says.
HEADER_CAPTURE_VARIABLES = (
    "OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_SERVER_REQUEST",
    "OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_SERVER_RESPONSE",
    "OTEL_INSTRUMENTATION_HTTP_CAPTURE_HEADERS_SANITIZE_FIELDS",
)
# URL attributes that carry the query string (old and stable HTTP conventions).
URL_ATTRIBUTES = ("http.target", "http.url", "url.full")
QUERY_ATTRIBUTE = "url.query"

_installed: list[Any] = []  # the instrumentors installed in this process


def tracing_wanted() -> bool:
    """Whether this process should trace (see the module's docstring)."""
    explicit = getattr(settings, "TRACING_ENABLED", None)
    if explicit is not None:
        return bool(explicit)
    return bool(
        os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    )


def tracing_init(provider: Any = None) -> bool:
    """Install tracing in this process if wanted (or with ``provider``, an SDK
    ``TracerProvider``, whatever the configuration: tests give one with an in-memory exporter).
    Idempotent. Returns whether tracing is on."""
    if _installed:
        return True
    if provider is None:
        if not tracing_wanted():
            return False
        provider = _provider_build()
    _instrument(provider)
    return True


def tracing_shutdown() -> None:
    """Remove the instrumentations and stop recording spans (tests)."""
    from celery.signals import before_task_publish

    tracing.disable()
    before_task_publish.disconnect(_task_modules_import)
    while _installed:
        _installed.pop().uninstrument()


def _provider_build() -> Any:
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    name = os.environ.get("OTEL_SERVICE_NAME") or SERVICE_NAME_DEFAULT
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: name}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    return provider


def _instrument(provider: Any) -> None:
    for variable in HEADER_CAPTURE_VARIABLES:
        os.environ.pop(variable, None)

    from opentelemetry.instrumentation.celery import CeleryInstrumentor
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.psycopg import PsycopgInstrumentor
    from opentelemetry.instrumentation.redis import RedisInstrumentor
    from opentelemetry.instrumentation.sqlite3 import SQLite3Instrumentor

    django = DjangoInstrumentor()
    django.instrument(
        tracer_provider=provider,
        request_hook=_request_hook,
        is_sql_commentor_enabled=False,
    )
    _installed.append(django)
    database = (
        PsycopgInstrumentor()
        if settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
        else SQLite3Instrumentor()
    )
    database.instrument(tracer_provider=provider, capture_parameters=False)
    _installed.append(database)
    from celery.signals import before_task_publish

    # Connected before the instrumentation's own receiver, so that it runs first.
    before_task_publish.connect(_task_modules_import, weak=False)
    celery = CeleryInstrumentor()
    celery.instrument(tracer_provider=provider)
    _installed.append(celery)
    redis = RedisInstrumentor()
    redis.instrument(tracer_provider=provider)
    _installed.append(redis)
    tracing.enable(provider.get_tracer(TRACER_NAME))


def _task_modules_import(sender: Any = None, **_: Any) -> None:
    """Import every app's tasks before a task is sent by name from a process that has not
    imported its module (``core.dispatch.send``): Celery's instrumentation ends the publish span
    (and leaves it current until then) only for a task it finds in the registry."""
    from celery import current_app

    if isinstance(sender, str) and sender not in current_app.tasks:
        current_app.loader.import_default_modules()


def _request_hook(span: Any, request: Any) -> None:
    """Cut the query string from the request span's URL attributes (a query parameter may
    carry a token)."""
    attributes = getattr(span, "attributes", None)
    if not attributes or not span.is_recording():
        return
    for key in URL_ATTRIBUTES:
        value = attributes.get(key)
        if isinstance(value, str) and "?" in value:
            span.set_attribute(key, value.split("?", 1)[0])
    if attributes.get(QUERY_ATTRIBUTE):
        span.set_attribute(QUERY_ATTRIBUTE, "")
