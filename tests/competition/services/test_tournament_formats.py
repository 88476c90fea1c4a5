"""Each format played to the end with bot entrants (small fields; the 64-entrant simulations
are in test_tournament_simulation.py): pairings, results, standings rebuilt from the log."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import timedelta

import pytest

from competition.models import (
    EntryStatus,
    TableStatus,
    TournamentEntry,
    TournamentStatus,
    TournamentTable,
)
from competition.pairing.arena import arena_points
from competition.pairing.duplicate import deal_set_verify
from competition.selectors.tournament_standings import tournament_verify
from competition.services.tournament_rounds import tournament_start
from competition.services.tournaments import withdraw
from games import hooks
from games.models import GameStatus
from games.services.table import game_concede
from tests.competition.services.tournament_helpers import (
    assert_paired_once_per_round,
    assert_verified,
    bot_event,
    event,
    facts_of,
    organiser,
    people,
    register_all,
)
from tests.games.api.conftest import eager_bots  # noqa: F401  (autouse: bots play in-process)
from tests.games.services.timers.clock import FakeClock

pytestmark = pytest.mark.django_db(transaction=True)


def _opponents(t_id: int) -> dict[int, list[int]]:
    met: dict[int, list[int]] = defaultdict(list)
    for table in TournamentTable.objects.filter(tournament_id=t_id, status=TableStatus.FINISHED):
        a, b = table.sides
        for x in a:
            met[x].extend(b)
        for x in b:
            met[x].extend(a)
    return met


def test_swiss_of_eight_plays_three_rounds_without_a_rematch() -> None:
    t = bot_event("swiss", 8, rounds=3)
    assert t.status == TournamentStatus.FINISHED
    assert t.current_round == 3
    tables = TournamentTable.objects.filter(tournament=t)
    assert Counter(tables.values_list("round", flat=True)) == {1: 4, 2: 4, 3: 4}
    assert set(tables.values_list("status", flat=True)) == {TableStatus.FINISHED}
    for entry_id, opponents in _opponents(t.pk).items():
        assert len(opponents) == len(set(opponents)) == 3, (entry_id, opponents)
    # Every game hands out one point (a win, or two halves).
    points = sum(TournamentEntry.objects.filter(tournament=t).values_list("points", flat=True))
    assert points == pytest.approx(12.0)
    assert_paired_once_per_round(t)
    assert_verified(t)


def test_swiss_of_seven_gives_one_bye_a_round_to_different_entries() -> None:
    t = bot_event("swiss", 7, rounds=3)
    assert t.status == TournamentStatus.FINISHED
    byes = facts_of(t, "bye")
    assert [b["round"] for b in byes] == [1, 2, 3]
    assert len({b["entry"] for b in byes}) == 3
    assert all(b["points"] == 1.0 for b in byes)
    assert_verified(t)


def test_swiss_of_individuals_at_four_seats_rotates_partners() -> None:
    t = bot_event("swiss", 8, rounds=2, preset="classic")
    assert t.status == TournamentStatus.FINISHED
    partners: dict[int, list[int]] = defaultdict(list)
    for table in TournamentTable.objects.filter(tournament=t):
        assert [len(side) for side in table.sides] == [2, 2]
        for side in table.sides:
            partners[side[0]].append(side[1])
            partners[side[1]].append(side[0])
    assert all(len(p) == len(set(p)) == 2 for p in partners.values()), partners
    assert_verified(t)


def test_swiss_of_pairs_seats_both_partners_of_each_entry() -> None:
    t = bot_event("swiss", 4, rounds=2, preset="classic", unit="pair")
    assert t.status == TournamentStatus.FINISHED
    for table in TournamentTable.objects.filter(tournament=t):
        assert len(table.seating) == 4
        # Team 0 at seats 0 and 2, team 1 at 1 and 3: each entry fills its team's seats.
        assert table.seating[0][0] == table.seating[2][0] == table.sides[0][0]
        assert table.seating[1][0] == table.seating[3][0] == table.sides[1][0]
        assert table.game is not None and table.game.status in (
            GameStatus.FINISHED,
            GameStatus.ABANDONED,
        )
    assert_verified(t)


def test_knockout_of_eight_ends_with_one_champion() -> None:
    t = bot_event("knockout", 8)
    assert t.status == TournamentStatus.FINISHED
    entries = TournamentEntry.objects.filter(tournament=t)
    assert Counter(entries.values_list("status", flat=True)) == {
        EntryStatus.ELIMINATED: 7,
        EntryStatus.ACTIVE: 1,
    }
    champion = entries.get(status=EntryStatus.ACTIVE)
    assert champion.points == 3.0
    decided = facts_of(t, "match_decided")
    assert Counter(d["round"] for d in decided) == {1: 4, 2: 2, 3: 1}
    # Round 2's match k is between the winners of round 1's matches 2k - 1 and 2k.
    first = {d["number"]: d["winner"] for d in decided if d["round"] == 1}
    for table in TournamentTable.objects.filter(tournament=t, round=2, leg=1):
        k = table.number
        assert {table.sides[0][0], table.sides[1][0]} == {first[2 * k - 1], first[2 * k]}
    # Seeded by rating: seed 1 meets seed 8 in the first round.
    seeds = dict(entries.values_list("seed", "pk"))
    opening = TournamentTable.objects.get(tournament=t, round=1, number=1, leg=1)
    assert {opening.sides[0][0], opening.sides[1][0]} == {seeds[1], seeds[8]}
    assert_verified(t)


def test_knockout_of_six_gives_the_top_seeds_byes_and_plays_best_of_three() -> None:
    t = bot_event("knockout", 6, games_per_match=3)
    assert t.status == TournamentStatus.FINISHED
    seeds = dict(TournamentEntry.objects.filter(tournament=t).values_list("seed", "pk"))
    paired = facts_of(t, "round_paired")[0]
    assert set(paired["bracket_byes"].values()) == {seeds[1], seeds[2]}
    matches: dict[tuple[int, int], list[TournamentTable]] = defaultdict(list)
    for leg in TournamentTable.objects.filter(tournament=t).order_by("leg"):
        matches[(leg.round, leg.number)].append(leg)
    assert len(matches) == 5  # 2 in the first round, 2 semi-finals, the final
    decided = {(d["round"], d["number"]): d["winner"] for d in facts_of(t, "match_decided")}
    for key, legs in matches.items():
        assert 2 <= len(legs) <= 3, (key, len(legs))
        wins: Counter[int] = Counter()
        points: Counter[int] = Counter()
        for leg in legs:
            assert leg.scores is not None
            for side in (0, 1):
                points[leg.sides[side][0]] += leg.scores[side]
            if leg.winner_side is not None:
                wins[leg.sides[leg.winner_side][0]] += 1
        a, b = legs[0].sides[0][0], legs[0].sides[1][0]
        expected = a if (wins[a], points[a]) > (wins[b], points[b]) else b
        assert decided[key] == expected
    assert TournamentEntry.objects.filter(tournament=t, status=EntryStatus.ACTIVE).count() == 1
    assert_verified(t)


def test_arena_pairs_free_entries_again_until_the_window_closes(clock: FakeClock) -> None:
    # Each game takes two minutes of the fake clock; the arena is open for half an hour.
    def two_minutes(event: hooks.GameEnded) -> None:
        clock.advance(minutes=2)

    hooks.subscribe(hooks.GameEnded, two_minutes)
    try:
        t = bot_event("arena", 8, ends_at=clock.now + timedelta(minutes=30))
    finally:
        hooks.unsubscribe(hooks.GameEnded, two_minutes)
    assert t.status == TournamentStatus.FINISHED
    games = TournamentTable.objects.filter(tournament=t, status=TableStatus.FINISHED)
    assert games.count() >= 12  # paired again and again, not once
    for entry in TournamentEntry.objects.filter(tournament=t):
        assert entry.played >= 2
        assert entry.played == len(entry.arena_results)
        assert entry.points == sum(arena_points(entry.arena_results))
    # Never the same opponent twice in a row.
    last: dict[int, int] = {}
    for table in games.order_by("round", "number"):
        a, b = table.sides[0][0], table.sides[1][0]
        assert last.get(a) != b and last.get(b) != a
        last[a], last[b] = b, a
    assert_verified(t)


def deals_of(table: TournamentTable) -> dict[int, tuple[object, list[object]]]:
    """Round -> (upcards, every seat's dealt hand) of a table's game, from its move log."""
    assert table.game is not None
    deals = {}
    for logged in table.game.events.order_by("seq"):
        for effect in logged.effects:
            if effect["kind"] == "round_started":
                public = effect["public"]
                hands = [
                    effect["private"][str(s)]["hand"]
                    for s in sorted(int(k) for k in effect["private"])
                ]
                deals[int(public["round"])] = (public["upcards"], hands)
    return deals


def test_robot_duplicate_deals_the_same_cards_at_every_table_of_a_board() -> None:
    t = bot_event("duplicate", 4, robot=True, boards_per_round=2)
    assert t.status == TournamentStatus.FINISHED
    tables = TournamentTable.objects.filter(tournament=t).select_related("game")
    by_board: dict[int, list[dict[int, tuple[object, list[object]]]]] = defaultdict(list)
    for table in tables:
        assert table.game is not None and table.board is not None
        assert table.game.seed == t.deal_seeds[table.board - 1]
        by_board[table.board].append(deals_of(table))
    assert sorted(by_board) == [1, 2]
    for board, dealt in by_board.items():
        assert len(dealt) == 4
        for other in dealt[1:]:
            common = set(other) & set(dealt[0])
            assert 1 in common
            # Every round both games reached was dealt the same upcards and hands.
            assert all(other[r] == dealt[0][r] for r in common), f"board {board} differs"
    assert by_board[1][0][1] != by_board[2][0][1]  # two boards, two deals
    report = tournament_verify(t)
    assert report.ok and report.deals_verified is True
    assert deal_set_verify(facts_of(t, "deals_revealed")[0]["seeds"], t.deal_commitment)
    scored = facts_of(t, "board_scored")
    assert sorted(s["board"] for s in scored) == [1, 2]
    for s in scored:  # matchpoint percentages of four results average 50
        assert sum(r["points"] for r in s["records"]) == pytest.approx(200.0, abs=0.04)


def test_duplicate_of_players_scores_each_board_within_its_direction() -> None:
    t = bot_event("duplicate", 4, rounds=2, boards_per_round=2, duplicate_scoring="imps")
    assert t.status == TournamentStatus.FINISHED
    tables = TournamentTable.objects.filter(tournament=t)
    assert tables.count() == 2 * 2 * 2  # rounds x tables x boards
    scored = facts_of(t, "board_scored")
    assert sorted(s["board"] for s in scored) == [1, 2, 3, 4]
    for s in scored:
        # Two tables, each direction two results: IMPs against the datum cancel out.
        assert sum(r["points"] for r in s["records"]) == 0
    report = tournament_verify(t)
    assert report.ok and report.deals_verified is True


def test_a_knockout_match_won_by_an_entry_that_left_goes_to_the_other() -> None:
    org = organiser()
    t = event(org, format="knockout")
    ada, bob = people(2)
    register_all(t, [ada, bob])
    tournament_start(tournament_id=t.pk, organiser=org)
    table = TournamentTable.objects.get(tournament=t)
    assert table.game_id is not None
    withdraw(tournament_id=t.pk, player=ada)  # her game goes on
    game_concede(game_id=table.game_id, player=bob)  # ... and she wins it
    t.refresh_from_db()
    assert t.status == TournamentStatus.FINISHED
    [decided] = facts_of(t, "match_decided")
    bob_entry = TournamentEntry.objects.get(tournament=t, player=bob)
    assert decided["winner"] == bob_entry.pk and decided["reason"] == "forfeit"
    assert TournamentEntry.objects.get(tournament=t, player=ada).status == EntryStatus.WITHDRAWN
    assert_verified(t)
