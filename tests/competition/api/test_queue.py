"""Quick play over HTTP: ``/api/v1/queue/`` (join, status with long-poll, leave), its refusals,
and a match made while a player long-polls. Responses are checked against openapi.yaml by the
clients (tests/games/api/schema_check.py)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.test import AsyncClient
from rest_framework.test import APIClient

from games.models import Game, GameStatus
from tests.games.api.conftest import PlayerClient, create_game, problem
from tests.games.api.schema_check import check_response

QUEUE = "/api/v1/queue/"


def leave(player: PlayerClient) -> None:
    """``DELETE /queue/`` answered 204 without a body (which tests/games/api/schema_check.py cannot
    read: refusals go through the checking client)."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {player.token}")
    response = client.delete(QUEUE)
    assert (response.status_code, response.content) == (204, b""), response.content


@pytest.fixture(autouse=True)
def in_process_pairing(settings: Any) -> None:
    """No beat in the suite: the web process pairs (as without a broker)."""
    settings.MATCHMAKING_IN_PROCESS = True


def test_join_read_and_leave(ada: PlayerClient) -> None:
    joined = ada.post(QUEUE, {"preset": "classic", "rated": True}, format="json")

    assert joined.status_code == 201, joined.content
    body = joined.json()
    assert {k: body[k] for k in ("status", "preset", "format", "rated", "game_id", "bots_at")} == {
        "status": "waiting",
        "preset": "classic",
        "format": "partnership",
        "rated": True,
        "game_id": None,
        "bots_at": None,
    }
    assert body["rating_window"] == 100 and body["waited_seconds"] == 0
    read = ada.get(QUEUE)
    assert read.status_code == 200 and read.json()["status"] == "waiting"

    leave(ada)
    problem(ada.get(QUEUE), 404, "not_queued")
    problem(ada.delete(QUEUE), 404, "not_queued")


def test_a_casual_queue_shows_when_bots_may_come(ada: PlayerClient) -> None:
    body = ada.post(
        QUEUE,
        {"preset": "three_player", "bots_after_seconds": 60, "bot_level": "easy"},
        format="json",
    ).json()

    assert body["rating_window"] is None and body["format"] == "three_player"
    assert body["bots_at"] is not None and body["bots_at"] > body["joined_at"]


def test_refusals(ada: PlayerClient, bob: PlayerClient) -> None:
    problem(
        ada.post(QUEUE, {"preset": "classic", "rated": True, "bots_after_seconds": 30}, "json"),
        422,
        "rated_humans_only",
    )
    for bad in (
        {"preset": "classic", "bots_after_seconds": 5},
        {"preset": "classic", "bots_after_seconds": 601},
        {"preset": "poker"},
        {"preset": "classic", "bot_level": "godlike"},
    ):
        problem(ada.post(QUEUE, bad, format="json"), 400, "invalid_request")
    problem(ada.get(QUEUE, {"wait": 31}), 400, "invalid_request")

    create_game(bob, preset="two_player")
    problem(bob.post(QUEUE, {"preset": "two_player"}, format="json"), 409, "at_table")

    assert ada.post(QUEUE, {"preset": "hoyle"}, format="json").status_code == 201
    problem(ada.post(QUEUE, {"preset": "hoyle"}, format="json"), 409, "already_queued")
    problem(
        ada.post("/api/v1/games/", {"preset": "two_player"}, format="json"), 409, "queued_for_match"
    )
    assert ada.get(QUEUE).json()["preset"] == "hoyle"


# Matches are made after a commit (transaction.on_commit): these tests must really commit.
@pytest.mark.django_db(transaction=True)
def test_two_players_are_matched_and_seated(make_player: Callable[..., PlayerClient]) -> None:
    ada, bob = make_player("Ada"), make_player("Bob")
    assert ada.post(QUEUE, {"preset": "two_player"}, format="json").status_code == 201

    joined = bob.post(QUEUE, {"preset": "two_player"}, format="json")

    assert joined.status_code == 201
    mine = bob.get(QUEUE).json()
    assert mine["status"] == "matched" and mine["game_id"] is not None
    assert ada.get(QUEUE).json()["game_id"] == mine["game_id"]
    game = ada.game(mine["game_id"])
    assert game["status"] == "active"
    assert sorted(s["player"]["id"] for s in game["seats"]) == sorted(
        [ada.player_id, bob.player_id]
    )
    refused = problem(ada.delete(QUEUE), 409, "queue_matched")
    assert refused["game_id"] == mine["game_id"]
    problem(ada.post(QUEUE, {"preset": "two_player"}, format="json"), 409, "already_queued")


@pytest.mark.django_db(transaction=True)
def test_a_long_poll_answers_when_the_table_is_dealt(
    make_player: Callable[..., PlayerClient], settings: Any
) -> None:
    settings.LIVE_WAIT_MAX_SECONDS = 20
    settings.MATCHMAKING_PAIR_SECONDS = 60  # only the match's wake-up can end the wait early
    ada, bob = make_player("Ada"), make_player("Bob")
    assert ada.post(QUEUE, {"preset": "two_player"}, format="json").status_code == 201

    async def scenario() -> tuple[Any, float, bool]:
        client = AsyncClient()
        started = time.monotonic()
        poll = asyncio.ensure_future(
            client.get(QUEUE, {"wait": 20}, headers={"Authorization": f"Token {ada.token}"})
        )
        await asyncio.sleep(0.5)
        waiting = not poll.done()
        joined = await sync_to_async(bob.post)(QUEUE, {"preset": "two_player"}, format="json")
        assert joined.status_code == 201
        response = await asyncio.wait_for(poll, 25)
        return response, time.monotonic() - started, waiting

    response, took, waiting = async_to_sync(scenario)()

    assert waiting, "the long-poll answered before the match"
    check_response("GET", QUEUE, response)
    body = response.json()
    assert body["status"] == "matched" and body["game_id"] is not None
    assert Game.objects.get(pk=body["game_id"]).status == GameStatus.ACTIVE
    assert took < 10, "woken by the match, not by the 20 s time-out"


def test_a_waiting_long_poll_holds_one_of_the_players_live_connections(
    ada: PlayerClient, settings: Any
) -> None:
    """At the cap of live connections, one more waiting status read is refused (429 with
    Retry-After) and the player stays queued; a read that does not wait is not counted."""
    settings.LIVE_WAIT_MAX_SECONDS = 20
    settings.LIVE_CONNECTIONS_PER_PLAYER_MAX = 1
    settings.MATCHMAKING_PAIR_SECONDS = 60
    assert ada.post(QUEUE, {"preset": "two_player"}, format="json").status_code == 201
    auth = {"Authorization": f"Token {ada.token}"}

    async def scenario() -> tuple[Any, Any, Any]:
        client = AsyncClient()
        held = asyncio.ensure_future(client.get(QUEUE, {"wait": 2}, headers=auth))
        await asyncio.sleep(0.5)
        assert not held.done()
        over = await client.get(QUEUE, {"wait": 2}, headers=auth)
        at_once = await client.get(QUEUE, headers=auth)
        return over, at_once, await asyncio.wait_for(held, 10)

    over, at_once, first = async_to_sync(scenario)()
    body = problem(over, 429, "too_many_live_connections")
    assert int(over["Retry-After"]) >= 1 and body["retry_after"] >= 1
    assert at_once.status_code == 200 and at_once.json()["status"] == "waiting"
    assert first.status_code == 200 and first.json()["status"] == "waiting"
