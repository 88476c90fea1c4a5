"""A browser session's last request, recorded for the list of sign-ins at most once every
``TOUCH_SECONDS`` per session and process (allauth's own tracking writes on every request, and
its middleware is synchronous: it would hold a thread for each live connection)."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.utils import timezone
from django.utils.decorators import sync_and_async_middleware

from accounts.services.credentials import TOUCH_SECONDS

REMEMBERED_MAX = 10_000
_touched: OrderedDict[str, float] = OrderedDict()
_lock = threading.Lock()


def _due(session_key: str) -> bool:
    now = time.monotonic()
    with _lock:
        last = _touched.get(session_key)
        if last is not None and now - last < TOUCH_SECONDS:
            return False
        _touched[session_key] = now
        _touched.move_to_end(session_key)
        while len(_touched) > REMEMBERED_MAX:
            _touched.popitem(last=False)
    return True


def _session_key(request: HttpRequest) -> str | None:
    """The request's browser session key, if it has a session cookie and a signed-in user
    (read only when the cookie is there: a request without one costs nothing)."""
    if settings.SESSION_COOKIE_NAME not in request.COOKIES:
        return None
    session = getattr(request, "session", None)
    key = getattr(session, "session_key", None)
    return key if key and _due(key) else None


def _touch(session_key: str) -> None:
    from allauth.usersessions.models import UserSession

    now = timezone.now()
    UserSession.objects.filter(
        session_key=session_key, last_seen_at__lt=now - timedelta(seconds=TOUCH_SECONDS)
    ).update(last_seen_at=now)


@sync_and_async_middleware
def browser_session_activity(get_response: Callable[..., Any]) -> Callable[..., Any]:
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponseBase:
            response: HttpResponseBase = await get_response(request)
            key = _session_key(request)
            if key is not None:
                await sync_to_async(_touch)(key)
            return response

        return async_middleware

    def sync_middleware(request: HttpRequest) -> HttpResponseBase:
        response: HttpResponseBase = get_response(request)
        key = _session_key(request)
        if key is not None:
            _touch(key)
        return response

    return sync_middleware


__all__ = ["browser_session_activity"]
