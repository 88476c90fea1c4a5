"""Swiss pairing (competition.pairing.swiss): every unit seated once, byes by the rules, no
forbidden pair ever, no rematch or repeated partner when one can be avoided (checked against
brute force for small fields), and whole simulated tournaments."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from competition.pairing.swiss import SwissUnit, swiss_pair, swiss_pair_fours


def all_matchings(items: list[int]) -> Iterator[list[tuple[int, int]]]:
    """Every matching (partial ones included) of ``items``."""
    if len(items) < 2:
        yield []
        return
    first, rest = items[0], items[1:]
    yield from all_matchings(rest)
    for k, other in enumerate(rest):
        for matching in all_matchings(rest[:k] + rest[k + 1 :]):
            yield [(first, other), *matching]


def perfect_matchings(items: list[int]) -> Iterator[list[tuple[int, int]]]:
    return (m for m in all_matchings(items) if 2 * len(m) == len(items))


def rank_order(units: Sequence[SwissUnit]) -> list[SwissUnit]:
    return sorted(units, key=lambda u: (-u.points, -u.rating, u.id))


def expected_byes(units: Sequence[SwissUnit], count: int) -> list[int]:
    """The lowest-ranked ``count`` units among those with the fewest byes."""
    order = rank_order(units)
    need = sorted(range(len(order)), key=lambda i: (order[i].byes, -i))
    return [order[i].id for i in need[:count]]


@st.composite
def fields(draw: st.DrawFn, min_size: int = 0, max_size: int = 8) -> list[SwissUnit]:
    """Units with symmetric histories (who met whom), few distinct points and ratings."""
    n = draw(st.integers(min_size, max_size))
    ids = draw(st.lists(st.integers(1, 10_000), min_size=n, max_size=n, unique=True))
    met: dict[int, set[int]] = {i: set() for i in ids}
    for _ in range(draw(st.integers(0, 2 * n))):
        a, b = draw(st.sampled_from(ids)), draw(st.sampled_from(ids))
        if a != b:
            met[a].add(b)
            met[b].add(a)
    return [
        SwissUnit(
            id=i,
            points=draw(st.integers(0, 6)) / 2,
            rating=draw(st.sampled_from([1400.0, 1500.0, 1600.0])),
            opponents=frozenset(met[i]),
            byes=draw(st.integers(0, 2)),
        )
        for i in ids
    ]


@st.composite
def forbidden_pairs(draw: st.DrawFn, units: list[SwissUnit]) -> set[frozenset[int]]:
    ids = [u.id for u in units]
    if len(ids) < 2:
        return set()
    pairs = draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids)), max_size=6))
    return {frozenset(p) for p in pairs if p[0] != p[1]}


def seated_once(units: Sequence[SwissUnit], tables: list[tuple[int, int]], byes: list[int]) -> None:
    seated = [u for t in tables for u in t] + byes
    assert sorted(seated) == sorted(u.id for u in units)


def squared_gaps(pairs: list[tuple[int, int]], points: dict[int, float]) -> int:
    return sum(round(abs(points[a] - points[b]) * 2) ** 2 for a, b in pairs)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_small_fields_match_brute_force(data: st.DataObject) -> None:
    units = data.draw(fields())
    forbidden = data.draw(forbidden_pairs(units))
    result = swiss_pair(units, forbidden)
    seated_once(units, result.tables, result.byes)
    by_id = {u.id: u for u in units}
    assert not {frozenset(t) for t in result.tables} & forbidden
    # The rule's bye first; then only units no allowed pairing could seat.
    rest = [u for u in units]
    if len(units) % 2:
        assert result.byes[0] == expected_byes(units, 1)[0]
        rest = [u for u in units if u.id != result.byes[0]]
    ids = [u.id for u in rest]
    allowed = [m for m in all_matchings(ids) if not any(frozenset(p) in forbidden for p in m)]
    most = max(len(m) for m in allowed)
    assert len(result.tables) == most
    best = [m for m in allowed if len(m) == most]

    def rematches(m: list[tuple[int, int]]) -> int:
        return sum(1 for a, b in m if b in by_id[a].opponents)

    fewest = min(rematches(m) for m in best)
    assert rematches(result.tables) == fewest
    if fewest == 0:
        clean = [m for m in best if rematches(m) == 0]
        points = {u.id: u.points for u in units}
        assert squared_gaps(result.tables, points) == min(squared_gaps(m, points) for m in clean)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_large_fields_seat_everyone_and_respect_forbidden(data: st.DataObject) -> None:
    units = data.draw(fields(min_size=49, max_size=160))
    forbidden = data.draw(forbidden_pairs(units))
    result = swiss_pair(units, forbidden)
    seated_once(units, result.tables, result.byes)
    assert not {frozenset(t) for t in result.tables} & forbidden
    if len(units) % 2:
        assert result.byes[0] == expected_byes(units, 1)[0]
    rank = {u.id: k for k, u in enumerate(rank_order(units))}
    for a, b in result.tables:
        assert rank[a] < rank[b]
    firsts = [rank[a] for a, _ in result.tables]
    assert firsts == sorted(firsts)


def test_tables_and_bye_in_order() -> None:
    units = [
        SwissUnit(1, 2.0, 1500.0),
        SwissUnit(2, 2.0, 1600.0),
        SwissUnit(3, 1.0, 1700.0),
        SwissUnit(4, 1.0, 1400.0),
        SwissUnit(5, 0.0, 1500.0, byes=1),
        SwissUnit(6, 0.0, 1450.0),
        SwissUnit(7, 0.0, 1300.0, byes=1),
    ]
    result = swiss_pair(units)
    # 7 is last but had a bye; 6 is the lowest-ranked of those without one.
    assert result.byes == [6]
    assert result.tables == [(2, 1), (3, 4), (5, 7)]


def test_rematch_avoided_by_floating() -> None:
    # 1 and 2 lead and met already: each meets the next best unit instead.
    units = [
        SwissUnit(1, 2.0, 1600.0, frozenset({2})),
        SwissUnit(2, 2.0, 1500.0, frozenset({1})),
        SwissUnit(3, 1.0, 1500.0),
        SwissUnit(4, 1.0, 1400.0),
    ]
    assert swiss_pair(units).tables == [(1, 3), (2, 4)]


def test_rematch_only_as_last_resort_and_forbidden_never() -> None:
    units = [SwissUnit(1, 1.0, 1500.0, frozenset({2})), SwissUnit(2, 1.0, 1400.0, frozenset({1}))]
    assert swiss_pair(units).tables == [(1, 2)]
    result = swiss_pair(units, forbidden={frozenset({1, 2})})
    assert result.tables == []
    assert sorted(result.byes) == [1, 2]


def test_bye_goes_to_someone_without_one_until_all_have_one() -> None:
    units = [SwissUnit(i, 0.0, 1500.0 - i, byes=1) for i in range(1, 6)]
    assert swiss_pair(units).byes == [5]
    units[1] = SwissUnit(2, 0.0, 1498.0, byes=0)
    assert swiss_pair(units).byes == [2]


def simulate(n: int, rounds: int, seed: int) -> tuple[int, int]:
    """A Swiss of ``n`` units with random results: the rematches and the byes given twice."""
    rng = random.Random(seed)
    rating = {i: rng.gauss(1500, 200) for i in range(n)}
    points = dict.fromkeys(range(n), 0.0)
    met: dict[int, set[int]] = {i: set() for i in range(n)}
    byes = dict.fromkeys(range(n), 0)
    rematches = 0
    for _ in range(rounds):
        units = [SwissUnit(i, points[i], rating[i], frozenset(met[i]), byes[i]) for i in range(n)]
        result = swiss_pair(units)
        seated_once(units, result.tables, result.byes)
        assert len(result.byes) == n % 2
        for a, b in result.tables:
            rematches += b in met[a]
            met[a].add(b)
            met[b].add(a)
            x = rng.random()
            won = 1.0 if x < 0.45 else 0.5 if x < 0.55 else 0.0
            points[a] += won
            points[b] += 1 - won
        for b in result.byes:
            points[b] += 1
            byes[b] += 1
    return rematches, sum(1 for b in byes.values() if b > 1)


def test_large_tournament_has_no_rematch_and_no_second_bye() -> None:
    assert simulate(2001, 7, seed=3) == (0, 0)


def test_small_tournament_has_no_rematch_and_no_second_bye() -> None:
    assert simulate(9, 7, seed=5) == (0, 0)


# ---------------------------------------------------------------------------- fours


def check_fours(
    units: Sequence[SwissUnit],
    tables: list[tuple[tuple[int, int], tuple[int, int]]],
    byes: list[int],
    forbidden: set[frozenset[int]],
) -> None:
    seated = [u for table in tables for side in table for u in side] + byes
    assert sorted(seated) == sorted(u.id for u in units)
    for (a, b), (c, d) in tables:
        assert len({a, b, c, d}) == 4
        for x, y in [(a, b), (a, c), (a, d), (b, c), (b, d), (c, d)]:
            assert frozenset((x, y)) not in forbidden


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_fours_small_fields(data: st.DataObject) -> None:
    units = data.draw(fields(max_size=11))
    ids = [u.id for u in units]
    partners: dict[int, set[int]] = {i: set() for i in ids}
    if len(ids) >= 2:
        for a, b in data.draw(st.lists(st.tuples(st.sampled_from(ids), st.sampled_from(ids)))):
            if a != b:
                partners[a].add(b)
                partners[b].add(a)
    previous = {i: frozenset(p) for i, p in partners.items()}
    tables, byes = swiss_pair_fours(units, previous)
    check_fours(units, tables, byes, set())
    assert sorted(byes) == sorted(expected_byes(units, len(units) % 4))
    # No repeated partner where a partnership of the players seated avoids them all.
    seated = [u for table in tables for side in table for u in side]
    repeated = sum(1 for table in tables for a, b in table if b in previous[a])
    if len(seated) <= 8 and repeated:
        assert not any(all(b not in previous[a] for a, b in m) for m in perfect_matchings(seated))


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_fours_forbidden_never_share_a_table(data: st.DataObject) -> None:
    units = data.draw(fields(min_size=4, max_size=120))
    forbidden = data.draw(forbidden_pairs(units))
    tables, byes = swiss_pair_fours(units, {}, forbidden)
    check_fours(units, tables, byes, forbidden)
    if not forbidden:
        assert len(byes) == len(units) % 4


def test_fours_scenario() -> None:
    units = [SwissUnit(i, 0.0, 2000.0 - i) for i in range(1, 10)]
    tables, byes = swiss_pair_fours(units, {})
    assert byes == [9]
    assert tables == [((1, 2), (3, 4)), ((5, 6), (7, 8))]
    # Partners rotate: 1 and 2 were partners, so were 3 and 4.
    previous = {1: frozenset({2}), 2: frozenset({1}), 3: frozenset({4}), 4: frozenset({3})}
    tables, _ = swiss_pair_fours(units[:8], previous)
    assert tables[0] == ((1, 3), (2, 4))


def test_fours_tournament_rotates_partners_and_avoids_opponents() -> None:
    rng = random.Random(7)
    n = 400
    rating = {i: rng.gauss(1500, 200) for i in range(n)}
    points = dict.fromkeys(range(n), 0.0)
    met: dict[int, set[int]] = {i: set() for i in range(n)}
    partners: dict[int, set[int]] = {i: set() for i in range(n)}
    repeated = 0
    for _ in range(6):
        units = [SwissUnit(i, points[i], rating[i], frozenset(met[i])) for i in range(n)]
        tables, byes = swiss_pair_fours(units, {i: frozenset(p) for i, p in partners.items()})
        check_fours(units, tables, byes, set())
        assert byes == []
        for (a, b), (c, d) in tables:
            repeated += (b in partners[a]) + (d in partners[c])
            partners[a].add(b)
            partners[b].add(a)
            partners[c].add(d)
            partners[d].add(c)
            for x in (a, b):
                met[x] |= {c, d}
            for x in (c, d):
                met[x] |= {a, b}
            won = rng.choice([1.0, 0.0])
            for x in (a, b):
                points[x] += won
            for x in (c, d):
                points[x] += 1 - won
    assert repeated == 0
