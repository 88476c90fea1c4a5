"""The serving model the live endpoints rely on, checked by what it does: docker-compose serves
the REST API on WSGI (gunicorn gthread, as the image does) and the live endpoints on ASGI
(gunicorn with uvicorn workers), nginx in front sending each path to its server; the live
server's command, as written, serves waiting clients of every transport (event stream,
long-poll, WebSocket) and everyone else at once from one worker; the waiting endpoints park
their clients on the event loop until a change wakes them; and the middleware chain stays async
(one sync-only middleware would put every request, waiting ones included, in a thread of its
own for its whole life)."""

from __future__ import annotations

import asyncio
import json
import re
import shlex
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.utils.module_loading import import_string
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from bench import harness
from bench import live as live_bench
from core.messages import MESSAGE_MAX_BYTES
from games import live
from games.realtime.feed import feed_stats
from tests.conftest import in_ci
from tests.games.api.conftest import PlayerClient, choose
from tests.games.services.table.conftest import async_client, sse_read, two_player_game

ROOT = Path(__file__).resolve().parents[4]


def test_every_middleware_is_async_capable() -> None:
    sync_only = [
        path
        for path in settings.MIDDLEWARE
        if not getattr(import_string(path), "async_capable", False)
    ]
    assert sync_only == [], f"sync-only middleware keeps a thread per waiting client: {sync_only}"


# ------------------------------------------------------------------------------ production
def _compose() -> dict[str, Any]:
    compose: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return compose


def _command(service: str) -> list[list[str]]:
    """The steps of a docker-compose service's command (``sh -c "a && exec b"`` or a list)."""
    command = _compose()["services"][service]["command"]
    if command[:2] == ["sh", "-c"]:
        return [shlex.split(step) for step in command[-1].split("&&")]
    return [command]


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


def test_compose_serves_the_api_on_wsgi_and_live_on_asgi_behind_nginx() -> None:
    [api] = _command("api")
    # The migrations are a step of their own, finished before any app service starts.
    services = _compose()["services"]
    assert _command("migrate") == [["python", "manage.py", "migrate", "--noinput"]]
    for name in ("api", "live", "worker", "worker-bulk", "worker-deliveries", "beat"):
        assert services[name]["depends_on"]["migrate"] == {
            "condition": "service_completed_successfully"
        }, name
    assert _serving(api) == ("gunicorn", "canasta_service.wsgi:application", "gthread")
    assert _serving(api) == _serving(_dockerfile_cmd()), "the image serves another way"
    [live_command] = _command("live")
    assert _serving(live_command) == (
        "gunicorn",
        "canasta_service.asgi:application",
        "canasta_service.live_worker.LiveWorker",
    )
    assert harness.LIVE_WORKER == "canasta_service.live_worker.LiveWorker"
    nginx = _compose()["services"]["nginx"]
    assert "./deploy/nginx.conf:/etc/nginx/templates/nginx.conf.template:ro" in nginx["volumes"]
    assert nginx["environment"]["CANASTA_API_UPSTREAM"] == "api:8000"
    assert nginx["environment"]["CANASTA_LIVE_UPSTREAM"] == "live:8001"
    assert "--bind 0.0.0.0:8000" in " ".join(api)
    assert "0.0.0.0:8001" in live_command
    assert nginx["ports"] == ["127.0.0.1:8000:8000"]


def test_the_live_worker_is_uvicorns_without_compression_or_forwarded_headers() -> None:
    """Compression off (memory per socket); uvicorn's own X-Forwarded-For rewriting off: the
    client's address comes from TRUSTED_PROXIES alone (core.proxies)."""
    from uvicorn_worker import UvicornWorker  # type: ignore[import-untyped]

    from canasta_service.live_worker import LiveWorker

    assert issubclass(LiveWorker, UvicornWorker)
    assert LiveWorker.CONFIG_KWARGS == {
        **UvicornWorker.CONFIG_KWARGS,
        "ws_per_message_deflate": False,
        "proxy_headers": False,
        "ws_max_size": MESSAGE_MAX_BYTES,
    }


def _locations(conf: str) -> list[tuple[str, str]]:
    """(regex or prefix, upstream) of each proxied location of an nginx config."""
    found = []
    for match in re.finditer(r"location (~ )?(\S+) \{(.*?)\}", conf, re.S):
        proxied = re.search(r"proxy_pass http://(\w+);", match.group(3))
        if proxied:
            found.append(((match.group(1) or "") + match.group(2), proxied.group(1)))
    return found


def _route(conf: str, path: str) -> str:
    """The upstream nginx picks for ``path``: the first matching regex location, else the
    prefix location (here only ``/``)."""
    locations = _locations(conf)
    for where, upstream in locations:
        if where.startswith("~ ") and re.search(where[2:], path):
            return upstream
    return next(upstream for where, upstream in locations if where == "/")


def test_nginx_sends_the_live_endpoints_to_the_live_server() -> None:
    conf = harness.nginx_config("127.0.0.1:8000", "api:8000", "live:8001", "/tmp/nginx")
    assert not re.search(r"\$\{CANASTA_", conf)
    for path in (
        "/api/v1/games/12/socket/?cursor=3-0",
        "/api/v1/games/12/stream/",
        "/api/v1/games/12/events/?after=3&wait=25",
        "/api/v1/games/12/table/events/?after=0&wait=25",
    ):
        assert _route(conf, path) == "live", path
    for path in (
        "/",
        "/api/docs/",
        "/api/v1/games/",
        "/api/v1/games/12/",
        "/api/v1/games/12/actions/",
        "/api/v1/games/12/replay/",
    ):
        assert _route(conf, path) == "api", path


def test_nginx_accepts_the_config() -> None:
    try:
        binary = harness.nginx_binary()
    except RuntimeError:
        if in_ci():
            raise
        pytest.skip("nginx is not installed")
    with __import__("tempfile").TemporaryDirectory() as tmp:
        conf = Path(tmp) / "nginx.conf"
        port = harness.free_port()
        conf.write_text(
            harness.nginx_config(f"127.0.0.1:{port}", "127.0.0.1:1", "127.0.0.1:2", tmp)
        )
        checked = subprocess.run(
            [binary, "-t", "-q", "-e", "stderr", "-p", tmp, "-c", str(conf)],
            capture_output=True,
            text=True,
        )
    assert checked.returncode == 0, checked.stderr


def test_the_live_server_command_serves_waiting_clients_and_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """docker-compose's live command, as it is written (one worker instead of two, on a free
    loopback port, with a fresh SQLite database): 60 clients wait (20 event streams, 20
    long-polls, 20 WebSockets) while the one worker answers another request at once, and every
    client learns of each of 3 moves, in order, exactly once; a socket offered compression
    goes without. (The times are printed by ``python -m bench.live``; nothing here depends on
    them.)"""
    [command] = _command("live")

    async def scenario(target: live_bench.Target) -> live_bench.Result:
        tokens = {
            0: await live_bench.signup(target.port, "Ada"),
            1: await live_bench.signup(target.port, "Bob"),
        }
        game = await live_bench.new_game(target.port, tokens)

        async def health() -> int:
            status, _ = await live_bench.Conn(target.port).request("GET", "/api/v1/health/")
            return status

        result = await live_bench.run_clients(
            target, "all", [game], 60, ["sse", "poll", "ws"], 3, probe=health
        )
        game.close()
        # A browser offers compression; the live worker declines it.
        async with connect(
            f"ws://127.0.0.1:{target.port}/api/v1/games/{game.id}/socket/",
            additional_headers={"Authorization": f"Token {tokens[0]}"},
            compression="deflate",
        ) as socket:
            assert json.loads(await socket.recv())["type"] == "sync"
            assert socket.response is not None
            assert "Sec-WebSocket-Extensions" not in socket.response.headers
        # A message over the limit closes the socket as it arrives (1009), unbuffered.
        async with connect(
            f"ws://127.0.0.1:{target.port}/api/v1/games/{game.id}/socket/",
            additional_headers={"Authorization": f"Token {tokens[0]}"},
        ) as socket:
            assert json.loads(await socket.recv())["type"] == "sync"
            await socket.send("x" * (MESSAGE_MAX_BYTES + 1))
            with pytest.raises(ConnectionClosed) as closed:  # (buffered, then refused by the
                async with asyncio.timeout(10):  # consumer, it would stay open: a timeout)
                    while True:
                        assert json.loads(await socket.recv())["type"] != "error"
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        return result

    # 30 clients a player: over the per-player cap of live connections (a benchmark's load,
    # not one person's; tests/hardening/test_live_limits.py checks the cap).
    monkeypatch.setenv("LIVE_CONNECTIONS_PER_PLAYER_MAX", "0")
    with live_bench.sqlite_server(command[1:], workers=1) as target:
        result = asyncio.run(scenario(target))
    assert result.errors == []
    assert not result.early, "a client was answered before any move"
    assert result.probe == 200 and result.probe_seconds < 5, "another request waited"
    assert (result.missed, result.duplicated, result.reordered, result.late) == (0, 0, 0, 0)
    assert result.events == 60 * 3


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
    loop as a follower of the game's one feed, which alone listens for the game's changes (no
    thread polling, no read per client); a move, a chat message and the concession then wake
    every one of them with what changed."""
    settings.LIVE_WAIT_MAX_SECONDS = 30  # the waits end by the changes below, not by time
    settings.LIVE_STREAM_MAX_SECONDS = 30
    game_id = two_player_game(ada, bob)
    actor = ada if ada.game(game_id)["state"]["to_act"] == ada.game(game_id)["your_seat"] else bob
    each = 6

    async def scenario() -> tuple[list[Any], list[Any], list[Any], tuple[int, int], bool]:
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
        while feed_stats()["subscribers"] < 3 * each and time.monotonic() < deadline:
            if any(task.done() for task in everyone):
                break
            await asyncio.sleep(0.02)
        waiting = feed_stats()["subscribers"]
        listeners = live.waiter_count(game_id)
        answered_early = any(task.done() for task in everyone)
        await sync_to_async(_move)(actor, game_id)
        await sync_to_async(_post)(actor, f"{base}/chat/", {"phrase": "good_luck"})
        await sync_to_async(_post)(ada, f"{base}/concede/", {})
        done = await asyncio.wait_for(asyncio.gather(*everyone), 60)
        return (
            done[:each],
            done[each : 2 * each],
            done[2 * each :],
            (waiting, listeners),
            answered_early,
        )

    polled, table_polled, streamed, (waiting, listeners), answered_early = async_to_sync(scenario)()
    assert not answered_early, "a waiting client was answered before anything changed"
    assert waiting == 3 * each, "every waiting client follows the game's feed at once"
    assert listeners == 1, "the feed alone listens for the game's changes"
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
