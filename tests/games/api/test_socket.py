"""The game's WebSocket (``/api/v1/games/{id}/socket/``, docs/live.md) driven through the live
server's ASGI application (``canasta_service.asgi.application``), in-process: the sync and
every event once in order, resuming, authentication and its close codes, moves pushed as they
happen, actions sent on the socket with the HTTP endpoint's rules, ping, malformed messages,
chat (and muted chat), what a spectator sees (leak scan), the end of the game and origins.

The consumer's database work runs in other threads and moves wake the game's feed after their
commit, so the tests really commit (``transaction=True``); without Redis the wake-ups are
in-process (games/live.py), with ``REDIS_URL`` they go through Redis pub/sub.

``channels.testing.WebsocketCommunicator`` cannot be imported here (``channels.testing`` imports
its live-server test case, which needs daphne, not installed), so ``Socket`` below is the same
thing on asgiref's ``ApplicationCommunicator``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from typing import Any
from unittest import mock

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from asgiref.testing import ApplicationCommunicator
from django.conf import settings

from canasta_service.asgi import application
from games.models import Game
from tests.games.api.conftest import (
    PlayerClient,
    against_a_bot,
    choose,
    create_game,
    move,
    to_act,
    two_player_game,
)
from tests.games.api.schema_check import check_response
from tests.games.api.test_leak import cards_in, states_of, visible

pytestmark = pytest.mark.django_db(transaction=True)

WAIT = 10.0  # seconds: the bound of every wait for a message (never reached when all is well)


# ============================================================================== the client
class Socket(ApplicationCommunicator):
    """A WebSocket client of the application: JSON messages in and out, bounded waits."""

    def __init__(
        self,
        game_id: int,
        token: str | None = None,
        query: str = "cursor=0-0",
        headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        sent = list(headers or [])
        if token is not None:
            sent.append((b"authorization", f"Token {token}".encode()))
        scope = {
            "type": "websocket",
            "path": f"/api/v1/games/{game_id}/socket/",
            "query_string": query.encode(),
            "headers": sent,
            "subprotocols": [],
        }
        super().__init__(application, scope)

    async def open(self) -> bool:
        """Connect: True when the server accepted the socket."""
        await self.send_input({"type": "websocket.connect"})
        answer = await self.receive_output(WAIT)
        assert answer["type"] in ("websocket.accept", "websocket.close"), answer
        return bool(answer["type"] == "websocket.accept")

    async def send_json(self, data: Any) -> None:
        await self.send_input({"type": "websocket.receive", "text": json.dumps(data)})

    async def send_text(self, text: str) -> None:
        await self.send_input({"type": "websocket.receive", "text": text})

    async def next(self) -> dict[str, Any]:
        """The next message the server sends (failing if it closes instead)."""
        output = await self.receive_output(WAIT)
        assert output["type"] == "websocket.send", output
        message: dict[str, Any] = json.loads(output["text"])
        return message

    async def until(self, stop: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        """Every message up to and including the first for which ``stop`` is true."""
        got = []
        while True:
            message = await self.next()
            got.append(message)
            if stop(message):
                return got

    async def fence(self) -> list[dict[str, Any]]:
        """Every message the server sends before it answers a ping now (the pong left out):
        whatever was queued for this client before the ping."""
        await self.send_json({"type": "ping", "request_id": "fence"})
        got = await self.until(lambda m: m["type"] == "pong" and m["request_id"] == "fence")
        return got[:-1]

    async def close_code(self) -> int:
        """The next output must be the server closing the socket: its code (then the client
        side's disconnect, and the application must end)."""
        output = await self.receive_output(WAIT)
        assert output["type"] == "websocket.close", output
        await self.leave()
        return int(output.get("code", 1000))

    async def leave(self) -> None:
        await self.send_input({"type": "websocket.disconnect", "code": 1000})
        await self.wait(WAIT)


# ============================================================================== helpers


def http_events(player: PlayerClient, game_id: int, after: int = 0) -> list[dict[str, Any]]:
    response = player.get(f"/api/v1/games/{game_id}/events/", {"after": after, "limit": 500})
    assert response.status_code == 200
    events: list[dict[str, Any]] = response.json()["events"]
    return events


def cursor_pair(text: str) -> tuple[int, int]:
    move_seq, table_seq = text.split("-")
    return int(move_seq), int(table_seq)


class Answer:
    """A socket ``action_result`` seen as the HTTP response it stands for (schema checks)."""

    def __init__(self, status: int, body: Any) -> None:
        self.status_code = status
        self.content = json.dumps(body).encode()
        kind = "application/json" if status < 400 else "application/problem+json"
        self.headers = {"Content-Type": kind}

    def get(self, name: str, default: str = "") -> str:
        return self.headers.get(name, default)


def check_action_result(game_id: int, result: dict[str, Any]) -> None:
    """``status`` and ``body`` are what ``POST .../actions/`` documents for that status (the
    body with its ``outcome``, the socket's discriminator, left out)."""
    body = {k: v for k, v in result["body"].items() if k != "outcome"}
    check_response("POST", f"/api/v1/games/{game_id}/actions/", Answer(result["status"], body))


def leaks(game_id: int, messages: list[dict[str, Any]], seat: int | None) -> list[Any]:
    """Cards the socket showed ``seat`` (None: a spectator) that it could not know (the leak
    scanner of tests/games/api/test_leak.py): per move, the table before and after it, the action
    itself and the hands shown at a round's end; nothing else carries cards."""
    game = Game.objects.get(pk=game_id)
    allowed = {
        event.seq: visible(before, seat) | visible(after, seat) | cards_in(event.payload) | shown
        for event, before, after, shown in states_of(game)
    }
    found = []
    for message in messages:
        if message["type"] == "game_event":
            seq = message["event"]["seq"]
            for effect in message["event"]["effects"]:
                extra = cards_in(effect) - allowed[seq]
                if extra:
                    found.append((seq, effect, extra))
        elif cards_in(message):
            found.append((message["type"], message, cards_in(message)))
    return found


# ============================================================================== order, resume
def test_sync_then_every_event_once_in_order(ada: PlayerClient) -> None:
    game_id = against_a_bot(ada)
    version = ada.game(game_id)["version"]
    assert version > 3

    async def scenario() -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
        socket = Socket(game_id, ada.token)
        assert await socket.open()
        sync = await socket.next()
        items = [await socket.next() for _ in range(version + 1)]  # every move and the chat
        more = await socket.fence()
        await socket.leave()
        return sync, items, more

    sync, items, more = async_to_sync(scenario)()
    assert sync == {"type": "sync", "version": version, "cursor": "0-0", "resumed": False}
    assert more == [], "nothing after the log's end (no repeat)"
    moves = [m for m in items if m["type"] == "game_event"]
    assert [m["event"]["seq"] for m in moves] == list(range(1, version + 1))
    assert all(m["version"] == m["event"]["seq"] for m in moves)
    notes = [m for m in items if m["type"] == "table_event"]
    assert [(n["table_seq"], n["event"]["kind"]) for n in notes] == [(1, "chat")]
    assert notes[0]["event"]["data"]["phrase"] == "good_luck"
    ids = [m["id"] for m in items]
    assert len(set(ids)) == len(ids) == version + 1
    assert [cursor_pair(i) for i in ids] == sorted(cursor_pair(i) for i in ids)
    assert ids[-1] == f"{version}-1"
    assert all(cursor_pair(m["id"])[0] == m["event"]["seq"] for m in moves)
    # the same events, redacted the same way, as the move log over HTTP
    assert [m["event"] for m in moves] == http_events(ada, game_id)
    dealt = next(e for e in moves[0]["event"]["effects"] if e["kind"] == "round_started")
    assert "hand" in dealt  # her own hand
    assert leaks(game_id, items, 0) == []


def test_resume_from_a_cursor_sends_only_what_follows(ada: PlayerClient) -> None:
    game_id = against_a_bot(ada)

    async def read(query: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        socket = Socket(game_id, ada.token, query=query)
        assert await socket.open()
        sync = await socket.next()
        # every queued item, then a pong: the fence returns once all was sent
        items = await socket.fence()
        await socket.leave()
        return sync, items

    _, everything = async_to_sync(read)("cursor=0-0")
    assert len(everything) >= 5
    cut = everything[2]["id"]
    sync, rest = async_to_sync(read)(f"cursor={cut}")
    assert sync["cursor"] == cut and sync["resumed"] is True
    assert rest == everything[3:]
    # the same with ?after=&table_after=
    moves, table = cursor_pair(cut)
    _, by_params = async_to_sync(read)(f"after={moves}&table_after={table}")
    assert by_params == everything[3:]
    # nothing after the last one
    _, nothing = async_to_sync(read)(f"cursor={everything[-1]['id']}")
    assert nothing == []


# ============================================================================== authentication
def test_auth_by_a_first_message(ada: PlayerClient) -> None:
    game_id = against_a_bot(ada, moves=0)

    async def scenario() -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
        socket = Socket(game_id)
        assert await socket.open()
        assert socket.output_queue.empty(), "the server sent something before authentication"
        await socket.send_json({"type": "auth", "token": ada.token})
        sync = await socket.next()
        again_sent = await socket.fence()
        await socket.send_json({"type": "auth", "token": ada.token})
        again = await socket.next()
        await socket.leave()
        return again_sent, sync, again

    first, sync, again = async_to_sync(scenario)()
    assert sync["type"] == "sync" and sync["version"] == 1
    assert [m["type"] for m in first] == ["game_event", "table_event"]
    assert again["type"] == "error" and again["problem"]["code"] == "invalid_request"


def test_auth_by_the_session_cookie_of_a_signed_in_browser(ada: PlayerClient) -> None:
    """A browser signed in to the site (Django's session) is its player on the socket; a
    cookie naming no session, or a user who is no longer active, is no one (the socket then
    waits for an `auth` message, and a first message of another kind closes it 4400)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    game_id = against_a_bot(ada, moves=0)
    user = get_user_model().objects.get(player__pk=ada.player_id)
    browser = Client()
    browser.force_login(user)
    key = browser.cookies[settings.SESSION_COOKIE_NAME].value

    async def scenario(cookie: str, signed_in: bool) -> dict[str, Any] | int:
        socket = Socket(game_id, headers=[(b"cookie", cookie.encode())])
        assert await socket.open()
        if signed_in:
            message: dict[str, Any] = await socket.next()
            await socket.leave()
            return message
        assert socket.output_queue.empty(), "sent before authentication"
        await socket.send_json({"type": "ping"})
        return int(await socket.close_code())

    name = settings.SESSION_COOKIE_NAME
    sync = async_to_sync(scenario)(f"theme=dark; {name}={key}", True)
    assert isinstance(sync, dict) and sync["type"] == "sync" and sync["version"] == 1
    assert async_to_sync(scenario)(f"{name}=no-such-session", False) == 4400
    user.is_active = False
    user.save(update_fields=["is_active"])
    assert async_to_sync(scenario)(f"{name}={key}", False) == 4400


@pytest.mark.parametrize("how", ["header", "message"])
def test_a_wrong_token_closes_4401(ada: PlayerClient, how: str) -> None:
    game_id = against_a_bot(ada, moves=0)

    async def scenario() -> int:
        socket = Socket(game_id, "not-a-token" if how == "header" else None)
        assert await socket.open()
        if how == "message":
            await socket.send_json({"type": "auth", "token": "not-a-token"})
        code = await socket.close_code()
        return code

    assert async_to_sync(scenario)() == 4401


def test_no_auth_in_time_closes_4401(ada: PlayerClient) -> None:
    game_id = against_a_bot(ada, moves=0)

    async def scenario() -> int:
        socket = Socket(game_id)
        assert await socket.open()
        code = await socket.close_code()
        return code

    with mock.patch("games.api.socket.AUTH_SECONDS", 0.2):
        assert async_to_sync(scenario)() == 4401


def test_a_first_message_that_is_not_auth_closes_4400(ada: PlayerClient) -> None:
    """docs/live.md: "`4400` bad cursor or a first message that is not `auth`"."""
    game_id = against_a_bot(ada, moves=0)

    async def scenario() -> int:
        socket = Socket(game_id)
        assert await socket.open()
        await socket.send_json({"type": "ping", "request_id": 1})
        code = await socket.close_code()
        return code

    assert async_to_sync(scenario)() == 4400


@pytest.mark.parametrize(
    "query", ["cursor=abc", "cursor=1-2-3", "cursor=-1", "after=-1", "after=x"]
)
def test_a_bad_cursor_closes_4400(ada: PlayerClient, query: str) -> None:
    game_id = against_a_bot(ada, moves=0)

    async def scenario() -> int:
        socket = Socket(game_id, ada.token, query=query)
        assert await socket.open()
        code = await socket.close_code()
        return code

    assert async_to_sync(scenario)() == 4400


def test_a_private_game_of_someone_else_closes_4404(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = int(create_game(ada, preset="two_player", is_public=False)["id"])

    async def scenario(token: str) -> Any:
        socket = Socket(game_id, token)
        assert await socket.open()
        output = await socket.receive_output(WAIT)
        await socket.leave()
        if output["type"] == "websocket.send":
            return json.loads(output["text"])
        return output.get("code", 1000)

    assert async_to_sync(scenario)(bob.token) == 4404
    # ... and a game that does not exist
    mine = async_to_sync(scenario)(ada.token)
    assert mine["type"] == "sync"  # its creator may follow it


def test_an_unknown_game_closes_4404(ada: PlayerClient) -> None:
    async def scenario() -> int:
        socket = Socket(10**12, ada.token)
        assert await socket.open()
        code = await socket.close_code()
        return code

    assert async_to_sync(scenario)() == 4404


# ========================================================================= pushed as it happens
def test_a_move_over_http_is_pushed(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    actor = to_act([ada, bob], game_id)
    watcher = bob if actor is ada else ada

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
        socket = Socket(game_id, watcher.token)
        assert await socket.open()
        opening = await socket.until(lambda m: m["type"] == "game_event")
        version = await sync_to_async(move)(actor, game_id)
        pushed = await socket.until(lambda m: m["type"] == "game_event")
        pushed += await socket.fence()
        await socket.leave()
        return opening, pushed, version

    opening, pushed, version = async_to_sync(scenario)()
    assert [m["type"] for m in opening] == ["sync", "game_event"]
    assert opening[1]["event"]["seq"] == 1
    assert version == 2
    assert [(m["type"], m["id"], m["version"]) for m in pushed] == [("game_event", "2-0", 2)]
    assert pushed[0]["event"] == http_events(watcher, game_id, after=1)[0]
    assert pushed[0]["event"]["seat"] != watcher.game(game_id)["your_seat"]


# ============================================================================== actions
def _action_message(
    player: PlayerClient, game_id: int, request_id: Any, **extra: Any
) -> dict[str, Any]:
    game = player.game(game_id)
    return {
        "type": "action",
        "request_id": request_id,
        "expected_version": game["version"],
        "action": choose(game["state"]["legal_actions"]),
        **extra,
    }


def test_an_action_on_the_socket_is_applied(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    actor = to_act([ada, bob], game_id)

    async def scenario() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        socket = Socket(game_id, actor.token, query="cursor=1-0")
        assert await socket.open()
        assert (await socket.next())["type"] == "sync"
        message = await sync_to_async(_action_message)(actor, game_id, "r-1")
        await socket.send_json(message)
        got: list[dict[str, Any]] = []
        while not (
            any(m["type"] == "action_result" for m in got)
            and any(m["type"] == "game_event" for m in got)
        ):
            got.append(await socket.next())
        got += await socket.fence()
        await socket.leave()
        return got, message

    got, message = async_to_sync(scenario)()
    [result] = [m for m in got if m["type"] == "action_result"]
    [event] = [m for m in got if m["type"] == "game_event"]
    assert len(got) == 2
    assert result["request_id"] == "r-1"
    assert result["status"] == 201 and result["replayed"] is False
    check_action_result(game_id, result)
    assert result["body"]["game"]["version"] == 2
    assert event["event"]["seq"] == 2 and event["id"] == "2-0"
    assert event["event"]["type"] == message["action"]["type"]
    assert actor.game(game_id)["version"] == 2
    # the body is the one POST .../actions/ gives (same members; the next move, over HTTP)
    nxt = to_act([ada, bob], game_id)
    answer = nxt.act(game_id, choose(nxt.game(game_id)["state"]["legal_actions"]), 2)
    assert answer.status_code == 201
    assert result["body"]["outcome"] == "applied"
    assert set(answer.json()) == set(result["body"]) - {"outcome"}
    assert set(answer.json()["game"]) == set(result["body"]["game"])


def test_a_stale_version_on_the_socket_is_409(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    actor = to_act([ada, bob], game_id)
    move(actor, game_id)  # version 2
    actor = to_act([ada, bob], game_id)
    before = actor.game(game_id)

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        socket = Socket(game_id, actor.token, query="cursor=2-0")
        assert await socket.open()
        assert (await socket.next())["type"] == "sync"
        message = await sync_to_async(_action_message)(actor, game_id, 7)
        await socket.send_json({**message, "expected_version": 1})
        result = await socket.until(lambda m: m["type"] == "action_result")
        after = await socket.fence()
        await socket.leave()
        return result, after

    got, after = async_to_sync(scenario)()
    result = got[-1]
    assert got[:-1] == [] and after == [], "nothing was played"
    assert result["request_id"] == 7 and result["status"] == 409 and result["replayed"] is False
    assert result["body"]["code"] == "stale_version"
    assert result["body"]["status"] == 409
    check_action_result(game_id, result)
    now = actor.game(game_id)
    assert now["version"] == before["version"] == 2
    assert now["state"] == before["state"]


def test_the_idempotency_key_on_the_socket(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    actor = to_act([ada, bob], game_id)

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        socket = Socket(game_id, actor.token, query="cursor=1-0")
        assert await socket.open()
        assert (await socket.next())["type"] == "sync"
        message = await sync_to_async(_action_message)(actor, game_id, "a", idempotency_key="k-1")
        results: list[dict[str, Any]] = []
        seen: list[dict[str, Any]] = []
        for request_id in ("a", "b"):
            await socket.send_json({**message, "request_id": request_id})
            seen += await socket.until(lambda m: m["type"] == "action_result")
            results.append(seen[-1])
        other = {**message, "request_id": "c", "expected_version": 2}
        await socket.send_json(other)
        seen += await socket.until(lambda m: m["type"] == "action_result")
        results.append(seen[-1])
        seen += await socket.fence()
        await socket.leave()
        return results, seen

    results, seen = async_to_sync(scenario)()
    first, replay, reused = results
    assert (first["request_id"], first["status"], first["replayed"]) == ("a", 201, False)
    assert (replay["request_id"], replay["status"], replay["replayed"]) == ("b", 201, True)
    assert replay["body"] == first["body"]
    assert (reused["request_id"], reused["status"]) == ("c", 422)
    assert reused["body"]["code"] == "idempotency_key_reused"
    for result in results:
        check_action_result(game_id, result)
    # applied once: one event, version 1 -> 2
    assert [m["event"]["seq"] for m in seen if m["type"] == "game_event"] == [2]
    assert actor.game(game_id)["version"] == 2
    assert [e["seq"] for e in http_events(actor, game_id)] == [1, 2]


# ============================================================================== ping, errors
def test_ping_pong_and_malformed_messages(ada: PlayerClient) -> None:
    game_id = against_a_bot(ada, moves=0)

    async def scenario() -> list[dict[str, Any]]:
        socket = Socket(game_id, ada.token, query="cursor=1-1")
        assert await socket.open()
        got = [await socket.next()]
        await socket.send_json({"type": "ping", "request_id": "p-1"})
        got.append(await socket.next())
        await socket.send_json({"type": "ping"})
        got.append(await socket.next())
        for text in (
            "not json",
            "[1, 2]",
            '{"no": "type"}',
            '{"type": "dance"}',
            '{"type": "action", "idempotency_key": "k\\u0000", "action": {"type": "draw"}}',
        ):
            await socket.send_text(text)
            got.append(await socket.next())
        await socket.send_input({"type": "websocket.receive", "bytes": b"\x00\x01"})
        got.append(await socket.next())
        await socket.send_json({"type": "ping", "request_id": 42})
        got.append(await socket.next())
        await socket.leave()
        return got

    got = async_to_sync(scenario)()
    assert got[0]["type"] == "sync"
    assert got[1] == {"type": "pong", "request_id": "p-1"}
    assert got[2] == {"type": "pong", "request_id": None}
    for error in got[3:9]:
        assert error["type"] == "error", error
        problem = error["problem"]
        assert problem["code"] == "invalid_request"
        assert problem["status"] == 400
        assert problem["title"] and problem["detail"]
    assert "Null characters" in got[7]["problem"]["detail"]
    assert got[9] == {"type": "pong", "request_id": 42}, "the socket stays usable"
    assert ada.game(game_id)["version"] == 1


# ============================================================================== chat
def test_chat_is_pushed(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)

    async def scenario() -> list[dict[str, Any]]:
        socket = Socket(game_id, bob.token, query="cursor=1-0")
        assert await socket.open()
        assert (await socket.next())["type"] == "sync"
        said = await sync_to_async(ada.post)(
            f"/api/v1/games/{game_id}/chat/", {"phrase": "hello"}, format="json"
        )
        assert said.status_code == 201, said.content
        got = await socket.until(lambda m: m["type"] == "table_event")
        got += await socket.fence()
        await socket.leave()
        return got

    got = async_to_sync(scenario)()
    assert len(got) == 1
    note = got[0]
    assert (note["type"], note["id"], note["table_seq"], note["version"]) == (
        "table_event",
        "1-1",
        1,
        1,
    )
    assert note["event"]["kind"] == "chat"
    assert note["event"]["seat"] == 0
    assert note["event"]["data"]["text"] == "Hello!"


def _mute(player: PlayerClient, game_id: int, seat: int) -> None:
    response = player.post(
        f"/api/v1/games/{game_id}/chat/mute/", {"seat": seat, "muted": True}, format="json"
    )
    assert response.status_code == 200, response.content
    assert seat in response.json()["muted_seats"]


def _chat(player: PlayerClient, game_id: int, phrase: str) -> None:
    said = player.post(f"/api/v1/games/{game_id}/chat/", {"phrase": phrase}, format="json")
    assert said.status_code == 201, said.content


def test_muted_chat_is_not_pushed(ada: PlayerClient, bob: PlayerClient) -> None:
    """Bob mutes ada (seat 0) while his socket is open; her chat then does not reach him, and
    the move after it does (so the chat would have come first). (A mute applies to what is
    delivered after it: her chat before it is waited for before he mutes.)"""
    game_id = two_player_game(ada, bob)
    actor = to_act([ada, bob], game_id)

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        heard = Socket(game_id, ada.token, query="cursor=1-0")  # ada hears herself
        muting = Socket(game_id, bob.token, query="cursor=1-0")
        assert await heard.open() and await muting.open()
        assert (await heard.next())["type"] == "sync"
        assert (await muting.next())["type"] == "sync"
        await sync_to_async(_chat)(ada, game_id, "hello")  # before the mute: bob gets it
        bob_got = await muting.until(lambda m: m["type"] == "table_event")
        await sync_to_async(_mute)(bob, game_id, 0)
        await sync_to_async(_chat)(ada, game_id, "good_luck")
        await sync_to_async(move)(actor, game_id)
        ada_got = await heard.until(lambda m: m["type"] == "game_event")
        bob_got += await muting.until(lambda m: m["type"] == "game_event")
        ada_got += await heard.fence()
        bob_got += await muting.fence()
        await heard.leave()
        await muting.leave()
        return ada_got, bob_got

    ada_got, bob_got = async_to_sync(scenario)()
    assert [(m["type"], m["id"]) for m in ada_got] == [
        ("table_event", "1-1"),
        ("table_event", "1-2"),
        ("game_event", "2-2"),
    ]
    assert [(m["type"], m["id"]) for m in bob_got] == [
        ("table_event", "1-1"),
        ("game_event", "2-2"),
    ]
    assert bob_got[0]["event"]["data"]["phrase"] == "hello"


def test_muted_chat_is_left_out_of_the_catch_up(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    _chat(ada, game_id, "hello")
    _chat(bob, game_id, "good_luck")
    _mute(bob, game_id, 0)

    async def scenario() -> list[dict[str, Any]]:
        socket = Socket(game_id, bob.token)
        assert await socket.open()
        got = [await socket.next()]
        got += await socket.fence()
        await socket.leave()
        return got

    got = async_to_sync(scenario)()
    assert [(m["type"], m.get("id")) for m in got] == [
        ("sync", None),
        ("game_event", "1-0"),
        ("table_event", "1-2"),
    ]
    assert got[2]["event"]["seat"] == 1


# ============================================================================== spectators
def test_a_spectator_never_receives_a_hand(
    ada: PlayerClient, bob: PlayerClient, make_player: Callable[..., PlayerClient]
) -> None:
    game_id = two_player_game(ada, bob)
    eve = make_player("Eve")
    plays = 16

    async def scenario() -> dict[str, list[dict[str, Any]]]:
        sockets = {
            "eve": Socket(game_id, eve.token),
            "ada": Socket(game_id, ada.token),
        }
        for socket in sockets.values():
            assert await socket.open()
        for _ in range(plays):
            actor = await sync_to_async(to_act)([ada, bob], game_id)
            await sync_to_async(move)(actor, game_id)
        version = plays + 1
        got = {}
        for name, socket in sockets.items():
            got[name] = await socket.until(
                lambda m: m["type"] == "game_event" and m["event"]["seq"] == version
            )
            got[name] += await socket.fence()
            await socket.leave()
        return got

    got = async_to_sync(scenario)()
    for name, seat in (("eve", None), ("ada", 0)):
        messages = got[name]
        assert messages[0]["type"] == "sync"
        moves = [m for m in messages if m["type"] == "game_event"]
        assert [m["event"]["seq"] for m in moves] == list(range(1, plays + 2))
        dealt = [e for m in moves for e in m["event"]["effects"] if e["kind"] == "round_started"]
        assert dealt, "the deal is in the log"
        assert all(("hand" in e) == (seat is not None) for e in dealt), (name, dealt)
        assert leaks(game_id, messages, seat) == [], name
    # the spectator's socket shows what his move log over HTTP shows, no more
    assert [m["event"] for m in got["eve"] if m["type"] == "game_event"] == http_events(
        eve, game_id
    )
    # the scan does see cards: ada's own hand and draws, which eve does not get
    ada_cards = sum((cards_in(m) for m in got["ada"]), Counter[str]())
    eve_cards = sum((cards_in(m) for m in got["eve"]), Counter[str]())
    assert sum(ada_cards.values()) > sum(eve_cards.values())


# ============================================================================== the end
def test_the_game_ending_sends_end_and_closes_1000(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)

    async def scenario() -> tuple[list[dict[str, Any]], int]:
        socket = Socket(game_id, bob.token)
        assert await socket.open()
        opening = await socket.until(lambda m: m["type"] == "game_event")
        conceded = await sync_to_async(ada.post)(f"/api/v1/games/{game_id}/concede/")
        assert conceded.status_code == 200, conceded.content
        got = opening + await socket.until(lambda m: m["type"] == "end")
        code = await socket.close_code()
        return got, code

    got, code = async_to_sync(scenario)()
    assert code == 1000
    assert [m["type"] for m in got[:2]] == ["sync", "game_event"]
    end = got[-1]
    assert end["type"] == "end"
    notes = [m for m in got if m["type"] == "table_event"]
    assert notes and notes[-1]["event"]["kind"] == "conceded"
    version = bob.game(game_id)["version"]
    assert end["version"] == version
    assert end["cursor"] == got[-2]["id"]
    assert bob.game(game_id)["status"] != "active"


def test_a_socket_on_a_finished_game_sends_all_then_end(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game_id = two_player_game(ada, bob)
    assert ada.post(f"/api/v1/games/{game_id}/concede/").status_code == 200

    async def scenario() -> tuple[list[dict[str, Any]], int]:
        socket = Socket(game_id, bob.token)
        assert await socket.open()
        got = await socket.until(lambda m: m["type"] == "end")
        code = await socket.close_code()
        return got, code

    got, code = async_to_sync(scenario)()
    assert code == 1000
    assert got[0]["type"] == "sync" and got[-1]["type"] == "end"
    assert [m["type"] for m in got[1:-1]].count("game_event") == bob.game(game_id)["version"]


# ============================================================================== origins
def _allowed_host() -> str:
    return next(h for h in settings.ALLOWED_HOSTS if h not in ("*",) and not h.startswith("."))


@pytest.mark.parametrize(
    ("origin", "accepted"),
    [
        (None, True),
        ("allowed", True),
        ("https://evil.example", False),
        ("null", False),
    ],
)
def test_browser_origins(ada: PlayerClient, origin: str | None, accepted: bool) -> None:
    assert "*" not in settings.ALLOWED_HOSTS
    game_id = against_a_bot(ada, moves=0)
    if origin == "allowed":
        origin = f"http://{_allowed_host()}"
    headers = [] if origin is None else [(b"origin", origin.encode())]

    async def scenario() -> tuple[bool, Any]:
        socket = Socket(game_id, ada.token, headers=headers)
        opened = await socket.open()
        first = await socket.next() if opened else None
        await socket.leave()
        return opened, first

    opened, first = async_to_sync(scenario)()
    assert opened is accepted
    if accepted:
        assert first is not None and first["type"] == "sync"
