"""ISMCTS iterations per second, the search before the speed-up against the current one.

The search of an earlier commit (``--before``, by default the last one before the speed-up) is
loaded from git into a temporary package beside the current ``bots.policies`` (the observation,
the heuristic and the search; the engine is the current one for both). Both search the same
positions, alternately, one position at a time, with the same seed and a fixed number of
iterations (``--iterations``), so the machine's load falls on both alike. Positions are decisions
of heuristic players in hands of the presets (``--presets``), taken every few moves, with more
than one legal move. Also printed: whether both searches chose the same moves from the same
samples (the speed-up is meant to change the cost, never the play) and where the current search
spends its time (``--profile``: cProfile's top functions). Times are this process's CPU time.

    python -m bench.ismcts [--positions 24] [--iterations 30] [--presets classic,two_player]
                           [--before <commit>] [--profile]

Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import os
import pstats
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from bots.policies import HeuristicPolicy
from bots.policies import observation as current_observation
from games.engine import Event, apply, make_options, new_game
from games.engine.legal import legal_actions
from games.engine.state import GameState
from games.engine.view import event_view, player_view

ROOT = Path(__file__).resolve().parent.parent
# The last commit before the search was made faster (bots/policies as they were).
BEFORE = "d22450d"
MODULES = ("observation", "heuristic", "ismcts")


def load_before(commit: str, into: Path) -> ModuleType:
    """``bots.policies``' observation, heuristic and search modules of ``commit``, as the package
    ``ismcts_before`` (they import one another relatively, and the engine absolutely)."""
    package = into / "ismcts_before"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name in MODULES:
        text = subprocess.run(
            ["git", "show", f"{commit}:bots/policies/{name}.py"],
            cwd=ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        (package / f"{name}.py").write_text(text)
    sys.path.insert(0, str(into))
    return importlib.import_module("ismcts_before")


Position = tuple[GameState, list[Event]]


def positions(preset: str, count: int, every: int = 5) -> list[Position]:
    """Decisions of heuristic players (every ``every``-th move with a choice) in seeded hands."""
    options = make_options(preset)
    out: list[Position] = []
    hand = 0
    while len(out) < count:
        events: list[Event] = []
        st = new_game(options, f"bench-ismcts-{preset}-{hand}", events)
        players = [HeuristicPolicy(seat) for seat in range(options.players)]
        moves = 0
        while not st.game_over and st.round_no == 1 and len(out) < count:
            seat = st.to_act
            obs = _observe(current_observation, st, events)
            if len(legal_actions(st)) > 1:
                moves += 1
                if moves % every == 0:
                    out.append((st.clone(), list(events)))
            apply(st, players[seat].choose(obs), events)
        hand += 1
    return out


def _observe(observation: ModuleType, st: GameState, events: list[Event]) -> Any:
    """The seat to act's observation, built by ``observation`` (one package's module)."""
    seat = st.to_act
    start = max(i for i, e in enumerate(events) if e.kind == "round_started")
    seen = [event_view(e, seat) for e in events[start:]]
    return observation.observe(player_view(st, seat), seen, st.options)


def search(
    ismcts: ModuleType, observation: ModuleType, position: Position, iterations: int, seed: int
) -> tuple[float, int, Any, dict[Any, list[float]]]:
    """One decision: CPU seconds, iterations, the chosen move and every candidate's samples.

    CPU time of this process, not wall-clock time: the machine is shared, and a search that
    waits for a core is not slower for it."""
    st, events = position
    obs = _observe(observation, st, events)
    policy = ismcts.IsmctsPolicy(seed, iterations=iterations)
    samples: dict[Any, list[float]] = {}
    original = policy._advantage

    def spy(found: dict[Any, list[float]], *args: Any) -> tuple[float, float]:
        samples.update(found)
        result: tuple[float, float] = original(found, *args)
        return result

    policy._advantage = spy
    started = time.process_time()
    action = policy.choose(obs)
    elapsed = time.process_time() - started
    return elapsed, policy.last_iterations, action, samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=24, help="positions per preset")
    parser.add_argument("--iterations", type=int, default=30, help="iterations per decision")
    parser.add_argument("--presets", default="classic,two_player")
    parser.add_argument("--before", default=BEFORE, help="the commit searched as 'before'")
    parser.add_argument("--profile", action="store_true", help="cProfile the current search")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        before = load_before(args.before, Path(tmp))
        old_ismcts = importlib.import_module("ismcts_before.ismcts")
        old_observation = importlib.import_module("ismcts_before.observation")
        import bots.policies.ismcts as new_ismcts

        print(f"load average {os.getloadavg()[0]:.2f}; before = {args.before} ({before.__name__})")
        searched: list[Position] = []
        for preset in args.presets.split(","):
            found = positions(preset, args.positions)
            searched += found
            totals: dict[str, tuple[float, int]] = {"before": (0.0, 0), "after": (0.0, 0)}
            same_moves = same_samples = 0
            for k, position in enumerate(found):
                runs: dict[str, tuple[float, int, Any, dict[Any, list[float]]]] = {}
                order: list[tuple[str, ModuleType, ModuleType]] = [
                    ("before", old_ismcts, old_observation),
                    ("after", new_ismcts, current_observation),
                ]
                if k % 2:
                    order.reverse()  # neither side always runs first
                for label, ismcts, observation in order:
                    runs[label] = search(ismcts, observation, position, args.iterations, k)
                for label, (seconds, n, _, _) in runs.items():
                    totals[label] = (totals[label][0] + seconds, totals[label][1] + n)
                same_moves += runs["before"][2] == runs["after"][2]
                same_samples += runs["before"][3] == runs["after"][3]
            rate = {label: n / sec if sec else 0.0 for label, (sec, n) in totals.items()}
            print(
                f"{preset}: {len(found)} positions, {args.iterations} iterations each: "
                f"before {rate['before']:.1f} it/s ({totals['before'][0]:.2f} s), "
                f"after {rate['after']:.1f} it/s ({totals['after'][0]:.2f} s), "
                f"x{rate['after'] / rate['before'] if rate['before'] else 0:.2f}; "
                f"same move {same_moves}/{len(found)}, same samples {same_samples}/{len(found)}"
            )
        if args.profile:  # a pass of its own: the profiler's overhead stays out of the figures
            profiler = cProfile.Profile()
            profiler.enable()
            for k, position in enumerate(searched):
                search(new_ismcts, current_observation, position, args.iterations, k)
            profiler.disable()
            pstats.Stats(profiler).sort_stats("tottime").print_stats(args.top)


if __name__ == "__main__":
    main()
