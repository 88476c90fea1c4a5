"""Play policies against each other and measure: ``python -m bots.arena --a heuristic --b random``.

Four players: policy A holds one partnership, B the other. Two and three players: A holds one
seat, B the others. Seats are rotated from game to game, and every deal is played once from each
side (game 2k and 2k+1 share a seed, with A and B swapped) so luck of the cards cancels out.

A game is one round (the default, "hands") or whole games to the target score (``--full``). A
round or game is won by the side with the higher score; a tie counts half. Prints the win rate
of A with a 95% Wilson interval, the mean score difference (A - B, per round or game), and the
decision times (p50/p95) of each policy: wall-clock, and the CPU time of the deciding process
(on a shared machine a decision may wait for a core; its CPU time does not count the wait).
Progress goes to stderr.

Hands run on every core by default (a process pool, ``--processes``). Game ``i`` always gets the
same seeds (its deal and its policies' random generators derive from ``--seed`` and ``i`` only), so
a match gives the same results whatever the number of processes, provided no policy stops on a
clock: ``--iterations N`` gives the search a fixed number of iterations per decision instead of
its time budget, so results do not depend on the machine's speed (decision times still do).

The families beside classic (``--preset mac``, ``samba``, ``bolivia``...) are played by their own
bots (``bots.policies.family``: random, easy, medium, hard; ``heuristic`` and ``ismcts`` stand
for medium and hard); each is handed only what its seat knows (``seat_knowledge``) and
``--iterations`` sets the hard level's determinisations per decision.
``--preset`` takes several presets (``classic,two_player``): one report each. ``--log`` keeps
one JSON line per game; with ``--resume`` the games already in it are not played again (a long
match stopped half way goes on where it stopped) and the report covers the log's games.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from games.engine import Event, apply, make_options, new_game
from games.engine.actions import Action
from games.engine.options import PRESETS, Options
from games.engine.state import GameState
from games.engine.view import event_view, player_view

from .policies import Observation, Policy, make_policy, observe
from .policies.family import FAMILY_LEVELS
from .policies.family_eval import seat_knowledge
from .policies.family_levels import family_policy_choose

PolicyFactory = Callable[[int], Policy]


def observation_for(st: GameState, seat: int, events: Sequence[Event]) -> Observation:
    """What ``seat`` knows, built only through the engine's view functions: its player view and
    the current round's events as it saw them."""
    start = 0
    for i in range(len(events) - 1, -1, -1):
        if events[i].kind == "round_started":
            start = i
            break
    seen = [event_view(e, seat) for e in events[start:]]
    return observe(player_view(st, seat), seen, st.options)


# Policy names of the classic arena that stand for a level of the families' bots.
FAMILY_NAMES = {"heuristic": "medium", "ismcts": "hard"}


class FamilyBot:
    """A bot of the families beside classic (``bots.policies.family``), at one level. It is
    handed ``seat_knowledge(state, seat)`` only: a state whose hidden cards (the other hands,
    the stock) are a fixed deal of the cards the seat cannot see, so it never reads them."""

    def __init__(self, level: str, seed: int, iterations: int | None = None) -> None:
        level = FAMILY_NAMES.get(level, level)
        if level not in FAMILY_LEVELS:
            names = ", ".join(FAMILY_LEVELS)
            raise ValueError(f"unknown level '{level}' for the families; choose one of {names}")
        self.name = level
        self.rng = random.Random(seed)
        self.iterations = iterations

    def choose_for(self, known: GameState, seat: int) -> Action:
        return family_policy_choose(self.name, known, seat, self.rng, self.iterations)


def play_family_game(
    options: Options,
    seed: str,
    bots: Sequence[FamilyBot],
    full: bool = False,
    max_actions: int = 20000,
    cpu_times: dict[int, list[float]] | None = None,
) -> tuple[GameState, dict[int, list[float]], int]:
    """``play_game`` for a family beside classic: each bot is handed only what its seat knows
    (``seat_knowledge``), built outside the timed decision."""
    st = new_game(options, seed)
    times: dict[int, list[float]] = {s: [] for s in range(options.players)}
    cpu = cpu_times if cpu_times is not None else {}
    for s in range(options.players):
        cpu[s] = []
    n = 0
    while not st.game_over and (full or st.round_no == 1):
        seat = st.to_act
        known = seat_knowledge(st, seat)
        c0 = time.process_time()
        t0 = time.perf_counter()
        action = bots[seat].choose_for(known, seat)
        times[seat].append(time.perf_counter() - t0)
        cpu[seat].append(time.process_time() - c0)
        apply(st, action)  # raises IllegalAction on an illegal move
        n += 1
        if n > max_actions:
            raise RuntimeError(f"game {seed} did not finish in {max_actions} actions")
    return st, times, n


@dataclass
class GameResult:
    score_a: int
    score_b: int
    times: dict[str, list[float]] = field(default_factory=dict)
    actions: int = 0
    index: int = 0  # the game's number in the match (its seeds derive from it)
    cpu: dict[str, list[float]] = field(default_factory=dict)  # decision CPU times, as ``times``

    @property
    def outcome(self) -> float:
        if self.score_a > self.score_b:
            return 1.0
        if self.score_a < self.score_b:
            return 0.0
        return 0.5


def deal_group(options: Options) -> int:
    """How many consecutive games share one deal (one per way of seating A)."""
    return 3 if options.players == 3 else 2


def a_seats(options: Options, game_index: int) -> set[int]:
    """The seats policy A holds in game ``game_index``: every deal is played from each side."""
    k = game_index % deal_group(options)
    if options.players == 4:
        return {k, k + 2}
    return {k}


def play_game(
    options: Options,
    seed: str,
    policies: Sequence[Policy],
    full: bool = False,
    max_actions: int = 20000,
    cpu_times: dict[int, list[float]] | None = None,
) -> tuple[GameState, dict[int, list[float]], int]:
    """Play one round (or the whole game with ``full``); returns the final state, the decision
    times per seat and the number of actions (and fills ``cpu_times``, per seat, if given)."""
    events: list[Event] = []
    st = new_game(options, seed, events)
    times: dict[int, list[float]] = {s: [] for s in range(options.players)}
    cpu = cpu_times if cpu_times is not None else {}
    for s in range(options.players):
        cpu[s] = []
    n = 0
    while not st.game_over and (full or st.round_no == 1):
        seat = st.to_act
        obs = observation_for(st, seat, events)
        c0 = time.process_time()
        t0 = time.perf_counter()
        action = policies[seat].choose(obs)
        times[seat].append(time.perf_counter() - t0)
        cpu[seat].append(time.process_time() - c0)
        apply(st, action, events)  # raises IllegalAction on an illegal move
        n += 1
        if n > max_actions:
            raise RuntimeError(f"game {seed} did not finish in {max_actions} actions")
    return st, times, n


def _team_scores(st: GameState, full: bool) -> list[int]:
    if full:
        return list(st.scores)
    return [int(t["total"]) for t in st.rounds[0]["teams"]]


@dataclass(frozen=True)
class GameTask:
    """One game of a match; everything that decides it (seeds included) is in here."""

    preset: str
    name_a: str
    name_b: str
    index: int
    base_seed: int
    full: bool = False
    budget: float = 0.0  # ismcts seconds per decision (0: the level's default)
    iterations: int | None = None  # ismcts iterations per decision (None: stop on the clock)


def policy_seed(base_seed: int, index: int, seat: int) -> int:
    """The random seed of the policy at ``seat`` in game ``index`` (never hits another game's)."""
    return (base_seed * 1_000_003 + index) * 8 + seat


def run_one(task: GameTask) -> GameResult:
    options = make_options(task.preset)
    seats_a = a_seats(options, task.index)
    seed = f"arena-{task.base_seed}-{task.index // deal_group(options)}"
    cpu: dict[int, list[float]] = {}
    if options.family != "classic":
        bots = [
            FamilyBot(
                task.name_a if s in seats_a else task.name_b,
                policy_seed(task.base_seed, task.index, s),
                task.iterations,
            )
            for s in range(options.players)
        ]
        st, times, n = play_family_game(options, seed, bots, full=task.full, cpu_times=cpu)
        return _result(task, options, seats_a, st, times, cpu, n)
    policies: list[Policy] = []
    for s in range(options.players):
        name = task.name_a if s in seats_a else task.name_b
        policies.append(
            make_policy(
                name,
                seed=policy_seed(task.base_seed, task.index, s),
                budget=task.budget,
                iterations=task.iterations,
            )
        )
    st, times, n = play_game(options, seed, policies, full=task.full, cpu_times=cpu)
    return _result(task, options, seats_a, st, times, cpu, n)


def _result(
    task: GameTask,
    options: Options,
    seats_a: set[int],
    st: GameState,
    times: dict[int, list[float]],
    cpu: dict[int, list[float]],
    n: int,
) -> GameResult:
    scores = _team_scores(st, task.full)
    team_a = {s % options.teams for s in seats_a}
    score_a = max(scores[t] for t in team_a)
    score_b = max(scores[t] for t in range(options.teams) if t not in team_a)
    by_policy: dict[str, list[float]] = {"A": [], "B": []}
    cpu_by_policy: dict[str, list[float]] = {"A": [], "B": []}
    for s, ts in times.items():
        by_policy["A" if s in seats_a else "B"].extend(ts)
        cpu_by_policy["A" if s in seats_a else "B"].extend(cpu[s])
    return GameResult(score_a, score_b, by_policy, n, task.index, cpu_by_policy)


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1))
    return ordered[k]


def _progress(done: int, total: int, wins: float, started: float) -> None:
    width = 30
    filled = int(width * done / total) if total else width
    rate = wins / done if done else 0.0
    elapsed = time.monotonic() - started
    eta = elapsed / done * (total - done) if done else 0.0
    sys.stderr.write(
        f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} "
        f"A wins {rate:6.1%}  {elapsed:5.0f}s elapsed, ~{eta:4.0f}s left"
    )
    sys.stderr.flush()


def default_processes() -> int:
    return os.cpu_count() or 1


def run_arena(
    name_a: str,
    name_b: str,
    games: int,
    preset: str = "classic",
    full: bool = False,
    seed: int = 1,
    jobs: int = 1,
    budget: float = 0.0,
    progress: bool = True,
    log_path: str | None = None,
    iterations: int | None = None,
    resume: bool = False,
) -> dict[str, float | int | str]:
    """Play ``games`` games on ``jobs`` processes and summarise them (in game order, so the
    summary does not depend on which process finished first). With ``resume``, the games
    already in the log are not played again and the summary covers every game of the log."""
    resuming = resume and log_path is not None and os.path.exists(log_path)
    if resuming and log_path:
        log_tail_repair(log_path)
    done: list[GameResult] = load_log(log_path) if resuming and log_path else []
    played = {r.index for r in done}
    tasks = [
        GameTask(preset, name_a, name_b, i, seed, full, budget, iterations)
        for i in range(games)
        if i not in played
    ]
    games = len(tasks)
    results: list[GameResult] = []
    started = time.monotonic()
    wins = 0.0
    log = open(log_path, "a") if log_path else None  # noqa: SIM115 - closed below

    def record(res: GameResult) -> None:
        nonlocal wins
        results.append(res)
        wins += res.outcome
        if log is not None:
            line = {"game": res.index, "score_a": res.score_a, "score_b": res.score_b}
            log.write(json.dumps(dict(line, times=res.times, cpu=res.cpu)) + "\n")
            log.flush()
        if progress:
            _progress(len(results), games, wins, started)

    try:
        if jobs > 1 and games > 1:
            with ProcessPoolExecutor(min(jobs, games)) as pool:
                # Small chunks keep every process busy to the end; map yields in game order.
                for res in pool.map(run_one, tasks, chunksize=1):
                    record(res)
        else:
            for t in tasks:
                record(run_one(t))
    finally:
        if log is not None:
            log.close()
    if progress:
        sys.stderr.write("\n")
    return summarise(sorted(done + results, key=lambda r: r.index), name_a, name_b, preset, full)


def summarise(
    results: Sequence[GameResult], name_a: str, name_b: str, preset: str, full: bool
) -> dict[str, float | int | str]:
    wins = sum(r.outcome for r in results)
    n = len(results)
    low, high = wilson(wins, n)
    diffs = [r.score_a - r.score_b for r in results]
    times_a = [t for r in results for t in r.times["A"]]
    times_b = [t for r in results for t in r.times["B"]]
    cpu_a = [t for r in results for t in r.cpu.get("A", ())]
    cpu_b = [t for r in results for t in r.cpu.get("B", ())]
    return {
        "a": name_a,
        "b": name_b,
        "preset": preset,
        "unit": "games" if full else "hands",
        "n": n,
        "wins_a": wins,
        "win_rate_a": wins / n if n else 0.0,
        "ci_low": low,
        "ci_high": high,
        "mean_diff": statistics.fmean(diffs) if diffs else 0.0,
        "p50_a_ms": percentile(times_a, 0.5) * 1000,
        "p95_a_ms": percentile(times_a, 0.95) * 1000,
        "p50_b_ms": percentile(times_b, 0.5) * 1000,
        "p95_b_ms": percentile(times_b, 0.95) * 1000,
        "decisions_a": len(times_a),
        "decisions_b": len(times_b),
        "cpu_p50_a_ms": percentile(cpu_a, 0.5) * 1000,
        "cpu_p95_a_ms": percentile(cpu_a, 0.95) * 1000,
        "cpu_p50_b_ms": percentile(cpu_b, 0.5) * 1000,
        "cpu_p95_b_ms": percentile(cpu_b, 0.95) * 1000,
        "cpu_decisions_a": len(cpu_a),
        "cpu_decisions_b": len(cpu_b),
    }


def format_report(r: dict[str, float | int | str]) -> str:
    return (
        f"{r['a']} (A) vs {r['b']} (B), preset {r['preset']}, {r['n']} {r['unit']}\n"
        f"  A win rate: {float(r['win_rate_a']):.1%}  "
        f"(95% Wilson CI {float(r['ci_low']):.1%} .. {float(r['ci_high']):.1%}; ties count half)\n"
        f"  mean score difference A - B per {str(r['unit'])[:-1]}: {float(r['mean_diff']):+.1f}\n"
        f"  decision time A: p50 {float(r['p50_a_ms']):.2f} ms, p95 {float(r['p95_a_ms']):.2f} ms"
        f" ({r['decisions_a']} decisions); CPU p50 {float(r['cpu_p50_a_ms']):.2f} ms,"
        f" p95 {float(r['cpu_p95_a_ms']):.2f} ms ({r['cpu_decisions_a']} decisions)\n"
        f"  decision time B: p50 {float(r['p50_b_ms']):.2f} ms, p95 {float(r['p95_b_ms']):.2f} ms"
        f" ({r['decisions_b']} decisions); CPU p50 {float(r['cpu_p50_b_ms']):.2f} ms,"
        f" p95 {float(r['cpu_p95_b_ms']):.2f} ms ({r['cpu_decisions_b']} decisions)"
    )


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description="Play two bot policies against each other.")
    p.add_argument(
        "--a",
        default="heuristic",
        help="policy or level A (random, heuristic, ismcts, easy, medium, hard)",
    )
    p.add_argument("--b", default="random", help="policy or level B")
    p.add_argument("--games", type=int, default=100, help="rounds (or games with --full)")
    p.add_argument(
        "--preset",
        default="classic",
        type=_presets,
        help=f"preset, or several separated by commas ({', '.join(sorted(PRESETS))})",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--hands",
        type=int,
        nargs="?",
        const=0,
        default=None,
        metavar="N",
        help="each game is one round (the default); N: play N of them (as --games N)",
    )
    mode.add_argument(
        "--full", dest="full", action="store_true", help="play whole games to the target score"
    )
    p.set_defaults(full=False)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--processes",
        "--jobs",
        dest="jobs",
        type=int,
        default=default_processes(),
        help="worker processes (default: one per core); the results do not depend on it",
    )
    p.add_argument(
        "--budget",
        type=float,
        default=0.0,
        help="ismcts seconds per decision (0: the level's default)",
    )
    p.add_argument(
        "--iterations",
        type=int,
        default=None,
        help="ismcts iterations per decision instead of a time budget (reproducible results)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--log", default=None, help="append one JSON line per game to this file")
    p.add_argument(
        "--resume",
        action="store_true",
        help="with --log: play only the games not in the log; report on all the log's games",
    )
    p.add_argument(
        "--from-log", default=None, help="only summarise the games recorded in this --log file"
    )
    return p


def _presets(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in PRESETS]
    if not names or unknown:
        raise argparse.ArgumentTypeError(
            f"unknown preset {', '.join(unknown) or repr(text)}; choose from "
            + ", ".join(sorted(PRESETS))
        )
    return names


def load_log(path: str) -> list[GameResult]:
    """The games of a ``--log`` file. A run killed while writing leaves its last line cut
    short: that game is dropped here (``--resume`` plays it again) and the cut line is removed
    from the file when it is resumed (``log_tail_repair``)."""
    out = []
    with open(path) as f:
        for line in f:
            if not line.endswith("\n"):
                break  # a line cut short by a killed run
            if line.strip():
                d = json.loads(line)
                score_a, score_b, times = d["score_a"], d["score_b"], d["times"]
                cpu = d.get("cpu", {})  # logs written before CPU times were kept have none
                out.append(GameResult(score_a, score_b, times, 0, d.get("game", 0), cpu))
    return out


def log_tail_repair(path: str) -> None:
    """Cut a last line that a killed run left unfinished, so appended games start a line."""
    with open(path, "rb+") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)


def run_from_args(args: argparse.Namespace) -> list[str]:
    """The reports of the match (one per preset) the parsed arguments ask for."""
    games = args.hands if args.hands else args.games
    if args.resume and (not args.log or len(args.preset) > 1):
        raise SystemExit("--resume needs --log and one preset (one log per match)")
    if args.from_log:
        results = load_log(args.from_log)
        return [format_report(summarise(results, args.a, args.b, args.preset[0], args.full))]
    reports = []
    for preset in args.preset:
        report = run_arena(
            args.a,
            args.b,
            games,
            preset=preset,
            full=args.full,
            seed=args.seed,
            jobs=args.jobs,
            budget=args.budget,
            progress=not args.quiet,
            log_path=args.log,
            iterations=args.iterations,
            resume=args.resume,
        )
        reports.append(format_report(report))
    return reports


def main(argv: Sequence[str] | None = None) -> int:
    for report in run_from_args(build_parser().parse_args(argv)):
        print(report, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
