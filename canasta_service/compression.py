"""gzip for the app's answers (``make run``, the WSGI API and the ASGI live server alike; nginx
compresses the same types in production, deploy/nginx.conf).

Django's ``GZipMiddleware`` as it is, except for three kinds of answer it leaves alone:

- a streaming answer (the Server-Sent Events stream above all): a gzip stream holds bytes
  back until its buffer fills, and a frame must reach the client when it is written;
- ``text/event-stream`` under any other form, and an answer marked ``Cache-Control:
  no-transform``;
- the answers that carry a credential (``SECRET_PATHS``: tokens created once, the account's
  token and session endpoints, allauth's headless API, the OpenID Connect provider, the admin):
  compressing a secret next to text an attacker can reflect into the same answer leaks it one
  byte at a time through the compressed length (BREACH). docs/api.md, "Light payloads".

Django's own compression already pads each body with up to 100 random bytes (its BREACH
mitigation); the routes above are not compressed at all.
"""

from __future__ import annotations

import re

from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.middleware.gzip import GZipMiddleware

# Path prefixes whose answers may carry a credential (a token, a session key, an OAuth code):
# never compressed. Kept in step with deploy/nginx.conf's location of the same paths.
SECRET_PATHS = re.compile(
    r"^/(?:api/v1/(?:players/?$|account/)|_allauth/|identity/|\.well-known/|admin/)"
)


def compressible(request: HttpRequest, response: HttpResponseBase) -> bool:
    """Whether the answer may be gzipped: not a stream, not an event stream, not marked
    ``no-transform``, not on a route that carries a credential."""
    if response.streaming:
        return False
    if response.get("Content-Type", "").startswith("text/event-stream"):
        return False
    if "no-transform" in response.get("Cache-Control", ""):
        return False
    return not SECRET_PATHS.match(request.path)


class ApiGZipMiddleware(GZipMiddleware):
    """``GZipMiddleware`` without streams, event streams and credential-bearing routes."""

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if not compressible(request, response):
            return response
        compressed: HttpResponseBase = super().process_response(request, response)
        return compressed
