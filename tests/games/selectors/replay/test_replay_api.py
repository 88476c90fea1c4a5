"""GET /games/{id}/replay/?at=N and /replay/steps/: the table after any event, and a timeline.

While a game runs a seat sees the table at step N exactly as the engine's player view gave it
then (its own hand only); a spectator sees no hand; once the game is finished everyone sees
every hand at every step.
"""

from __future__ import annotations

import random

import pytest

from games.engine import card_text
from games.engine.cards import cards_text
from games.engine.view import player_view
from games.models import Game, GameTable
from games.selectors.games import game_replay_state
from tests.games.api.conftest import PlayerClient, problem
from tests.games.selectors.replay.conftest import advance, player_of, started_game

pytestmark = pytest.mark.django_db

CARD_TOKENS = frozenset(card_text(c) for c in range(53))


def replay(client: PlayerClient, game_id: int, at: int | None = None) -> dict:
    url = f"/api/v1/games/{game_id}/replay/" + (f"?at={at}" if at is not None else "")
    response = client.get(url)
    assert response.status_code == 200, response.content
    return response.json()


def test_a_seat_sees_each_step_as_it_saw_it_then(ada: PlayerClient) -> None:
    game = started_game(player_of(ada), seat=0)
    game = advance(game.pk, steps=40, rng=random.Random(3))
    assert game.status == "active"
    for at in (1, 2, 7, 20, game.version):
        body = replay(ada, game.pk, at)
        truth = game_replay_state(game, at)
        assert body["at"] == at and body["viewer"] == 0 and not body["full_information"]
        assert body["hands"] is None
        assert body["state"] == player_view(truth, 0, with_legal=False)
        assert body["state"]["hand"] == cards_text(truth.hands[0])
        assert body["event"]["seq"] == at


def test_event_effects_are_redacted_while_running(ada: PlayerClient) -> None:
    game = advance(started_game(player_of(ada), seat=0).pk, steps=30)
    for at in range(2, game.version + 1):
        event = replay(ada, game.pk, at)["event"]
        for effect in event["effects"]:
            if effect["kind"] == "card_drawn":
                assert ("cards" in effect) == (effect["seat"] == 0)
    first = replay(ada, game.pk, 1)["event"]["effects"][0]
    assert first["kind"] == "round_started" and "hands" not in first and first["hand"]


def test_a_spectator_sees_no_hand(ada: PlayerClient, bob: PlayerClient) -> None:
    game = advance(started_game(player_of(ada), seat=0).pk, steps=10)
    body = replay(bob, game.pk, 5)
    assert body["viewer"] is None
    assert body["state"]["hand"] is None and body["hands"] is None
    assert body["state"] == player_view(game_replay_state(game, 5), None, with_legal=False)


def test_once_finished_every_hand_at_every_step(ada: PlayerClient, bob: PlayerClient) -> None:
    game = advance(started_game(player_of(ada), preset="two_player", seat=0).pk)
    assert game.status == "finished"
    for at in (1, 5, game.version // 2, game.version):
        body = replay(bob, game.pk, at)
        truth = game_replay_state(game, at)
        assert body["full_information"] and body["viewer"] is None
        assert body["hands"] == [cards_text(h) for h in truth.hands]
    first = replay(bob, game.pk, 1)["event"]["effects"][0]
    assert [len(h) for h in first["hands"]] == [15, 15]


def test_default_is_the_last_event_and_out_of_range_is_refused(ada: PlayerClient) -> None:
    game = advance(started_game(player_of(ada)).pk, steps=3)
    assert replay(ada, game.pk)["at"] == game.version == 4
    for bad in (5, 100):
        body = problem(
            ada.get(f"/api/v1/games/{game.pk}/replay/?at={bad}"), 400, "replay_step_out_of_range"
        )
        assert body["current_version"] == 4
    problem(ada.get(f"/api/v1/games/{game.pk}/replay/?at=0"), 400, "invalid_request")


def test_lobby_private_and_unknown_games(ada: PlayerClient, bob: PlayerClient) -> None:
    response = ada.post("/api/v1/games/", {"preset": "classic"}, format="json")
    lobby = response.json()["id"]
    problem(ada.get(f"/api/v1/games/{lobby}/replay/"), 409, "game_not_active")
    private = started_game(player_of(ada), is_public=False)
    problem(bob.get(f"/api/v1/games/{private.pk}/replay/"), 404, "not_found")
    problem(bob.get(f"/api/v1/games/{private.pk}/replay/steps/"), 404, "not_found")
    problem(ada.get("/api/v1/games/999999/replay/"), 404, "not_found")


def test_steps_are_a_timeline_in_the_viewers_words(ada: PlayerClient, bob: PlayerClient) -> None:
    game = advance(started_game(player_of(ada), seat=0).pk, steps=25)
    body = ada.get(f"/api/v1/games/{game.pk}/replay/steps/").json()
    assert [s["seq"] for s in body["steps"]] == list(range(1, game.version + 1))
    assert body["steps"][0]["type"] == "game_started" and "your hand" in body["steps"][0]["text"]
    rows = {e.seq: e for e in Game.objects.get(pk=game.pk).events.all()}
    for step in body["steps"][1:]:
        assert step["seat"] == rows[step["seq"]].seat and step["type"] == rows[step["seq"]].type
        if step["type"] == "draw" and step["seat"] != 0:
            assert "card(s) (" not in step["text"]  # an opponent's drawn cards stay hidden
    spectator = bob.get(f"/api/v1/games/{game.pk}/replay/steps/").json()
    assert "your hand" not in spectator["steps"][0]["text"]


def test_steps_of_a_finished_game_show_everything(ada: PlayerClient, bob: PlayerClient) -> None:
    game = advance(started_game(player_of(ada), preset="two_player").pk)
    body = bob.get(f"/api/v1/games/{game.pk}/replay/steps/").json()
    assert body["full_information"]
    assert "hands seat 0:" in body["steps"][0]["text"]
    draws = [s for s in body["steps"] if s["type"] == "draw"]
    assert draws and all("card(s) (" in s["text"] for s in draws)


def test_a_delayed_spectator_sees_no_step_beyond_the_delay(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game = advance(started_game(player_of(ada), seat=0).pk, steps=20)
    GameTable.objects.update_or_create(game=game, defaults={"spectator_delay": 5})
    horizon = game.version - 5
    body = replay(bob, game.pk)
    assert body["at"] == body["version"] == horizon
    problem(
        bob.get(f"/api/v1/games/{game.pk}/replay/?at={horizon + 1}"),
        400,
        "replay_step_out_of_range",
    )
    steps = bob.get(f"/api/v1/games/{game.pk}/replay/steps/").json()
    assert [s["seq"] for s in steps["steps"]] == list(range(1, horizon + 1))
    document = bob.get(f"/api/v1/games/{game.pk}/export/").json()
    assert len(document["events"]) == document["version"] == document["final"]["version"]
    assert document["version"] == horizon
    assert replay(ada, game.pk)["at"] == game.version  # a seated player is not delayed
