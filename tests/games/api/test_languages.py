"""The language of the answers (docs/api.md, "Languages"): problem titles and details and the
rule book follow ``Accept-Language`` (es, pt-BR, it, de; anything else gets English), or the
player's account setting, which wins over the header; ``Content-Language`` says which and
``Vary: Accept-Language`` is set. Codes never change."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.utils import translation
from rest_framework.test import APIClient

from core.errors import CATALOGUE
from games.engine import PRESET_DESCRIPTIONS
from tests.games.api.conftest import PlayerClient
from tests.games.selectors.replay.conftest import player_of, started_game

pytestmark = pytest.mark.django_db

MISSING_GAME = "/api/v1/games/999999/"


def problem(response: Any) -> dict[str, Any]:
    assert response["Content-Type"].startswith("application/problem+json"), response.content
    body: dict[str, Any] = response.json()
    return body


def spanish(text: str) -> str:
    with translation.override("es"):
        return translation.gettext(text)


def test_a_problem_is_in_the_language_asked_for_with_the_same_code(ada: PlayerClient) -> None:
    english = ada.get(MISSING_GAME)
    answers = {
        language: ada.get(MISSING_GAME, headers={"Accept-Language": language})
        for language in ("es", "pt-BR", "it", "de")
    }
    assert english.status_code == 404 and english["Content-Language"] == "en"
    base = problem(english)
    assert base["title"] == "Not found"
    assert base["detail"].startswith("There is no such game")
    titles = {base["title"]}
    for language, response in answers.items():
        body = problem(response)
        assert response.status_code == 404
        assert response["Content-Language"] == language
        assert "Accept-Language" in response["Vary"]
        assert (body["code"], body["type"], body["status"]) == (
            base["code"],
            base["type"],
            base["status"],
        )
        titles.add(body["title"])
        assert body["detail"] != base["detail"]
    assert len(titles) == 5  # each language its own title
    assert problem(answers["es"])["title"] == "No encontrado"
    assert problem(answers["es"])["detail"] == (
        "No existe tal partida (o es privada y usted no está en su mesa)."
    )
    assert problem(answers["pt-BR"])["title"] == "Não encontrado"
    assert problem(answers["de"])["title"] == "Nicht gefunden"


def test_an_engine_refusal_is_translated_without_its_dynamic_english(ada: PlayerClient) -> None:
    game = started_game(player_of(ada), preset="two_player", seat=0)
    action = {"type": "meld", "melds": [{"cards": ["QH", "QS", "QD"]}]}
    english = problem(ada.act(game.pk, action, game.version))
    response = ada.act(game.pk, action, game.version, **{"Accept-Language": "es"})
    body = problem(response)
    spec = CATALOGUE[body["code"]]
    assert spec.kind == "engine" and body["code"] == english["code"]
    assert response.status_code == english["status"] == spec.status
    assert body["title"] == spanish(spec.title) != spec.title
    # The engine's own text (English, perhaps naming the player's own cards) is not half
    # translated: the code's message, in Spanish, stands for it.
    assert body["detail"] == spanish(spec.message) != spec.message
    assert english["detail"] not in body["detail"]


def test_a_validation_error_is_translated_field_by_field(ada: PlayerClient) -> None:
    response = ada.post(
        "/api/v1/games/", {"players": "many"}, format="json", headers={"Accept-Language": "de"}
    )
    body = problem(response)
    assert response.status_code == 400 and body["code"] == "invalid_request"
    assert body["title"] == "Ungültige Anfrage"
    assert [e["field"] for e in body["errors"]] == ["players"]
    assert body["errors"][0]["code"] == "invalid"
    english = problem(ada.post("/api/v1/games/", {"players": "many"}, format="json"))
    assert english["errors"][0]["message"] != body["errors"][0]["message"]


def test_an_unknown_route_answers_in_the_language() -> None:
    response = APIClient().get("/api/v1/no-such-route/", headers={"Accept-Language": "it"})
    body = problem(response)
    assert response.status_code == 404 and body["code"] == "not_found"
    assert response["Content-Language"] == "it"
    assert body["title"] == "Non trovato"
    assert body["detail"] == "Non c'è nulla a questo URL."


def test_a_throttled_request_answers_in_the_language(
    ada: PlayerClient, rates: Callable[..., None]
) -> None:
    rates(game_create="1/minute")
    assert ada.post("/api/v1/games/", {}, format="json").status_code == 201
    response = ada.post("/api/v1/games/", {}, format="json", headers={"Accept-Language": "pt-BR"})
    body = problem(response)
    assert response.status_code == 429 and body["code"] == "throttled"
    assert response["Content-Language"] == "pt-BR"
    assert body["title"] == "Requisições demais"
    english = problem(ada.post("/api/v1/games/", {}, format="json"))
    assert english["title"] == "Too many requests" and english["detail"] != body["detail"]


def test_the_rule_book_is_translated_and_its_names_are_not(ada: PlayerClient) -> None:
    english = ada.get("/api/v1/rules/").json()
    response = ada.get("/api/v1/rules/", headers={"Accept-Language": "es"})
    assert response.status_code == 200 and response["Content-Language"] == "es"
    spanish_rules = response.json()
    assert spanish_rules["presets"] == english["presets"]
    assert spanish_rules["action_types"] == english["action_types"]
    assert spanish_rules["preset_descriptions"].keys() == PRESET_DESCRIPTIONS.keys()
    for name, text in english["preset_descriptions"].items():
        assert text == PRESET_DESCRIPTIONS[name]
        assert spanish_rules["preset_descriptions"][name] == spanish(text) != text
    assert "canasta" in spanish_rules["preset_descriptions"]["classic"]
    for name, option in english["options"].items():
        translated = spanish_rules["options"][name]
        assert {k: v for k, v in translated.items() if k != "description"} == {
            k: v for k, v in option.items() if k != "description"
        }
        assert translated["description"] != option["description"]
    assert "pozo" in spanish_rules["options"]["one_card_pile_restriction"]["description"]


def test_a_game_is_answered_in_the_language_and_an_unknown_one_gets_english(
    ada: PlayerClient,
) -> None:
    game = ada.post("/api/v1/games/", {}, format="json").json()
    spanish_answer = ada.get(f"/api/v1/games/{game['id']}/", headers={"Accept-Language": "es"})
    assert spanish_answer.status_code == 200 and spanish_answer["Content-Language"] == "es"
    assert spanish_answer.json()["id"] == game["id"]
    for header in ("fr", "xx-YY", "*"):
        response = ada.get(MISSING_GAME, headers={"Accept-Language": header})
        assert response["Content-Language"] == "en"
        assert problem(response)["title"] == "Not found"
    # A weighted list: the first language offered wins; a region finds its language.
    weighted = ada.get(MISSING_GAME, headers={"Accept-Language": "fr;q=1, de;q=0.8, es;q=0.5"})
    assert weighted["Content-Language"] == "de"
    assert ada.get(MISSING_GAME, headers={"Accept-Language": "pt"})["Content-Language"] == "pt-BR"
    assert ada.get(MISSING_GAME, headers={"Accept-Language": "es-MX"})["Content-Language"] == "es"


def test_the_account_setting_wins_over_the_header(
    make_player: Callable[..., PlayerClient],
) -> None:
    cy = make_player("Cy")
    assert cy.get("/api/v1/players/me/").json()["language"] == ""
    changed = cy.patch(
        "/api/v1/players/me/", {"language": "it"}, format="json", headers={"Accept-Language": "es"}
    )
    assert changed.status_code == 200, changed.content
    assert changed.json()["language"] == "it" and changed["Content-Language"] == "it"
    for headers in ({}, {"Accept-Language": "de"}, {"Accept-Language": "pt-BR"}):
        response = cy.get(MISSING_GAME, headers=headers)
        assert response["Content-Language"] == "it"
        assert problem(response)["title"] == "Non trovato"
    assert cy.get("/api/v1/rules/")["Content-Language"] == "it"
    # A region tag in any case is the language offered.
    assert (
        cy.patch("/api/v1/players/me/", {"language": "pt_br"}, format="json").json()["language"]
        == "pt-BR"
    )
    # Blank: none chosen, the header decides again.
    cleared = cy.patch(
        "/api/v1/players/me/", {"language": ""}, format="json", headers={"Accept-Language": "de"}
    )
    assert cleared.json()["language"] == "" and cleared["Content-Language"] == "de"
    assert cy.get(MISSING_GAME)["Content-Language"] == "en"


def test_a_language_not_offered_is_refused_and_nothing_changes(ada: PlayerClient) -> None:
    ada.patch("/api/v1/players/me/", {"language": "es"}, format="json")
    for wrong in ("fr", "english", "e" * 20, 3):
        response = ada.patch("/api/v1/players/me/", {"language": wrong}, format="json")
        body = problem(response)
        assert response.status_code == 400 and body["code"] == "invalid_request"
        assert [e["field"] for e in body["errors"]] == ["language"]
        assert body["title"] == "Solicitud no válida"  # still the account's language
    assert ada.get("/api/v1/players/me/").json()["language"] == "es"
