"""Errors as values with stable codes, mapped to HTTP in one place.

Services raise ``ServiceError`` (or a subclass) and never build responses; DRF hands every
exception a view lets through to ``problem_exception_handler``, which renders an RFC 9457
problem document (see ``problems.py``). Django-level errors outside DRF views (an unknown URL,
an uncaught exception) get the same shape through the ``handler4xx/500`` views at the end of
this module, which ``urls.py`` installs.

Every code, its status, title and extension members are declared once, in the catalogue of
``core.errors`` (``manage.py errors`` prints it): the framework's codes produced here
(``invalid_request`` with ``errors``, ``malformed_body``, ``bad_request``,
``not_authenticated``, ``authentication_failed``, ``permission_denied``, ``not_found``,
``method_not_allowed``, ``not_acceptable``, ``unsupported_media_type``, ``throttled`` with
``retry_after``, ``database_unavailable`` with ``retry_after``, ``internal_error``), the
service's and the rules engine's.

A database that fails a request (a killed session, a dropped connection, no pool connection
free in time: Django's ``OperationalError``/``InterfaceError``) is not a bug in the request:
the transaction rolled back, so the answer is 503 ``database_unavailable`` with Retry-After,
which tells a client that sending it again is safe.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, JsonResponse
from django.utils.translation import gettext_noop
from rest_framework import exceptions as drf
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import set_rollback

from core.errors import CATALOGUE, ServiceError
from core.i18n import translated, translated_template
from core.problems import PROBLEM_CONTENT_TYPE, problem_body

__all__ = ["field_errors", "problem_exception_handler"]

logger = logging.getLogger(__name__)

# Seconds a client is asked to wait after a database failure before sending the request again.
DATABASE_RETRY_AFTER_SECONDS = 2


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
    """The catalogue code of a DRF exception: by its type, else its own ``default_code`` if
    the catalogue declares it with that status, else ``bad_request`` (4xx) or
    ``internal_error``."""
    for exc_type, code in _DRF_CODES:
        if isinstance(exc, exc_type):
            return code
    own = CATALOGUE.get(str(exc.default_code))
    if own is not None and own.status == exc.status_code:
        return own.code
    return "bad_request" if 400 <= exc.status_code < 500 else "internal_error"


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
    """The detail of ``invalid_request``, in the active language (each field error's message
    too: DRF's own are translated by DRF, the service's by its catalogue)."""
    for error in errors:
        error["message"] = translated(str(error["message"]))
    if len(errors) == 1:
        only = errors[0]
        return f"{only['field']}: {only['message']}" if only["field"] else str(only["message"])
    return translated_template(
        gettext_noop("The request has %(count)s problems; see errors."), {"count": len(errors)}
    )


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
        # In the active language: the template translated with its values, else the exact text,
        # else the class's or the code's default message (core.i18n).
        fallback = exc.default_message or CATALOGUE[exc.code].message
        if exc.params is not None:
            detail = translated_template(exc.template, exc.params, fallback)
        else:
            detail = translated(exc.message, fallback)
        body = problem_body(
            code=exc.code, detail=detail, instance=instance, extra=exc.extra, localize=False
        )
        if exc.extra.get("retry_after"):
            headers["Retry-After"] = str(max(1, math.ceil(exc.extra["retry_after"])))
    elif isinstance(exc, drf.APIException):
        code = _drf_code(exc)
        extra: dict[str, Any] = {}
        # DRF's own details are translated by DRF when the exception is made (the throttle's
        # wait included); another text goes through the service's catalogue (problem_body).
        localize = True
        if isinstance(exc, drf.ValidationError):
            extra["errors"] = field_errors(exc.detail)
            detail = _validation_detail(extra["errors"])
            localize = False
        else:
            detail = str(exc.detail)
            localize = not isinstance(exc, drf.Throttled) and detail != str(exc.default_detail)
        wait = getattr(exc, "wait", None)
        if isinstance(exc, drf.Throttled):
            extra["retry_after"] = wait
        auth_header = getattr(exc, "auth_header", None)
        if auth_header:
            headers["WWW-Authenticate"] = auth_header
        if wait:
            headers["Retry-After"] = str(max(1, math.ceil(wait)))
        body = problem_body(
            code=code, detail=detail, instance=instance, extra=extra, localize=localize
        )
    elif isinstance(exc, OperationalError | InterfaceError):
        # The message may quote SQL or parameters: it goes to the log, never to the client.
        logger.warning("database failure on %s: %s", instance, type(exc).__name__, exc_info=exc)
        body = problem_body(
            code="database_unavailable",
            detail=gettext_noop(
                "The database failed this request and it was rolled back; send it again "
                "(with the same Idempotency-Key) after Retry-After seconds."
            ),
            instance=instance,
            extra={"retry_after": DATABASE_RETRY_AFTER_SECONDS},
        )
        headers["Retry-After"] = str(DATABASE_RETRY_AFTER_SECONDS)
    else:
        return None

    set_rollback()
    return Response(body, status=body["status"], headers=headers, content_type=PROBLEM_CONTENT_TYPE)


# ----------------------------------------------------------------------------- Django handlers
# Installed as handler400/403/404/500 in urls.py; Django uses them only when DEBUG is off.


def _problem_response(request: HttpRequest, code: str, detail: str) -> JsonResponse:
    body = problem_body(code=code, detail=detail, instance=request.path)
    return JsonResponse(body, status=body["status"], content_type=PROBLEM_CONTENT_TYPE)


def bad_request(request: HttpRequest, exception: Exception) -> JsonResponse:
    return _problem_response(
        request, "bad_request", gettext_noop("The request could not be understood.")
    )


def permission_denied(request: HttpRequest, exception: Exception) -> JsonResponse:
    return _problem_response(
        request,
        "permission_denied",
        gettext_noop("You do not have permission to perform this action."),
    )


def page_not_found(request: HttpRequest, exception: Exception) -> JsonResponse:
    return _problem_response(request, "not_found", gettext_noop("There is nothing at this URL."))


def server_error(request: HttpRequest) -> JsonResponse:
    return _problem_response(
        request,
        "internal_error",
        gettext_noop("The server failed to handle the request; it was logged."),
    )
