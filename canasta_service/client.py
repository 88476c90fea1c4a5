"""The browser client's page at ``/``.

The client is built from ``web/`` (``make web``) into ``games/static/client/`` and committed, so
serving it needs only Python: this view returns its ``index.html``, and the static files app
(``runserver`` with DEBUG) or WhiteNoise (``WHITENOISE_USE_FINDERS``, gunicorn) serves its assets
under ``/static/client/``. The client talks to the public API only.
"""

from __future__ import annotations

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_safe

CLIENT_INDEX = "client/index.html"


@require_safe
def client_page(request: HttpRequest) -> HttpResponse:
    path = finders.find(CLIENT_INDEX)
    if not path or isinstance(path, list):
        return HttpResponse(
            "The web client is not built: run `make web`.", status=503, content_type="text/plain"
        )
    with open(path, encoding="utf-8") as page:
        response = HttpResponse(page.read(), content_type="text/html; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    return response
