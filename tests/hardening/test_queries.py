"""SQL queries per move, counted (Django's CaptureQueriesContext), with where each one goes.

The service that applies a move (``game_action_apply``) costs four queries when the move
changes no meld and ends no round (most moves: draws, discards): lock the game row, read its
seats, insert the event, update the game (snapshot and caches). A move that changes melds adds
the Meld projection (one read, one write per changed meld); a round end adds the RoundScore
rows. Through HTTP a move costs two more: token authentication (the user and their player
joined to the token) and the visibility check (game row, with any overdue timer applied); the
response reuses the seats and the creator the service loaded with the locked game.

Savepoints are not counted: they appear only because the test runs inside a transaction.
Run with ``-s`` to see the per-move figures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from games.engine.view import player_view
from games.models import Game
from tests.api.conftest import PlayerClient, choose, snapshot_of
from tests.hardening.helpers import started_game

pytestmark = pytest.mark.django_db

SERVICE_BUDGET = 4  # a move that changes no meld and ends no round
HTTP_EXTRA = 2  # authentication (user and player joined), visibility check


def statements(ctx: CaptureQueriesContext) -> list[str]:
    return [
        q["sql"]
        for q in ctx.captured_queries
        if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT"))
    ]


def kind(sql: str) -> str:
    words = sql.split()
    verb = words[0]
    table = next((w for w in words if w.startswith('"') and "_" in w), "?").split(".")[0]
    return f"{verb} {table.strip(chr(34))}"


def _moves(game_id: int, count: int) -> list[tuple[str, int, bool, list[str]]]:
    """Play ``count`` simple legal moves through the service; (type, queries, melds or round
    changed, statements) for each."""
    out = []
    for _ in range(count):
        before = snapshot_of(game_id)
        game = Game.objects.get(pk=game_id)
        seat = before.to_act
        mine = player_view(before, seat)
        action = choose(mine["legal_actions"])
        with CaptureQueriesContext(connection) as ctx:
            services.game_action_apply(
                game_id=game_id, seat=seat, action=action, expected_version=game.version
            )
        after = snapshot_of(game_id)
        changed = before.melds != after.melds or len(before.rounds) != len(after.rounds)
        sql = statements(ctx)
        out.append((action["type"], len(sql), changed, sql))
    return out


def test_a_plain_move_costs_four_queries_in_the_service(
    make_player: Callable[..., PlayerClient],
) -> None:
    game_id, _ = started_game(make_player)
    moves = _moves(game_id, 40)
    plain = [m for m in moves if not m[2]]
    assert plain, "every move changed a meld"
    for move_type, queries, _, sql in plain:
        assert queries <= SERVICE_BUDGET, (move_type, [kind(s) for s in sql])
    counts = Counter((t, q) for t, q, _, _ in moves)
    print(f"\nservice queries per move (type, queries): {sorted(counts.items())}")
    print(f"plain move statements: {[kind(s) for s in plain[0][3]]}")


def test_a_move_through_http_costs_six_queries(
    make_player: Callable[..., PlayerClient],
) -> None:
    game_id, players = started_game(make_player)
    per_move: list[tuple[str, int]] = []
    first: list[str] = []
    for _ in range(30):
        state = snapshot_of(game_id)
        actor = players[state.to_act]
        mine = actor.game(game_id)
        action: dict[str, Any] = choose(mine["state"]["legal_actions"])
        with CaptureQueriesContext(connection) as ctx:
            response = actor.act(game_id, action, mine["version"])
        assert response.status_code == 201, response.content
        after = snapshot_of(game_id)
        if state.melds == after.melds and len(state.rounds) == len(after.rounds):
            sql = statements(ctx)
            per_move.append((action["type"], len(sql)))
            first = first or [kind(s) for s in sql]
    assert per_move
    worst = max(q for _, q in per_move)
    print(f"\nHTTP queries per plain move: {sorted(Counter(per_move).items())}")
    print(f"statements: {first}")
    assert worst <= SERVICE_BUDGET + HTTP_EXTRA, per_move
