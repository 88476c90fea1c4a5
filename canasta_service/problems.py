"""RFC 9457 problem documents: the one shape every error response of the API takes.

A problem document is a JSON object served as ``application/problem+json``::

    {"type": "urn:canasta:problem:not_found", "title": "Not Found", "status": 404,
     "detail": "No game 42.", "code": "not_found", "instance": "/api/v1/games/42/"}

``code`` is a stable snake_case identifier that clients switch on; ``type`` is the same code as
a URI (a URN: an identifier, not a page to fetch). Errors may add members of their own (for
example ``errors`` for field errors, ``retry_after`` for throttling, ``current_version`` for a
stale write). ``problem_responses`` documents them in OpenAPI::

    @extend_schema(responses={200: GameSerializer, **problem_responses(404, 409)})
"""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers

PROBLEM_CONTENT_TYPE = "application/problem+json"
PROBLEM_TYPE_PREFIX = "urn:canasta:problem:"
RESERVED_MEMBERS = frozenset({"type", "title", "status", "detail", "code", "instance"})


def problem_body(
    *,
    status: int,
    code: str,
    detail: str,
    title: str | None = None,
    instance: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Build a problem document. ``extra`` members may not replace the standard ones."""
    body: dict[str, Any] = {
        "type": f"{PROBLEM_TYPE_PREFIX}{code}",
        "title": title or HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
    }
    if instance:
        body["instance"] = instance
    for key, value in (extra or {}).items():
        if key in RESERVED_MEMBERS:
            raise ValueError(f"problem extension member {key!r} would replace a standard member")
        body[key] = value
    return body


class ProblemFieldErrorSerializer(serializers.Serializer[Any]):
    field = serializers.CharField(
        allow_null=True,
        help_text="Dotted path of the offending field (`players.0.name`); null for the request "
        "as a whole.",
    )
    code = serializers.CharField(help_text="Stable snake_case code, e.g. `required`.")
    message = serializers.CharField(help_text="Human-readable message.")


class ProblemSerializer(serializers.Serializer[Any]):
    """An RFC 9457 problem document. Extension members may be present besides these."""

    type = serializers.CharField(
        help_text="URI identifying the problem type: `urn:canasta:problem:<code>`."
    )
    title = serializers.CharField(help_text="Short summary of the problem type.")
    status = serializers.IntegerField(help_text="The HTTP status code.")
    detail = serializers.CharField(help_text="Explanation specific to this occurrence.")
    code = serializers.CharField(help_text="Stable snake_case error code, e.g. `not_found`.")
    instance = serializers.CharField(
        required=False, help_text="The request path this problem occurred on."
    )
    # A declared field, not the Serializer.errors property (the metaclass moves it aside).
    errors = ProblemFieldErrorSerializer(  # type: ignore[assignment]
        many=True, required=False, help_text="Field errors (only for code `invalid_request`)."
    )
    retry_after = serializers.IntegerField(
        required=False, allow_null=True, help_text="Seconds to wait (only for code `throttled`)."
    )


_DESCRIPTIONS = {
    400: "Invalid request (`invalid_request` with field `errors`, or `malformed_body`).",
    401: "Not authenticated (`not_authenticated`, `authentication_failed`).",
    403: "Not allowed (`permission_denied`).",
    404: "No such resource (`not_found`).",
    405: "Method not allowed (`method_not_allowed`).",
    409: "Conflict with the current state of the resource.",
    422: "The request is well-formed but breaks a rule.",
    429: "Too many requests (`throttled`); see `retry_after` and the Retry-After header.",
}


def problem_responses(*statuses: int) -> dict[tuple[int, str], OpenApiResponse]:
    """OpenAPI responses for the given error statuses, for ``@extend_schema(responses=...)``."""
    return {
        (status, PROBLEM_CONTENT_TYPE): OpenApiResponse(
            response=ProblemSerializer,
            description=_DESCRIPTIONS.get(status, HTTPStatus(status).phrase),
        )
        for status in statuses
    }
