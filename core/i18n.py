"""The language of an answer: which one a request gets, and the server's texts in it.

English is the source language; ``settings.LANGUAGES`` lists the others, whose catalogues are
``locale/<lang>/LC_MESSAGES/django.po`` (compiled to ``.mo``; ``manage.py servermessages``).
A request's language is

1. its player's account setting (``Player.language``), when the account has one: the
   authentication classes of ``accounts.api.authentication`` activate it once the request's
   credential is known, so it wins over the header;
2. else ``Accept-Language`` (``LocaleMiddleware``, Django's negotiation: ``pt`` finds
   ``pt-BR``, a language not offered gets English).

Every answer says which in ``Content-Language`` (a BCP 47 tag: ``pt-BR``) and carries
``Vary: Accept-Language``. Codes, field names and every other identifier stay the same in
every language; only the human texts (problem ``title`` and ``detail``, the rule book's
explanations, notification texts) change.

Texts with variable parts are translated as templates with named placeholders
(``"Seat %(seat)s does not exist."``); a text the catalogue does not hold is replaced by its
error code's default message (``translated``), which names no card, never left half English.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from django.middleware.locale import LocaleMiddleware as DjangoLocaleMiddleware
from django.utils import translation
from django.utils.translation import trans_real

__all__ = [
    "LocaleMiddleware",
    "english_active",
    "language_code",
    "language_tag",
    "language_tags",
    "translated",
    "translated_template",
]


def language_tag(code: str | None) -> str:
    """The BCP 47 tag of a Django language code: ``pt-br`` -> ``pt-BR``, ``es`` -> ``es``."""
    if not code:
        return str(settings.LANGUAGE_CODE)
    base, _, region = code.partition("-")
    return f"{base.lower()}-{region.upper()}" if region else base.lower()


def language_tags() -> tuple[str, ...]:
    """The tags of the languages offered (``settings.LANGUAGES``), English first."""
    return tuple(language_tag(code) for code, _ in settings.LANGUAGES)


def language_code(tag: str) -> str | None:
    """The Django code of an offered language named by its tag or code, in any case
    (``pt-BR``, ``pt_br``, ``PT-br``), or None if it is not one of ``settings.LANGUAGES``."""
    wanted = tag.strip().replace("_", "-").lower()
    for code, _ in settings.LANGUAGES:
        if code.lower() == wanted:
            return str(code)
    return None


def language_negotiate(accept_language: str, account_language: str = "") -> str:
    """The language of an answer made outside Django's middleware (the live server's fast path
    and its socket), chosen as the middleware chooses: the account's setting, else the best
    supported match of ``Accept-Language``, else the default."""
    chosen = language_code(account_language) if account_language else None
    if chosen:
        return chosen
    for tag, _quality in trans_real.parse_accept_lang_header(accept_language[:500]):
        if tag == "*":
            break
        try:
            return str(translation.get_supported_language_variant(tag))
        except LookupError:
            continue
    return str(settings.LANGUAGE_CODE)


def english_active() -> bool:
    """Is the active language the source language (no translation to look up)?"""
    language = translation.get_language()
    return language is None or language.split("-")[0] == "en"


def translated(text: str, fallback: str | None = None) -> str:
    """``text`` in the active language: its translation if the catalogue holds it, else
    ``fallback``'s (the error code's default message), else ``text`` as it is."""
    if not text or english_active():
        return text
    found = translation.gettext(text)
    if found != text:
        return found
    if fallback:
        return translation.gettext(fallback)
    return text


def translated_template(
    template: str, params: Mapping[str, Any], fallback: str | None = None
) -> str:
    """``template % params`` with the template in the active language; if the catalogue has
    no translation of it (or a broken one), ``fallback`` translated, else the English text."""
    text = template % params
    if english_active():
        return text
    found = translation.gettext(template)
    if found != template:
        try:
            return found % params
        except (KeyError, ValueError, TypeError):
            pass
    return translation.gettext(fallback) if fallback else text


class LocaleMiddleware(DjangoLocaleMiddleware):
    """Django's ``LocaleMiddleware`` (the language from ``Accept-Language``, ``Vary``), whose
    ``Content-Language`` is the BCP 47 tag of the language the answer was made in, which may
    be the account's setting activated during the request. The request's language ends with
    it: whatever runs next on the thread (outside a request) speaks the default, English."""

    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        response.headers.setdefault("Content-Language", language_tag(translation.get_language()))
        result: HttpResponseBase = super().process_response(request, response)
        translation.deactivate()
        return result
