"""The serving model the live endpoints rely on, checked by what it does: the production command
(docker-compose's, the image's) serves waiting clients and everyone else at once from one
worker; the waiting endpoints park their clients on the event loop until a change wakes them;
and the middleware chain stays async (one sync-only middleware would put every request,
waiting ones included, in a thread of its own for its whole life)."""

from __future__ import annotations

import asyncio
import json
import shlex
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.utils.module_loading import import_string

from bench import live_load
from games import live
from tests.api.conftest import PlayerClient, choose
from tests.services.table.conftest import async_client, sse_read, two_player_game

ROOT = Path(__file__).resolve().parents[3]


def test_every_middleware_is_async_capable() -> None:
    sync_only = [
        path
        for path in settings.MIDDLEWARE
        if not getattr(import_string(path), "async_capable", False)
    ]
    assert sync_only == [], f"sync-only middleware keeps a thread per waiting client: {sync_only}"


# ------------------------------------------------------------------------------ production
def _compose_web_steps() -> list[list[str]]:
    """The shell steps of docker-compose's ``web`` command (``sh -c "a && exec b"``)."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    command = compose["services"]["web"]["command"]
    script = command[-1] if isinstance(command, list) else command
    return [shlex.split(step) for step in script.split("&&")]


def _dockerfile_cmd() -> list[str]:
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    [cmd] = [line for line in lines if line.startswith("CMD ")]
    words: list[str] = json.loads(cmd.removeprefix("CMD "))
    return words


def _serving(argv: list[str]) -> tuple[str, str, str]:
    """(program, application, worker class) of a gunicorn command line."""
    words = argv[1:] if argv[0] == "exec" else argv
    worker = words[words.index("-k") + 1] if "-k" in words else "sync"
    return words[0], words[1], worker


def test_production_serves_asgi_with_uvicorn_workers() -> None:
    """docker-compose's web command, as it is written (one worker instead of three, on a free
    loopback port, with a fresh SQLite database migrated first as the command does): 40
    clients wait (20 long-polls, 20 event streams) while the one worker answers another
    request, and every client learns of each of 3 moves, in order, exactly once. (The times are
    printed by ``python -m bench.live_load``; nothing here depends on them.)"""
    *before, serve = _compose_web_steps()
    assert [step[:3] for step in before] == [["python", "manage.py", "migrate"]]
    assert _serving(serve) == _serving(_dockerfile_cmd()), "the image serves another way"
    gunicorn_args = serve[2:] if serve[0] == "exec" else serve[1:]
    with live_load.server(workers=1, gunicorn_args=gunicorn_args, settings=None) as (port, pid):
        figures = asyncio.run(live_load.run(port, clients=20, streams=20, moves=3, master=pid))
    print(json.dumps(figures, indent=2))
    assert figures["client_error_count"] == 0, figures["client_errors"]
    assert figures["all_waiting_before_first_move"], "a client was answered before any move"
    assert figures["health_status"] == 200
    assert figures["all_waiting_after_health"], "another request waited for the waiting ones"
    assert figures["clients_with_every_event_in_order_once"] == 40
    assert figures["notifications"] == 40 * 3


# ------------------------------------------------------------------------------ in process
def _move(player: PlayerClient, game_id: int) -> int:
    game = player.game(game_id)
    response = player.act(game_id, choose(game["state"]["legal_actions"]), game["version"])
    assert response.status_code == 201, response.content
    return int(response.json()["game"]["version"])


def _post(player: PlayerClient, path: str, body: dict[str, Any]) -> None:
    response = player.post(path, body, format="json")
    assert response.status_code in (200, 201), response.content


@pytest.mark.django_db(transaction=True)  # moves wake waiters after their commit
def test_waiting_views_are_async(ada: PlayerClient, bob: PlayerClient, settings: Any) -> None:
    """Clients of the three waiting endpoints (long-poll of the moves, long-poll of the table,
    event stream) wait at the same time through Django's ASGI handler, each parked on the event
    loop as a listener of the game (no thread polling for it); a move, a chat message and the
    concession then wake every one of them with what changed."""
    settings.LIVE_WAIT_MAX_SECONDS = 30  # the waits end by the changes below, not by time
    settings.LIVE_STREAM_MAX_SECONDS = 30
    game_id = two_player_game(ada, bob)
    actor = ada if ada.game(game_id)["state"]["to_act"] == ada.game(game_id)["your_seat"] else bob
    each = 6

    async def scenario() -> tuple[list[Any], list[Any], list[Any], int, bool]:
        base = f"/api/v1/games/{game_id}"
        clients = [async_client(ada if i % 2 else bob) for i in range(each)]
        polls = [
            asyncio.ensure_future(c.get(f"{base}/events/", {"after": 1, "wait": 30}))
            for c in clients
        ]
        table_polls = [
            asyncio.ensure_future(c.get(f"{base}/table/events/", {"after": 0, "wait": 30}))
            for c in clients
        ]
        opened = [
            await c.get(f"{base}/stream/", {"after": 1, "table_after": 0, "timeout": 30})
            for c in clients
        ]
        streams = [asyncio.ensure_future(sse_read(r)) for r in opened]
        everyone = [*polls, *table_polls, *streams]
        deadline = time.monotonic() + 30
        while live.waiter_count(game_id) < 3 * each and time.monotonic() < deadline:
            if any(task.done() for task in everyone):
                break
            await asyncio.sleep(0.02)
        waiting = live.waiter_count(game_id)
        answered_early = any(task.done() for task in everyone)
        await sync_to_async(_move)(actor, game_id)
        await sync_to_async(_post)(actor, f"{base}/chat/", {"phrase": "good_luck"})
        await sync_to_async(_post)(ada, f"{base}/concede/", {})
        done = await asyncio.wait_for(asyncio.gather(*everyone), 60)
        return done[:each], done[each : 2 * each], done[2 * each :], waiting, answered_early

    polled, table_polled, streamed, waiting, answered_early = async_to_sync(scenario)()
    assert not answered_early, "a waiting client was answered before anything changed"
    assert waiting == 3 * each, "every waiting client is a listener of the game at once"
    assert live.waiter_count(game_id) == 0
    for response in polled:
        assert response.status_code == 200
        seqs = [e["seq"] for e in response.json()["events"]]
        assert seqs and seqs[0] == 2 and seqs == list(range(2, 2 + len(seqs)))
    for response in table_polled:
        assert response.status_code == 200
        assert response.json()["events"][0]["kind"] == "chat"
    for frames in streamed:
        named = [(f["event"], json.loads(f["data"])) for f in frames if "id" in f]
        assert named[0][0] == "game_event" and named[0][1]["event"]["seq"] == 2
        assert ("table_event", "chat") in [(kind, d["event"].get("kind")) for kind, d in named]
        assert frames[-1]["event"] == "end"
