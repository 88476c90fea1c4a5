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


def test_the_rule_families_are_served_with_their_presets_and_options(ada: PlayerClient) -> None:
    body = ada.get("/api/v1/rules/").json()
    families = body["families"]
    assert list(families) == ["classic", "mac", "samba", "bolivia"]
    assert families["classic"]["rules_version"] == body["rules_version"] == "1"
    assert families["mac"] == {
        "rules_version": "mac-1",
        "presets": ["mac", "mac_two_player"],
        "overridable": [
            "target_score",
            "red_three_reveal",
            "ask_partner_to_go_out",
            "talons",
            "rule_of_five",
            "special_hands",
            "initial_meld_core",
        ],
        "ranges": {
            "target_score": {"min": 1000, "max": 20000},
            "max_wilds_per_meld": {"min": 2, "max": 2},
        },
    }
    assert families["samba"]["presets"] == ["samba"]
    assert families["bolivia"]["rules_version"] == "bolivia-1"
    assert "initial_meld_over_7000" in families["bolivia"]["overridable"]
    assert "draw_count" not in families["samba"]["overridable"]
    assert "talons" not in families["classic"]["overridable"]


def test_a_family_presets_options_are_complete(ada: PlayerClient) -> None:
    body = ada.get("/api/v1/rules/").json()
    mac = body["presets"]["mac"]
    assert list(mac) == list(OPTION_NAMES)  # every option, those at the classic default too
    assert mac["family"] == "mac" and mac["talons"] is True and mac["special_hands"] == "cla"
    assert mac["initial_meld_core"] == "clean_triple"
    assert body["presets"]["bolivia"]["target_score"] == 15000
    assert body["presets"]["samba"]["draw_count"] == 2
    assert "family" not in body["presets"]["classic"]  # a classic preset reads as it did
    for name in ("mac", "mac_two_player", "samba", "bolivia"):
        assert body["preset_descriptions"][name].strip()
    for name in ("family", "talons", "rule_of_five", "special_hands", "initial_meld_core"):
        assert body["options"][name]["description"].strip()
    assert body["options"]["family"]["choices"] == ["classic", "mac", "samba", "bolivia"]
    assert "declare_special_hand" in body["action_types"]
