"""Tables: create, list, detail, join (by id, by code), leave, start."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from rest_framework.test import APIClient

from tests.games.api.conftest import PlayerClient, create_game, problem

pytestmark = pytest.mark.django_db


# ----------------------------------------------------------------------------- create
def test_create_a_classic_table_seats_the_creator(ada: PlayerClient) -> None:
    game = create_game(ada)
    assert game["status"] == "lobby"
    assert game["preset"] == "classic"
    assert game["options"]["players"] == 4
    assert game["version"] == 0 and game["state"] is None
    assert game["your_seat"] == 0
    assert [s["team"] for s in game["seats"]] == [0, 1, 0, 1]
    assert game["seats"][0]["player"] == {"id": ada.player_id, "display_name": "Ada"}
    assert [s["kind"] for s in game["seats"]] == ["player", "empty", "empty", "empty"]
    assert game["join_code"] and game["seed"] is None and game["seed_commitment"] is None


def test_create_with_preset_overrides_bots_and_a_seat(ada: PlayerClient) -> None:
    game = create_game(
        ada,
        preset="two_player",
        options={"target_score": 1000},
        seat=1,
        bots=[{"seat": 0, "level": "hard"}],
        is_public=False,
    )
    assert game["options"]["players"] == 2 and game["options"]["target_score"] == 1000
    assert game["options"]["draw_count"] == 2  # from the preset
    assert game["your_seat"] == 1
    assert game["seats"][0]["kind"] == "bot" and game["seats"][0]["bot_level"] == "hard"
    assert game["is_public"] is False


def test_players_shorthand_sets_the_number_of_seats(ada: PlayerClient) -> None:
    game = create_game(ada, preset="classic", players=3)
    assert game["options"]["players"] == 3 and len(game["seats"]) == 3
    conflict = ada.post("/api/v1/games/", {"players": 3, "options": {"players": 2}}, format="json")
    problem(conflict, 400, "invalid_request")


def test_spectating_creator_takes_no_seat(ada: PlayerClient) -> None:
    game = create_game(ada, spectate=True)
    assert game["your_seat"] is None
    assert all(s["kind"] == "empty" for s in game["seats"])
    assert game["join_code"]  # the creator may still share the link


def test_invalid_option_names_the_option(ada: PlayerClient) -> None:
    response = ada.post("/api/v1/games/", {"options": {"target_score": 5}}, format="json")
    body = problem(response, 400, "invalid_option")
    assert body["option"] == "target_score"
    response = ada.post("/api/v1/games/", {"options": {"no_such_option": 1}}, format="json")
    assert problem(response, 400, "invalid_option")["option"] == "no_such_option"


def test_unknown_preset_is_invalid_request(ada: PlayerClient) -> None:
    body = problem(
        ada.post("/api/v1/games/", {"preset": "poker"}, format="json"), 400, "invalid_request"
    )
    assert body["errors"][0]["field"] == "preset"


def test_bot_seats_must_exist_and_differ(ada: PlayerClient) -> None:
    response = ada.post(
        "/api/v1/games/", {"preset": "two_player", "bots": [{"seat": 2}]}, format="json"
    )
    problem(response, 400, "invalid_seat")
    response = ada.post("/api/v1/games/", {"bots": [{"seat": 1}, {"seat": 1}]}, format="json")
    problem(response, 409, "seat_taken")
    response = ada.post("/api/v1/games/", {"seat": 1, "bots": [{"seat": 1}]}, format="json")
    problem(response, 409, "seat_taken")
    all_bots = {"bots": [{"seat": i} for i in range(4)]}
    problem(ada.post("/api/v1/games/", all_bots, format="json"), 409, "game_full")


# ----------------------------------------------------------------------------- list
def test_list_shows_open_public_tables_only(ada: PlayerClient, bob: PlayerClient) -> None:
    public = create_game(ada, preset="classic")
    create_game(ada, preset="classic", is_public=False)
    two = create_game(bob, preset="two_player")
    full = create_game(bob, preset="two_player", bots=[{"seat": 1}])
    started = create_game(ada, preset="two_player")
    assert (
        ada.post(
            f"/api/v1/games/{started['id']}/start/", {"fill_with_bots": True}, format="json"
        ).status_code
        == 200
    )

    page = ada.get("/api/v1/games/").json()
    ids = [g["id"] for g in page["results"]]
    assert ids == [two["id"], public["id"]]  # newest first
    assert page["count"] == 2 and page["next"] is None
    assert full["id"] not in ids
    row = page["results"][1]
    assert row["free_seats"] == 3 and row["players"] == 4 and "join_code" not in row

    only = ada.get("/api/v1/games/?preset=two_player").json()["results"]
    assert [g["id"] for g in only] == [two["id"]]
    assert [g["id"] for g in ada.get("/api/v1/games/?players=4").json()["results"]] == [
        public["id"]
    ]
    assert [g["id"] for g in ada.get("/api/v1/games/?seats_free=2").json()["results"]] == [
        public["id"]
    ]
    problem(ada.get("/api/v1/games/?players=9"), 400, "invalid_request")


def test_list_is_paginated(ada: PlayerClient) -> None:
    for _ in range(3):
        create_game(ada)
    page = ada.get("/api/v1/games/?page_size=2").json()
    assert page["count"] == 3 and len(page["results"]) == 2 and page["next"]
    assert len(ada.get("/api/v1/games/?page_size=2&page=2").json()["results"]) == 1
    problem(ada.get("/api/v1/games/?page=9"), 404, "not_found")


def test_mine_lists_my_games_in_any_status(ada: PlayerClient, bob: PlayerClient) -> None:
    mine = create_game(ada, is_public=False)
    theirs = create_game(bob)
    assert (
        bob.post(
            f"/api/v1/games/{theirs['id']}/start/", {"fill_with_bots": True}, format="json"
        ).status_code
        == 200
    )
    ids = [g["id"] for g in ada.get("/api/v1/games/?mine=true").json()["results"]]
    assert ids == [mine["id"]]
    assert [g["id"] for g in bob.get("/api/v1/games/?mine=true").json()["results"]] == [
        theirs["id"]
    ]


# ----------------------------------------------------------------------------- detail
def test_detail_of_an_unknown_game_is_404(ada: PlayerClient) -> None:
    problem(ada.get("/api/v1/games/999999/"), 404, "not_found")


def test_private_tables_are_hidden_from_outsiders(ada: PlayerClient, bob: PlayerClient) -> None:
    game = create_game(ada, is_public=False)
    for path in ("", "events/", "scorecard/"):
        problem(bob.get(f"/api/v1/games/{game['id']}/{path}"), 404, "not_found")
    assert ada.get(f"/api/v1/games/{game['id']}/").status_code == 200


def test_join_code_is_shown_to_insiders_only(ada: PlayerClient, bob: PlayerClient) -> None:
    game = create_game(ada)
    assert bob.game(game["id"])["join_code"] is None
    assert ada.game(game["id"])["join_code"] == game["join_code"]


# ----------------------------------------------------------------------------- join / leave
def test_join_a_public_table(ada: PlayerClient, bob: PlayerClient) -> None:
    game = create_game(ada)
    response = bob.post(f"/api/v1/games/{game['id']}/join/", {}, format="json")
    assert response.status_code == 200
    body = response.json()
    assert body["your_seat"] == 1 and body["join_code"] == game["join_code"]
    assert body["seats"][1]["player"]["display_name"] == "Bob"
    problem(bob.post(f"/api/v1/games/{game['id']}/join/", {}, format="json"), 409, "already_seated")


def test_join_a_chosen_seat(
    ada: PlayerClient, bob: PlayerClient, make_player: Callable[..., PlayerClient]
) -> None:
    game = create_game(ada)
    assert (
        bob.post(f"/api/v1/games/{game['id']}/join/", {"seat": 2}, format="json").json()[
            "your_seat"
        ]
        == 2
    )
    cat = make_player("Cat")
    problem(
        cat.post(f"/api/v1/games/{game['id']}/join/", {"seat": 2}, format="json"), 409, "seat_taken"
    )
    problem(
        cat.post(f"/api/v1/games/{game['id']}/join/", {"seat": 0}, format="json"), 409, "seat_taken"
    )
    two = create_game(ada, preset="two_player")
    problem(
        cat.post(f"/api/v1/games/{two['id']}/join/", {"seat": 3}, format="json"),
        400,
        "invalid_seat",
    )
    problem(
        cat.post(f"/api/v1/games/{two['id']}/join/", {"seat": 9}, format="json"),
        400,
        "invalid_request",
    )


def test_a_full_table_refuses(
    ada: PlayerClient, bob: PlayerClient, make_player: Callable[..., PlayerClient]
) -> None:
    game = create_game(ada, preset="two_player")
    assert bob.post(f"/api/v1/games/{game['id']}/join/", {}, format="json").status_code == 200
    problem(
        make_player("Cat").post(f"/api/v1/games/{game['id']}/join/", {}, format="json"),
        409,
        "game_full",
    )


def test_private_table_needs_its_code(
    ada: PlayerClient, bob: PlayerClient, make_player: Callable[..., PlayerClient]
) -> None:
    game = create_game(ada, is_public=False)
    url = f"/api/v1/games/{game['id']}/join/"
    problem(bob.post(url, {}, format="json"), 404, "not_found")
    problem(bob.post(url, {"join_code": "WRONG123"}, format="json"), 404, "not_found")
    response = bob.post(url, {"join_code": game["join_code"].lower()}, format="json")
    assert response.status_code == 200 and response.json()["your_seat"] == 1
    # the join link works for private tables too
    cat = make_player("Cat")
    link = cat.post(f"/api/v1/join/{game['join_code']}/", {"seat": 3}, format="json")
    assert link.status_code == 200 and link.json()["your_seat"] == 3
    assert cat.game(game["id"])["join_code"] == game["join_code"]


def test_join_link_with_unknown_code_is_404(bob: PlayerClient) -> None:
    problem(bob.post("/api/v1/join/NOSUCHCD/", {}, format="json"), 404, "not_found")
    # longer than any join code (the schema's maxLength): no such URL
    problem(bob.post(f"/api/v1/join/{'A' * 17}/", {}, format="json"), 404, "not_found")


def test_the_join_links_former_path_still_joins(
    ada: PlayerClient, bob: PlayerClient, make_player: Callable[..., PlayerClient]
) -> None:
    """/games/join/{code}/ (ambiguous beside /games/{id}/actions/, so not in openapi.yaml)
    answers as /join/{code}/ does; a plain client, since the schema no longer lists it."""
    game = create_game(ada, is_public=False)
    former = APIClient()
    former.credentials(HTTP_AUTHORIZATION=f"Token {bob.token}")
    joined = former.post(f"/api/v1/games/join/{game['join_code']}/", {"seat": 1}, format="json")
    assert joined.status_code == 200, joined.content
    body = joined.json()
    assert body["id"] == game["id"] and body["your_seat"] == 1
    assert body["seats"][1]["player"]["id"] == bob.player_id
    unknown = former.post("/api/v1/games/join/NOSUCHCD/", {}, format="json")
    assert unknown.status_code == 404 and unknown.json()["code"] == "not_found"


def test_join_unknown_game_is_404(bob: PlayerClient) -> None:
    problem(bob.post("/api/v1/games/424242/join/", {}, format="json"), 404, "not_found")


def test_leave_before_the_start(ada: PlayerClient, bob: PlayerClient) -> None:
    game = create_game(ada)
    bob.post(f"/api/v1/games/{game['id']}/join/", {}, format="json")
    response = bob.post(f"/api/v1/games/{game['id']}/leave/")
    assert response.status_code == 200
    assert response.json()["your_seat"] is None and response.json()["seats"][1]["kind"] == "empty"
    problem(bob.post(f"/api/v1/games/{game['id']}/leave/"), 403, "not_seated")
    problem(bob.post("/api/v1/games/424242/leave/"), 404, "not_found")


def test_no_joining_or_leaving_after_the_start(ada: PlayerClient, bob: PlayerClient) -> None:
    game = create_game(ada, preset="two_player")
    assert (
        ada.post(
            f"/api/v1/games/{game['id']}/start/", {"fill_with_bots": True}, format="json"
        ).status_code
        == 200
    )
    problem(ada.post(f"/api/v1/games/{game['id']}/leave/"), 409, "game_already_started")
    problem(
        bob.post(f"/api/v1/games/{game['id']}/join/", {}, format="json"),
        409,
        "game_already_started",
    )


# ----------------------------------------------------------------------------- start
def test_only_the_creator_starts(ada: PlayerClient, bob: PlayerClient) -> None:
    game = create_game(ada, preset="two_player")
    bob.post(f"/api/v1/games/{game['id']}/join/", {}, format="json")
    problem(
        bob.post(f"/api/v1/games/{game['id']}/start/", {}, format="json"), 403, "not_game_creator"
    )
    problem(bob.post("/api/v1/games/424242/start/", {}, format="json"), 404, "not_found")


def test_empty_seats_block_the_start_unless_filled(ada: PlayerClient) -> None:
    game = create_game(ada, preset="three_player", options={"target_score": 1000})
    body = problem(
        ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json"), 409, "seats_empty"
    )
    assert "1, 2" in body["detail"]
    response = ada.post(
        f"/api/v1/games/{game['id']}/start/",
        {"fill_with_bots": True, "bot_level": "medium"},
        format="json",
    )
    assert response.status_code == 200
    started = response.json()
    assert started["status"] in ("active", "finished")
    assert [s["bot_level"] for s in started["seats"]] == [None, "medium", "medium"]
    assert started["state"]["hand"] is not None and started["seed_commitment"]
    problem(
        ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json"),
        409,
        "game_already_started",
    )


def test_start_with_two_humans(ada: PlayerClient, bob: PlayerClient) -> None:
    game = create_game(ada, preset="two_player")
    bob.post(f"/api/v1/games/{game['id']}/join/", {}, format="json")
    started = ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json").json()
    assert started["status"] == "active" and started["version"] == 1
    assert started["state"]["hand_counts"][1] >= 15
    assert len(started["state"]["hand"]) == started["state"]["hand_counts"][0]
    bobs = bob.game(game["id"])
    assert len(bobs["state"]["hand"]) == bobs["state"]["hand_counts"][1]
