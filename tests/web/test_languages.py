"""The web client in another language (headless Chromium): the language chooser, the lobby
and the table in Spanish (axe still clean), the choice saved to the account and sent as
``Accept-Language``, the browser's own language on a first visit, and English when the
catalogue cannot be read."""

from __future__ import annotations

import re
from typing import Any

import pytest

from accounts.models import Player
from tests.web.conftest import axe_violations, describe_violations
from tests.web.test_client import expect, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SPANISH_CARD = r"^((As|Rey|Reina|Jota|10|[2-9]) de (tréboles|diamantes|corazones|picas)|Comodín)"


def assert_axe_clean(page: Any) -> None:
    violations = axe_violations(page)
    assert not violations, describe_violations(violations)


def test_the_lobby_and_the_table_in_spanish(
    live_server: Any, page: Any, js_errors: list[str]
) -> None:
    languages: list[str] = []
    page.on(
        "request",
        lambda r: (
            languages.append(r.headers.get("accept-language", ""))
            # An event stream (EventSource, the fallback when the socket is refused) cannot
            # carry headers: the server answers it in the account's language.
            if "/api/v1/games/" in r.url and "/stream/" not in r.url
            else None
        ),
    )
    sign_up(page, live_server.url)
    expect(page.get_by_test_id("nav-games")).to_have_text("My games")  # English by default
    page.select_option("#language", "es")  # the page is drawn again in Spanish

    expect(page.get_by_test_id("nav-games")).to_have_text("Mis partidas")
    languages.clear()  # what the English page asked before
    assert page.evaluate("document.documentElement.lang") == "es"
    expect(page.get_by_test_id("create-form").locator("h2")).to_have_text("Nueva mesa")
    expect(page.get_by_test_id("create-game")).to_have_text("Crear y jugar")
    expect(page.get_by_test_id("language")).to_have_value("es")
    # The chooser names each language in itself.
    assert page.locator("#language option").all_inner_texts() == [
        "English",
        "Español",
        "Português (Brasil)",
        "Italiano",
        "Deutsch",
    ]
    assert_axe_clean(page)
    # Signed in: the account's setting too (the server answers in it).
    player = Player.objects.get(display_name="Ada")
    assert player.language == "es"

    page.get_by_test_id("create-game").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(page.get_by_test_id("status")).to_contain_text("Tu turno")
    expect(page.get_by_test_id("draw")).to_have_text("Robar")
    expect(page.get_by_test_id("discard")).to_have_text("Descartar")
    expect(page.locator("#your-hand-title")).to_have_text("Tu mano")
    expect(page.get_by_test_id("hand-count")).to_have_text("11 cartas")
    expect(page.get_by_test_id("hand-card").first).to_have_attribute(
        "aria-label", re.compile(SPANISH_CARD)
    )
    assert_axe_clean(page)
    page.get_by_test_id("draw").click()
    expect(page.get_by_test_id("status")).to_contain_text("descarta")
    assert_axe_clean(page)
    assert languages and set(languages) == {"es"}
    assert not js_errors, js_errors


def test_a_first_visit_follows_the_browsers_language(
    live_server: Any, browser_context: Any, js_errors: list[str]
) -> None:
    browser_context.add_init_script(
        "Object.defineProperty(navigator, 'languages', { get: () => ['de-DE', 'de'] });"
    )
    page = browser_context.pages[0] if browser_context.pages else browser_context.new_page()
    page.goto(live_server.url + "/")
    expect(page.locator("h1")).to_have_text("Spiele Canasta gegen Bots oder Freunde")
    expect(page.get_by_test_id("sign-up")).to_have_text("Spielen")
    expect(page.get_by_test_id("language")).to_have_value("de")
    assert page.evaluate("document.documentElement.lang") == "de"
    # Chosen on the sign-up page (not signed in: kept in this browser only).
    page.select_option("#language", "pt-br")
    expect(page.get_by_test_id("sign-up")).to_have_text("Jogar")
    assert page.evaluate("document.documentElement.lang") == "pt-BR"


def test_english_when_the_catalogue_cannot_be_read(
    live_server: Any, browser_context: Any, js_errors: list[str]
) -> None:
    browser_context.add_init_script("localStorage.setItem('canasta.language', 'it')")
    page = browser_context.pages[0] if browser_context.pages else browser_context.new_page()
    page.route("**/api/v1/i18n/catalog/**", lambda route: route.abort())
    page.goto(live_server.url + "/")
    expect(page.get_by_test_id("sign-up")).to_have_text("Play")
    assert page.evaluate("document.documentElement.lang") == "en"
    assert not js_errors, js_errors
