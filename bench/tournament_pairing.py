"""Tournament pairing at scale: a Swiss of 10,000 units, four-player Swiss, and standings.

Pure Python (``competition.pairing``): no database, no Django. Three parts:

1. A one-against-one Swiss of ``--players`` units over ``--rounds`` rounds: each round is
   paired with ``swiss_pair`` (its CPU seconds, ``time.process_time``, are the figure), then
   played at random (the better-rated side wins with the Elo chance, a tenth of the games
   drawn, a Canasta score difference to match). Printed per round: CPU seconds, tables, byes,
   rematches and tables across score groups; then the slowest round.
2. The same for individual four-player Swiss (``swiss_pair_fours``, partners rotating):
   per round CPU seconds, repeated partnerships, tables where two members met as opponents.
3. Standings (``Standings``): the Swiss's results are recorded as they come. After the rounds,
   ``--records`` more results (a further round) are timed one ``record`` call each (the mean),
   with the rows each one changed, against a full rebuild of the standings from every result.

    python -m bench.tournament_pairing [--players 10000] [--rounds 5] [--records 1000] [--seed 1]

Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from dataclasses import dataclass, field

from competition.pairing.standings import Standings
from competition.pairing.swiss import SwissUnit, swiss_pair, swiss_pair_fours

DRAW_SHARE = 0.1

# One recorded result: unit, opponents, match points, score, Canasta score difference.
Result = tuple[int, list[int], float, float, int]


@dataclass
class Field:
    """The units of a simulated tournament and what they did."""

    rating: dict[int, float]
    points: dict[int, float] = field(default_factory=dict)
    met: dict[int, set[int]] = field(default_factory=dict)
    partners: dict[int, set[int]] = field(default_factory=dict)
    byes: dict[int, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for unit in self.rating:
            self.points[unit] = 0.0
            self.met[unit] = set()
            self.partners[unit] = set()
            self.byes[unit] = 0

    def units(self) -> list[SwissUnit]:
        return [
            SwissUnit(u, self.points[u], r, frozenset(self.met[u]), self.byes[u])
            for u, r in self.rating.items()
        ]


def game(rng: random.Random, a_rating: float, b_rating: float) -> tuple[float, int]:
    """Side a's match points (1, 0.5, 0) and Canasta score difference in one random game."""
    if rng.random() < DRAW_SHARE:
        return 0.5, 0
    a_expected = 1 / (1 + 10 ** ((b_rating - a_rating) / 400))
    margin = 5 * round(abs(rng.gauss(0, 120)) + 1)
    return (1.0, margin) if rng.random() < a_expected else (0.0, -margin)


def play_round(
    rng: random.Random, f: Field, tables: list[tuple[int, int]], byes: list[int]
) -> list[Result]:
    """Play one Swiss round at random; the results to record (two per table)."""
    results: list[Result] = []
    for a, b in tables:
        won, diff = game(rng, f.rating[a], f.rating[b])
        f.points[a] += won
        f.points[b] += 1 - won
        f.met[a].add(b)
        f.met[b].add(a)
        results.append((a, [b], won, won, diff))
        results.append((b, [a], 1 - won, 1 - won, -diff))
    for unit in byes:
        f.points[unit] += 1
        f.byes[unit] += 1
    return results


def swiss(args: argparse.Namespace, rng: random.Random) -> None:
    f = Field({u: rng.gauss(1500, 200) for u in range(args.players)})
    standings = Standings()
    for unit, rating in f.rating.items():
        standings.add_unit(unit, rating)
    log: list[Result] = []
    byes_log: list[int] = []
    print(f"Swiss, {args.players} units, one against one (swiss_pair):")
    print(f"  {'round':>5} {'cpu s':>7} {'tables':>6} {'byes':>4} {'rematches':>9} {'floats':>6}")
    seconds: list[float] = []
    for number in range(1, args.rounds + 1):
        units = f.units()
        start = time.process_time()
        result = swiss_pair(units)
        seconds.append(time.process_time() - start)
        rematches = sum(1 for a, b in result.tables if b in f.met[a])
        floats = sum(1 for a, b in result.tables if f.points[a] != f.points[b])
        print(
            f"  {number:>5} {seconds[-1]:>7.3f} {len(result.tables):>6} {len(result.byes):>4} "
            f"{rematches:>9} {floats:>6}"
        )
        for entry in play_round(rng, f, result.tables, result.byes):
            standings.record(*entry)
            log.append(entry)
        for unit in result.byes:
            standings.bye(unit, 1.0)
            byes_log.append(unit)
    print(f"  slowest pairing: {max(seconds):.3f} s CPU (mean {statistics.mean(seconds):.3f} s)")

    # Standings: one more round's results, recorded one by one, against a rebuild.
    extra = play_round(rng, f, swiss_pair(f.units()).tables, [])[: args.records]
    changed: list[int] = []
    start = time.process_time()
    for entry in extra:
        changed.append(len(standings.record(*entry)))
    per_record = (time.process_time() - start) / len(extra)
    log.extend(extra)
    start = time.process_time()
    rebuilt = Standings()
    for unit, rating in f.rating.items():
        rebuilt.add_unit(unit, rating)
    for entry in log:
        rebuilt.record(*entry)
    for unit in byes_log:
        rebuilt.bye(unit, 1.0)
    rebuild = time.process_time() - start
    start = time.process_time()
    for unit in range(min(1000, args.players)):
        standings.row(unit)
    per_row = (time.process_time() - start) / min(1000, args.players)
    assert rebuilt.rows() == standings.rows()
    print(f"\nStandings, {args.players} units, {len(log)} results recorded:")
    print(f"  one record call (mean over {len(extra)}): {per_record * 1e6:.1f} µs CPU")
    print(f"  rows changed per result: mean {statistics.mean(changed):.2f}, max {max(changed)}")
    print(f"  full rebuild from every result: {rebuild:.3f} s CPU")
    print(f"  one row with its rank (mean over 1000): {per_row * 1e6:.1f} µs CPU")


def fours(args: argparse.Namespace, rng: random.Random) -> None:
    f = Field({u: rng.gauss(1500, 200) for u in range(args.players)})
    print(f"\nSwiss, {args.players} players at four-player tables (swiss_pair_fours):")
    print(f"  {'round':>5} {'cpu s':>7} {'tables':>6} {'byes':>4} {'again':>5} {'met':>4}")
    seconds: list[float] = []
    for number in range(1, args.rounds + 1):
        units = f.units()
        previous = {u: frozenset(p) for u, p in f.partners.items()}
        start = time.process_time()
        tables, byes = swiss_pair_fours(units, previous)
        seconds.append(time.process_time() - start)
        again = sum((b in f.partners[a]) + (d in f.partners[c]) for (a, b), (c, d) in tables)
        met = sum(1 for (a, b), (c, d) in tables if {c, d} & f.met[a] or {c, d} & f.met[b])
        print(
            f"  {number:>5} {seconds[-1]:>7.3f} {len(tables):>6} {len(byes):>4} {again:>5} {met:>4}"
        )
        for (a, b), (c, d) in tables:
            won, _ = game(rng, (f.rating[a] + f.rating[b]) / 2, (f.rating[c] + f.rating[d]) / 2)
            for x, y, mine, theirs in ((a, b, (a, b), (c, d)), (c, d, (c, d), (a, b))):
                f.partners[x].add(y)
                f.partners[y].add(x)
                for unit in mine:
                    f.met[unit].update(theirs)
                    f.points[unit] += won if mine == (a, b) else 1 - won
        for unit in byes:
            f.points[unit] += 1
            f.byes[unit] += 1
    print(f"  slowest pairing: {max(seconds):.3f} s CPU (mean {statistics.mean(seconds):.3f} s)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--records", type=int, default=1000, help="record calls timed")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    swiss(args, random.Random(args.seed))
    fours(args, random.Random(args.seed + 1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
