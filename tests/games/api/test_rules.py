"""GET /rules/: every preset and option with its explanation (checked against openapi.yaml)."""

from __future__ import annotations

import pytest

from games.engine import OPTION_NAMES, PRESETS
from tests.games.api.conftest import PlayerClient, SchemaCheckedClient, problem

pytestmark = pytest.mark.django_db


def test_every_option_is_served_with_its_explanation(ada: PlayerClient) -> None:
    body = ada.get("/api/v1/rules/").json()
    assert list(body["options"]) == list(OPTION_NAMES)
    for name, option in body["options"].items():
        assert option["description"].strip(), name
        for choice in option.get("choices", ()):
            assert choice in option["description"], (name, choice)
    wild_ratio = body["options"]["wild_ratio"]
    assert wild_ratio["default"] == "naturals_exceed_wilds"
    assert "fewer wild cards than natural cards" in wild_ratio["description"]


def test_every_preset_is_served_with_what_it_plays(ada: PlayerClient) -> None:
    body = ada.get("/api/v1/rules/").json()
    assert set(body["preset_descriptions"]) == set(body["presets"]) == set(PRESETS)
    assert all(text.strip() for text in body["preset_descriptions"].values())
    assert "Two players" in body["preset_descriptions"]["two_player"]
    assert body["presets"]["two_player"]["draw_count"] == 2


def test_the_rules_need_a_token() -> None:
    problem(SchemaCheckedClient().get("/api/v1/rules/"), 401, "not_authenticated")
