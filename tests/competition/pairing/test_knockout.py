"""Knockout brackets (competition.pairing.knockout): sizes, seeding, byes, and when a match is
decided under each tie rule."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from competition.pairing.knockout import (
    MatchGame,
    bracket_size,
    first_round,
    match_decided,
    seed_positions,
)


@pytest.mark.parametrize(
    ("n", "size"), [(0, 2), (1, 2), (2, 2), (3, 4), (4, 4), (5, 8), (8, 8), (9, 16), (1000, 1024)]
)
def test_bracket_size(n: int, size: int) -> None:
    assert bracket_size(n) == size


def test_seed_positions() -> None:
    assert seed_positions(2) == [1, 2]
    assert seed_positions(4) == [1, 4, 2, 3]
    assert seed_positions(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert seed_positions(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]
    with pytest.raises(ValueError):
        seed_positions(6)


@given(st.integers(1, 10))
def test_seeding_properties(power: int) -> None:
    size = 2**power
    order = seed_positions(size)
    assert sorted(order) == list(range(1, size + 1))
    # First-round opponents sum to size + 1.
    assert all(order[k] + order[k + 1] == size + 1 for k in range(0, size, 2))
    # The better seed wins every round: the last two meet in the final only, and in each
    # half of the bracket the best seed is the one expected there.
    half = size // 2
    assert min(order[:half]) == 1
    assert min(order[half:]) == 2


def test_first_round_byes_go_to_top_seeds() -> None:
    entries = [101, 102, 103, 104, 105]  # seeds 1..5
    assert first_round(entries) == [(101, None), (104, 105), (102, None), (103, None)]
    assert first_round([7, 8]) == [(7, 8)]
    assert first_round([7]) == [(7, None)]
    with pytest.raises(ValueError):
        first_round([])


@given(st.integers(1, 300))
def test_first_round_properties(n: int) -> None:
    entries = list(range(1000, 1000 + n))
    matches = first_round(entries)
    assert len(matches) == bracket_size(n) // 2
    assert all(m != (None, None) for m in matches)
    seated = [e for m in matches for e in m if e is not None]
    assert sorted(seated) == entries
    byes = sorted(e for a, b in matches for e in (a, b) if e is not None and None in (a, b))
    assert byes == entries[: bracket_size(n) - n]


def games(*scores: tuple[int, int]) -> list[MatchGame]:
    return [MatchGame(a, b) for a, b in scores]


def test_single_game() -> None:
    assert match_decided([], 1, "points", 1, 2) is None
    assert match_decided(games((5000, 3000)), 1, "points", 2, 1) == "a"
    assert match_decided(games((3000, 5000)), 1, "points", 1, 2) == "b"


def test_best_of_decided_early() -> None:
    assert match_decided(games((5000, 0)), 3, "points", 1, 2) is None
    assert match_decided(games((5000, 0), (5000, 0)), 3, "points", 2, 1) == "a"
    assert match_decided(games((0, 10), (0, 10)), 3, "higher_seed", 1, 2) == "b"
    # Two wins to none with one game left: the side behind cannot draw level.
    assert match_decided(games((10, 0), (10, 0), (5, 5)), 4, "points", 1, 2) == "a"
    # One win each: the third game decides.
    assert match_decided(games((10, 0), (0, 10)), 3, "points", 1, 2) is None


def test_tie_rule_points() -> None:
    level = games((5000, 4000), (3000, 3500))  # a +1000, b +500
    assert match_decided(level, 2, "points", 2, 1) == "a"
    assert match_decided(games((100, 200), (300, 100)), 2, "points", 1, 2) == "a"
    assert match_decided(games((100, 300), (200, 100)), 2, "points", 1, 2) == "b"
    # Level on wins and points: the better seed.
    equal = games((100, 200), (200, 100))
    assert match_decided(equal, 2, "points", 1, 2) == "a"
    assert match_decided(equal, 2, "points", 2, 1) == "b"
    # A drawn single game.
    assert match_decided(games((500, 500)), 1, "points", 3, 4) == "a"


def test_tie_rule_higher_seed() -> None:
    level = games((5000, 0), (0, 100))
    assert match_decided(level, 2, "higher_seed", 1, 2) == "a"
    assert match_decided(level, 2, "higher_seed", 8, 3) == "b"
    assert match_decided(games((5000, 0)), 2, "higher_seed", 1, 2) is None


def test_tie_rule_extra_game() -> None:
    level = games((5000, 0), (0, 100))
    assert match_decided(level, 2, "extra_game", 1, 2) is None
    assert match_decided([*level, MatchGame(300, 300)], 2, "extra_game", 1, 2) is None
    assert (
        match_decided([*level, MatchGame(300, 300), MatchGame(0, 50)], 2, "extra_game", 1, 2) == "b"
    )
    assert match_decided([*level, MatchGame(60, 50)], 2, "extra_game", 2, 1) == "a"


def test_unknown_tie_rule() -> None:
    with pytest.raises(ValueError):
        match_decided(games((1, 0)), 1, "coin", 1, 2)
    with pytest.raises(ValueError):
        match_decided([], 1, "coin", 1, 2)


@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=7),
    st.integers(1, 5),
    st.sampled_from(["points", "higher_seed", "extra_game"]),
)
def test_swapping_sides_swaps_the_winner(
    scores: list[tuple[int, int]], per_match: int, rule: str
) -> None:
    forward = match_decided(games(*scores), per_match, rule, 1, 2)
    backward = match_decided(games(*[(b, a) for a, b in scores]), per_match, rule, 2, 1)
    assert backward == {"a": "b", "b": "a", None: None}[forward]
    # Decided before all games are played only when the side behind cannot draw level.
    played = scores[:per_match]
    if forward is not None and len(played) < per_match:
        a_wins = sum(1 for a, b in played if a > b)
        b_wins = sum(1 for a, b in played if b > a)
        lead = a_wins - b_wins if forward == "a" else b_wins - a_wins
        assert lead > per_match - len(played)
