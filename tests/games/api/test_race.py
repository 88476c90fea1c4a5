"""Concurrent actions on one game are serialised by the row lock (real PostgreSQL, threads)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from django.db import connection

from games.models import Game, GameEvent
from games.selectors.games import game_replay_state
from tests.games.api.conftest import PlayerClient, create_game, snapshot_of

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def race(calls: list[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` at the same moment, each in its own thread (and database connection)."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[i] = calls[i]()
        except BaseException as exc:  # reported by the assertions below
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_two_requests_for_the_same_turn_apply_exactly_once(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game = create_game(ada, preset="two_player", options={"target_score": 1000})
    bob.post(f"/api/v1/games/{game['id']}/join/", {}, format="json")
    ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json")
    clients = {0: ada, 1: bob}

    for _ in range(6):
        view = ada.game(game["id"])
        actor = clients[view["state"]["to_act"]]
        mine = actor.game(game["id"])
        version = mine["version"]
        legal = mine["state"]["legal_actions"]
        # Two different legal actions (or the same twice) against the same version.
        first, second = legal[0], legal[-1]
        results = race(
            [
                partial(actor.clone().act, game["id"], first, version),
                partial(actor.clone().act, game["id"], second, version),
            ]
        )
        codes = sorted(r.status_code for r in results)
        assert codes == [201, 409], [getattr(r, "content", r) for r in results]
        loser = next(r for r in results if r.status_code == 409).json()
        assert loser["code"] == "stale_version" and loser["current_version"] == version + 1
        assert Game.objects.get(pk=game["id"]).version == version + 1

    seqs = list(GameEvent.objects.filter(game_id=game["id"]).values_list("seq", flat=True))
    assert seqs == list(range(1, len(seqs) + 1))  # no duplicate, no gap
    stored = Game.objects.get(pk=game["id"])
    assert game_replay_state(stored) == snapshot_of(stored)


def test_the_same_idempotent_request_twice_at_once_is_applied_once(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game = create_game(ada, preset="two_player")
    bob.post(f"/api/v1/games/{game['id']}/join/", {}, format="json")
    ada.post(f"/api/v1/games/{game['id']}/start/", {}, format="json")
    key = {"Idempotency-Key": "race"}
    results = race([partial(ada.clone().act, game["id"], {"type": "draw"}, 1, **key) for _ in "ab"])
    assert [r.status_code for r in results] == [201, 201], [r.content for r in results]
    assert results[0].json() == results[1].json()
    assert sorted(r.get("Idempotent-Replayed", "-") for r in results) == ["-", "true"]
    assert GameEvent.objects.filter(game_id=game["id"]).count() == 2
