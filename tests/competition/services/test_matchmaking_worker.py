"""Quick play as production runs it: beat's pairing task on a real Celery worker (PostgreSQL +
Redis), which sends each match's table task by name to be dealt there."""

from __future__ import annotations

import time

import pytest
from django.conf import settings

from accounts.services.players import player_create
from canasta_service.celery import app as celery_app
from competition import tasks
from competition.models import QueueEntry
from competition.services.matchmaking import queue_join
from games.models import GameStatus
from games.services.table import game_concede
from tests.conftest import WorkerProcess

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_the_beat_task_pairs_and_the_worker_deals_the_table(
    celery_worker_process: WorkerProcess,
) -> None:
    assert not celery_app.conf.task_always_eager and not settings.MATCHMAKING_IN_PROCESS
    ada, bob = (player_create(display_name=name)[0] for name in ("Ada", "Bob"))
    for player in (ada, bob):
        queue_join(player=player, preset="two_player")

    celery_app.send_task(tasks.matchmaking_pair.name)  # as beat does

    deadline = time.monotonic() + 60
    while not (entries := list(QueueEntry.objects.filter(game__isnull=False))):
        if time.monotonic() > deadline:
            pytest.fail(f"no table dealt; worker log:\n{celery_worker_process.log_text()[-4000:]}")
        time.sleep(0.2)
    [game] = {e.game for e in QueueEntry.objects.select_related("game")}
    assert game is not None and game.status == GameStatus.ACTIVE
    assert (
        {e.player_id for e in entries}
        == {ada.pk, bob.pk}
        == set(game.seats.values_list("player_id", flat=True))
    )
    assert "games.match_table_create" in celery_worker_process.log_text()
    game_concede(game_id=game.pk, player=ada)  # no turn timer left running on the worker
