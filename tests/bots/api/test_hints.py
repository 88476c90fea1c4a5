"""Hints over HTTP: the table option (off by default, refused at rated tables), who may ask and
when, and the hint itself: one of the seat's legal actions, naming only cards the seat can see,
accepted when played (every response checked against openapi.yaml)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from django.utils import timezone

from games.models import Game, GameEvent, Seat
from games.services.bots import bot_player_get
from tests.games.api.conftest import PlayerClient, create_game, problem, two_player_game

pytestmark = pytest.mark.django_db


def hint_url(game_id: int, level: str | None = None) -> str:
    return f"/api/v1/games/{game_id}/hint/" + (f"?level={level}" if level else "")


def against_a_bot_with_hints(player: PlayerClient) -> int:
    """``player`` at seat 0 of a two-player table with hints, an easy bot at seat 1; started."""
    game = create_game(
        player, preset="two_player", seat=0, hints=True, bots=[{"seat": 1, "level": "easy"}]
    )
    assert game["hints"] is True
    started = player.post(f"/api/v1/games/{game['id']}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    return int(game["id"])


def hint_cards(action: dict[str, Any]) -> list[str]:
    """Every card a hint names."""
    cards = list(action.get("cards") or [])
    if action.get("card"):
        cards.append(action["card"])
    for group in action.get("melds") or []:
        cards.extend(group["cards"])
    return cards


def assert_visible_to_the_seat(action: dict[str, Any], state: dict[str, Any]) -> None:
    """The hint names cards of the seat's hand (and, taking the pile, its top card) only."""
    hand = Counter(state["hand"])
    if action["type"] == "take_pile":
        hand[state["pile"]["top"]] += 1
    named = Counter(hint_cards(action))
    assert not named - hand, (action, state["hand"], state["pile"])


def test_hints_are_off_by_default_and_refused(ada: PlayerClient) -> None:
    game = create_game(ada, preset="two_player", seat=0, bots=[{"seat": 1, "level": "easy"}])
    assert game["hints"] is False
    ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json")
    problem(ada.get(hint_url(game["id"])), 403, "hints_off")


def test_a_rated_table_with_hints_is_422_and_creates_nothing(ada: PlayerClient) -> None:
    refused = ada.post(
        "/api/v1/games/", {"preset": "two_player", "rated": True, "hints": True}, format="json"
    )
    problem(refused, 422, "rated_no_hints")
    assert not Game.objects.exists() and not Seat.objects.exists()


def test_the_option_is_a_fact_of_the_game(ada: PlayerClient, bob: PlayerClient) -> None:
    game = create_game(ada, preset="two_player", seat=0, hints=True)
    listed = bob.get("/api/v1/games/").json()["results"]
    assert [(g["id"], g["hints"]) for g in listed] == [(game["id"], True)]
    game_id = game["id"]
    bob.post(f"/api/v1/games/{game_id}/join/", {}, format="json")
    ada.post(f"/api/v1/games/{game_id}/start/", {}, format="json")
    assert bob.game(game_id)["hints"] is True
    started = GameEvent.objects.get(game_id=game_id, seq=1)
    assert started.type == "game_started" and started.payload["hints"] is True
    casual = two_player_game(bob, ada)
    assert GameEvent.objects.get(game_id=casual, seq=1).payload["hints"] is False


def test_only_the_seat_to_act_in_play_may_ask(
    ada: PlayerClient, bob: PlayerClient, make_player: Any
) -> None:
    lobby = create_game(ada, preset="two_player", seat=0, hints=True)
    problem(ada.get(hint_url(lobby["id"])), 409, "game_not_active")

    game_id = two_player_game(ada, bob, hints=True)
    detail = ada.game(game_id)
    acting, waiting = (ada, bob) if detail["state"]["to_act"] == 0 else (bob, ada)
    problem(waiting.get(hint_url(game_id)), 403, "not_your_turn")
    problem(make_player("Eve").get(hint_url(game_id)), 403, "not_seated")  # a spectator
    problem(acting.get(hint_url(game_id, "grandmaster")), 400, "invalid_request")
    problem(acting.get(hint_url(game_id, "easy")), 400, "invalid_request")

    Game.objects.filter(pk=game_id).update(paused_at=timezone.now())
    problem(acting.get(hint_url(game_id)), 409, "game_paused")
    Game.objects.filter(pk=game_id).update(paused_at=None)
    assert acting.get(hint_url(game_id)).status_code == 200


@pytest.mark.django_db(transaction=True)  # the bot answers as each move commits
def test_a_hint_is_the_seats_legal_move_and_is_accepted(ada: PlayerClient) -> None:
    """Over a game's first turns (the bot answering each move), every hint names cards the
    seat can see, is one of its legal actions by kind, changes nothing until played, and is
    accepted when played."""
    game_id = against_a_bot_with_hints(ada)
    kinds = set()
    for turn in range(20):  # fewer hints than the scope's throttle allows a minute
        detail = ada.game(game_id)
        if detail["status"] != "active":
            break
        state = detail["state"]
        assert state["to_act"] == 0
        events_before = GameEvent.objects.filter(game_id=game_id).count()
        response = ada.get(hint_url(game_id))
        assert response.status_code == 200, response.content
        hint = response.json()
        assert (hint["version"], hint["seat"], hint["level"]) == (detail["version"], 0, "medium")
        assert hint["summary"]
        assert hint["action"]["type"] in {a["type"] for a in state["legal_actions"]}
        assert_visible_to_the_seat(hint["action"], state)
        # Asking wrote nothing, and asking again gives the same hint.
        assert GameEvent.objects.filter(game_id=game_id).count() == events_before
        assert Game.objects.get(pk=game_id).version == detail["version"]
        if turn < 3:
            assert ada.get(hint_url(game_id)).json() == hint
        kinds.add(hint["action"]["type"])
        played = ada.act(game_id, hint["action"], hint["version"])
        assert played.status_code == 201, played.content
    assert "discard" in kinds and kinds & {"draw", "take_pile"}


@pytest.mark.django_db(transaction=True)  # the bot answers as each move commits
def test_a_hard_hint_is_accepted(ada: PlayerClient) -> None:
    game_id = against_a_bot_with_hints(ada)
    for _ in range(4):  # a draw, then a play turn's moves
        detail = ada.game(game_id)
        response = ada.get(hint_url(game_id, "hard"))
        assert response.status_code == 200, response.content
        hint = response.json()
        assert hint["level"] == "hard" and hint["version"] == detail["version"]
        assert_visible_to_the_seat(hint["action"], detail["state"])
        played = ada.act(game_id, hint["action"], hint["version"])
        assert played.status_code == 201, played.content


def test_a_rematch_keeps_hints(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob, hints=True)
    ada.post(f"/api/v1/games/{game_id}/concede/")
    ada.post(f"/api/v1/games/{game_id}/rematch/")
    new_id = bob.post(f"/api/v1/games/{game_id}/rematch/").json()["game"]
    assert new_id is not None
    assert ada.game(new_id)["hints"] is True
    assert GameEvent.objects.get(game_id=new_id, seq=1).payload["hints"] is True


def test_the_creator_turns_hints_on_in_the_lobby_never_at_a_rated_table(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game = create_game(ada, preset="two_player", seat=0)
    table = f"/api/v1/games/{game['id']}/table/"
    problem(bob.patch(table, {"hints": True}, format="json"), 403, "not_game_creator")
    turned = ada.patch(table, {"hints": True}, format="json")
    assert turned.status_code == 200, turned.content
    assert turned.json()["hints"] is True and ada.game(game["id"])["hints"] is True
    events = ada.get(f"{table}events/").json()["events"]
    assert [(e["kind"], e["data"]) for e in events] == [("settings_changed", {"hints": True})]
    bob.post(f"/api/v1/games/{game['id']}/join/", {}, format="json")
    ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json")
    assert GameEvent.objects.get(game_id=game["id"], seq=1).payload["hints"] is True
    problem(ada.patch(table, {"hints": False}, format="json"), 409, "game_already_started")

    rated = create_game(ada, preset="two_player", seat=0, rated=True)
    refused = ada.patch(f"/api/v1/games/{rated['id']}/table/", {"hints": True}, format="json")
    problem(refused, 422, "rated_no_hints")
    assert ada.game(rated["id"])["hints"] is False
    assert not ada.get(f"/api/v1/games/{rated['id']}/table/events/").json()["events"]


@pytest.mark.django_db(transaction=True)  # the bot answers as each move commits
def test_asking_again_at_the_same_version_runs_no_search(
    ada: PlayerClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = against_a_bot_with_hints(ada)
    bot_player = bot_player_get()
    assert bot_player is not None
    calls: list[str] = []
    choose = bot_player.action_choose

    def counted(game: Game, seat: int, level: str, seed: int) -> dict[str, Any]:
        calls.append(level)
        return choose(game, seat, level, seed)

    monkeypatch.setattr(bot_player, "action_choose", counted)
    first = ada.get(hint_url(game_id, "hard")).json()
    assert ada.get(hint_url(game_id, "hard")).json() == first
    assert calls == ["hard"]
    ada.get(hint_url(game_id, "medium"))  # another level is another search
    assert calls == ["hard", "medium"]
    played = ada.act(game_id, first["action"], first["version"])
    assert played.status_code == 201, played.content
    assert ada.get(hint_url(game_id, "hard")).json()["version"] > first["version"]
    assert calls == ["hard", "medium", "hard"]  # a new version: a new search
