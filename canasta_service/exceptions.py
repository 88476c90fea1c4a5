"""Errors as values with stable codes, mapped to HTTP in one place.

Services raise ``ServiceError`` (or a subclass) and never build responses; DRF hands every
exception a view lets through to ``problem_exception_handler``, which renders an RFC 9457
problem document (see ``problems.py``). Django-level errors outside DRF views (an unknown URL,
an uncaught exception) get the same shape through the ``handler4xx/500`` views at the end of
this module, which ``urls.py`` installs.

Stable codes produced here:

==========================  ======  ==========================================================
code                        status  when
==========================  ======  ==========================================================
invalid_request             400     a serializer rejected the input; see ``errors``
malformed_body              400     the body is not parseable JSON
bad_request                 400     any other bad request (e.g. a disallowed Host header)
not_authenticated           401     no credentials
authentication_failed       401     wrong credentials
permission_denied           403     authenticated but not allowed
not_found                   404     no such resource or URL
method_not_allowed          405     the resource does not support the method
not_acceptable              406     no acceptable response media type
unsupported_media_type      415     the body's media type is not JSON
throttled                   429     rate limit hit; see ``retry_after``
internal_error              500     a bug; details are in the server log only
==========================  ======  ==========================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, HttpRequest, JsonResponse
from rest_framework import exceptions as drf
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import set_rollback

from canasta_service.problems import PROBLEM_CONTENT_TYPE, RESERVED_MEMBERS, problem_body


class ServiceError(Exception):
    """An expected failure of a service call, carried to the client as a problem document.

    Subclass it with class-level defaults (``code = "not_your_turn"``, ``status = 403``) or raise
    it directly with keyword overrides. ``extra`` adds members to the problem document, e.g.
    ``ServiceError("Game moved on", code="stale_version", status=409,
    extra={"current_version": 7})``.
    """

    code: str = "service_error"
    status: int = 400
    title: str | None = None
    default_message: str = "The request could not be completed."

    def __init__(
        self,
        message: str | None = None,
        *,
        code: str | None = None,
        status: int | None = None,
        title: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        self.message = message or self.default_message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        if title is not None:
            self.title = title
        self.extra: dict[str, Any] = dict(extra or {})
        clash = RESERVED_MEMBERS.intersection(self.extra)
        if clash:
            raise ValueError(f"ServiceError extra may not set {sorted(clash)}")
        super().__init__(self.message)

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"


# Checked in order, so subclasses come before their bases (NotAuthenticated before
# APIException, and so on).
_DRF_CODES: tuple[tuple[type[drf.APIException], str], ...] = (
    (drf.ValidationError, "invalid_request"),
    (drf.ParseError, "malformed_body"),
    (drf.NotAuthenticated, "not_authenticated"),
    (drf.AuthenticationFailed, "authentication_failed"),
    (drf.PermissionDenied, "permission_denied"),
    (drf.NotFound, "not_found"),
    (drf.MethodNotAllowed, "method_not_allowed"),
    (drf.NotAcceptable, "not_acceptable"),
    (drf.UnsupportedMediaType, "unsupported_media_type"),
    (drf.Throttled, "throttled"),
)


def _drf_code(exc: drf.APIException) -> str:
    for exc_type, code in _DRF_CODES:
        if isinstance(exc, exc_type):
            return code
    return str(exc.default_code)


def field_errors(detail: Any, path: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Flatten DRF's nested ``ValidationError.detail`` into ``[{field, code, message}]``.

    ``field`` is the dotted path to the offending value (list items by index); errors that
    concern an object as a whole (``non_field_errors``) sit at the object's own path, or
    ``None`` at the top.
    """
    if isinstance(detail, Mapping):
        flat: list[dict[str, Any]] = []
        for key, value in detail.items():
            key = str(key)
            child = path if key == api_settings.NON_FIELD_ERRORS_KEY else (*path, key)
            flat.extend(field_errors(value, child))
        return flat
    if isinstance(detail, list | tuple):
        flat = []
        for index, item in enumerate(detail):
            if isinstance(item, Mapping | list | tuple):
                flat.extend(field_errors(item, (*path, str(index))))
            else:
                flat.extend(field_errors(item, path))
        return flat
    return [
        {
            "field": ".".join(path) or None,
            "code": str(getattr(detail, "code", None) or "invalid"),
            "message": str(detail),
        }
    ]


def _validation_detail(errors: list[dict[str, Any]]) -> str:
    if len(errors) == 1:
        only = errors[0]
        return f"{only['field']}: {only['message']}" if only["field"] else str(only["message"])
    return f"The request has {len(errors)} problems; see errors."


def problem_exception_handler(exc: Exception, context: Mapping[str, Any]) -> Response | None:
    """DRF ``EXCEPTION_HANDLER``: every error a view raises becomes a problem document.

    Exceptions that are neither DRF's nor a ``ServiceError`` are bugs: they are left to Django
    (return ``None``), which logs them and renders a 500 problem via ``server_error``.
    """
    if isinstance(exc, Http404):
        exc = drf.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = drf.PermissionDenied()

    request = context.get("request")
    instance = getattr(request, "path", None)
    headers: dict[str, str] = {}

    if isinstance(exc, ServiceError):
        body = problem_body(
            status=exc.status,
            code=exc.code,
            detail=exc.message,
            title=exc.title,
            instance=instance,
            extra=exc.extra,
        )
    elif isinstance(exc, drf.APIException):
        code = _drf_code(exc)
        extra: dict[str, Any] = {}
        if isinstance(exc, drf.ValidationError):
            extra["errors"] = field_errors(exc.detail)
            detail = _validation_detail(extra["errors"])
        else:
            detail = str(exc.detail)
        wait = getattr(exc, "wait", None)
        if isinstance(exc, drf.Throttled):
            extra["retry_after"] = wait
        auth_header = getattr(exc, "auth_header", None)
        if auth_header:
            headers["WWW-Authenticate"] = auth_header
        if wait:
            headers["Retry-After"] = str(int(wait))
        body = problem_body(
            status=exc.status_code, code=code, detail=detail, instance=instance, extra=extra
        )
    else:
        return None

    set_rollback()
    return Response(body, status=body["status"], headers=headers, content_type=PROBLEM_CONTENT_TYPE)


# ----------------------------------------------------------------------------- Django handlers
# Installed as handler400/403/404/500 in urls.py; Django uses them only when DEBUG is off.


def _problem_response(request: HttpRequest, status: int, code: str, detail: str) -> JsonResponse:
    body = problem_body(status=status, code=code, detail=detail, instance=request.path)
    return JsonResponse(body, status=status, content_type=PROBLEM_CONTENT_TYPE)


def bad_request(request: HttpRequest, exception: Exception) -> JsonResponse:
    return _problem_response(request, 400, "bad_request", "The request could not be understood.")


def permission_denied(request: HttpRequest, exception: Exception) -> JsonResponse:
    return _problem_response(
        request, 403, "permission_denied", "You do not have permission to perform this action."
    )


def page_not_found(request: HttpRequest, exception: Exception) -> JsonResponse:
    return _problem_response(request, 404, "not_found", "There is nothing at this URL.")


def server_error(request: HttpRequest) -> JsonResponse:
    return _problem_response(
        request, 500, "internal_error", "The server failed to handle the request; it was logged."
    )
