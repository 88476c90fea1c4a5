"""``core.i18n``: language tags and codes, and the server's texts in the active language, where
a text the catalogue does not hold becomes its code's default message (never half English)."""

from __future__ import annotations

from django.http import HttpResponse
from django.test import RequestFactory
from django.utils import translation

from core.errors import CATALOGUE
from core.i18n import (
    LocaleMiddleware,
    english_active,
    language_code,
    language_tag,
    language_tags,
    translated,
    translated_template,
)

NOT_FOUND = CATALOGUE["not_found"].message


def test_tags_and_codes() -> None:
    assert language_tags() == ("en", "es", "pt-BR", "it", "de")
    assert language_tag("pt-br") == "pt-BR" and language_tag("es") == "es"
    for given in ("pt-BR", "pt_br", "PT-br", " pt-BR "):
        assert language_code(given) == "pt-br"
    assert language_code("DE") == "de"
    for unknown in ("fr", "pt", "english", ""):
        assert language_code(unknown) is None


def test_a_text_is_translated_or_replaced_by_its_fallback() -> None:
    with translation.override("en"):
        assert english_active()
        assert translated("Anything at all.", NOT_FOUND) == "Anything at all."
    with translation.override("es"):
        assert not english_active()
        assert translated("Not found") == "No encontrado"
        # Not in the catalogue: the fallback in Spanish, not the English text.
        assert translated("No game 42 here.", NOT_FOUND).startswith("No existe tal recurso")
        assert translated("No game 42 here.") == "No game 42 here."
        assert translated("") == ""


def test_a_template_is_translated_whole_and_a_broken_one_falls_back() -> None:
    template = "Step %(at)s is not in the log: choose 1 to %(current_version)s."
    params = {"at": 9, "current_version": 7}
    with translation.override("en"):
        assert translated_template(template, params) == ("Step 9 is not in the log: choose 1 to 7.")
    with translation.override("it"):
        assert translated_template(template, params) == (
            "Il passo 9 non è nel log: scegli da 1 a 7."
        )
        unknown = "Nothing %(n)s here."
        assert translated_template(unknown, {"n": 1}, NOT_FOUND).startswith("Risorsa inesistente")
        assert translated_template(unknown, {"n": 1}) == "Nothing 1 here."


def test_the_middleware_answers_with_the_tag_and_varies() -> None:
    middleware = LocaleMiddleware(lambda request: HttpResponse("ok"))
    response = middleware(RequestFactory().get("/", HTTP_ACCEPT_LANGUAGE="pt-BR,pt;q=0.9"))
    assert isinstance(response, HttpResponse)
    assert response["Content-Language"] == "pt-BR"
    assert "Accept-Language" in response["Vary"]
    english = middleware(RequestFactory().get("/", HTTP_ACCEPT_LANGUAGE="fr"))
    assert isinstance(english, HttpResponse)
    assert english["Content-Language"] == "en"
