"""SQL queries per move, counted (Django's CaptureQueriesContext), with where each one goes.

The service that applies a move (``game_action_apply``) costs three queries when the move
changes no meld and ends no round (most moves: draws, discards): lock the game row (its creator
joined; its seats are on the row, ``Game.seating``), insert the event, update the game
(snapshot and caches); those three are written once in ``games.hot_sql`` rather than
compiled from querysets on every move. The same service checks that the requester may see the
game, so the view reads nothing itself. A move that changes melds adds one statement per
changed meld (an insert or an update; the rows before are known from the previous snapshot); a
round end adds the RoundScore rows. Through HTTP a move costs one query more: the key's
lookup (by digest, its user and player joined), on every request, so that a revoked key is
refused at once on every server. The response reuses the seats and the
creator the service loaded. A move that passes the turn to another player (both seats are
people here) adds one read: the outbox's look at that player's notification endpoints, the
game's mute and their switches, in one statement (``notifications.services.notifications``).

Savepoints are not counted: they appear only because the test runs inside a transaction (the
service itself makes none). Run with ``-s`` to see the per-move figures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.engine.view import player_view
from games.models import Game, GameEvent
from games.services.actions import game_action_apply
from games.services.projections import meld_rows
from tests.games.api.conftest import PlayerClient, choose, snapshot_of
from tests.hardening.helpers import started_game

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _keys_looked_up(settings: Any) -> None:
    """Every request looks its key up, as without Redis (with it, a process remembers keys:
    ``test_a_remembered_key_costs_no_query``)."""
    settings.AUTH_KEY_CACHE_SECONDS = 0


SERVICE_BUDGET = 3  # a move that changes no meld and ends no round
KEY_LOOKUP = "SELECT accounts_credential"
HTTP_EXTRA = 1  # the key's lookup (accounts.services.credentials.credential_authenticate)
MELD_EXTRA = 1  # a move that adds or extends one meld (no round end)
TURN_PASSED_EXTRA = 1  # the turn passes to a person: the outbox reads their endpoints
# What those three are, in order, and the outbox's read when the turn passes.
PLAIN_MOVE = ["SELECT games_game", "INSERT games_gameevent", "UPDATE games_game"]
OUTBOX_READ = "SELECT games_gamemute"


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


def _moves(game_id: int, count: int) -> list[tuple[str, int, int, list[str]]]:
    """Play ``count`` simple legal moves through the service; (type, queries less the
    outbox's read when the turn passed, Meld rows changed (-1: a round ended), statements)
    for each."""
    out = []
    for _ in range(count):
        before = snapshot_of(game_id)
        game = Game.objects.get(pk=game_id)
        seat = before.to_act
        mine = player_view(before, seat)
        action = choose(mine["legal_actions"])
        with CaptureQueriesContext(connection) as ctx:
            game_action_apply(
                game_id=game_id, seat=seat, action=action, expected_version=game.version
            )
        after = snapshot_of(game_id)
        old = meld_rows(before.to_dict()["melds"])
        new = meld_rows(after.to_dict()["melds"])
        changed = sum(old.get(key) != new.get(key) for key in old.keys() | new.keys())
        if len(before.rounds) != len(after.rounds):
            changed = -1
        sql = statements(ctx)
        passed = after.to_act != seat and not after.game_over
        outbox = [s for s in sql if kind(s) == OUTBOX_READ]
        assert len(outbox) == (TURN_PASSED_EXTRA if passed else 0), (action["type"], sql)
        out.append((action["type"], len(sql) - len(outbox), changed, sql))
    return out


def test_a_plain_move_costs_three_queries_in_the_service(
    make_player: Callable[..., PlayerClient],
) -> None:
    game_id, _ = started_game(make_player)
    moves = _moves(game_id, 40)
    plain = [m for m in moves if not m[2]]
    assert plain, "every move changed a meld"
    for move_type, queries, _, sql in plain:
        assert queries <= SERVICE_BUDGET, (move_type, [kind(s) for s in sql])
    melding = [m for m in moves if m[2] > 0]
    assert melding, "no move changed a meld"
    for move_type, queries, changed, sql in melding:  # one statement per changed Meld row
        assert queries <= SERVICE_BUDGET + changed, (move_type, [kind(s) for s in sql])
    counts = Counter((t, q) for t, q, _, _ in moves)
    print(f"\nservice queries per move (type, queries): {sorted(counts.items())}")
    print(f"plain move statements: {[kind(s) for s in plain[0][3]]}")


def test_a_move_through_http_costs_the_keys_lookup_and_three_queries(
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
        # The move happened, and is what the response says: one event, the next version.
        body = response.json()
        assert body["event"]["seq"] == mine["version"] + 1 == body["game"]["version"]
        assert body["event"]["type"] == action["type"]
        stored = Game.objects.get(pk=game_id)
        assert stored.version == mine["version"] + 1
        assert GameEvent.objects.filter(game_id=game_id).count() == stored.version
        after = snapshot_of(game_id)
        if state.melds == after.melds and len(state.rounds) == len(after.rounds):
            sql = statements(ctx)
            passed = after.to_act != state.to_act
            per_move.append((action["type"], len(sql) - (TURN_PASSED_EXTRA if passed else 0)))
            expected = [KEY_LOOKUP, *PLAIN_MOVE] + ([OUTBOX_READ] if passed else [])
            assert [kind(s) for s in sql] == expected, (action["type"], sql)
            # the game row is locked (PostgreSQL; SQLite has no row locks, nor does the ORM)
            assert sql[1].endswith('FOR UPDATE OF "games_game"') == (connection.vendor != "sqlite")
            first = first or [kind(s) for s in sql]
    assert per_move
    assert {"draw", "discard"} <= {t for t, _ in per_move}
    worst = max(q for _, q in per_move)
    print(f"\nHTTP queries per plain move: {sorted(Counter(per_move).items())}")
    print(f"statements: {first}")
    assert worst <= SERVICE_BUDGET + HTTP_EXTRA, per_move


def test_a_request_pays_one_query_to_look_its_key_up(
    make_player: Callable[..., PlayerClient],
) -> None:
    game_id, players = started_game(make_player)
    actor = players[snapshot_of(game_id).to_act]
    mine = actor.game(game_id)
    with CaptureQueriesContext(connection) as ctx:
        response = actor.act(game_id, {"type": "draw"}, mine["version"])
    assert response.status_code == 201, response.content
    assert [kind(s) for s in statements(ctx)] == [KEY_LOOKUP, *PLAIN_MOVE]


def test_a_remembered_key_costs_no_query(
    make_player: Callable[..., PlayerClient], settings: Any
) -> None:
    if not settings.REDIS_URL:  # CI's SQLite run has none; its PostgreSQL + Redis run has
        pytest.skip("needs REDIS_URL=redis://... (keys are remembered only with it)")
    settings.AUTH_KEY_CACHE_SECONDS = 60
    game_id, players = started_game(make_player)
    actor = players[snapshot_of(game_id).to_act]
    mine = actor.game(game_id)  # the key is looked up, and remembered
    with CaptureQueriesContext(connection) as ctx:
        response = actor.act(game_id, {"type": "draw"}, mine["version"])
    assert response.status_code == 201, response.content
    assert [kind(s) for s in statements(ctx)] == PLAIN_MOVE
