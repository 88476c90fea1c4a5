"""The answer to an action shows the game as it is when it is sent: without a broker the bots'
turns that followed the move were played inside the request, and the answer shows them; with a
broker they are a worker's, and the answer shows the game as the move committed it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from canasta_service.celery import app as celery_app
from games.models import Game, IdempotencyRecord
from games.services.bots import bot_player_get, bot_player_register
from tests.games.api.conftest import PlayerClient, choose, create_game

# Bots play after each commit (transaction.on_commit): the tests must really commit.
pytestmark = pytest.mark.django_db(transaction=True)


def without_clock(game: dict[str, Any]) -> dict[str, Any]:
    """A game body without the server's clock (it moves between two reads)."""
    return {**game, "timer": {k: v for k, v in game["timer"].items() if k != "server_time"}}


def against_bots(player: PlayerClient, preset: str = "two_player") -> int:
    seats = {"two_player": 2, "classic": 4}[preset]
    bots = [{"seat": i, "level": "easy"} for i in range(1, seats)]
    game = create_game(player, preset=preset, seat=0, bots=bots)
    started = player.post(f"/api/v1/games/{game['id']}/start/", {}, format="json")
    assert started.status_code == 200, started.content
    return int(game["id"])


@pytest.mark.parametrize("preset", ["two_player", "classic"])
def test_the_answer_shows_the_bots_moves_of_the_request(ada: PlayerClient, preset: str) -> None:
    game_id = against_bots(ada, preset)
    bots_moved = 0
    for turn in range(40):
        game = ada.game(game_id)
        if game["status"] != "active":
            break
        assert game["state"]["to_act"] == 0  # never a bot's turn left pending
        response = ada.act(
            game_id,
            choose(game["state"]["legal_actions"]),
            game["version"],
            **{"Idempotency-Key": f"turn-{turn}"},
        )
        assert response.status_code == 201, response.content
        body = response.json()
        stored = Game.objects.get(pk=game_id)
        assert body["event"]["seq"] == game["version"] + 1
        assert body["game"]["version"] == stored.version  # the game as it is now
        assert without_clock(body["game"]) == without_clock(ada.game(game_id))
        if body["game"]["version"] > body["event"]["seq"]:
            bots_moved += 1
            assert body["game"]["state"]["to_act"] == 0 or body["game"]["status"] != "active"
            # the idempotent replay is this answer too
            record = IdempotencyRecord.objects.get(key=f"turn-{turn}")
            assert record.response_body["game"]["version"] == stored.version
            again = ada.act(
                game_id,
                choose(game["state"]["legal_actions"]),
                game["version"],
                **{"Idempotency-Key": f"turn-{turn}"},
            )
            assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
            assert again.json() == body
    assert bots_moved >= 5


class RecordingBotPlayer:
    """A broker's bot player: records the turns sent, plays none."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, int]] = []

    def turn_schedule(self, game_id: int, version: int) -> None:
        self.sent.append((game_id, version))

    def action_choose(self, *args: Any) -> dict[str, Any]:
        raise AssertionError("not used")

    def discard_choose(self, *args: Any) -> None:
        raise AssertionError("not used")

    def review_schedule(self, review_id: int) -> None:
        raise AssertionError("not used")


@contextmanager
def with_a_broker() -> Iterator[RecordingBotPlayer]:
    """Bot turns sent as to a broker (recorded, not played) instead of run in-process."""
    saved_player, saved_eager = bot_player_get(), celery_app.conf.task_always_eager
    recording = RecordingBotPlayer()
    bot_player_register(recording)
    celery_app.conf.task_always_eager = False
    try:
        yield recording
    finally:
        celery_app.conf.task_always_eager = saved_eager
        if saved_player is not None:
            bot_player_register(saved_player)


def test_with_a_broker_the_answer_is_the_game_as_committed(ada: PlayerClient) -> None:
    game_id = against_bots(ada)  # in-process: the bot's opening turn, if any, is played
    with with_a_broker() as broker:
        while (game := ada.game(game_id))["state"]["to_act"] == 0:
            response = ada.act(game_id, choose(game["state"]["legal_actions"]), game["version"])
            assert response.status_code == 201, response.content
            body = response.json()
            assert body["game"]["version"] == body["event"]["seq"]
            assert without_clock(body["game"]) == without_clock(ada.game(game_id))
    assert broker.sent == [(game_id, body["event"]["seq"])]  # the bot's turn, for a worker
