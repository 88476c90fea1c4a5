"""Arena (competition.pairing.arena): streak points and pairing of the waiting units."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from competition.pairing.arena import (
    ARENA_DRAW,
    ARENA_LOSS,
    ARENA_WIN,
    ArenaUnit,
    arena_pair,
    arena_points,
)

W, D, L = ARENA_WIN, ARENA_DRAW, ARENA_LOSS


def test_streak_points() -> None:
    assert arena_points([]) == []
    assert arena_points([W, W, W, D, W, W, W, W, L, W]) == [2, 2, 4, 2, 2, 2, 4, 4, 0, 2]
    assert arena_points([D, D, D]) == [1, 1, 1]
    assert arena_points([W, W, D, W]) == [2, 2, 2, 2]
    assert arena_points([W, W, L, W, W]) == [2, 2, 0, 2, 2]
    with pytest.raises(ValueError):
        arena_points(["berserk"])


@given(st.lists(st.sampled_from([W, D, L]), max_size=30))
def test_streak_points_properties(results: list[str]) -> None:
    points = arena_points(results)
    assert len(points) == len(results)
    base = {W: 2, D: 1, L: 0}
    for k, (result, p) in enumerate(zip(results, points, strict=True)):
        on_fire = k >= 2 and results[k - 2 : k] == [W, W]
        assert p == base[result] * (2 if on_fire else 1)


def matchings(items: list[int]) -> Iterator[list[tuple[int, int]]]:
    if len(items) < 2:
        yield []
        return
    first, rest = items[0], items[1:]
    yield from matchings(rest)
    for k, other in enumerate(rest):
        for m in matchings(rest[:k] + rest[k + 1 :]):
            yield [(first, other), *m]


@st.composite
def waiting_rooms(draw: st.DrawFn, max_size: int) -> tuple[list[ArenaUnit], set[frozenset[int]]]:
    ids = draw(st.lists(st.integers(1, 500), max_size=max_size, unique=True))
    units = [
        ArenaUnit(
            id=i,
            points=draw(st.integers(0, 12)),
            rating=draw(st.floats(1000, 2200)),
            last_opponent=draw(st.one_of(st.none(), st.sampled_from(ids))),
        )
        for i in ids
    ]
    forbidden: set[frozenset[int]] = set()
    if len(ids) >= 2:
        for a, b in draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids)))):
            if a != b:
                forbidden.add(frozenset((a, b)))
    return units, forbidden


def allowed(a: ArenaUnit, b: ArenaUnit, forbidden: set[frozenset[int]]) -> bool:
    return (
        a.last_opponent != b.id
        and b.last_opponent != a.id
        and frozenset((a.id, b.id)) not in forbidden
    )


@settings(max_examples=200, deadline=None)
@given(waiting_rooms(max_size=8))
def test_pairs_as_many_as_possible_and_never_a_barred_pair(
    room: tuple[list[ArenaUnit], set[frozenset[int]]],
) -> None:
    units, forbidden = room
    by_id = {u.id: u for u in units}
    pairs = arena_pair(units, forbidden)
    seated = [u for p in pairs for u in p]
    assert len(seated) == len(set(seated))
    assert all(allowed(by_id[a], by_id[b], forbidden) for a, b in pairs)
    most = max(
        len(m)
        for m in matchings([u.id for u in units])
        if all(allowed(by_id[a], by_id[b], forbidden) for a, b in m)
    )
    assert len(pairs) == most


@settings(max_examples=40, deadline=None)
@given(waiting_rooms(max_size=200))
def test_large_rooms(room: tuple[list[ArenaUnit], set[frozenset[int]]]) -> None:
    units, forbidden = room
    by_id = {u.id: u for u in units}
    pairs = arena_pair(units, forbidden)
    seated = [u for p in pairs for u in p]
    assert len(seated) == len(set(seated))
    assert all(allowed(by_id[a], by_id[b], forbidden) for a, b in pairs)


def test_pairs_by_points_then_rating() -> None:
    units = [
        ArenaUnit(1, 20, 1500.0),
        ArenaUnit(2, 2, 1500.0),
        ArenaUnit(3, 19, 1900.0),
        ArenaUnit(4, 0, 1400.0),
        ArenaUnit(5, 2, 1600.0, last_opponent=3),
    ]
    assert arena_pair(units) == [(1, 3), (5, 2)]


def test_last_opponent_and_forbidden_pairs_are_avoided() -> None:
    units = [
        ArenaUnit(1, 10, 1600.0),
        ArenaUnit(2, 10, 1550.0, last_opponent=1),
        ArenaUnit(3, 9, 1500.0),
        ArenaUnit(4, 9, 1300.0),
    ]
    # Rating gaps squared: 100² + 250² beats 300² + 50².
    assert arena_pair(units) == [(1, 3), (2, 4)]
    assert arena_pair(units, forbidden={frozenset({1, 3})}) == [(1, 4), (2, 3)]
    # Nobody left for 1: it waits.
    barred = {frozenset({1, 3}), frozenset({1, 4})}
    assert arena_pair(units, forbidden=barred) == [(3, 4)]
    # Three waiting: the closest allowed pair plays, 1 waits.
    assert arena_pair(units[:3]) == [(2, 3)]
