"""N threads racing on one game, on PostgreSQL: exactly one action applied per version.

Each thread has its own database connection (Django's connections are per thread). For several
turns in a row, eight requests are sent at the same instant against the same version:

- conflicting actions (different legal moves) without keys: one is applied (201), every
  other gets 409 ``stale_version`` with the new ``current_version``;
- identical actions without keys: the same, exactly one applied;
- identical actions with one Idempotency-Key: all get 201 with the same body (one of them
  applied it, the others are replays marked ``Idempotent-Replayed``), one event appended;
- identical actions with different keys: one applied, the rest stale;
- the seat not to act racing the seat to act: refused (403 ``not_your_turn``, or 409 when it
  arrives after the move), never applied.

Afterwards the log has every seq from 1 to the version exactly once, the snapshot equals the
log replayed, and each key retried later (after the game moved on) gets its first answer.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import pytest
from django.db import connection

from games.models import Game, GameEvent
from games.selectors.games import game_replay_state
from tests.games.api.conftest import PlayerClient, snapshot_of
from tests.hardening.helpers import started_game

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 8


def race(calls: Sequence[Callable[[], Any]]) -> list[Any]:
    """Run ``calls`` at the same moment, each in its own thread and database connection."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=20)
            results[i] = calls[i]()
        except BaseException as exc:  # reported by the assertions
            results[i] = exc
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(isinstance(r, BaseException) for r in results), results
    return results


def _actor(game_id: int, players: list[PlayerClient]) -> tuple[PlayerClient, dict[str, Any]]:
    seat = snapshot_of(game_id).to_act
    view = players[seat].game(game_id)
    return players[seat], view


def _one_applied(results: list[Any], version: int) -> Any:
    codes = sorted(r.status_code for r in results)
    assert codes == [201] + [409] * (len(results) - 1), [r.content for r in results]
    for r in results:
        if r.status_code == 409:
            body = r.json()
            assert body["code"] == "stale_version" and body["current_version"] == version + 1
    return next(r for r in results if r.status_code == 201)


def _assert_log_whole(game_id: int) -> None:
    game = Game.objects.get(pk=game_id)
    seqs = list(GameEvent.objects.filter(game_id=game_id).values_list("seq", flat=True))
    assert sorted(seqs) == list(range(1, game.version + 1))
    assert game_replay_state(game) == snapshot_of(game)


def test_racing_actions_apply_exactly_once_per_version(
    make_player: Callable[..., PlayerClient],
) -> None:
    game_id, players = started_game(make_player)
    keyed: list[tuple[PlayerClient, dict[str, Any], int, str, dict[str, Any]]] = []
    for turn in range(8):
        actor, view = _actor(game_id, players)
        version = view["version"]
        legal = view["state"]["legal_actions"]
        mode = turn % 4
        if mode == 0:  # conflicting: different legal actions, no keys
            picks = [legal[i % len(legal)] for i in range(THREADS)]
            _one_applied(
                race([partial(actor.clone().act, game_id, a, version) for a in picks]), version
            )
        elif mode == 1:  # identical, no keys
            calls = [partial(actor.clone().act, game_id, legal[0], version) for _ in range(THREADS)]
            _one_applied(race(calls), version)
        elif mode == 2:  # identical, one key
            key = f"same-{turn}"
            calls = [
                partial(actor.clone().act, game_id, legal[0], version, **{"Idempotency-Key": key})
                for _ in range(THREADS)
            ]
            results = race(calls)
            assert [r.status_code for r in results] == [201] * THREADS
            bodies = [r.json() for r in results]
            assert all(b == bodies[0] for b in bodies)
            replayed = [r.get("Idempotent-Replayed") for r in results]
            assert replayed.count("true") == THREADS - 1, replayed
            assert Game.objects.get(pk=game_id).version == version + 1
            keyed.append((actor, legal[0], version, key, bodies[0]))
        else:  # identical, a key each; the other seat races too
            other = next(p for p in players if p is not actor)
            calls = [
                partial(
                    actor.clone().act,
                    game_id,
                    legal[0],
                    version,
                    **{"Idempotency-Key": f"own-{turn}-{i}"},
                )
                for i in range(THREADS - 2)
            ] + [partial(other.clone().act, game_id, {"type": "draw"}, version) for _ in range(2)]
            results = race(calls)
            mine, theirs = results[: THREADS - 2], results[THREADS - 2 :]
            # Refused either way: not its turn, or (arriving after the move) a stale version.
            refusals = {(403, "not_your_turn"), (409, "stale_version")}
            assert all((r.status_code, r.json()["code"]) in refusals for r in theirs), [
                r.content for r in theirs
            ]
            _one_applied(mine, version)
        assert Game.objects.get(pk=game_id).version == version + 1
    _assert_log_whole(game_id)
    # A retry long after (the game has moved on) still gets the first answer, once more.
    for actor, action, version, key, body in keyed:
        again = actor.act(game_id, action, version, **{"Idempotency-Key": key})
        assert again.status_code == 201 and again.json() == body
        assert again["Idempotent-Replayed"] == "true"
    _assert_log_whole(game_id)
