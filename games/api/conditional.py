"""Conditional GETs: a strong ``ETag`` per viewer and representation, and ``304 Not Modified``
when the client's ``If-None-Match`` names it (RFC 9110 §8.8.3, §13.1.2).

The tag is a hash of the answer's data as rendered (compact JSON), computed after the data is
built, together with who asks (the player's id: one viewer's tag never validates another
viewer's body, even where both bodies happen to be equal), the media type negotiated and the
active language. The server's clock (``timer.server_time``, ``timer.seconds_left``) is left out
of the hash, or the game's tag would change at every request: on a 304 a client counts down from
``timer.deadline`` and the answer's ``Date`` header. docs/api.md, "Light payloads".

Compression makes a strong tag weak (``W/"..."``, nginx and ``GZipMiddleware`` alike);
``If-None-Match`` compares tags weakly, so the weak form the client saw matches too.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from django.utils import translation
from django.utils.cache import patch_vary_headers
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response

from games.selectors.live import json_text

# Per viewer: a shared cache must not keep it, and a client revalidates before each reuse.
PRIVATE = "private, no-cache"
# The fields of the server's clock, left out of the game's tag (the timer's).
CLOCK_FIELDS = ("server_time", "seconds_left")
ETAG_MAX_LENGTH = 2000  # an If-None-Match longer than this is ignored (answered in full)

IF_NONE_MATCH = OpenApiParameter(
    "If-None-Match",
    {"type": "string", "maxLength": ETAG_MAX_LENGTH},
    OpenApiParameter.HEADER,
    required=False,
    description="The `ETag` of the answer you hold (or several, comma-separated): if it is "
    "still the answer, 304 Not Modified without a body. Tags are per viewer and language.",
)
NOT_MODIFIED = OpenApiResponse(
    None,
    description="Not Modified: the answer you hold (its `ETag` sent as `If-None-Match`) is "
    "still the answer. No body; `ETag` and `Cache-Control` as in the 200.",
)


def without_clock(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` without the timer's clock fields (a shallow copy where they were)."""
    timer = data.get("timer")
    if not isinstance(timer, dict):
        return data
    return {**data, "timer": {k: v for k, v in timer.items() if k not in CLOCK_FIELDS}}


def etag_of(data: Any, *, viewer: object, media_type: str = "", language: str = "") -> str:
    """The strong tag of ``data`` (as rendered) for ``viewer`` in ``media_type`` and
    ``language``."""
    digest = hashlib.sha256()
    for part in (str(viewer), media_type, language, json_text(data)):
        digest.update(part.encode())
        digest.update(b"\0")
    return f'"{digest.hexdigest()[:32]}"'


def _opaque(tag: str) -> str:
    tag = tag.strip()
    return tag[2:] if tag.startswith("W/") else tag


def if_none_match_hits(header: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` names ``etag`` (weak comparison, ``*`` names any)."""
    if not header or len(header) > ETAG_MAX_LENGTH:
        return False
    tags: Iterable[str] = header.split(",")
    wanted = _opaque(etag)
    return any(t.strip() == "*" or _opaque(t) == wanted for t in tags)


def conditional_response(
    request: Request,
    data: Any,
    *,
    viewer: object,
    hashed: Any = None,
    vary_language: bool = False,
    code: int = status.HTTP_200_OK,
) -> Response:
    """``data`` as a 200 with its ``ETag``, or a bodiless 304 when ``If-None-Match`` names the
    tag. ``hashed``: what the tag is computed from, when not ``data`` itself (``data`` without
    its clock fields). ``vary_language``: the answer depends on ``Accept-Language``."""
    media_type = getattr(request, "accepted_media_type", "") or ""
    etag = etag_of(
        data if hashed is None else hashed,
        viewer=viewer,
        media_type=str(media_type),
        language=translation.get_language() or "",
    )
    headers = {"ETag": etag, "Cache-Control": PRIVATE}
    if if_none_match_hits(request.headers.get("If-None-Match"), etag):
        response = Response(status=status.HTTP_304_NOT_MODIFIED, headers=headers)
    else:
        response = Response(data, status=code, headers=headers)
    patch_vary_headers(response, ("Authorization", "Cookie"))
    if vary_language:
        patch_vary_headers(response, ("Accept-Language",))
    return response
