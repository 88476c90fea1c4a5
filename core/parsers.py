"""Reading a request's text: the API's JSON parser and the refusal of NUL characters.

``JSONParser`` is DRF's, plus a clear 400 for JSON nested too deeply to decode: Python's
``json`` decoder recurses once per nesting level and raises ``RecursionError`` (not a
``ValueError``) past the interpreter's limit; DRF's parser let that escape as a 500. A body of
a few kilobytes (``[[[[...]]]]``) was enough. Here it is a ``ParseError`` like any other
undecodable body: 400 ``malformed_body``.

No text the service takes may hold a NUL character (U+0000): PostgreSQL's ``text`` and
``jsonb`` cannot store it, and nothing the API reads has a use for it. The parser refuses a
body with one in any string or key, at any depth; ``NulCharacterMiddleware`` refuses one in the
path (path parameters included) or the query string, before any view. Both answer 400
``invalid_request`` whose ``errors`` name the field (code ``null_characters_not_allowed``, as
DRF's own text fields answer), and nothing is changed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import IO, Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework import parsers
from rest_framework.exceptions import ErrorDetail, ParseError, ValidationError
from rest_framework.settings import api_settings

from core.problems import PROBLEM_CONTENT_TYPE, problem_body

NUL = "\x00"
NUL_CODE = "null_characters_not_allowed"
NUL_MESSAGE = "Null characters are not allowed."
NUL_KEY_MESSAGE = "Null characters are not allowed in keys."


def nul_found(data: Any) -> tuple[str | None, str] | None:
    """Where decoded JSON holds a NUL character: the dotted path of the string (or of the
    object whose key holds it; None for the top) and the message; None when it holds none."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(data, ())]
    while stack:  # no recursion: a body may nest as deep as the decoder allows
        value, path = stack.pop()
        if isinstance(value, str):
            if NUL in value:
                return ".".join(path) or None, NUL_MESSAGE
        elif isinstance(value, dict):
            for key, item in value.items():
                if NUL in key:
                    return ".".join(path) or None, NUL_KEY_MESSAGE
                stack.append((item, (*path, key)))
        elif isinstance(value, list):
            stack.extend((item, (*path, str(i))) for i, item in enumerate(value))
    return None


class JSONParser(parsers.JSONParser):
    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None
        found = nul_found(data)
        if found is not None:
            field, message = found
            raise ValidationError(
                {field or api_settings.NON_FIELD_ERRORS_KEY: [ErrorDetail(message, NUL_CODE)]}
            )
        return data


def nul_refusal(request: HttpRequest) -> HttpResponse | None:
    """400 ``invalid_request`` if the path or the query string holds a NUL character."""
    where: str | None = None
    field: str | None = None
    if NUL in request.path:
        where = "The URL path"
    else:
        for key, values in request.GET.lists():
            if NUL in key:
                where = "A query parameter's name"
                break
            if any(NUL in v for v in values):
                where, field = f"Query parameter '{key}'", key
                break
    if where is None:
        return None
    body = problem_body(
        code="invalid_request",
        detail=f"{where} holds a NUL character (U+0000). {NUL_MESSAGE}",
        instance=request.path.replace(NUL, "%00"),
        extra={"errors": [{"field": field, "code": NUL_CODE, "message": NUL_MESSAGE}]},
    )
    return JsonResponse(body, status=400, content_type=PROBLEM_CONTENT_TYPE)


class NulCharacterMiddleware:
    """Refuses a NUL character in the path or query string (``nul_refusal``) before any view.
    Async-capable, like ``core.limits.BodySizeLimitMiddleware``."""

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
        return nul_refusal(request) or self.get_response(request)

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        refusal = nul_refusal(request)
        if refusal is not None:
            return refusal
        response: HttpResponse = await self.get_response(request)
        return response
