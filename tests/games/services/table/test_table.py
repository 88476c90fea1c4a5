"""At the table through the API: quick chat, mutes, concession, rematch, spectators, presence,
profiles and block / favourite lists (asking the partner: test_partner.py)."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine.view import player_view
from games.models import Game, GameEvent, TableEvent
from games.selectors.games import game_replay_state
from tests.games.api.conftest import PlayerClient, choose, create_game, problem
from tests.games.services.table.conftest import two_player_game

pytestmark = pytest.mark.django_db


def url(game_id: int, tail: str) -> str:
    return f"/api/v1/games/{game_id}/{tail}"


def chat(player: PlayerClient, game_id: int, phrase: str = "good_luck") -> Any:
    return player.post(url(game_id, "chat/"), {"phrase": phrase}, format="json")


# ------------------------------------------------------------------------------ quick chat
def test_phrases_are_a_fixed_list(ada: PlayerClient) -> None:
    phrases = ada.get("/api/v1/chat/phrases/").json()
    ids = [p["id"] for p in phrases]
    assert "good_luck" in ids and "emoji_thumbs_up" in ids
    assert all(p["text"] for p in phrases)


def test_chat_is_a_table_event_seen_by_all(
    ada: PlayerClient, bob: PlayerClient, make_player: Any
) -> None:
    game_id = two_player_game(ada, bob)
    response = chat(ada, game_id, "good_luck")
    assert response.status_code == 201, response.content
    event = response.json()
    assert event["kind"] == "chat" and event["seq"] == 1 and event["seat"] == 0
    assert event["data"] == {"phrase": "good_luck", "text": "Good luck!"}
    assert event["player"]["id"] == ada.player_id
    for viewer in (bob, make_player("Eve")):
        seen = viewer.get(url(game_id, "table/events/"), {"after": 0}).json()
        assert [e["data"]["phrase"] for e in seen["events"]] == ["good_luck"]
        assert seen["table_seq"] == 1
    # chat does not touch the move log or the game's version
    assert ada.game(game_id)["version"] == 1
    assert GameEvent.objects.filter(game_id=game_id).count() == 1


def test_free_text_is_refused(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    body = problem(chat(ada, game_id, "you are all idiots"), 400, "invalid_request")
    assert body["errors"][0]["field"] == "phrase"


def test_spectators_cannot_chat(ada: PlayerClient, bob: PlayerClient, make_player: Any) -> None:
    game_id = two_player_game(ada, bob)
    problem(chat(make_player("Eve"), game_id), 403, "not_seated")


def test_no_table_talk_game_refuses_chat(ada: PlayerClient, bob: PlayerClient) -> None:
    game = create_game(ada, preset="two_player", seat=0)
    changed = ada.patch(url(game["id"], "table/"), {"table_talk": False}, format="json")
    assert changed.status_code == 200 and changed.json()["table_talk"] is False
    bob.post(url(game["id"], "join/"), {}, format="json")
    problem(chat(bob, game["id"]), 403, "table_talk_off")
    events = ada.get(url(game["id"], "table/events/")).json()["events"]
    assert [e["kind"] for e in events] == ["settings_changed"]


def test_only_the_creator_changes_settings_and_only_in_the_lobby(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game = create_game(ada, preset="two_player", seat=0)
    bob.post(url(game["id"], "join/"), {}, format="json")
    problem(
        bob.patch(url(game["id"], "table/"), {"table_talk": False}, format="json"),
        403,
        "not_game_creator",
    )
    ada.post(url(game["id"], "start/"), {}, format="json")
    problem(
        ada.patch(url(game["id"], "table/"), {"spectator_delay": 2}, format="json"),
        409,
        "game_already_started",
    )
    problem(
        ada.patch(url(game["id"], "table/"), {"spectator_delay": 99}, format="json"),
        400,
        "invalid_request",
    )


def test_chat_is_rate_limited(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    for phrase in ("hello", "good_luck", "have_fun"):
        assert chat(ada, game_id, phrase).status_code == 201
    body = problem(chat(ada, game_id, "oops"), 429, "chat_rate_limited")
    assert 1 <= body["retry_after"] <= 10
    assert chat(bob, game_id, "hello").status_code == 201  # per player
    # once the window has passed, ada may talk again
    TableEvent.objects.filter(game_id=game_id).update(
        created_at=TableEvent.objects.get(game_id=game_id, seq=1).created_at.replace(year=2000)
    )
    assert chat(ada, game_id, "oops").status_code == 201


def test_mute_hides_a_seats_chat_for_me_only(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    muted = ada.post(url(game_id, "chat/mute/"), {"seat": 1}, format="json")
    assert muted.status_code == 200 and muted.json() == {"muted_seats": [1]}
    chat(bob, game_id, "hurry_up")
    chat(ada, game_id, "one_moment")
    mine = ada.get(url(game_id, "table/events/")).json()
    assert [e["data"]["phrase"] for e in mine["events"]] == ["one_moment"]
    assert mine["table_seq"] == 2
    theirs = bob.get(url(game_id, "table/events/")).json()
    assert [e["data"]["phrase"] for e in theirs["events"]] == ["hurry_up", "one_moment"]
    assert ada.get(url(game_id, "table/")).json()["muted_seats"] == [1]
    ada.post(url(game_id, "chat/mute/"), {"seat": 1, "muted": False}, format="json")
    again = ada.get(url(game_id, "table/events/")).json()
    assert [e["data"]["phrase"] for e in again["events"]] == ["hurry_up", "one_moment"]
    problem(ada.post(url(game_id, "chat/mute/"), {"seat": 3}, format="json"), 400, "invalid_seat")


# ------------------------------------------------------------------------------ concede
def test_concede_loses_and_finishes_the_game(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    response = ada.post(url(game_id, "concede/"))
    assert response.status_code == 200, response.content
    game = response.json()
    assert game["status"] == "finished"
    assert game["winner_team"] == 1
    assert game["seed"] is not None  # the game is over: the deal can be checked
    settings = bob.get(url(game_id, "table/")).json()
    assert settings["conceded_seat"] == 0 and settings["conceded_team"] == 0
    events = bob.get(url(game_id, "table/events/")).json()["events"]
    assert events[-1]["kind"] == "conceded"
    assert events[-1]["data"] == {"team": 0, "winner_team": 1, "version": 2}
    # the concession is an event of the move log: the log alone says how the game ended
    [last] = bob.get(url(game_id, "events/") + "?after=1").json()["events"]
    assert (last["seq"], last["type"], last["seat"]) == (2, "game_conceded", 0)
    assert last["payload"] == {"team": 0, "winner_team": 1} and last["effects"] == []
    # nothing more can be played or conceded
    problem(ada.post(url(game_id, "concede/")), 422, "game_over")
    problem(bob.act(game_id, {"type": "draw"}, 1), 422, "game_over")


def test_concede_needs_a_seat_and_a_running_game(
    ada: PlayerClient, bob: PlayerClient, make_player: Any
) -> None:
    game = create_game(ada, preset="two_player", seat=0)
    problem(ada.post(url(game["id"], "concede/")), 409, "game_not_active")
    game_id = two_player_game(ada, bob)
    problem(make_player("Eve").post(url(game_id, "concede/")), 403, "not_seated")


def test_concede_in_a_partnership_game_loses_for_the_team(ada: PlayerClient) -> None:
    game = create_game(
        ada, preset="classic", seat=1, bots=[{"seat": s, "level": "easy"} for s in (0, 2, 3)]
    )
    ada.post(url(game["id"], "start/"), {}, format="json")
    body = ada.post(url(game["id"], "concede/")).json()
    assert body["status"] == "finished" and body["winner_team"] == 0


# ------------------------------------------------------------------------------ rematch
def test_rematch_when_all_humans_accept(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob, options={"target_score": 1500})
    ada.patch(url(game_id, "table/"), {}, format="json")
    problem(ada.post(url(game_id, "rematch/")), 409, "game_not_finished")
    ada.post(url(game_id, "concede/"))

    first = ada.post(url(game_id, "rematch/")).json()
    assert first["accepted_by"] == [ada.player_id]
    assert first["waiting_for"] == [bob.player_id]
    assert first["game"] is None
    assert ada.post(url(game_id, "rematch/")).json() == first  # accepting twice: no change

    done = bob.post(url(game_id, "rematch/")).json()
    new_id = done["game"]
    assert new_id is not None and done["waiting_for"] == []
    old, new = Game.objects.get(pk=game_id), Game.objects.get(pk=new_id)
    assert new.options == old.options and new.preset == old.preset
    assert new.is_public == old.is_public and new.status == "active"
    assert list(new.seats.order_by("index").values_list("player_id", "team", "bot_level")) == list(
        old.seats.order_by("index").values_list("player_id", "team", "bot_level")
    )
    assert new.seed != old.seed
    assert ada.get(url(new_id, "table/")).json()["rematch_of"] == game_id
    kinds = [e["kind"] for e in ada.get(url(game_id, "table/events/")).json()["events"]]
    assert kinds[-3:] == ["rematch_accepted", "rematch_accepted", "rematch_created"]
    assert ada.get(url(game_id, "rematch/")).json()["game"] == new_id
    # a third acceptance changes nothing: one rematch per game
    assert bob.post(url(game_id, "rematch/")).json()["game"] == new_id
    assert Game.objects.count() == 2


def test_rematch_keeps_bots_and_table_settings(ada: PlayerClient) -> None:
    game = create_game(ada, preset="two_player", seat=0, bots=[{"seat": 1, "level": "medium"}])
    ada.patch(url(game["id"], "table/"), {"table_talk": False, "spectator_delay": 2}, format="json")
    ada.post(url(game["id"], "start/"), {}, format="json")
    ada.post(url(game["id"], "concede/"))
    new_id = ada.post(url(game["id"], "rematch/")).json()["game"]  # the only human
    settings = ada.get(url(new_id, "table/")).json()
    assert settings["table_talk"] is False and settings["spectator_delay"] == 2
    assert Game.objects.get(pk=new_id).seats.get(index=1).bot_level == "medium"


# ------------------------------------------------------------------------------ spectators
@pytest.mark.django_db(transaction=True)  # the bot plays after each commit
def test_spectator_view_is_delayed(ada: PlayerClient, make_player: Any) -> None:
    game = create_game(ada, preset="two_player", seat=0, bots=[{"seat": 1, "level": "easy"}])
    game_id = game["id"]
    ada.patch(url(game_id, "table/"), {"spectator_delay": 2}, format="json")
    ada.post(url(game_id, "start/"), {}, format="json")
    for _ in range(3):
        mine = ada.game(game_id)
        action = choose(mine["state"]["legal_actions"])
        assert ada.act(game_id, action, mine["version"]).status_code == 201
    live = ada.game(game_id)["version"]
    eve = make_player("Eve")
    view = eve.get(url(game_id, "spectate/")).json()
    assert view["version"] == view["live_version"] == live - 2  # nothing past the horizon
    assert view["spectator_delay"] == 2
    assert view["state"]["hand"] is None and view["state"]["viewer"] is None
    assert view["state"]["legal_actions"] == []
    # the same position the log gives at that step
    expected = player_view(
        game_replay_state(Game.objects.get(pk=game_id), upto=live - 2), None, with_legal=False
    )
    assert view["state"]["hand_counts"] == expected["hand_counts"]
    assert view["state"]["stock_count"] == expected["stock_count"]
    # the game detail holds a spectator to the delay too; a player sees the live table
    detail = eve.game(game_id)
    assert detail["state"]["stock_count"] == expected["stock_count"]
    assert ada.get(url(game_id, "spectate/")).json()["version"] == live - 2


def test_private_games_cannot_be_watched(ada: PlayerClient, make_player: Any) -> None:
    game = create_game(ada, preset="two_player", is_public=False)
    problem(make_player("Eve").get(url(game["id"], "spectate/")), 404, "not_found")


def test_spectator_view_without_delay_is_live(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    view = ada.get(url(game_id, "spectate/")).json()
    assert view["version"] == view["live_version"] == 1
    assert view["state"]["hand"] is None


# ------------------------------------------------------------------------------ presence
def test_presence_shows_who_is_connected(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    before = ada.get(url(game_id, "presence/")).json()
    assert [s["connected"] for s in before["seats"]] == [False, False]
    assert before["seats"][0]["last_seen"] is None
    after = ada.post(url(game_id, "presence/")).json()
    assert [s["connected"] for s in after["seats"]] == [True, False]
    assert after["seats"][0]["last_seen"] is not None
    assert after["seats"][0]["player"]["id"] == ada.player_id
    # a long-poll counts as being there
    bob.get(url(game_id, "events/"), {"after": 0, "wait": 1})
    seats = ada.get(url(game_id, "presence/")).json()["seats"]
    assert [s["connected"] for s in seats] == [True, True]


def test_bots_are_always_present(ada: PlayerClient) -> None:
    game = create_game(ada, preset="two_player", seat=0, bots=[{"seat": 1, "level": "easy"}])
    seats = ada.get(url(game["id"], "presence/")).json()["seats"]
    assert [s["kind"] for s in seats] == ["player", "bot"]
    assert seats[1]["connected"] is True


# ------------------------------------------------------------------------------ profiles
def test_profile_record_and_replay_links(
    ada: PlayerClient, bob: PlayerClient, make_player: Any
) -> None:
    won = two_player_game(ada, bob)
    bob.post(url(won, "concede/"))
    lost = two_player_game(ada, bob)
    ada.post(url(lost, "concede/"))
    private = create_game(ada, preset="two_player", seat=0, is_public=False)
    bob.post(url(private["id"], "join/"), {"join_code": private["join_code"]}, format="json")
    ada.post(url(private["id"], "start/"), {}, format="json")
    ada.post(url(private["id"], "concede/"))
    two_player_game(ada, bob)  # still running: not counted

    profile = bob.get(f"/api/v1/players/{ada.player_id}/profile/").json()
    assert profile["display_name"] == "Ada"
    assert profile["record"] == {"played": 3, "won": 1, "lost": 2, "conceded": 2}
    assert {g["id"] for g in profile["games"]} == {won, lost, private["id"]}  # bob sat there
    by_id = {g["id"]: g for g in profile["games"]}
    assert by_id[won]["result"] == "won" and by_id[lost]["result"] == "lost"
    assert by_id[lost]["conceded"] is True
    assert by_id[won]["replay"] == f"/api/v1/games/{won}/replay/"
    # someone who was not at the private table does not see it listed (but it counts)
    eve_view = make_player("Eve").get(f"/api/v1/players/{ada.player_id}/profile/").json()
    assert {g["id"] for g in eve_view["games"]} == {won, lost}
    assert eve_view["record"]["played"] == 3
    problem(ada.get("/api/v1/players/999999/profile/"), 404, "player_not_found")


# ------------------------------------------------------------------------------ relations
def test_block_and_favourite_lists(ada: PlayerClient, bob: PlayerClient, carol: Any) -> None:
    blocked = ada.put(f"/api/v1/players/me/blocked/{bob.player_id}/")
    assert blocked.status_code == 200
    assert [p["id"] for p in blocked.json()["blocked"]] == [bob.player_id]
    ada.put(f"/api/v1/players/me/favourites/{carol.player_id}/")
    ada.put(f"/api/v1/players/me/favourites/{carol.player_id}/")  # twice: still once
    lists = ada.get("/api/v1/players/me/relations/").json()
    assert [p["id"] for p in lists["favourites"]] == [carol.player_id]
    assert [p["display_name"] for p in lists["blocked"]] == ["Bob"]
    profile = ada.get(f"/api/v1/players/{bob.player_id}/profile/").json()
    assert profile["you"] == {"blocked": True, "favourite": False}
    unblocked = ada.delete(f"/api/v1/players/me/blocked/{bob.player_id}/").json()
    assert unblocked["blocked"] == []
    problem(ada.put(f"/api/v1/players/me/blocked/{ada.player_id}/"), 400, "relation_self")
    problem(ada.put("/api/v1/players/me/blocked/999999/"), 404, "player_not_found")
    assert bob.get("/api/v1/players/me/relations/").json() == {"blocked": [], "favourites": []}


def test_a_blocked_player_cannot_join(ada: PlayerClient, bob: PlayerClient, carol: Any) -> None:
    ada.put(f"/api/v1/players/me/blocked/{bob.player_id}/")
    game = create_game(ada, preset="classic", seat=0)
    problem(bob.post(url(game["id"], "join/"), {}, format="json"), 403, "player_blocked")
    problem(
        bob.post(f"/api/v1/join/{game['join_code']}/", {}, format="json"),
        403,
        "player_blocked",
    )
    # a table where someone seated (not the creator) blocked bob refuses him too
    other = create_game(carol, preset="classic", seat=0)
    ada.post(url(other["id"], "join/"), {}, format="json")
    problem(bob.post(url(other["id"], "join/"), {}, format="json"), 403, "player_blocked")
    # others still join; and once unblocked, bob does
    assert carol.post(url(game["id"], "join/"), {}, format="json").status_code == 200
    ada.delete(f"/api/v1/players/me/blocked/{bob.player_id}/")
    assert bob.post(url(game["id"], "join/"), {}, format="json").status_code == 200
