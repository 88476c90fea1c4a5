"""The example bot (examples/bot/canasta_bot.py) plays a game against a real server.

The client it is written against is generated from the committed openapi.yaml (the
``client_package`` fixture of ``tests/clients/conftest.py``) and the ASGI application runs
under uvicorn. The test signs a person up, creates a casual two-player table, and starts the
bot as a subprocess: it signs up as a bot account and sits at the table by its join code. The
test starts the game and plays the other seat with simple legal actions until the bot has made
``BOT_MOVES`` moves (or the game is over), then concedes; the bot follows the game through the
long-poll of the move log, sees the end, prints the final scores and exits 0.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from tests.api.conftest import choose
from tests.clients.conftest import ROOT

pytestmark = pytest.mark.python_client

BOT = ROOT / "examples" / "bot" / "canasta_bot.py"
BOT_MOVES = 12  # the bot's moves before the test's seat concedes
DEADLINE_SECONDS = 60


def wait_for(check: Any, what: str, seconds: float = 20.0) -> Any:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_the_example_bot_plays_a_game(
    client_package: ModuleType, server: str, tmp_path: Path
) -> None:
    http = httpx.Client(base_url=f"{server}/api/v1", timeout=30.0)
    created = http.post("/players/", json={"display_name": "Ada"}).json()
    ada = {"Authorization": f"Token {created['token']}"}
    table = http.post(
        "/games/",
        json={"preset": "two_player", "seat": 0, "is_public": False},
        headers=ada,
    ).json()
    game_id = table["id"]

    generated = Path(str(client_package.__file__)).resolve().parents[1]
    log = (tmp_path / "bot.log").open("w")
    bot = subprocess.Popen(
        [
            sys.executable,
            str(BOT),
            "--server",
            server,
            "--name",
            "Robo",
            "--code",
            table["join_code"],
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(generated)},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:

        def game() -> dict[str, Any]:
            detail: dict[str, Any] = http.get(f"/games/{game_id}/", headers=ada).json()
            return detail

        seated = wait_for(lambda: game()["seats"][1]["kind"] == "player", "the bot to sit")
        assert seated
        assert game()["seats"][1]["bot_account"] is True  # shown as a bot account
        started = http.post(f"/games/{game_id}/start/", json={}, headers=ada)
        assert started.status_code == 200, started.text

        seen = 0
        end = time.monotonic() + DEADLINE_SECONDS
        while time.monotonic() < end:
            detail = game()
            if detail["status"] != "active":
                break
            events = http.get(f"/games/{game_id}/events/", params={"after": 0}, headers=ada)
            bot_moves = sum(
                1 for e in events.json()["events"] if e["seat"] == 1 and e["source"] == "player"
            )
            if bot_moves >= BOT_MOVES:
                conceded = http.post(f"/games/{game_id}/concede/", json={}, headers=ada)
                assert conceded.status_code == 200, conceded.text
                break
            state = detail["state"]
            if state["to_act"] == 0:
                action = choose(state["legal_actions"])
                body = {"action": action, "expected_version": detail["version"]}
                played = http.post(f"/games/{game_id}/actions/", json=body, headers=ada)
                assert played.status_code == 201, played.text
            else:  # the bot's turn: wait for its move
                seen = detail["version"]
                http.get(
                    f"/games/{game_id}/events/", params={"after": seen, "wait": 5}, headers=ada
                )
        assert game()["status"] == "finished"
        assert bot.wait(timeout=DEADLINE_SECONDS) == 0
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.wait()
        log.close()
    output = (tmp_path / "bot.log").read_text()
    assert bot.returncode == 0, output
    assert "signed up as Robo" in output and "move 1:" in output, output
    assert f"game {game_id} is finished" in output, output
    events = http.get(f"/games/{game_id}/events/", params={"after": 0}, headers=ada).json()
    assert sum(1 for e in events["events"] if e["seat"] == 1 and e["source"] == "player") > 0
