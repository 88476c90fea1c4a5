"""A knockout of 64 bot entrants run to the end through the services (PostgreSQL): six
rounds, one champion, the standings rebuilt from the log equal to the kept ones."""

from __future__ import annotations

from collections import Counter

import pytest

from competition.models import EntryStatus, TournamentEntry
from tests.competition.services.tournament_helpers import (
    assert_paired_once_per_round,
    assert_verified,
    bot_event,
    facts_of,
)
from tests.games.api.conftest import eager_bots  # noqa: F401  (autouse: bots play in-process)

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ENTRANTS = 64


def test_a_knockout_of_64_crowns_one_after_six_rounds() -> None:
    t = bot_event("knockout", ENTRANTS)
    assert t.status == "finished"
    decided = facts_of(t, "match_decided")
    assert Counter(d["round"] for d in decided) == {1: 32, 2: 16, 3: 8, 4: 4, 5: 2, 6: 1}
    champion = TournamentEntry.objects.get(tournament=t, status=EntryStatus.ACTIVE)
    assert champion.pk == decided[-1]["winner"] and champion.points == 6.0
    assert_paired_once_per_round(t)
    assert_verified(t)
