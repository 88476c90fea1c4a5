"""A robot duplicate of 64 entrants run to its close through the services (PostgreSQL):
every table dealt the same cards, every game replays and verifies from its log, the deal set
verifies against its commitment."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from competition.models import TournamentTable
from games.selectors.verify import game_verify
from tests.competition.services.test_tournament_formats import deals_of
from tests.competition.services.tournament_helpers import (
    assert_verified,
    bot_event,
    facts_of,
)
from tests.games.api.conftest import eager_bots  # noqa: F401  (autouse: bots play in-process)

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ENTRANTS = 64


def test_a_robot_duplicate_of_64_deals_every_table_the_same_cards() -> None:
    t = bot_event("duplicate", ENTRANTS, robot=True, boards_per_round=1)
    assert t.status == "finished"
    tables = list(TournamentTable.objects.filter(tournament=t).select_related("game"))
    assert len(tables) == ENTRANTS
    deals = [deals_of(table) for table in tables]
    for other in deals[1:]:
        common = set(other) & set(deals[0])
        assert 1 in common and all(other[r] == deals[0][r] for r in common)
    for table in tables:
        assert table.game is not None and table.game.seed == t.deal_seeds[0]
        assert game_verify(table.game).ok
    call_command("replay", *[str(table.game_id) for table in tables[:8]], "--verify")
    scored = facts_of(t, "board_scored")
    assert len(scored) == 1 and len(scored[0]["records"]) == ENTRANTS
    # Matchpoint percentages average 50 (each rounded to hundredths).
    assert sum(r["points"] for r in scored[0]["records"]) == pytest.approx(
        50.0 * ENTRANTS, abs=0.01 * ENTRANTS
    )
    assert_verified(t)
