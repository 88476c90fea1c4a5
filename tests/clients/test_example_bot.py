"""The example bot (examples/bot/canasta_bot.py) plays a game against a real server.

The client it is written against is generated from the committed openapi.yaml (the
``client_package`` fixture of ``tests/clients/conftest.py``) and the ASGI application runs
under uvicorn. The test signs a person up, who creates a casual two-player table to the
lowest target score with the server's medium bot in seat 0 and watches. The example bot starts
as a subprocess: it signs up as a bot account, sits at the table by its join code, follows the
game through the long-poll of the move log, plays every turn of its seat until a side reaches
the target, prints the final scores and exits 0.
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

from tests.clients.conftest import ROOT

pytestmark = pytest.mark.python_client

BOT = ROOT / "examples" / "bot" / "canasta_bot.py"
TARGET_SCORE = 1000  # the lowest target the options allow: a game of a few rounds
DEADLINE_SECONDS = 300


def wait_for(check: Any, what: str, seconds: float = 20.0) -> Any:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def test_the_example_bot_plays_a_game_to_its_end(
    client_package: ModuleType, server: str, tmp_path: Path
) -> None:
    http = httpx.Client(base_url=f"{server}/api/v1", timeout=30.0)
    created = http.post("/players/", json={"display_name": "Ada"}).json()
    ada = {"Authorization": f"Token {created['token']}"}
    # Ada watches; the server's medium bot holds seat 0 and the example bot sits at seat 1.
    table = http.post(
        "/games/",
        json={
            "preset": "two_player",
            "options": {"target_score": TARGET_SCORE},
            "spectate": True,
            "is_public": False,
            "bots": [{"seat": 0, "level": "medium"}],
        },
        headers=ada,
    )
    assert table.status_code == 201, table.text
    game_id = table.json()["id"]

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
            table.json()["join_code"],
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

        wait_for(lambda: game()["seats"][1]["kind"] == "player", "the bot to sit")
        assert game()["seats"][1]["bot_account"] is True  # shown as a bot account
        started = http.post(f"/games/{game_id}/start/", json={}, headers=ada)
        assert started.status_code == 200, started.text
        # The bot plays every turn of its seat, round after round, and stops at the game's end.
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
    detail = game()
    assert detail["status"] == "finished", detail["status"]
    # A natural end: a side reached the target score (nobody conceded, no timer ran out).
    totals = [team["score"] for team in detail["state"]["teams"]]
    assert max(totals) >= TARGET_SCORE, totals
    events = http.get(f"/games/{game_id}/events/", params={"after": 0}, headers=ada).json()
    assert not any(e["type"] == "game_conceded" for e in events["events"])
    assert sum(1 for e in events["events"] if e["seat"] == 1 and e["source"] == "player") > 10
