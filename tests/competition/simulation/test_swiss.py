"""A Swiss of 64 bot entrants run to the end through the services (PostgreSQL): three
rounds without a rematch, every entry paired once per round, the standings rebuilt from the
log equal to the kept ones."""

from __future__ import annotations

from collections import Counter

import pytest

from competition.models import TableStatus, TournamentTable
from tests.competition.services.tournament_helpers import (
    assert_paired_once_per_round,
    assert_verified,
    bot_event,
)
from tests.games.api.conftest import eager_bots  # noqa: F401  (autouse: bots play in-process)

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ENTRANTS = 64


def test_a_swiss_of_64_plays_three_rounds_without_a_rematch() -> None:
    t = bot_event("swiss", ENTRANTS, rounds=3)
    assert t.status == "finished"
    met: Counter[frozenset[int]] = Counter()
    for table in TournamentTable.objects.filter(tournament=t):
        assert table.status == TableStatus.FINISHED
        met[frozenset((table.sides[0][0], table.sides[1][0]))] += 1
    assert len(met) == 3 * ENTRANTS // 2 and set(met.values()) == {1}
    assert_paired_once_per_round(t)
    assert_verified(t)
