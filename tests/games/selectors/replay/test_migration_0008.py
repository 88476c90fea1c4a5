"""Migration 0008 moves the facts kept outside the move log into it.

Games are made with today's services (timeouts, a stand-in, the timer turned off, a concession,
an abandonment), turned back into the old storage at migration 0007 (facts in the timer log and
on the table row, the seating missing from ``game_started``, the log numbered without them),
migrated forward again, and must then be exactly what they were: the same events in the same
order, the same versions, and every game verifies from its log alone.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from games.engine.history import GAME_CONCEDED, TIMER_FACTS
from games.models import Game, GameEvent, GameStatus
from games.selectors.verify import game_verify
from games.services.table import game_concede
from games.services.timers import timer_off_accept, timer_off_propose, turn_timers_sweep
from tests.games.services.timers.conftest import after_deadline, play_turn, timed_table

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("games", "0007_presence_in_cache")]
AFTER = [("games", "0008_log_is_the_truth")]


def _logs() -> dict[int, list[tuple[Any, ...]]]:
    return {
        g.pk: list(
            GameEvent.objects.filter(game=g)
            .order_by("seq")
            .values_list("seq", "seat", "type", "source", "payload")
        )
        for g in Game.objects.all()
    }


def _time_out(table: Any) -> None:
    game = table.game()
    if game.to_act != 0:
        play_turn(table.game_id, 1)
        game.refresh_from_db()
    turn_timers_sweep(now=after_deadline(game))


def _games() -> None:
    handed = timed_table(timeout_limit=1)  # a timeout hands seat 0 to a bot
    _time_out(handed)
    play_turn(handed.game_id, 1)
    turn_timers_sweep()  # the stand-in plays
    off = timed_table(timeout_limit=3)  # a timeout, then the timer turned off
    _time_out(off)
    timer_off_propose(game_id=off.game_id, player=off.players[0])
    timer_off_accept(game_id=off.game_id, player=off.players[1])
    conceded = timed_table(turn_seconds=None)
    game_concede(game_id=conceded.game_id, player=conceded.players[1])
    abandoned = timed_table(timeout_limit=1, timeout_outcome="abandon")
    _time_out(abandoned)
    assert abandoned.game().status == GameStatus.ABANDONED


def _to_old_storage(apps: Any) -> None:
    """What migration 0007's schema held for the same games."""
    old_event = apps.get_model("games", "GameEvent")
    timer_event = apps.get_model("games", "TimerEvent")
    table = apps.get_model("games", "GameTable")
    old_game = apps.get_model("games", "Game")
    for game in old_game.objects.all():
        kept = 0
        timer_seq = 0
        for e in list(old_event.objects.filter(game=game).order_by("seq")):
            if e.type in TIMER_FACTS:
                timer_seq += 1
                timer_event.objects.create(
                    game=game,
                    seq=timer_seq,
                    at_version=kept,
                    seat=e.seat,
                    type=e.type,
                    payload=e.payload,
                )
                e.delete()
            elif e.type == GAME_CONCEDED:
                table.objects.update_or_create(
                    game=game,
                    defaults={"conceded_seat": e.seat, "conceded_team": e.payload["team"]},
                )
                e.delete()
            else:
                kept += 1
                if e.seq == 1:
                    e.payload = {
                        **e.payload,
                        "seats": [
                            {k: v for k, v in s.items() if k != "player"}
                            for s in e.payload["seats"]
                        ],
                    }
                old_event.objects.filter(pk=e.pk).update(seq=kept, payload=e.payload)
        old_game.objects.filter(pk=game.pk).update(version=kept)


def test_the_facts_move_into_the_log_and_every_game_verifies() -> None:
    _games()
    before = _logs()
    assert any(t in TIMER_FACTS for log in before.values() for _, _, t, _, _ in log)
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    executor.loader.build_graph()
    _to_old_storage(executor.loader.project_state(BEFORE).apps)
    executor = MigrationExecutor(connection)
    executor.migrate(AFTER)
    # then the later migrations (columns today's models read), which leave the logs alone
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    assert _logs() == before
    for game in Game.objects.all():
        report = game_verify(game)
        assert report.ok, (game.pk, report.problems)
