"""Deprecated routes, declared here and nowhere else (docs/api.md, "Deprecation policy").

Each entry of ``DEPRECATED_ROUTES`` names a route (its URL name), the day it was deprecated, its
sunset (the day it stops answering: at least ``MINIMUM_NOTICE`` later) and the operation that
replaces it. From this one registry:

- every answer of a deprecated route carries ``Deprecation`` (RFC 9745: the structured-field
  date ``@<unix seconds>``), ``Sunset`` (RFC 8594: an HTTP-date) and
  ``Link: <...>; rel="deprecation"`` pointing at the documentation of its replacement
  (``deprecation_headers_middleware``);
- the OpenAPI document marks a deprecated route's operations ``deprecated: true`` with those
  headers documented on every answer, and tells on the replacing operation which route it
  replaces and until when (``deprecated_routes_hook``, a drf-spectacular post-processing hook).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.http import HttpRequest, HttpResponseBase
from django.urls import get_resolver
from django.utils.decorators import sync_and_async_middleware
from django.utils.http import http_date

# The least time between a deprecation and its sunset.
MINIMUM_NOTICE = timedelta(days=180)
# Where the replacing operation is documented (the service's own Redoc page).
DOCS_OPERATION = "/api/redoc/#operation/{operation_id}"


@dataclass(frozen=True)
class DeprecatedRoute:
    """A route that still answers but will stop: ``since`` it was deprecated, answering until
    ``sunset``; ``replacement`` is the operationId of what replaces it."""

    since: datetime
    sunset: datetime
    replacement: str

    @property
    def link(self) -> str:
        return DOCS_OPERATION.format(operation_id=self.replacement)

    def headers(self) -> dict[str, str]:
        """The headers of every answer of the route."""
        return {
            "Deprecation": f"@{int(self.since.timestamp())}",
            "Sunset": http_date(self.sunset.timestamp()),
            "Link": f'<{self.link}>; rel="deprecation"',
        }


DEPRECATED_ROUTES: dict[str, DeprecatedRoute] = {
    # The join link's former path, games/join/<join_code>/: moved to join/<join_code>/ on
    # 2026-11-22 (beside games/<game_id>/actions/ it made the document's paths ambiguous).
    "game-join-code-former": DeprecatedRoute(
        since=datetime(2026, 11, 22, tzinfo=UTC),
        sunset=datetime(2027, 5, 22, tzinfo=UTC),
        replacement="games_join_by_code",
    ),
}


def deprecated_route(url_name: str | None) -> DeprecatedRoute | None:
    return DEPRECATED_ROUTES.get(url_name or "")


def _mark(request: HttpRequest, response: HttpResponseBase) -> None:
    match = getattr(request, "resolver_match", None)
    route = deprecated_route(match.url_name if match is not None else None)
    if route is None:
        return
    for name, value in route.headers().items():
        if name == "Link" and response.has_header("Link"):
            value = f"{response['Link']}, {value}"
        response[name] = value


@sync_and_async_middleware
def deprecation_headers_middleware(
    get_response: Callable[[HttpRequest], Any],
) -> Callable[[HttpRequest], Any]:
    """Every answer of a deprecated route (``DEPRECATED_ROUTES``) carries its ``Deprecation``,
    ``Sunset`` and ``Link`` headers, errors included."""
    if iscoroutinefunction(get_response):

        async def middleware_async(request: HttpRequest) -> HttpResponseBase:
            response: HttpResponseBase = await get_response(request)
            _mark(request, response)
            return response

        return middleware_async

    def middleware(request: HttpRequest) -> HttpResponseBase:
        response: HttpResponseBase = get_response(request)
        _mark(request, response)
        return response

    return middleware


# ============================================================================== the document
HEADER_DOCS = {
    "Deprecation": "When this operation was deprecated (RFC 9745): `@` and the Unix time.",
    "Sunset": "When this operation stops answering (RFC 8594): an HTTP-date.",
    "Link": 'Where its replacement is documented: `<...>; rel="deprecation"`.',
}


def route_paths(url_name: str) -> list[str]:
    """The document's paths of the route named ``url_name`` (``/api/v1/x/{param}/``)."""
    paths = []
    for possibility, _pattern, _defaults, _converters in get_resolver().reverse_dict.getlist(
        url_name
    ):
        for template, _params in possibility:
            paths.append("/" + template.replace("%(", "{").replace(")s", "}"))
    return paths


def _day(moment: datetime) -> str:
    return moment.date().isoformat()


def deprecated_routes_hook(
    result: dict[str, Any],
    generator: Any,
    request: Any,
    public: bool,
    routes: dict[str, DeprecatedRoute] | None = None,
) -> dict[str, Any]:
    """drf-spectacular post-processing: each deprecated route's operations are
    ``deprecated: true``, say when they stop answering and document the deprecation headers on
    every answer; the replacing operation names the route it replaces. (A deprecated route left
    out of the document, as the join link's former path is, is named by its replacement
    only.)"""
    operations = {
        operation["operationId"]: operation
        for item in result.get("paths", {}).values()
        for operation in item.values()
        if isinstance(operation, dict) and "operationId" in operation
    }
    for name, route in sorted((DEPRECATED_ROUTES if routes is None else routes).items()):
        notice = (
            f"deprecated since {_day(route.since)}; it answers until {_day(route.sunset)} "
            f"(`Sunset`), with the `Deprecation`, `Sunset` and `Link` headers"
        )
        paths = route_paths(name)
        for path in paths:
            for operation in result.get("paths", {}).get(path, {}).values():
                if not isinstance(operation, dict) or "responses" not in operation:
                    continue
                operation["deprecated"] = True
                text = f"Deprecated: use `{route.replacement}` instead; {notice}."
                operation["description"] = f"{operation.get('description', '')}\n\n{text}".strip()
                for response in operation["responses"].values():
                    headers = response.setdefault("headers", {})
                    for header, description in HEADER_DOCS.items():
                        headers[header] = {
                            "schema": {"type": "string"},
                            "description": description,
                            "required": True,
                        }
        replacement = operations.get(route.replacement)
        if replacement is not None:
            former = ", ".join(f"`{path}`" for path in paths)
            text = f"It replaces {former}, {notice}."
            replacement["description"] = f"{replacement.get('description', '')}\n\n{text}".strip()
    return result
