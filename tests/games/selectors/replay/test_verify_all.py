"""``manage.py replay --all --verify`` over games made the way users make them: through the API,
with bots playing after each commit (eager), some finished, some running, one conceded, one
imported. (Every other test's games are verified too, after each test: see verify_plugin.)"""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import call_command

from games.models import Game
from tests.games.api.conftest import PlayerClient, create_game

# Bots play after each commit (transaction.on_commit): the test must really commit.
pytestmark = pytest.mark.django_db(transaction=True)


def start(client: PlayerClient, game_id: int) -> dict[str, Any]:
    response = client.post(
        f"/api/v1/games/{game_id}/start/", {"fill_with_bots": True}, format="json"
    )
    assert response.status_code == 200, response.content
    return response.json()


def test_every_game_made_through_the_api_replays(ada: PlayerClient, bob: PlayerClient) -> None:
    short = {"target_score": 1000}
    bots = create_game(ada, spectate=True, options=short, bots=[{"seat": i} for i in range(4)])
    assert start(ada, bots["id"])["status"] == "finished"
    three = create_game(ada, preset="three_player", options=short, spectate=True)
    assert start(ada, three["id"])["status"] == "finished"

    running = create_game(ada, preset="two_player")
    body = start(ada, running["id"])  # Ada at seat 0, a bot at seat 1
    for _ in range(6):
        state = body["state"] if "state" in body else body["game"]["state"]
        version = body["version"] if "version" in body else body["game"]["version"]
        if state["to_act"] != 0:
            break
        legal = state["legal_actions"]
        pick = next((a for a in legal if a["type"] in ("draw", "discard")), legal[0])
        response = ada.act(running["id"], pick, version)
        assert response.status_code == 201, response.content
        body = response.json()

    conceded = create_game(bob, preset="two_player")
    start(bob, conceded["id"])
    assert bob.post(f"/api/v1/games/{conceded['id']}/concede/").status_code == 200

    document = ada.get(f"/api/v1/games/{bots['id']}/export/").json()
    imported = ada.post("/api/v1/games/import/", {"document": document}, format="json")
    assert imported.status_code == 201, imported.content

    create_game(bob)  # one in the lobby

    out = io.StringIO()
    call_command("replay", "--all", "--verify", stdout=out)
    report = out.getvalue()
    games = Game.objects.count()
    assert games == 6
    assert f"verified {games} game(s): {games} ok, 0 mismatched" in report, report
    assert Game.objects.filter(status="finished").count() == 4
