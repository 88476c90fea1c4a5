"""Swiss pairing: one-against-one (``swiss_pair``) and four-player tables with rotating
partners (``swiss_pair_fours``).

Pure: no Django. A pairing is a maximum-cardinality, maximum-weight matching (networkx, integer
weights) over "who may meet whom"; the weight of an edge is a big constant minus its cost
(score difference first, then rank distance; a rematch or a repeated partnership costs more
than every regular cost together), so among the matchings that seat the most units the
cheapest wins. For thousands of units the ranked list is walked (``match_ranked``):
neighbours that may meet are paired, a conflict is resolved in a small segment around it
(exactly), a unit left over floats down, and what is left at the end is matched once more
(networkx) with the last tables reopened and rematches allowed.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import networkx as nx  # type: ignore[import-untyped]

# A cost function: the cost of putting items i and j together (indices into the ranked list),
# or None when they may never be put together.
CostFn = Callable[[int, int], int | None]

SEGMENT = 6  # items matched together where neighbours may not meet
FLOAT_LIMIT = 3  # segments an unpaired item floats through before waiting for the end
SMALL = 48  # up to this many items: one matching over every allowed pair
TAIL_TABLES = 12  # tables reopened for the last pass
TAIL_WINDOW = 24  # candidates per item in a large last pass

SCORE_WEIGHT = 10**9  # per squared half point of score difference (beats any rank distance)
REPEAT_PENALTY = 10**18  # a rematch or repeated partnership (beats any regular cost sum)
RANK_CAP = 1000  # rank distances count up to this


def rank_cost(i: int, j: int) -> int:
    """The cost of a rank distance: squared, so that 1-3, 2-4 beats 1-4, 2-3."""
    return min(abs(j - i), RANK_CAP) ** 2


@dataclass(frozen=True, slots=True)
class SwissUnit:
    """An entry in a Swiss round: a player or a fixed pair."""

    id: int
    points: float  # match points so far (win 1, draw 0.5, loss 0, bye 1)
    rating: float  # orders units within a score group
    opponents: frozenset[int] = frozenset()  # unit ids met before
    byes: int = 0  # byes received so far


@dataclass(frozen=True, slots=True)
class SwissRound:
    """One round: tables (higher-ranked unit first, best tables first) and byes."""

    tables: list[tuple[int, int]]
    byes: list[int]


def ranked(units: Sequence[SwissUnit]) -> list[SwissUnit]:
    """Units in rank order: points, then rating (both descending), then id."""
    return sorted(units, key=lambda u: (-u.points, -u.rating, u.id))


def bye_takers(order: Sequence[SwissUnit], count: int) -> list[SwissUnit]:
    """The ``count`` lowest-ranked units among those with the fewest byes (``order`` ranked)."""
    by_need = sorted(range(len(order)), key=lambda i: (order[i].byes, -i))
    return [order[i] for i in by_need[:count]]


def solve(items: Sequence[int], cost: CostFn, window: int | None) -> list[tuple[int, int]]:
    """A max-cardinality, min-cost matching of ``items`` (ascending). With ``window``, each item
    is offered only its next ``window`` allowed items."""
    edges: list[tuple[int, int, int]] = []
    for k, i in enumerate(items):
        offered = 0
        for j in items[k + 1 :]:
            c = cost(i, j)
            if c is None:
                continue
            edges.append((i, j, c))
            offered += 1
            if window is not None and offered >= window:
                break
    if not edges:
        return []
    base = max(c for _, _, c in edges) + 1
    graph = nx.Graph()
    graph.add_weighted_edges_from((i, j, base - c) for i, j, c in edges)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    return [(min(i, j), max(i, j)) for i, j in matching]


def solve_exact(items: Sequence[int], cost: CostFn) -> list[tuple[int, int]]:
    """``solve`` by enumeration, for a handful of items (``SEGMENT``): the most pairs, then
    the least total cost."""
    costs: dict[tuple[int, int], int] = {}
    for k, i in enumerate(items):
        for j in items[k + 1 :]:
            c = cost(i, j)
            if c is not None:
                costs[i, j] = c

    known: dict[tuple[int, ...], tuple[int, int, list[tuple[int, int]]]] = {}

    def best(rest: tuple[int, ...]) -> tuple[int, int, list[tuple[int, int]]]:
        if len(rest) < 2:
            return 0, 0, []
        if rest in known:
            return known[rest]
        first, others = rest[0], rest[1:]
        found = best(others)  # ``first`` left unpaired
        for k, j in enumerate(others):
            c = costs.get((first, j))
            if c is None:
                continue
            pairs, total, chosen = best(others[:k] + others[k + 1 :])
            if (pairs + 1, -(total + c)) > (found[0], -found[1]):
                found = (pairs + 1, total + c, [(first, j), *chosen])
        known[rest] = found
        return found

    return best(tuple(items))[2]


def match_ranked(
    count: int, strict: CostFn, relaxed: CostFn
) -> tuple[list[tuple[int, int]], list[int]]:
    """Pair items ``0..count-1`` (rank order): the pairs (lower index first, in rank order of
    their first item) and the items left unpaired.

    ``strict`` is the cost with repeats disallowed, ``relaxed`` with repeats allowed at a
    penalty; both return None for a pair that may never meet. Costs grow with score and rank
    distance, so neighbours (0, 1), (2, 3)... are the cheapest pairing wherever they may meet.
    Up to ``SMALL`` items one matching with ``relaxed`` decides. Otherwise the ranked list is
    walked: neighbours that may meet are paired; where they may not, a segment of ``SEGMENT``
    items (the pair just made, reopened, the items floating down and the next ones) is matched
    exactly with ``strict``, its unpaired items floating into the next segment (after
    ``FLOAT_LIMIT`` segments they wait for the end). The remainder is matched (networkx) with
    ``relaxed`` together with the last ``TAIL_TABLES`` pairs reopened.
    """
    if count <= SMALL:
        whole = solve(list(range(count)), relaxed, None)
        paired = {i for pair in whole for i in pair}
        return sorted(whole), [i for i in range(count) if i not in paired]
    pairs: list[tuple[int, int]] = []
    floating: dict[int, int] = {}  # item -> segments it has floated through
    stuck: list[int] = []
    position = 0
    while position < count:
        if not floating and position + 1 < count and strict(position, position + 1) is not None:
            pairs.append((position, position + 1))
            position += 2
            continue
        segment: list[int] = []
        if pairs and pairs[-1] == (position - 2, position - 1):
            segment.extend(pairs.pop())
        segment.extend(floating)
        take = max(2, SEGMENT - len(segment))
        segment.extend(range(position, min(count, position + take)))
        position += take
        segment.sort()
        found = solve_exact(segment, strict)
        pairs.extend(sorted(found))
        paired = {i for pair in found for i in pair}
        ages = {i: floating.get(i, 0) + 1 for i in segment if i not in paired}
        stuck.extend(i for i, age in ages.items() if age > FLOAT_LIMIT)
        floating = {i: age for i, age in ages.items() if age <= FLOAT_LIMIT}
    rest = stuck + list(floating)
    if not rest:
        return sorted(pairs), []
    pairs.sort()
    reopened = pairs[-TAIL_TABLES:]
    del pairs[-TAIL_TABLES:]
    group = sorted(rest + [i for pair in reopened for i in pair])
    found = solve(group, relaxed, None if len(group) <= SMALL else TAIL_WINDOW)
    paired = {i for pair in found for i in pair}
    pairs.extend(found)
    pairs.sort()
    return pairs, [i for i in group if i not in paired]


def half_points(a: float, b: float) -> int:
    """The score difference in half points."""
    return round(abs(a - b) * 2)


def swiss_pair(
    units: Sequence[SwissUnit], forbidden: Collection[frozenset[int]] = ()
) -> SwissRound:
    """Pair one Swiss round.

    Units are ranked by points, rating (descending) and id. With an odd count the bye goes to
    the lowest-ranked unit among those with the fewest byes. Then: no rematch unless no other
    way (a rematch is a heavily penalised last resort), never a forbidden pair (a unit that
    cannot be paired otherwise gets a bye), score differences as small as possible, then
    rank distance. Every unit is on exactly one table or in ``byes``.
    """
    ids = [u.id for u in units]
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate unit id")
    order = ranked(units)
    byes: list[int] = []
    if len(order) % 2:
        (taker,) = bye_takers(order, 1)
        byes.append(taker.id)
        order = [u for u in order if u.id != taker.id]
    barred = {pair for pair in forbidden if len(pair) == 2}

    def relaxed(i: int, j: int) -> int | None:
        a, b = order[i], order[j]
        if frozenset((a.id, b.id)) in barred:
            return None
        cost = half_points(a.points, b.points) ** 2 * SCORE_WEIGHT + rank_cost(i, j)
        if b.id in a.opponents or a.id in b.opponents:
            cost += REPEAT_PENALTY
        return cost

    def strict(i: int, j: int) -> int | None:
        a, b = order[i], order[j]
        if b.id in a.opponents or a.id in b.opponents:
            return None
        return relaxed(i, j)

    pairs, unpaired = match_ranked(len(order), strict, relaxed)
    tables = [(order[i].id, order[j].id) for i, j in pairs]
    byes.extend(order[i].id for i in unpaired)
    return SwissRound(tables=tables, byes=byes)


Fours = tuple[tuple[int, int], tuple[int, int]]


def swiss_pair_fours(
    units: Sequence[SwissUnit],
    previous_partners: Mapping[int, frozenset[int]],
    forbidden: Collection[frozenset[int]] = (),
) -> tuple[list[Fours], list[int]]:
    """Pair one round of individual four-player Swiss (partners rotate each round).

    The ``len % 4`` lowest-ranked units among those with the fewest byes sit out. The others
    form partnerships (never a previous partner unless unavoidable, close in rank), and the
    partnerships are paired into tables by their points (the sum of both members'), avoiding
    tables where members already met as opponents (penalised per such meeting). A forbidden
    pair never shares a table; units that cannot be seated otherwise get byes. Returns the
    tables as ``((a, b), (c, d))``, the better partnership first, best tables first, and the
    byes.
    """
    ids = [u.id for u in units]
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate unit id")
    order = ranked(units)
    byes: list[int] = []
    takers = {u.id for u in bye_takers(order, len(order) % 4)}
    byes.extend(u.id for u in order if u.id in takers)
    order = [u for u in order if u.id not in takers]
    barred = {pair for pair in forbidden if len(pair) == 2}
    empty: frozenset[int] = frozenset()

    def partner_relaxed(i: int, j: int) -> int | None:
        a, b = order[i], order[j]
        if frozenset((a.id, b.id)) in barred:
            return None
        cost = half_points(a.points, b.points) ** 2 * SCORE_WEIGHT + rank_cost(i, j)
        if b.id in previous_partners.get(a.id, empty) or a.id in previous_partners.get(b.id, empty):
            cost += REPEAT_PENALTY
        return cost

    def partner_strict(i: int, j: int) -> int | None:
        cost = partner_relaxed(i, j)
        return None if cost is None or cost >= REPEAT_PENALTY else cost

    pairs, unpaired = match_ranked(len(order), partner_strict, partner_relaxed)
    byes.extend(order[i].id for i in unpaired)
    # Partnerships ranked by their points, then by their better member's rank.
    teams = sorted(pairs, key=lambda p: (-(order[p[0]].points + order[p[1]].points), p[0]))

    def met(p: tuple[int, int], q: tuple[int, int]) -> int:
        return sum(1 for x in p for y in q if order[y].id in order[x].opponents) + sum(
            1 for x in p for y in q if order[x].id in order[y].opponents
        )

    def table_relaxed(i: int, j: int) -> int | None:
        p, q = teams[i], teams[j]
        if any(frozenset((order[x].id, order[y].id)) in barred for x in p for y in q):
            return None
        p_points = order[p[0]].points + order[p[1]].points
        q_points = order[q[0]].points + order[q[1]].points
        cost = half_points(p_points, q_points) ** 2 * SCORE_WEIGHT + rank_cost(i, j)
        return cost + met(p, q) * REPEAT_PENALTY

    def table_strict(i: int, j: int) -> int | None:
        cost = table_relaxed(i, j)
        return None if cost is None or cost >= REPEAT_PENALTY else cost

    matches, alone = match_ranked(len(teams), table_strict, table_relaxed)
    tables: list[Fours] = [
        (
            (order[teams[i][0]].id, order[teams[i][1]].id),
            (order[teams[j][0]].id, order[teams[j][1]].id),
        )
        for i, j in matches
    ]
    byes.extend(order[x].id for t in alone for x in teams[t])
    return tables, byes
