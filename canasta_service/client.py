"""The browser client's page at ``/``, its service worker at ``/sw.js`` and its web app manifest
at ``/manifest.webmanifest``.

The client is built from ``web/`` (``make web``) into ``games/static/client/`` and committed, so
serving it needs only Python: these views return its ``index.html``, ``sw.js`` and
``manifest.webmanifest``, and the static files app (``runserver`` with DEBUG) or WhiteNoise
(``WHITENOISE_USE_FINDERS``, gunicorn) serves its other assets under ``/static/client/``. The
worker is served at the root so that its scope (``/``) covers the page, which it caches for
offline use; the manifest's ``scope`` and ``start_url`` are ``/`` too. The client talks to the
public API only.
"""

from __future__ import annotations

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

CLIENT_INDEX = "client/index.html"
CLIENT_WORKER = "client/sw.js"
CLIENT_MANIFEST = "client/manifest.webmanifest"


def _built_file(name: str, content_type: str) -> HttpResponse:
    """A file of the built client, revalidated on every use (``no-cache``: a new build is seen
    at once, and the browser checks the worker for updates on each visit)."""
    path = finders.find(name)
    if not path or isinstance(path, list):
        return HttpResponse(
            "The web client is not built: run `make web`.", status=503, content_type="text/plain"
        )
    with open(path, encoding="utf-8") as built:
        response = HttpResponse(built.read(), content_type=content_type)
    response["Cache-Control"] = "no-cache"
    return response


@require_safe
def client_page(request: HttpRequest) -> HttpResponse:
    return _built_file(CLIENT_INDEX, "text/html; charset=utf-8")


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """The worker at the root: its scope is ``/`` (it controls the page and the app shell's
    files; the API it leaves to the network but for its public translations and rules)."""
    return _built_file(CLIENT_WORKER, "text/javascript; charset=utf-8")


@require_safe
def web_manifest(request: HttpRequest) -> HttpResponse:
    """The web app manifest (name, icons, colours, ``display: standalone``)."""
    return _built_file(CLIENT_MANIFEST, "application/manifest+json")
