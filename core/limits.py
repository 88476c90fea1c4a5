"""Request limits that protect every endpoint: the body size cap and the rate-limit settings.

The body size cap (``DATA_UPLOAD_MAX_MEMORY_SIZE``, env ``MAX_REQUEST_BODY_BYTES``) is enforced
first by the servers' wrappers in ``core.request_bodies`` (both entry points: a
chunked body read and delimited, an oversized one refused with 413 as it streams in).
``BodySizeLimitMiddleware`` is the last line of defence inside Django, for a request that did
not come through them (the test client, another entry point): a declared Content-Length over
the cap gets the same 413 problem document (code ``body_too_large``) before any view, parser or
service sees it. Django enforces the setting only when something reads ``request.body``; DRF's
parsers read the raw stream instead.

``throttle_rate`` reads a DRF rate ("20/hour", "240/minute") from the environment; ``off``
disables that limit (for benchmarks and tests).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse, JsonResponse

_RATE_UNITS = ("s", "sec", "second", "m", "min", "minute", "h", "hour", "d", "day")


def throttle_rate(name: str, default: str) -> str | None:
    """A DRF throttle rate from the environment variable ``name``; ``off`` means no limit.

    Called from settings.py, so this module imports nothing that needs configured settings.
    """

    value = ((os.environ.get(name) or "").strip() or default).strip()  # empty: unset
    if value.lower() in ("off", "none", "0", ""):
        return None
    count, _, unit = value.partition("/")
    if not count.isdigit() or unit not in _RATE_UNITS:
        raise ImproperlyConfigured(
            f"Environment variable {name}={value!r} is invalid: expected N/second, N/minute, "
            "N/hour or N/day, or 'off'."
        )
    return value


def _problem(request: HttpRequest, code: str, detail: str, **extra: int) -> JsonResponse:
    from core.problems import PROBLEM_CONTENT_TYPE, problem_body

    body = problem_body(code=code, detail=detail, instance=request.path, extra=extra)
    return JsonResponse(body, status=body["status"], content_type=PROBLEM_CONTENT_TYPE)


class BodySizeLimitMiddleware:
    # Async-capable, so that under ASGI the chain stays on the event loop and a waiting
    # long-poll or event stream holds no thread (games/api/live.py).
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self._async = iscoroutinefunction(get_response)
        if self._async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self._async:
            return self._acall(request)
        return self._refusal(request) or self.get_response(request)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        refusal = self._refusal(request)
        if refusal is not None:
            return refusal
        response: HttpResponse = await self.get_response(request)  # type: ignore[misc]
        return response

    def _refusal(self, request: HttpRequest) -> HttpResponse | None:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        declared = request.META.get("CONTENT_LENGTH") or "0"
        try:
            size = int(declared)
        except ValueError:
            size = -1
        if size < 0:
            return _problem(request, "bad_request", "The Content-Length header is not a number.")
        if limit is not None and size > limit:
            return _problem(
                request,
                "body_too_large",
                f"The request body has {size} bytes; at most {limit} are accepted.",
                max_body_bytes=limit,
            )
        return None
