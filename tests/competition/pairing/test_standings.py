"""Incremental standings (competition.pairing.standings): the rows kept result by result equal
a recomputation from scratch, the changed units are reported, and a concrete event."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from competition.pairing.standings import StandingRow, Standings


@dataclass
class Log:
    """Everything recorded, to recompute the standings from."""

    ratings: dict[int, float] = field(default_factory=dict)
    results: list[tuple[int, list[int], float, float, int]] = field(default_factory=list)
    byes: list[tuple[int, float]] = field(default_factory=list)


def recompute(log: Log) -> list[StandingRow]:
    """The standings from scratch, by the definitions."""
    points = dict.fromkeys(log.ratings, 0.0)
    diff = dict.fromkeys(log.ratings, 0)
    played = dict.fromkeys(log.ratings, 0)
    for unit, _, won, _, score_diff in log.results:
        points[unit] += won
        diff[unit] += score_diff
        played[unit] += 1
    for unit, won in log.byes:
        points[unit] += won
    buchholz = dict.fromkeys(log.ratings, 0.0)
    sb = dict.fromkeys(log.ratings, 0.0)
    for unit, opponents, _, score, _ in log.results:
        for opponent in opponents:
            buchholz[unit] += points[opponent]
            sb[unit] += points[opponent] * score
    order = sorted(
        log.ratings,
        key=lambda u: (-points[u], -buchholz[u], -sb[u], -diff[u], -log.ratings[u], u),
    )
    return [
        StandingRow(u, k + 1, points[u], buchholz[u], sb[u], diff[u], played[u])
        for k, u in enumerate(order)
    ]


def unranked(row: StandingRow) -> tuple[float, float, float, int, int]:
    return (row.points, row.buchholz, row.sonneborn_berger, row.score_diff, row.played)


operations = st.lists(
    st.one_of(
        st.tuples(
            st.just("game"),
            st.integers(0, 9),
            st.lists(st.integers(0, 9), min_size=1, max_size=3, unique=True),
            st.sampled_from([1.0, 0.5, 0.0]),
            st.integers(-500, 500),
        ),
        st.tuples(st.just("bye"), st.integers(0, 9), st.sampled_from([1.0, 0.5])),
        st.tuples(st.just("withdraw"), st.integers(0, 9)),
    ),
    max_size=60,
)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 10), st.lists(st.sampled_from([0.0, 1500.0, 1600.0]), min_size=10), operations
)
def test_incremental_equals_recomputation(
    n: int, ratings: list[float], ops: list[tuple[object, ...]]
) -> None:
    standings = Standings()
    log = Log()
    for unit in range(n):
        standings.add_unit(unit, ratings[unit])
        log.ratings[unit] = ratings[unit]
    expected = recompute(log)
    for op in ops:
        before = {row.unit: unranked(row) for row in standings.rows()}
        if op[0] == "game":
            _, drawn_unit, drawn_opponents, score, score_diff = op
            assert isinstance(drawn_unit, int) and isinstance(drawn_opponents, list)
            assert isinstance(score, float) and isinstance(score_diff, int)
            player = drawn_unit % n
            opponents = sorted({o % n for o in drawn_opponents} - {player})
            if not opponents:
                continue
            changed = standings.record(player, opponents, score, score, score_diff)
            log.results.append((player, opponents, score, score, score_diff))
            dependants = {u for u, opps, _, _, _ in log.results if player in opps}
            assert changed <= {player} | dependants
        elif op[0] == "bye":
            _, drawn_unit, won = op
            assert isinstance(drawn_unit, int) and isinstance(won, float)
            changed = standings.bye(drawn_unit % n, won)
            log.byes.append((drawn_unit % n, won))
        else:
            assert isinstance(op[1], int)
            standings.withdraw(op[1] % n)
            assert op[1] % n in standings.withdrawn
            changed = set()
        expected = recompute(log)
        assert standings.rows() == expected
        # Every unit whose row (rank aside) changed is reported.
        after = {row.unit: unranked(row) for row in expected}
        assert {u for u in after if after[u] != before[u]} <= changed
    assert len(standings) == n
    for row in expected:
        assert standings.row(row.unit) == row
    for offset in range(n):
        assert standings.top(3, offset) == expected[offset : offset + 3]


def test_four_players_two_rounds() -> None:
    s = Standings()
    for unit in (1, 2, 3, 4):
        s.add_unit(unit, 1500.0)
    # Round 1: 1 beats 2 by 100, 3 and 4 draw.
    assert s.record(1, [2], 1.0, 1.0, 100) == {1}
    assert s.record(2, [1], 0.0, 0.0, -100) == {2}
    assert s.record(3, [4], 0.5, 0.5, 0) == {3}
    assert s.record(4, [3], 0.5, 0.5, 0) == {4, 3}
    # Round 2: 1 beats 3 by 50, 2 beats 4 by 20.
    assert s.record(1, [3], 1.0, 1.0, 50) == {1, 2}
    assert s.record(3, [1], 0.0, 0.0, -50) == {3}
    assert s.record(2, [4], 1.0, 1.0, 20) == {2, 1}
    assert s.record(4, [2], 0.0, 0.0, -20) == {4}
    assert s.rows() == [
        StandingRow(1, 1, 2.0, 1.5, 1.5, 150, 2),
        StandingRow(2, 2, 1.0, 2.5, 0.5, -80, 2),
        StandingRow(3, 3, 0.5, 2.5, 0.25, -50, 2),
        StandingRow(4, 4, 0.5, 1.5, 0.25, -20, 2),
    ]
    assert s.row(3).rank == 3
    # A bye: points, no game; those who met 4 gain Buchholz.
    assert s.bye(4, 1.0) == {4, 3, 2}
    assert s.row(4) == StandingRow(4, 2, 1.5, 1.5, 0.25, -20, 2)
    assert s.row(2) == StandingRow(2, 3, 1.0, 3.5, 1.5, -80, 2)
    s.withdraw(1)
    assert s.withdrawn == {1}
    assert s.row(1).rank == 1


def test_ties_get_distinct_ranks_by_rating_then_id() -> None:
    s = Standings()
    s.add_unit(5, 1500.0)
    s.add_unit(3, 1500.0)
    s.add_unit(9, 1700.0)
    assert [(r.unit, r.rank) for r in s.rows()] == [(9, 1), (3, 2), (5, 3)]
    assert s.top(1, offset=1) == [StandingRow(3, 2, 0.0, 0.0, 0.0, 0, 0)]


def test_errors() -> None:
    s = Standings()
    s.add_unit(1)
    with pytest.raises(ValueError):
        s.add_unit(1)
    with pytest.raises(KeyError):
        s.record(1, [2], 1.0, 1.0, 0)
    with pytest.raises(ValueError):
        s.record(1, [1], 1.0, 1.0, 0)
    with pytest.raises(KeyError):
        s.row(7)
