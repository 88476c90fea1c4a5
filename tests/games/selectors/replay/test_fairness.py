"""Provably fair dealing: each round's seed is committed to (SHA-256) when it is dealt, the game
seed is revealed at the end, and the revealed seed must reproduce every dealt card."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from games.engine import make_options, round_seed, seed_commitment
from games.engine.fairness import check_game, published_deals, round_deal
from games.models import Game, GameEvent
from tests.games.api.conftest import PlayerClient
from tests.games.selectors.replay.conftest import advance, player_of, started_game

pytestmark = pytest.mark.django_db
REPLAY_VERIFY = False  # games are damaged on purpose here


def fairness(client: PlayerClient, game_id: int) -> dict:
    response = client.get(f"/api/v1/games/{game_id}/fairness/")
    assert response.status_code == 200, response.content
    return response.json()


def test_before_the_end_only_the_commitments(ada: PlayerClient, bob: PlayerClient) -> None:
    game = advance(started_game(player_of(ada), seat=0).pk, steps=10)
    body = fairness(bob, game.pk)
    assert not body["revealed"] and body["seed"] is None and body["verified"] is None
    assert body["seed_commitment"] == seed_commitment(game.seed)
    assert [r["round"] for r in body["rounds"]] == [1]
    first = body["rounds"][0]
    assert first["seed_commitment"] == seed_commitment(round_seed(game.seed, 1))
    assert first["round_seed"] is None and first["ok"] is None
    assert ada.game(game.pk)["seed"] is None


def test_after_the_end_the_seed_reproduces_every_deal(ada: PlayerClient) -> None:
    game = advance(started_game(player_of(ada), preset="two_player").pk)
    body = fairness(ada, game.pk)
    assert body["revealed"] and body["seed"] == game.seed and body["verified"] is True
    assert body["problems"] == [] and len(body["rounds"]) >= 1
    for entry in body["rounds"]:
        assert entry["ok"] is True
        assert entry["round_seed"] == round_seed(game.seed, entry["round"])
        digest = hashlib.sha256(entry["round_seed"].encode()).hexdigest()
        assert digest == entry["seed_commitment"]
    assert ada.game(game.pk)["seed"] == game.seed
    call_command("replay", str(game.pk), "--fairness")


def _tamper(game: Game, change: str) -> None:
    event = GameEvent.objects.get(game=game, seq=1)
    deal = event.effects[0]
    if change == "hand":
        hand = deal["private"]["1"]["hand"]
        hand[0], hand[1] = ("JK", hand[0]) if hand[0] != "JK" else ("2C", hand[0])
    elif change == "upcard":
        deal["public"]["upcards"] = ["JK"]
    elif change == "commitment":
        deal["public"]["seed_commitment"] = "0" * 64
    event.save(update_fields=["effects"])


@pytest.mark.parametrize("change", ["hand", "upcard", "commitment"])
def test_tampering_is_detected(ada: PlayerClient, change: str) -> None:
    game = advance(started_game(player_of(ada), preset="two_player").pk)
    _tamper(game, change)
    body = fairness(ada, game.pk)
    assert body["verified"] is False and body["rounds"][0]["ok"] is False
    assert body["problems"][0].startswith("round 1:")
    with pytest.raises(CommandError):
        call_command("replay", str(game.pk), "--fairness")


def test_a_wrong_seed_is_detected_by_the_engine_check() -> None:
    options = make_options("classic", {})
    deals = [round_deal(options, "the real seed", n) for n in (1, 2, 3)]
    assert check_game(options, "the real seed", deals, seed_commitment("the real seed")).ok
    forged = check_game(options, "another seed", deals, seed_commitment("the real seed"))
    assert not forged.ok and forged.game_commitment_ok is False
    assert len(forged.problems) == 4  # the game commitment and every round
    gap = check_game(options, "the real seed", [deals[0], deals[2]])
    assert not gap.ok and "numbered" in gap.problems[0]
    assert not check_game(options, "the real seed", []).ok


def test_published_deals_leave_out_hands_when_redacted() -> None:
    options = make_options("two_player", {})
    deal = round_deal(options, "s", 1)
    effect: dict[str, Any] = {
        "kind": "round_started",
        "seat": None,
        "public": {
            "round": 1,
            "dealer": deal["dealer"],
            "upcards": deal["upcards"],
            "hand_counts": [15, 15],
            "seed_commitment": deal["seed_commitment"],
        },
        "private": {"0": {"hand": deal["hands"][0]}},
    }
    (published,) = published_deals([effect, {"kind": "card_drawn"}])
    assert published["hands"] is None
    effect["private"]["1"] = {"hand": deal["hands"][1]}
    assert published_deals([effect])[0]["hands"] == deal["hands"]
    assert check_game(options, "s", published_deals([effect])).ok
