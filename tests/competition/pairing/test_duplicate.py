"""Duplicate scoring (competition.pairing.duplicate): deal-set commitments, matchpoints, IMPs
and Butler IMPs."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from competition.pairing.duplicate import (
    IMP_SCALE,
    butler_imps,
    deal_set_commitment,
    deal_set_verify,
    imps,
    matchpoint_percent,
    matchpoints,
)


def test_commitment() -> None:
    seeds = ["a1f3", "9c0d", "77e2"]
    expected = hashlib.sha256(b"canasta-deals:a1f3:9c0d:77e2").hexdigest()
    assert deal_set_commitment(seeds) == expected
    assert deal_set_commitment([]) == hashlib.sha256(b"canasta-deals:").hexdigest()
    assert deal_set_verify(seeds, expected)
    assert deal_set_verify(seeds, expected.upper())
    assert not deal_set_verify(["9c0d", "a1f3", "77e2"], expected)
    assert not deal_set_verify([*seeds, "x"], expected)
    assert not deal_set_verify(seeds, "0" * 64)


@given(st.lists(st.text(alphabet="0123456789abcdef", min_size=1), max_size=8))
def test_commitment_round_trip(seeds: list[str]) -> None:
    assert deal_set_verify(seeds, deal_set_commitment(seeds))


def test_matchpoints_scenario() -> None:
    board = {1: 100, 2: 50, 3: 50, 4: -20}
    assert matchpoints(board) == {1: 6.0, 2: 3.0, 3: 3.0, 4: 0.0}
    assert matchpoint_percent(board) == {1: 100.0, 2: 50.0, 3: 50.0, 4: 0.0}
    assert matchpoint_percent({9: 120}) == {9: 50.0}
    assert matchpoints({}) == {}


@given(st.dictionaries(st.integers(), st.integers(-5000, 5000), min_size=1, max_size=30))
def test_matchpoints_properties(board: dict[int, int]) -> None:
    mp = matchpoints(board)
    n = len(board)
    assert sum(mp.values()) == n * (n - 1)
    for unit, value in board.items():
        brute = sum(
            2 if value > other_value else 1 if value == other_value else 0
            for other, other_value in board.items()
            if other != unit
        )
        assert mp[unit] == brute
    percent = matchpoint_percent(board)
    assert all(0 <= p <= 100 for p in percent.values())
    if n > 1:
        assert abs(sum(percent.values()) - 50 * n) < 1e-6


def test_imp_scale() -> None:
    assert len(IMP_SCALE) == 24
    assert IMP_SCALE[:4] == (40, 100, 180, 260)
    assert IMP_SCALE[-1] == 8000
    assert [imps(d) for d in (0, 39, 40, 99, 100, 7999, 8000, 100_000)] == [
        0, 0, 1, 1, 2, 23, 24, 24,
    ]  # fmt: skip
    assert imps(-40) == -1
    assert imps(-8000) == -24


@given(st.integers(-20_000, 20_000), st.integers(0, 20_000))
def test_imps_monotone_and_symmetric(difference: int, more: int) -> None:
    assert imps(-difference) == -imps(difference)
    assert imps(difference + more) >= imps(difference)
    assert -24 <= imps(difference) <= 24


def test_butler_scenario() -> None:
    # Datum for 1: mean(0, -50) = -25 -> -30, 130 points ahead: 2 IMPs. For 2: 25 -> 30,
    # 30 behind: 0. For 3: mean(100, 0) = 50, 100 behind: -2.
    assert butler_imps({1: 100, 2: 0, 3: -50}) == {1: 2, 2: 0, 3: -2}
    assert butler_imps({1: 500}) == {1: 0}
    assert butler_imps({1: 500, 2: 500}) == {1: 0, 2: 0}
    assert butler_imps({1: 1000, 2: -1000}) == {1: 14, 2: -14}


@given(st.dictionaries(st.integers(), st.integers(-5000, 5000), min_size=2, max_size=20))
def test_butler_properties(board: dict[int, int]) -> None:
    result = butler_imps(board)
    assert result.keys() == board.keys()
    # A better result never scores fewer IMPs than a worse one... against its own datum,
    # which is lower for it: so the order of results is kept.
    ranked = sorted(board, key=board.__getitem__)
    assert [result[u] for u in ranked] == sorted(result[u] for u in ranked)
    # Everyone level: no IMPs.
    level = dict.fromkeys(board, 120)
    assert set(butler_imps(level).values()) == {0}
