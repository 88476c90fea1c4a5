"""API paths answer the same with or without their trailing slash.

Every route under ``/api/`` ends with a slash. Django's ``APPEND_SLASH`` would redirect a path
without it (301, which clients follow by sending a POST again as a GET) or, with ``DEBUG`` on,
fail a POST with an HTML error page. Here such a path is served by the route it names with the
slash, inside this request: no redirect, the same answer. Only paths without the slash are
looked at (the others cost nothing); one that names no route either way is left to Django, which
answers it as it answers the path with the slash (the 404 ``not_found`` problem document).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponse
from django.urls import is_valid_path

API_PREFIX = "/api/"


def api_slash_append(request: HttpRequest) -> None:
    """Point an ``/api/`` path without its trailing slash at the route with it, when that one
    exists and the path itself names none."""
    path = request.path_info
    if not path.startswith(API_PREFIX) or path.endswith("/"):
        return
    urlconf = getattr(request, "urlconf", None)
    if not is_valid_path(path, urlconf) and is_valid_path(f"{path}/", urlconf):
        request.path_info = f"{path}/"
        request.path = f"{request.path}/"


class ApiSlashMiddleware:
    """``api_slash_append`` before any view (and before ``CommonMiddleware``'s APPEND_SLASH).
    Async-capable, like ``core.parsers.NulCharacterMiddleware``."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self._async = iscoroutinefunction(get_response)
        if self._async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self._async:
            return self._acall(request)
        api_slash_append(request)
        return self.get_response(request)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        api_slash_append(request)
        response: HttpResponse = await self.get_response(request)
        return response
