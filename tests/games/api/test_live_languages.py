"""The live server speaks the player's language too: its fast path (waiting long-polls and
streams, answered without Django) says ``Content-Language`` as Django does, and the socket's
problems (an action refused, a bad message) are in the account's language, else in the
language of the handshake's ``Accept-Language``. The codes never change."""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.utils import translation

from accounts.models import Player
from accounts.services.players import player_language_set
from core.errors import CATALOGUE
from tests.games.api.conftest import PlayerClient, move, to_act, two_player_game
from tests.games.api.test_live_fast_path import events_path, fetch
from tests.games.api.test_socket import Socket, _action_message

pytestmark = pytest.mark.django_db(transaction=True)


def title_in(language: str, code: str) -> str:
    with translation.override(language):
        return translation.gettext(CATALOGUE[code].title)


def test_titles_differ_by_language() -> None:
    """The premise of the tests below: the catalogue translates these titles."""
    assert title_in("es", "stale_version") != title_in("en", "stale_version")
    assert title_in("de", "invalid_request") != title_in("en", "invalid_request")


@pytest.mark.parametrize(("header", "tag"), [("es-MX,es;q=0.9", "es"), ("pt-BR", "pt-BR")])
def test_a_waiting_long_poll_says_its_language(
    ada: PlayerClient, bob: PlayerClient, django_calls: list[str], header: str, tag: str
) -> None:
    game_id = two_player_game(ada, bob)
    call = async_to_sync(fetch)(
        events_path(game_id),
        "after=1&wait=1",
        token=bob.token,
        headers=[(b"accept-language", header.encode())],
    )
    assert django_calls == [], "the fast path answered"
    assert call.status == 200
    assert call.headers["content-language"] == tag
    assert "Accept-Language" in call.headers["vary"]


def test_the_account_language_wins_on_the_fast_path(
    ada: PlayerClient, bob: PlayerClient, django_calls: list[str]
) -> None:
    game_id = two_player_game(ada, bob)
    player_language_set(Player.objects.get(pk=bob.player_id), "it")  # remembered keys forget
    call = async_to_sync(fetch)(
        events_path(game_id),
        "after=1&wait=1",
        token=bob.token,
        headers=[(b"accept-language", b"de")],
    )
    assert django_calls == []
    assert call.headers["content-language"] == "it"


def _stale_on_socket(
    actor: PlayerClient, game_id: int, headers: list[tuple[bytes, bytes]]
) -> dict[str, Any]:
    async def scenario() -> dict[str, Any]:
        socket = Socket(game_id, actor.token, query="cursor=2-0", headers=headers)
        assert await socket.open()
        assert (await socket.next())["type"] == "sync"
        message = await sync_to_async(_action_message)(actor, game_id, 1)
        await socket.send_json({**message, "expected_version": 1})
        got = await socket.until(lambda m: m["type"] == "action_result")
        await socket.send_json({"type": "nonsense", "request_id": 2})
        error = await socket.until(lambda m: m["type"] == "error")
        await socket.leave()
        return {"result": got[-1], "error": error[-1]}

    return async_to_sync(scenario)()


def test_a_socket_refusal_is_in_the_handshakes_language(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game_id = two_player_game(ada, bob)
    move(to_act([ada, bob], game_id), game_id)  # version 2
    actor = to_act([ada, bob], game_id)
    before = actor.game(game_id)
    got = _stale_on_socket(actor, game_id, [(b"accept-language", b"es")])
    refused = got["result"]["body"]
    assert refused["code"] == "stale_version" and got["result"]["status"] == 409
    assert refused["title"] == title_in("es", "stale_version")
    assert got["error"]["problem"]["code"] == "invalid_request"
    assert got["error"]["problem"]["title"] == title_in("es", "invalid_request")
    assert actor.game(game_id)["version"] == before["version"], "nothing was played"


def test_a_socket_speaks_the_accounts_language(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    move(to_act([ada, bob], game_id), game_id)
    actor = to_act([ada, bob], game_id)
    player_language_set(Player.objects.get(pk=actor.player_id), "de")
    got = _stale_on_socket(actor, game_id, [(b"accept-language", b"es")])
    assert got["result"]["body"]["title"] == title_in("de", "stale_version")
    assert got["error"]["problem"]["title"] == title_in("de", "invalid_request")


def test_without_a_language_the_socket_speaks_english(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    move(to_act([ada, bob], game_id), game_id)
    actor = to_act([ada, bob], game_id)
    got = _stale_on_socket(actor, game_id, [])
    assert got["result"]["body"]["title"] == CATALOGUE["stale_version"].title
