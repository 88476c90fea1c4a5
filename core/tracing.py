"""Manual trace spans for the services, and on-commit hand-offs that keep the trace.

Tracing is off unless the process installed a tracer (``canasta_service.tracing`` does, when
OpenTelemetry is configured). Off, ``span`` returns one shared null context, ``traced`` costs a
global read per call and ``on_commit`` is ``transaction.on_commit``: nothing of OpenTelemetry is
imported or run.

What goes into a span is the caller's choice and must never be a card, a request body or a
secret: names are fixed strings, attributes are ids, seats and kinds. A span that fails records
the error's code (or the exception's class), not its message.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any, ParamSpec, TypeVar

from django.db import transaction

P = ParamSpec("P")
R = TypeVar("R")

AttributeValue = str | int | float | bool

_tracer: Any = None  # an opentelemetry.trace.Tracer once enabled
_NULL: AbstractContextManager[None] = contextlib.nullcontext()


def enable(tracer: Any) -> None:
    """Record spans with ``tracer`` (an OpenTelemetry ``Tracer``) from now on."""
    global _tracer
    _tracer = tracer


def disable() -> None:
    """Record no more spans (the process's instrumentations are separate)."""
    global _tracer
    _tracer = None


def enabled() -> bool:
    return _tracer is not None


def span(name: str, **attributes: AttributeValue | None) -> AbstractContextManager[Any]:
    """A span named ``name`` around the block (the current span's child), with ``attributes``
    (None values left out); a shared no-op when tracing is off."""
    if _tracer is None:
        return _NULL
    return _span(name, {k: v for k, v in attributes.items() if v is not None})


@contextlib.contextmanager
def _span(name: str, attributes: dict[str, AttributeValue]) -> Iterator[Any]:
    """A span that records a failure by its kind only (``error.type``: the error code or the
    exception's class), never by its message, which may quote the request."""
    with _tracer.start_as_current_span(
        name, attributes=attributes, record_exception=False, set_status_on_exception=False
    ) as current:
        try:
            yield current
        except BaseException as exc:
            from opentelemetry.trace import Status, StatusCode

            kind = str(getattr(exc, "code", "") or type(exc).__qualname__)
            current.set_attribute("error.type", kind)
            current.set_status(Status(StatusCode.ERROR, kind))
            raise


def traced(name: str) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """Decorate a function so that each call runs in a span named ``name``."""

    def decorate(fn: Callable[P, R]) -> Callable[P, R]:
        @functools.wraps(fn)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            if _tracer is None:
                return fn(*args, **kwargs)
            with _span(name, {}):
                return fn(*args, **kwargs)

        return call

    return decorate


def annotate(**attributes: AttributeValue | None) -> None:
    """Set ``attributes`` (None values left out) on the current span, if tracing is on."""
    if _tracer is None:
        return
    from opentelemetry import trace

    current = trace.get_current_span()
    for key, value in attributes.items():
        if value is not None:
            current.set_attribute(key, value)


def on_commit(name: str, fn: Callable[[], object], **attributes: AttributeValue | None) -> None:
    """``transaction.on_commit(fn)``; with tracing on, ``fn`` runs in a span ``on_commit
    <name>`` whose parent is the span current now (at registration), so that the work it hands
    on (a task sent, a live update published) stays in the trace that committed."""
    if _tracer is None:
        transaction.on_commit(fn)
        return
    from opentelemetry import context

    registered = context.get_current()

    def run() -> None:
        token = context.attach(registered)
        try:
            with span(f"on_commit {name}", **attributes):
                fn()
        finally:
            context.detach(token)

    transaction.on_commit(run)
