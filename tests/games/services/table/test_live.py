"""Live updates through the API: the long-poll of the move log and the Server-Sent Events
stream (ordering, exactly once, resume from Last-Event-ID, wake-up on a move)."""

from __future__ import annotations

import asyncio
import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from tests.games.api.conftest import PlayerClient, create_game, move, to_act
from tests.games.services.table.conftest import async_client, sse_read, two_player_game

# Moves wake waiters after their commit (transaction.on_commit): the tests must really commit.
pytestmark = pytest.mark.django_db(transaction=True)


# ------------------------------------------------------------------------------ long-poll
def test_events_without_wait_answer_at_once(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    response = ada.get(f"/api/v1/games/{game_id}/events/", {"after": 0})
    assert response.status_code == 200
    body = response.json()
    assert [e["seq"] for e in body["events"]] == [1]
    assert body["version"] == 1


def test_long_poll_times_out_empty(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    client = async_client(ada)
    started = time.monotonic()
    response = async_to_sync(client.get)(
        f"/api/v1/games/{game_id}/events/", {"after": 1, "wait": 1}
    )
    took = time.monotonic() - started
    assert response.status_code == 200
    assert response.json()["events"] == []
    assert 0.9 <= took < 5


@pytest.mark.parametrize("path", ["events/", "table/events/"])
def test_under_wsgi_a_long_poll_is_answered_at_once(
    ada: PlayerClient, bob: PlayerClient, settings: Any, path: str
) -> None:
    """Django's test client is a WSGI request: nothing to report, so the answer is the empty
    list of ``wait=0``, given at once (not after the 30 s asked for), and the long-poll still
    counts as being at the table."""
    settings.LIVE_WAIT_MAX_SECONDS = 30
    game_id = two_player_game(ada, bob)
    seat = bob.game(game_id)["your_seat"]
    with ThreadPoolExecutor(1) as pool:
        poll = pool.submit(bob.get, f"/api/v1/games/{game_id}/{path}", {"after": 5, "wait": 30})
        response = poll.result(timeout=10)  # a bound: it waited the 30 s before
    assert response.status_code == 200
    assert response.json()["events"] == []
    seats = ada.get(f"/api/v1/games/{game_id}/presence/").json()["seats"]
    assert seats[seat]["connected"] is True


def test_long_poll_answers_at_once_when_events_exist(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    started = time.monotonic()
    response = ada.get(f"/api/v1/games/{game_id}/events/", {"after": 0, "wait": 20})
    assert time.monotonic() - started < 3
    assert [e["seq"] for e in response.json()["events"]] == [1]


def test_long_poll_wait_is_bounded(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    response = ada.get(f"/api/v1/games/{game_id}/events/", {"after": 1, "wait": 31})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_request"


def test_long_poll_wakes_on_a_move(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    actor = to_act([ada, bob], game_id)
    watcher = bob if actor is ada else ada

    async def scenario() -> tuple[Any, float, bool]:
        client = async_client(watcher)
        started = time.monotonic()
        poll = asyncio.ensure_future(
            client.get(f"/api/v1/games/{game_id}/events/", {"after": 1, "wait": 20})
        )
        await asyncio.sleep(0.5)
        waiting = not poll.done()
        await sync_to_async(move)(actor, game_id)
        response = await asyncio.wait_for(poll, 10)
        return response, time.monotonic() - started, waiting

    response, took, waiting = async_to_sync(scenario)()
    assert waiting, "the long-poll answered before any move"
    assert response.status_code == 200
    body = response.json()
    assert [e["seq"] for e in body["events"]] == [2]
    assert body["events"][0]["seat"] == actor.game(game_id)["your_seat"]
    assert took < 8, "woken by the move, not by the 20 s time-out"


def test_long_poll_of_a_spectator_keeps_the_delay(ada: PlayerClient, make_player: Any) -> None:
    game = create_game(ada, preset="two_player", seat=0, bots=[{"seat": 1, "level": "easy"}])
    game_id = game["id"]
    ada.patch(f"/api/v1/games/{game_id}/table/", {"spectator_delay": 3}, format="json")
    ada.post(f"/api/v1/games/{game_id}/start/", {}, format="json")
    for _ in range(4):
        move(ada, game_id)
    live_version = ada.game(game_id)["version"]
    assert live_version > 4
    watcher = make_player("Eve")
    body = watcher.get(f"/api/v1/games/{game_id}/events/", {"after": 0}).json()
    assert body["version"] == live_version - 3
    assert [e["seq"] for e in body["events"]] == list(range(1, live_version - 2))
    started = time.monotonic()
    waited = async_to_sync(async_client(watcher).get)(
        f"/api/v1/games/{game_id}/events/", {"after": live_version - 3, "wait": 1}
    ).json()
    assert waited["events"] == [] and time.monotonic() - started >= 0.9
    # a seated player sees everything at once
    mine = ada.get(f"/api/v1/games/{game_id}/events/", {"after": 0}).json()
    assert mine["version"] == live_version


# ------------------------------------------------------------------------------ SSE
def _stream(player: PlayerClient, game_id: int, **params: Any) -> list[dict[str, Any]]:
    headers = {}
    if "last_event_id_header" in params:
        headers["Last-Event-ID"] = params.pop("last_event_id_header")

    async def read() -> list[dict[str, Any]]:
        response = await async_client(player).get(
            f"/api/v1/games/{game_id}/stream/", params, headers=headers
        )
        assert response.status_code == 200
        assert response["Content-Type"].startswith("text/event-stream")
        return await sse_read(response)

    return async_to_sync(read)()


def _data(frame: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(frame["data"])
    return data


def test_stream_delivers_every_event_in_order_once(ada: PlayerClient) -> None:
    game = create_game(ada, preset="two_player", seat=0, bots=[{"seat": 1, "level": "easy"}])
    game_id = game["id"]
    ada.post(f"/api/v1/games/{game_id}/start/", {}, format="json")
    for _ in range(3):
        move(ada, game_id)
    ada.post(f"/api/v1/games/{game_id}/chat/", {"phrase": "good_luck"}, format="json")
    version = ada.game(game_id)["version"]

    frames = _stream(ada, game_id, timeout=0)
    assert frames[0] == {"retry": "2000"}
    sync = _data(frames[1])
    assert frames[1]["event"] == "sync" and sync["version"] == version
    moves = [f for f in frames if f.get("event") == "game_event"]
    seqs = [_data(f)["event"]["seq"] for f in moves]
    assert seqs == list(range(1, version + 1)), "in order, no gap, no repeat"
    assert all(_data(f)["version"] == _data(f)["event"]["seq"] for f in moves)
    notes = [f for f in frames if f.get("event") == "table_event"]
    assert [_data(f)["event"]["kind"] for f in notes] == ["chat"]
    assert _data(notes[0])["event"]["data"]["phrase"] == "good_luck"
    ids = [f["id"] for f in frames if "id" in f]
    assert len(ids) == len(set(ids)) == version + 1
    # ids are <move seq>-<table seq> and never go back
    pairs = [tuple(int(x) for x in i.split("-")) for i in ids]
    assert pairs == sorted(pairs)
    # my own hand is in my stream, the bot's is not
    dealt = _data(moves[0])["event"]["effects"]
    round_started = next(e for e in dealt if e["kind"] == "round_started")
    assert "hand" in round_started


def test_stream_resumes_after_last_event_id(ada: PlayerClient) -> None:
    game = create_game(ada, preset="two_player", seat=0, bots=[{"seat": 1, "level": "easy"}])
    game_id = game["id"]
    ada.post(f"/api/v1/games/{game_id}/start/", {}, format="json")
    for _ in range(3):
        move(ada, game_id)
    first = [f for f in _stream(ada, game_id, timeout=0) if "id" in f]
    cut = first[2]["id"]
    resumed = _stream(ada, game_id, timeout=0, last_event_id_header=cut)
    assert _data(resumed[1])["resumed"] is True
    rest = [f for f in resumed if "id" in f]
    assert [f["id"] for f in rest] == [f["id"] for f in first[3:]]
    assert [f["data"] for f in rest] == [f["data"] for f in first[3:]]
    # the query parameter does the same for clients that cannot set headers
    by_query = [f for f in _stream(ada, game_id, timeout=0, last_event_id=cut) if "id" in f]
    assert [f["id"] for f in by_query] == [f["id"] for f in first[3:]]
    # nothing after the last one
    last = first[-1]["id"]
    assert [f for f in _stream(ada, game_id, timeout=0, last_event_id=last) if "id" in f] == []


def test_stream_pushes_a_move_and_a_chat_while_open(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    actor = to_act([ada, bob], game_id)
    watcher = bob if actor is ada else ada

    async def scenario() -> list[dict[str, Any]]:
        response = await async_client(watcher).get(
            f"/api/v1/games/{game_id}/stream/", {"after": 1, "timeout": 4}
        )
        reader = asyncio.ensure_future(sse_read(response))
        await asyncio.sleep(0.5)
        await sync_to_async(move)(actor, game_id)
        await sync_to_async(actor.post)(
            f"/api/v1/games/{game_id}/chat/", {"phrase": "hello"}, format="json"
        )
        return await asyncio.wait_for(reader, 15)

    frames = async_to_sync(scenario)()
    named = [f for f in frames if "id" in f]
    assert [f["event"] for f in named] == ["game_event", "table_event"]
    assert _data(named[0])["event"]["seq"] == 2
    assert named[0]["id"] == "2-0" and named[1]["id"] == "2-1"
    assert _data(named[1])["event"]["data"]["text"] == "Hello!"


def test_stream_ends_when_the_game_is_over(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    assert ada.post(f"/api/v1/games/{game_id}/concede/").status_code == 200
    frames = _stream(bob, game_id, timeout=30)
    assert frames[-1]["event"] == "end"
    conceded = [f for f in frames if f.get("event") == "table_event"]
    assert _data(conceded[-1])["event"]["kind"] == "conceded"


def test_stream_of_a_private_game_is_not_found(ada: PlayerClient, bob: PlayerClient) -> None:
    game = create_game(ada, preset="two_player", is_public=False)

    async def read() -> Any:
        return await async_client(bob).get(f"/api/v1/games/{game['id']}/stream/")

    response = async_to_sync(read)()
    assert response.status_code == 404
    assert json.loads(response.content)["code"] == "not_found"


def test_stream_needs_a_token(ada: PlayerClient) -> None:
    game = create_game(ada, preset="two_player")
    response = PlayerClient().get(f"/api/v1/games/{game['id']}/stream/")
    assert response.status_code == 401
