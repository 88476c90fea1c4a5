"""RFC 9457 problem documents: the one shape every error response of the API takes.

A problem document is a JSON object served as ``application/problem+json``::

    {"type": "urn:canasta:problem:not_found", "title": "Not found", "status": 404,
     "detail": "No game 42.", "code": "not_found", "instance": "/api/v1/games/42/"}

``code`` is a stable snake_case identifier that clients switch on; ``type`` is the same code as
a URI (a URN: an identifier, not a page to fetch). Every code, with its status, title and the
extension members it may add (``errors`` for field errors, ``retry_after`` for throttling,
``current_version`` for a stale write, ...), is declared once in the catalogue of
``core.errors``; ``problem_body`` builds documents from it and refuses anything else.

``problem_responses`` is the one builder of their OpenAPI description: give it the codes an
operation may answer (strings, ``ServiceError`` subclasses, or groups of them) and it documents
one response per status, listing that status's codes with their members, with an example::

    @extend_schema(responses={200: GameSerializer, **problem_responses(AUTH, "not_found")})
"""

from __future__ import annotations

from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import serializers

from core.errors import (
    CATALOGUE,
    MEMBERS,
    RESERVED_MEMBERS,
    Codes,
    ErrorSpec,
    Member,
    codes,
    markdown_table,
    members_check,
    spec_of,
    specs_of,
)
from core.i18n import translated

__all__ = [
    "AUTH",
    "BODY",
    "PROBLEM_CONTENT_TYPE",
    "RESERVED_MEMBERS",
    "GameProblemSerializer",
    "ProblemSerializer",
    "problem_body",
    "problem_responses",
]

PROBLEM_CONTENT_TYPE = "application/problem+json"

# Groups of codes many operations share.
# Every endpoint that needs a key (insufficient_scope: a token without a scope the view declares).
AUTH = ("not_authenticated", "authentication_failed", "insufficient_scope")
BODY = ("invalid_request", "malformed_body", "body_too_large")  # every endpoint with a body


def problem_body(
    *,
    code: str,
    detail: str,
    status: int | None = None,
    instance: str | None = None,
    extra: Mapping[str, Any] | None = None,
    localize: bool = True,
) -> dict[str, Any]:
    """A problem document for ``code``, with the catalogue's status and title.

    ``status``, if given, must be the catalogue's; ``extra`` may hold only the extension
    members the code declares (never a standard member). The title and the detail are in the
    active language (``core.i18n``): an English ``detail`` the catalogue does not translate
    becomes the code's default message in that language; ``localize=False`` for a detail
    already translated.
    """
    spec = spec_of(code)
    if status is not None and status != spec.status:
        raise ValueError(f"{spec.code} is {spec.status}, not {status}")
    members = dict(extra or {})
    members_check(spec, members)
    body: dict[str, Any] = {
        "type": spec.type,
        "title": gettext(spec.title),
        "status": spec.status,
        "detail": translated(detail, spec.message) if localize else detail,
        "code": spec.code,
    }
    if instance:
        body["instance"] = instance
    body.update(members)
    return body


# ============================================================================== schemas
class ProblemFieldErrorSerializer(serializers.Serializer[Any]):
    field = serializers.CharField(
        allow_null=True,
        help_text="Dotted path of the offending field (`players.0.name`); null for the request "
        "as a whole.",
    )
    code = serializers.CharField(help_text="Stable snake_case code, e.g. `required`.")
    message = serializers.CharField(help_text="Human-readable message.")


def _member_field(member: Member, users: list[str]) -> serializers.Field[Any, Any, Any, Any]:
    only = ", ".join(f"`{code}`" for code in users)
    text = f"{member.description} Only for code{'s' if len(users) > 1 else ''} {only}."
    if member.type == "integer":
        return serializers.IntegerField(required=False, allow_null=member.nullable, help_text=text)
    if member.type == "string":
        return serializers.CharField(required=False, allow_null=member.nullable, help_text=text)
    if member.type == "strings":
        return serializers.ListField(
            child=serializers.CharField(),
            required=False,
            allow_null=member.nullable,
            help_text=text,
        )
    return ProblemFieldErrorSerializer(
        many=True, required=False, allow_null=member.nullable, help_text=text
    )


def _problem_serializer(
    name: str, intro: str, specs: tuple[ErrorSpec, ...]
) -> type[serializers.Serializer[Any]]:
    """A problem document's serializer (an OpenAPI component): the standard members and the
    extension members of ``specs``, with ``specs``' table as its description."""
    fields: dict[str, Any] = {
        "type": serializers.CharField(
            help_text="URI identifying the problem type: `urn:canasta:problem:<code>`."
        ),
        "title": serializers.CharField(
            help_text="Short summary of the problem type (the same for every occurrence)."
        ),
        "status": serializers.IntegerField(help_text="The HTTP status code."),
        "detail": serializers.CharField(help_text="Explanation specific to this occurrence."),
        "code": serializers.CharField(
            help_text="Stable snake_case error code, one of the table above, e.g. `not_found`."
        ),
        "instance": serializers.CharField(
            required=False, help_text="The request path this problem occurred on."
        ),
    }
    for member in MEMBERS.values():
        users = [spec.code for spec in specs if member.name in spec.members]
        if users:
            fields[member.name] = _member_field(member, users)
    attrs: dict[str, Any] = {
        "__module__": __name__,
        "__doc__": f"{intro}\n\n{markdown_table(specs)}",
        "codes": frozenset(spec.code for spec in specs),
        **fields,
    }
    return type(name, (serializers.Serializer,), attrs)


ProblemSerializer = _problem_serializer(
    "ProblemSerializer",
    "An RFC 9457 problem document (`application/problem+json`). Switch on `code`; extension "
    "members may be present besides the standard ones. The codes of the service's own "
    "endpoints:",
    specs_of("framework"),
)
GameProblemSerializer = _problem_serializer(
    "GameProblemSerializer",
    "An RFC 9457 problem document (`application/problem+json`) from a game endpoint. Switch on "
    "`code`; the game is unchanged whenever an error is returned. Each operation lists the "
    "codes it answers; every code of the API, with the extension members it adds (the rules "
    "engine's codes come last):",
    tuple(CATALOGUE.values()),
)


# ============================================================================== responses
def _describe(spec: ErrorSpec) -> str:
    members = ", ".join(f"`{name}`" for name in spec.members)
    return f"- `{spec.code}`{f' (with {members})' if members else ''}: {spec.message}"


def _example(spec: ErrorSpec) -> OpenApiExample:
    return OpenApiExample(
        spec.code,
        value={
            "type": spec.type,
            "title": spec.title,
            "status": spec.status,
            "detail": spec.message,
            "code": spec.code,
            **{name: MEMBERS[name].example for name in spec.members},
        },
        response_only=True,
        status_codes=[str(spec.status)],
    )


def problem_responses(
    *items: Codes,
    serializer: type[serializers.Serializer[Any]] = GameProblemSerializer,
) -> dict[tuple[int, str], OpenApiResponse]:
    """OpenAPI responses for ``@extend_schema(responses=...)`` documenting the given codes.

    One ``application/problem+json`` response per status, whose description lists the codes
    (with their extension members) in the order given; its example is the first of them.
    ``serializer`` is ``GameProblemSerializer`` (game endpoints) or ``ProblemSerializer``
    (the framework's codes only).
    """
    by_status: dict[int, list[ErrorSpec]] = {}
    documented: frozenset[str] = getattr(serializer, "codes", frozenset())
    for code in codes(*items):
        if code not in documented:
            raise ValueError(f"{serializer.__name__} does not document {code!r}")
        spec = spec_of(code)
        by_status.setdefault(spec.status, []).append(spec)
    return {
        (status, PROBLEM_CONTENT_TYPE): OpenApiResponse(
            response=serializer,
            description=f"{HTTPStatus(status).phrase}: `code` is one of\n\n"
            + "\n".join(_describe(spec) for spec in specs),
            examples=[_example(specs[0])],
        )
        for status, specs in sorted(by_status.items())
    }


# ============================================================================== schema hook
_RETRY_AFTER_HEADER = {
    "Retry-After": {
        "description": "Seconds to wait before sending the request again (a whole number, at "
        "least 1). Rate limits (429) count per player, or per client address for requests "
        "without a token; the limits are listed in the README.",
        "schema": {"type": "integer", "minimum": 1},
    }
}


def problem_headers_hook(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """drf-spectacular post-processing: every 429 and 503 answer documents its ``Retry-After``
    header, and every operation documents 503 ``database_unavailable`` (any request may meet a
    database failure; it is rolled back and safe to send again)."""
    spec = spec_of("database_unavailable")
    unavailable = {
        "description": f"{HTTPStatus(spec.status).phrase}: `code` is\n\n{_describe(spec)}",
        "content": {
            PROBLEM_CONTENT_TYPE: {
                "schema": {"$ref": "#/components/schemas/Problem"},
                "examples": {
                    "DatabaseUnavailable": {
                        "value": problem_body(
                            code=spec.code, detail=spec.message, extra={"retry_after": 2}
                        ),
                        "summary": spec.title,
                    }
                },
            }
        },
    }
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            responses = operation["responses"]
            responses.setdefault("503", unavailable)
            for status in ("429", "503"):
                if status in responses:
                    responses[status].setdefault("headers", {}).update(_RETRY_AFTER_HEADER)
    return result
