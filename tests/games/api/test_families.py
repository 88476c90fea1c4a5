"""The variant families through the API: tables of Modern American Canasta (four and two
players), Samba and Bolivia with bots at every level, played over HTTP to the end of a round,
their state and events in the schema (every response is checked against openapi.yaml), a
family's refusals with the engine's codes, verification, export and import."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import GameState, make_options, new_game, rules_version_of
from games.engine.cards import IS_THREE
from games.models import Game
from games.selectors.verify import game_verify
from tests.games.api.conftest import PlayerClient, create_game, play_until, problem

# Bots play as each move commits: the tests need real transactions.
pytestmark = pytest.mark.django_db(transaction=True)

SEATS = {"mac": 4, "mac_two_player": 2, "samba": 4, "bolivia": 4}
FAMILY = {"mac": "mac", "mac_two_player": "mac", "samba": "samba", "bolivia": "bolivia"}
HAND_SIZE = {"mac": 13, "samba": 15, "bolivia": 15}
LEVELS = ["easy", "medium", "hard"]


def family_table(player: PlayerClient, preset: str, seed: str | None = None) -> int:
    """A started table of ``preset``: ``player`` at seat 0, bots of every level in the other
    seats, 1000 points to win; ``seed`` replaces the random seed before the deal."""
    bots = [{"seat": i, "level": LEVELS[(i - 1) % 3]} for i in range(1, SEATS[preset])]
    if SEATS[preset] == 2:
        bots = [{"seat": 1, "level": "hard"}]
    game = create_game(player, preset=preset, seat=0, bots=bots, options={"target_score": 1000})
    if seed is not None:
        Game.objects.filter(pk=game["id"]).update(seed=seed)
    started = player.post(f"/api/v1/games/{game['id']}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    return int(game["id"])


def round_over(game: dict[str, Any]) -> bool:
    return game["status"] != "active" or game["state"]["round"] >= 2


@pytest.mark.parametrize("preset", list(SEATS))
def test_a_family_table_plays_a_round_with_bots_of_every_level(
    ada: PlayerClient, preset: str
) -> None:
    family = FAMILY[preset]
    game_id = family_table(ada, preset)
    detail = ada.game(game_id)
    assert detail["rules_version"] == rules_version_of(family)
    assert detail["options"]["family"] == family and detail["options"]["target_score"] == 1000
    state = detail["state"]
    assert state["family"] == family and state["to_act"] == 0
    assert state["hand_counts"] == [HAND_SIZE[family]] * SEATS[preset]
    assert state["legal_actions"] and all(a["type"] != "discard" for a in state["legal_actions"])
    if family == "mac":
        assert state["talon_due"] == 0 and state["dead_ranks"] == []
        assert all(t["special_hand"] is None and "black_threes" in t for t in state["teams"])
    else:
        assert "talon_due" not in state and "black_threes" not in state["teams"][0]

    seen = play_until([ada], game_id, round_over)

    scorecard = ada.get(f"/api/v1/games/{game_id}/scorecard/").json()
    first = scorecard["rounds"][0]
    assert first["round"] == 1
    for team in first["teams"]:  # every component the family counts, adding up to the total
        assert sum(team["components"].values()) == team["total"]
    melds = [m for g in (seen, ada.game(game_id)) for t in g["state"]["teams"] for m in t["melds"]]
    for meld in melds:
        assert meld["kind"] in ("group", "sequence", "wild")
        assert (meld["id"] is None) is (family == "mac")
    events = ada.get(f"/api/v1/games/{game_id}/events/?limit=500").json()["events"]
    effects = {e["kind"] for event in events for e in event["effects"]}
    assert {"round_started", "card_drawn", "card_discarded", "round_ended"} <= effects
    sources = {event["source"] for event in events}
    assert {"player", "bot"} <= sources
    assert game_verify(Game.objects.get(pk=game_id)).ok


def seed_holding_a_three(preset: str) -> str:
    """A seed whose deal gives seat 0, first to play, a 3 (laid out on its draw unless kept)."""
    options = make_options(preset, {"target_score": 1000})
    for n in range(500):
        state = new_game(options, f"three-{n}")
        if state.to_act == 0 and any(IS_THREE[c] for c in state.hands[0]):
            return f"three-{n}"
    raise AssertionError("no seed deals a three to seat 0")


def test_a_three_kept_for_a_straight_cannot_be_discarded(ada: PlayerClient) -> None:
    game_id = family_table(ada, "mac", seed=seed_holding_a_three("mac"))
    game = ada.game(game_id)
    drawn = ada.act(game_id, {"type": "draw", "keep_three": True}, game["version"])
    assert drawn.status_code == 201, drawn.content
    before = ada.game(game_id)
    three = next(c for c in before["state"]["hand"] if c.startswith("3"))
    assert {"type": "discard", "card": three} not in before["state"]["legal_actions"]
    refused = ada.act(game_id, {"type": "discard", "card": three}, before["version"])
    body = problem(refused, 422, "discard_three_forbidden")
    assert "never discarded" in body["detail"]
    after = ada.game(game_id)
    assert after["version"] == before["version"] and after["state"] == before["state"]
    assert game_verify(Game.objects.get(pk=game_id)).ok


def test_a_samba_sequence_of_two_suits_is_refused(ada: PlayerClient) -> None:
    game_id = family_table(ada, "samba")
    game = ada.game(game_id)
    assert ada.act(game_id, {"type": "draw"}, game["version"]).status_code == 201
    before = ada.game(game_id)
    naturals = [c for c in before["state"]["hand"] if c != "JK" and c[:-1] not in ("2", "3")]
    first = naturals[0]
    other = next(c for c in naturals if c[-1] != first[-1])
    third = next(c for i, c in enumerate(naturals) if i > 0 and c != other)
    mixed = [first, other, third]  # two suits: never a sequence
    action = {"type": "meld", "melds": [{"kind": "sequence", "cards": mixed}]}
    refused = ada.act(game_id, action, before["version"])
    assert refused.status_code == 422, refused.content
    assert refused.json()["code"] == "sequence_invalid"
    after = ada.game(game_id)
    assert after["version"] == before["version"] and after["state"] == before["state"]


def test_a_classic_table_refuses_the_families_fields(ada: PlayerClient) -> None:
    game = create_game(ada, preset="classic", seat=0, bots=[{"seat": i} for i in (1, 2, 3)])
    assert ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json").status_code == 200
    detail = ada.game(game["id"])
    assert "family" not in detail["state"] and "talon_due" not in detail["state"]
    refused = ada.act(game["id"], {"type": "draw", "keep_three": True}, detail["version"])
    assert refused.status_code in (400, 422), refused.content
    assert refused.json()["code"] == "invalid_action"
    assert ada.game(game["id"])["version"] == detail["version"]


def test_a_fixed_option_of_a_family_is_refused(ada: PlayerClient) -> None:
    response = ada.post(
        "/api/v1/games/", {"preset": "samba", "options": {"draw_count": 1}}, format="json"
    )
    body = problem(response, 400, "invalid_option")
    assert body["option"] == "draw_count"
    response = ada.post(
        "/api/v1/games/", {"preset": "mac", "options": {"target_score": 15000}}, format="json"
    )
    assert response.status_code == 201, response.content


def test_a_changed_family_option_survives_the_table(ada: PlayerClient) -> None:
    """``talons`` off at a mac table stays off at the deal, in the replay and in an export (a
    family option at its classic default is still the table's choice)."""
    game = create_game(
        ada,
        preset="mac",
        seat=0,
        bots=[{"seat": i} for i in (1, 2, 3)],
        options={"target_score": 1000, "talons": False, "special_hands": "none"},
    )
    assert game["options"]["talons"] is False and game["options"]["special_hands"] == "none"
    assert ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json").status_code == 200
    stored = Game.objects.get(pk=game["id"])
    state = GameState.from_dict(stored.snapshot or {})
    assert state.options.talons is False and state.options.special_hands == "none"
    assert ada.game(game["id"])["options"]["talons"] is False
    assert game_verify(stored).ok


@pytest.mark.parametrize("preset", ["mac", "bolivia"])
def test_a_family_game_exports_and_imports(
    ada: PlayerClient, bob: PlayerClient, preset: str
) -> None:
    game_id = family_table(ada, preset)
    play_until([ada], game_id, round_over)
    if ada.game(game_id)["status"] == "active":
        assert ada.post(f"/api/v1/games/{game_id}/concede/").status_code == 200
    original = Game.objects.get(pk=game_id)
    assert original.status == "finished"
    document = ada.get(f"/api/v1/games/{game_id}/export/").json()
    assert document["rules_version"] == rules_version_of(FAMILY[preset])
    assert document["seed"] == original.seed and document["options"]["family"] == FAMILY[preset]
    imported = bob.post("/api/v1/games/import/", {"document": document, "seat": 0}, format="json")
    assert imported.status_code == 201, imported.content
    copy_ = Game.objects.get(pk=imported.json()["game"]["id"])
    assert copy_.rules_version == original.rules_version and copy_.options == original.options
    # A concession is a fact of the old table: the copy plays on (its bots move) from there.
    rounds = GameState.from_dict(original.snapshot or {}).rounds
    assert rounds and GameState.from_dict(copy_.snapshot or {}).rounds[: len(rounds)] == rounds
    assert game_verify(copy_).ok
    fairness = ada.get(f"/api/v1/games/{game_id}/fairness/").json()
    assert fairness["verified"] is True, fairness["problems"]


def test_an_import_under_another_familys_rules_is_refused(ada: PlayerClient) -> None:
    game_id = family_table(ada, "samba")
    play_until([ada], game_id, round_over)
    if ada.game(game_id)["status"] == "active":
        assert ada.post(f"/api/v1/games/{game_id}/concede/").status_code == 200
    document = ada.get(f"/api/v1/games/{game_id}/export/").json()
    document["rules_version"] = "1"
    refused = ada.post("/api/v1/games/import/", {"document": document}, format="json")
    body = problem(refused, 422, "rules_version_unsupported")
    assert body["supported_rules_versions"] == ["samba-1"]


@pytest.mark.parametrize("preset", ["mac", "samba"])
def test_a_hint_at_a_family_table_is_a_legal_action(ada: PlayerClient, preset: str) -> None:
    game = create_game(
        ada, preset=preset, seat=0, hints=True, bots=[{"seat": i} for i in (1, 2, 3)]
    )
    assert ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json").status_code == 200
    detail = ada.game(game["id"])
    for level in ("medium", "hard"):
        hint = ada.get(f"/api/v1/games/{game['id']}/hint/?level={level}")
        assert hint.status_code == 200, hint.content
        assert hint.json()["action"] in detail["state"]["legal_actions"]


def test_a_family_game_is_reviewed(ada: PlayerClient) -> None:
    game_id = family_table(ada, "bolivia")
    play_until([ada], game_id, round_over)
    response = ada.post(f"/api/v1/games/{game_id}/review/", {"seat": 0}, format="json")
    assert response.status_code == 200, response.content  # computed in the request (ready)
    review = response.json()
    assert review["status"] == "ready" and review["engine"].startswith("family-review-1")
    decisions = review["decisions"]
    assert decisions and review["summary"]["decisions"] == len(decisions)
    for d in decisions:
        assert d["chosen"] in [c["action"] for c in d["candidates"]]
    again = ada.get(f"/api/v1/games/{game_id}/review/?seat=0")
    assert again.status_code == 200 and again.json()["decisions"] == decisions
