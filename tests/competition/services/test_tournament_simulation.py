"""Every format run to the end by 64 bot entrants through the services (PostgreSQL; a few
minutes in all): every entry paired once per round, the standings rebuilt from the log equal
the kept ones, and a duplicate's games replay and verify from their logs."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import pytest
from django.core.management import call_command

from competition.models import EntryStatus, TableStatus, TournamentEntry, TournamentTable
from games import hooks
from games.selectors.verify import game_verify
from tests.competition.services.test_tournament_formats import deals_of
from tests.competition.services.tournament_helpers import (
    assert_paired_once_per_round,
    assert_verified,
    bot_event,
    facts_of,
)
from tests.games.api.conftest import eager_bots  # noqa: F401  (autouse: bots play in-process)
from tests.games.services.timers.clock import FakeClock

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

ENTRANTS = 64


def test_a_swiss_of_64_plays_four_rounds_without_a_rematch() -> None:
    t = bot_event("swiss", ENTRANTS, rounds=4)
    assert t.status == "finished"
    met: Counter[frozenset[int]] = Counter()
    for table in TournamentTable.objects.filter(tournament=t):
        assert table.status == TableStatus.FINISHED
        met[frozenset((table.sides[0][0], table.sides[1][0]))] += 1
    assert len(met) == 4 * ENTRANTS // 2 and set(met.values()) == {1}
    assert_paired_once_per_round(t)
    assert_verified(t)


def test_a_knockout_of_64_crowns_one_after_six_rounds() -> None:
    t = bot_event("knockout", ENTRANTS)
    assert t.status == "finished"
    decided = facts_of(t, "match_decided")
    assert Counter(d["round"] for d in decided) == {1: 32, 2: 16, 3: 8, 4: 4, 5: 2, 6: 1}
    champion = TournamentEntry.objects.get(tournament=t, status=EntryStatus.ACTIVE)
    assert champion.pk == decided[-1]["winner"] and champion.points == 6.0
    assert_paired_once_per_round(t)
    assert_verified(t)


def test_an_arena_of_64_pairs_free_players_until_it_closes(clock: FakeClock) -> None:
    def ten_seconds(event: hooks.GameEnded) -> None:
        clock.advance(seconds=10)

    hooks.subscribe(hooks.GameEnded, ten_seconds)
    try:
        t = bot_event("arena", ENTRANTS, ends_at=clock.now + timedelta(minutes=8))
    finally:
        hooks.unsubscribe(hooks.GameEnded, ten_seconds)
    assert t.status == "finished"
    played = TournamentTable.objects.filter(tournament=t, status=TableStatus.FINISHED).count()
    assert played > ENTRANTS // 2  # paired again after the first wave
    assert all(e.played >= 1 for e in TournamentEntry.objects.filter(tournament=t))
    assert_paired_once_per_round(t)
    assert_verified(t)


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
    assert sum(r["points"] for r in scored[0]["records"]) == pytest.approx(50.0 * ENTRANTS)
    assert_verified(t)
