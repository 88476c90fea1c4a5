"""Light payloads (docs/api.md, "Light payloads"): conditional GETs of the game, the move log and
the rules (a tag per viewer, 304 without a body), the minimal answer to an action
(``Prefer: return=minimal``, and ``"return": "minimal"`` on the socket), and the seat to act
carried by the log and the live events."""

from __future__ import annotations

import gzip
import json
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from rest_framework.test import APIClient

from games.engine import GameState
from games.models import Game, GameEvent
from games.selectors.live import Cursor, live_items_merge
from tests.games.api.conftest import (
    PlayerClient,
    against_a_bot,
    choose,
    create_game,
    move,
    to_act,
    two_player_game,
)
from tests.games.api.test_leak import cards_in, visible


def _get(client: PlayerClient, path: str, etag: str | None = None) -> Any:
    return client.get(path, headers=None if etag is None else {"If-None-Match": etag})


# ============================================================================== conditional GETs
@pytest.mark.django_db
def test_the_game_answers_304_to_its_own_tag_until_it_changes(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game_id = two_player_game(ada, bob, turn_seconds=60)
    path = f"/api/v1/games/{game_id}/"
    first = _get(ada, path)
    etag = first["ETag"]
    assert first.status_code == 200 and etag.startswith('"')
    assert first["Cache-Control"] == "private, no-cache"
    # the server's clock moved on (timer.server_time): the view did not
    again = _get(ada, path, etag)
    assert again.status_code == 304 and again.content == b""
    assert again["ETag"] == etag and again["Cache-Control"] == "private, no-cache"
    # a weak form of it (what a compressing proxy hands out) and a list naming it match too
    assert _get(ada, path, f"W/{etag}").status_code == 304
    assert _get(ada, path, f'"other", {etag}').status_code == 304
    assert _get(ada, path, '"other"').status_code == 200
    move(to_act([ada, bob], game_id), game_id)
    changed = _get(ada, path, etag)
    assert changed.status_code == 200 and changed["ETag"] != etag
    assert changed.json()["version"] == 2


@pytest.mark.django_db
def test_the_game_gzipped_has_a_weak_tag_that_still_answers_304(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game_id = two_player_game(ada, bob)
    path = f"/api/v1/games/{game_id}/"
    raw = APIClient()  # the schema-checked client reads bodies as JSON: this one does not
    raw.credentials(HTTP_AUTHORIZATION=f"Token {ada.token}")
    plain = _get(ada, path)
    zipped = raw.get(path, HTTP_ACCEPT_ENCODING="gzip")
    assert zipped["Content-Encoding"] == "gzip" and "Accept-Encoding" in zipped["Vary"]
    assert len(zipped.content) < len(plain.content) / 2
    assert json.loads(gzip.decompress(zipped.content))["version"] == plain.json()["version"]
    assert zipped["ETag"] == f"W/{plain['ETag']}"
    again = raw.get(path, HTTP_ACCEPT_ENCODING="gzip", HTTP_IF_NONE_MATCH=zipped["ETag"])
    assert again.status_code == 304 and again.content == b""


@pytest.mark.django_db
def test_another_viewer_with_the_first_viewers_tag_gets_their_own_body(
    ada: PlayerClient, bob: PlayerClient, make_player: Any
) -> None:
    game_id = two_player_game(ada, bob)
    path = f"/api/v1/games/{game_id}/"
    ada_etag = _get(ada, path)["ETag"]
    for other in (bob, make_player("Eve"), make_player("Zed")):  # a seat, two spectators
        answer = _get(other, path, ada_etag)
        assert answer.status_code == 200
        assert answer["ETag"] != ada_etag
        assert answer.json()["your_seat"] == (1 if other is bob else None)
    eve, zed = make_player("Eve2"), make_player("Zed2")
    # two spectators see the same body, yet neither's tag validates the other's
    eve_etag = _get(eve, path)["ETag"]
    assert _get(zed, path, eve_etag).status_code == 200
    assert _get(eve, path, eve_etag).status_code == 304


@pytest.mark.django_db
def test_the_log_page_answers_304_until_the_game_moves(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game_id = two_player_game(ada, bob)
    path = f"/api/v1/games/{game_id}/events/?after=0"
    first = _get(ada, path)
    assert first.status_code == 200 and first["Cache-Control"] == "private, no-cache"
    etag = first["ETag"]
    assert _get(ada, path, etag).status_code == 304
    assert _get(bob, path, etag).status_code == 200  # Bob's page is his own
    move(to_act([ada, bob], game_id), game_id)
    after = _get(ada, path, etag)
    assert after.status_code == 200 and after.json()["version"] == 2


@pytest.mark.django_db
def test_the_rules_answer_304_and_vary_by_language(ada: PlayerClient, bob: PlayerClient) -> None:
    first = _get(ada, "/api/v1/rules/")
    assert first.status_code == 200
    assert "Accept-Language" in first["Vary"]
    etag = first["ETag"]
    assert _get(ada, "/api/v1/rules/", etag).status_code == 304
    # the same rules for everyone: the tag is the deploy's and the language's
    assert _get(bob, "/api/v1/rules/", etag).status_code == 304


# ============================================================================== minimal answers
@pytest.mark.django_db
def test_a_full_answer_carries_version_and_to_act(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id = two_player_game(ada, bob)
    actor = to_act([ada, bob], game_id)
    game = actor.game(game_id)
    answer = actor.act(game_id, choose(game["state"]["legal_actions"]), game["version"])
    assert answer.status_code == 201 and "Preference-Applied" not in answer
    body = answer.json()
    assert body["version"] == body["game"]["version"] == 2
    assert body["to_act"] == body["game"]["state"]["to_act"]


@pytest.mark.django_db(transaction=True)  # the bots play after the commit
def test_return_minimal_drops_the_game(ada: PlayerClient) -> None:
    game = create_game(ada, preset="two_player", seat=0, bots=[{"seat": 1, "level": "easy"}])
    game_id = int(game["id"])
    assert ada.post(f"/api/v1/games/{game_id}/start/", {}, format="json").status_code == 200
    full_sizes, minimal_sizes = [], []
    for _ in range(6):
        now = ada.game(game_id)
        if now["status"] != "active":
            break
        action = choose(now["state"]["legal_actions"])
        answer = ada.act(game_id, action, now["version"], Prefer="return=minimal")
        assert answer.status_code == 201, answer.content
        assert answer["Preference-Applied"] == "return=minimal"
        body = answer.json()
        assert set(body) == {"version", "to_act", "legal_actions", "events"}
        after = ada.game(game_id)
        assert body["version"] == after["version"]
        assert body["to_act"] == after["state"]["to_act"]
        assert body["legal_actions"] == after["state"]["legal_actions"]
        # the events applied: the action's, then the bot's up to the version, as the log has them
        log = ada.get(f"/api/v1/games/{game_id}/events/?after={now['version']}").json()
        assert body["events"] == json.loads(json.dumps(log["events"]))
        assert body["events"][0]["type"] == action["type"]
        assert [e["seq"] for e in body["events"]] == list(
            range(now["version"] + 1, body["version"] + 1)
        )
        minimal_sizes.append(len(answer.content))
        full_sizes.append(len(json.dumps(after)))
    assert max(minimal_sizes) < min(full_sizes)


@pytest.mark.parametrize(
    ("prefer", "minimal"),
    [
        ("return=minimal", True),
        ('respond-async, RETURN="minimal"; x=1', True),
        ("return=representation", False),
        ("minimal", False),
        ("", False),
    ],
)
def test_the_prefer_header_is_read_as_rfc_7240_says(prefer: str, minimal: bool) -> None:
    from games.api.answers import prefers_minimal

    assert prefers_minimal(prefer) is minimal


@pytest.mark.django_db
def test_legal_actions_are_the_viewers_own_only(ada: PlayerClient, bob: PlayerClient) -> None:
    """A minimal answer lists the answering seat's legal actions only: none when the other seat
    is to act, and never a card the seat cannot see."""
    game_id = two_player_game(ada, bob)
    for _ in range(8):
        actor = to_act([ada, bob], game_id)
        game = actor.game(game_id)
        answer = actor.act(
            game_id,
            choose(game["state"]["legal_actions"]),
            game["version"],
            Prefer="return=minimal",
        )
        assert answer.status_code == 201
        body = answer.json()
        seat = game["your_seat"]
        if body["to_act"] != seat:
            assert body["legal_actions"] == []
        state = GameState.from_dict(Game.objects.get(pk=game_id).snapshot or {})
        # each card named (a card may appear in several actions) is one the seat holds or sees
        assert set(cards_in(body["legal_actions"])) <= set(visible(state, seat))
        for event in body["events"]:
            assert event["seq"] <= body["version"]


# ============================================================================== to_act in events
@pytest.mark.django_db(transaction=True)  # the bots play after the commit
def test_the_log_and_live_events_carry_the_seat_to_act(ada: PlayerClient) -> None:
    game_id = against_a_bot(ada, moves=3)
    game = Game.objects.get(pk=game_id)
    page = ada.get(f"/api/v1/games/{game_id}/events/").json()
    assert page["version"] == game.version and page["to_act"] == game.to_act
    moves = list(GameEvent.objects.filter(game_id=game_id).order_by("seq"))
    items = live_items_merge(moves, [], 0, Cursor(), (game.version, game.to_act))
    events = [json.loads(i.socket) for i in items if i.name == "game_event"]
    assert events[-1]["version"] == game.version and events[-1]["to_act"] == game.to_act
    # every earlier event followed by an action: the seat that acted next was the one to act
    for before, after in zip(events, events[1:], strict=False):
        if after["event"]["type"] != "game_started" and after["event"]["source"] != "system":
            assert before["to_act"] == after["event"]["seat"], (before, after)
    frame = items[-1].sse.decode()
    assert f'"to_act":{game.to_act}' in frame


# ============================================================================== the socket
@pytest.mark.django_db(transaction=True)
def test_return_minimal_on_the_socket(ada: PlayerClient, bob: PlayerClient) -> None:
    from tests.games.api.test_socket import Socket

    game_id = two_player_game(ada, bob)
    actor = to_act([ada, bob], game_id)

    def message(request_id: str, **extra: Any) -> dict[str, Any]:
        game = actor.game(game_id)
        return {
            "type": "action",
            "request_id": request_id,
            "expected_version": game["version"],
            "action": choose(game["state"]["legal_actions"]),
            **extra,
        }

    async def scenario() -> list[dict[str, Any]]:
        socket = Socket(game_id, actor.token, query="cursor=1-0")
        assert await socket.open()
        assert (await socket.next())["type"] == "sync"
        await socket.send_json(await sync_to_async(message)("bad", **{"return": "tiny"}))
        got = await socket.until(lambda m: m["type"] == "error")
        await socket.send_json(await sync_to_async(message)("r-1", **{"return": "minimal"}))
        got += await socket.until(lambda m: m["type"] == "action_result")
        await socket.send_json({**await sync_to_async(message)("r-2"), "expected_version": 1})
        got += await socket.until(lambda m: m["type"] == "action_result")
        got += await socket.fence()
        await socket.leave()
        return got

    got = async_to_sync(scenario)()
    error = next(m for m in got if m["type"] == "error")
    assert error["problem"]["code"] == "invalid_request"
    minimal, refused = (m for m in got if m["type"] == "action_result")
    assert minimal["status"] == 201
    assert minimal["body"]["outcome"] == "minimal"
    assert set(minimal["body"]) == {"outcome", "version", "to_act", "legal_actions", "events"}
    assert minimal["body"]["version"] == 2
    assert refused["status"] == 409 and refused["body"]["outcome"] == "problem"
    assert refused["body"]["code"] == "stale_version"
    pushed = [m for m in got if m["type"] == "game_event"]
    assert pushed and pushed[-1]["version"] == 2
    assert pushed[-1]["to_act"] == Game.objects.get(pk=game_id).to_act
