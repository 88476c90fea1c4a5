"""The web client's translations: Django's JSON catalogue of the ``djangojs`` domain
(``locale/<lang>/LC_MESSAGES/djangojs.po``, extracted from ``web/src`` by ``manage.py
webmessages``), at ``GET /api/v1/i18n/catalog/``.

The language is ``?lang=`` when it names one of ``LANGUAGES``, else the request's (the
``Accept-Language`` header, as ``LocaleMiddleware`` reads it). Public and cacheable: the answer
varies only with the language, never with who asks.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.cache import patch_cache_control, patch_vary_headers
from django.utils.translation.trans_real import DjangoTranslation
from django.views.i18n import JSONCatalog

CATALOGUE_MAX_AGE = 3600


def catalogue_language(request: HttpRequest) -> str:
    """``?lang=`` if supported, else the language negotiated from the request."""
    asked = request.GET.get("lang", "")
    if asked:
        try:
            return translation.get_supported_language_variant(asked)
        except LookupError:
            pass
    return translation.get_language_from_request(request)


class WebCatalogue(JSONCatalog):
    """JSONCatalog over the project's own catalogues (``LOCALE_PATHS``) only: the admin's
    JavaScript strings stay out of the web client's catalogue."""

    domain = "djangojs"

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        language = catalogue_language(request)
        with translation.override(language):
            self.translation = DjangoTranslation(
                language, domain=self.domain, localedirs=[str(p) for p in settings.LOCALE_PATHS]
            )
            context = self.get_context_data(**kwargs)
            response = self.render_to_response(context)
        base, _, region = language.partition("-")
        response["Content-Language"] = f"{base}-{region.upper()}" if region else base
        patch_vary_headers(response, ("Accept-Language",))
        patch_cache_control(response, public=True, max_age=CATALOGUE_MAX_AGE)
        return response
