"""An arena of 64 bot entrants run to its close through the services (PostgreSQL): free
entries paired again and again, the standings rebuilt from the log equal to the kept ones."""

from __future__ import annotations

from datetime import timedelta

import pytest

from competition.models import TableStatus, TournamentEntry, TournamentTable
from games import hooks
from tests.competition.services.tournament_helpers import (
    assert_paired_once_per_round,
    assert_verified,
    bot_event,
)
from tests.games.api.conftest import eager_bots  # noqa: F401  (autouse: bots play in-process)
from tests.games.services.timers.clock import FakeClock

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ENTRANTS = 64


def test_an_arena_of_64_pairs_free_players_until_it_closes(clock: FakeClock) -> None:
    def ten_seconds(event: hooks.GameEnded) -> None:
        clock.advance(seconds=10)

    hooks.subscribe(hooks.GameEnded, ten_seconds)
    try:
        t = bot_event("arena", ENTRANTS, ends_at=clock.now + timedelta(minutes=7))
    finally:
        hooks.unsubscribe(hooks.GameEnded, ten_seconds)
    assert t.status == "finished"
    played = TournamentTable.objects.filter(tournament=t, status=TableStatus.FINISHED).count()
    assert played > ENTRANTS // 2  # paired again after the first wave
    assert all(e.played >= 1 for e in TournamentEntry.objects.filter(tournament=t))
    assert_paired_once_per_round(t)
    assert_verified(t)
