"""Engine benchmark: ``python -m bench.engine [--hands N] [--seed S] [--cpu]``.

Random legal play on one core (each step: list the legal actions, pick one uniformly, apply it).
Prints, per preset (every family), full hands (rounds) per second, actions per second, mean
actions per hand, actions per second as a ratio of classic's in the same run, and the median and
95th percentile of one ``legal_actions`` call; then, over the states met in classic play,
microseconds per ``legal_actions`` call, per ``apply`` and per ``clone``; and the milliseconds
to replay a 300-action log and a whole hand.
Figures are wall-clock (``time.perf_counter``) unless ``--cpu`` asks for this process's CPU
time (``time.process_time``), which other busy processes on a shared machine disturb less;
micro-timings are the best of five passes.
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from collections.abc import Callable

from games.engine import (
    PRESETS,
    Action,
    GameState,
    Options,
    apply,
    legal_actions,
    make_options,
    new_game,
    replay,
)

clock: Callable[[], float] = time.perf_counter


def play_hand(options: Options, seed: str, rng: random.Random) -> list[Action]:
    """Play the first round of a new game with uniformly random legal actions; return the log."""
    st = new_game(options, seed)
    log: list[Action] = []
    while st.round_no == 1 and not st.game_over:
        action = rng.choice(legal_actions(st))
        apply(st, action)
        log.append(action)
    return log


def play_actions(options: Options, seed: str, rng: random.Random, count: int) -> list[Action]:
    """A random legal action log of ``count`` actions (over as many rounds as it takes)."""
    st = new_game(options, seed)
    log: list[Action] = []
    while len(log) < count and not st.game_over:
        action = rng.choice(legal_actions(st))
        apply(st, action)
        log.append(action)
    return log


def legal_percentiles(options: Options, seed: int, hands: int) -> tuple[float, float]:
    """Median and 95th percentile of one ``legal_actions`` call (µs) over random-play hands."""
    rng = random.Random(seed)
    calls: list[float] = []
    for i in range(hands):
        st = new_game(options, f"legal-{seed}-{i}")
        while st.round_no == 1 and not st.game_over:
            start = clock()
            listed = legal_actions(st)
            calls.append(clock() - start)
            apply(st, rng.choice(listed))
    calls.sort()
    return calls[len(calls) // 2] * 1e6, calls[min(len(calls) - 1, len(calls) * 95 // 100)] * 1e6


def _best(passes: int, run: Callable[[], float]) -> float:
    return min(run() for _ in range(passes))


def bench(hands: int, seed: int) -> None:
    print(
        f"Canasta engine benchmark: Python {platform.python_version()} "
        f"({platform.python_implementation()}), one core, uniformly random legal play, "
        f"{'process CPU time' if clock is time.process_time else 'wall-clock time'}"
    )
    print(
        f"{'preset':<16}{'hands/s':>9}{'actions/s':>11}{'actions/hand':>14}"
        f"{'vs classic':>12}{'legal p50 µs':>14}{'legal p95 µs':>14}"
    )
    rates: dict[str, float] = {}
    for name in PRESETS:
        options = make_options(name)
        rng = random.Random(seed)
        actions = 0
        start = clock()
        for i in range(hands):
            actions += len(play_hand(options, f"bench-{seed}-{i}", rng))
        elapsed = clock() - start
        rates[name] = actions / elapsed
        p50, p95 = legal_percentiles(options, seed, max(10, hands // 10))
        print(
            f"{name:<16}{hands / elapsed:>9.0f}{actions / elapsed:>11.0f}"
            f"{actions / hands:>14.1f}{rates[name] / rates['classic']:>11.2f}x"
            f"{p50:>14.1f}{p95:>14.1f}"
        )

    # States met in classic random play, with the action chosen in each.
    options = make_options("classic")
    rng = random.Random(seed)
    states: list[GameState] = []
    chosen: list[Action] = []
    hand_logs: list[list[Action]] = []
    for i in range(max(20, hands // 10)):
        st = new_game(options, f"sample-{seed}-{i}")
        log: list[Action] = []
        while st.round_no == 1 and not st.game_over:
            action = rng.choice(legal_actions(st))
            states.append(st.clone())
            chosen.append(action)
            apply(st, action)
            log.append(action)
        hand_logs.append(log)
    n = len(states)

    def time_legal() -> float:
        start = clock()
        for state in states:
            legal_actions(state)
        return (clock() - start) / n

    def time_clone() -> float:
        start = clock()
        for state in states:
            state.clone()
        return (clock() - start) / n

    def time_apply() -> float:
        copies = [state.clone() for state in states]
        start = clock()
        for state, action in zip(copies, chosen, strict=True):
            apply(state, action)
        return (clock() - start) / n

    by_phase: dict[str, list[GameState]] = {}
    for state in states:
        by_phase.setdefault(state.phase, []).append(state)
    print(f"\nover {n} states of classic random play (best of 5 passes):")
    print(f"  legal_actions  {_best(5, time_legal) * 1e6:8.1f} µs per call (average)")
    for phase, group in sorted(by_phase.items()):
        if len(group) >= 20:

            def time_phase(group: list[GameState] = group) -> float:
                start = clock()
                for state in group:
                    legal_actions(state)
                return (clock() - start) / len(group)

            print(f"    {phase:<12} {_best(5, time_phase) * 1e6:8.1f} µs ({len(group)} states)")
    print(f"  apply          {_best(5, time_apply) * 1e6:8.1f} µs per action (average)")
    print(f"  clone          {_best(5, time_clone) * 1e6:8.1f} µs per state")

    log300 = play_actions(options, f"replay-{seed}", random.Random(seed), 300)

    def time_replay300() -> float:
        start = clock()
        replay(options, f"replay-{seed}", log300)
        return clock() - start

    def time_replay_hands() -> float:
        start = clock()
        for i, log in enumerate(hand_logs):
            replay(options, f"sample-{seed}-{i}", log)
        return (clock() - start) / len(hand_logs)

    mean_hand = sum(len(log) for log in hand_logs) / len(hand_logs)
    print(
        f"  replay         {_best(5, time_replay300) * 1e3:8.2f} ms for a {len(log300)}-action log"
    )
    print(
        f"  replay         {_best(5, time_replay_hands) * 1e3:8.2f} ms per whole hand "
        f"(mean {mean_hand:.0f} actions)"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.engine", description=__doc__)
    parser.add_argument("--hands", type=int, default=300, help="hands per preset (default 300)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument(
        "--cpu", action="store_true", help="time with process CPU time instead of wall-clock"
    )
    args = parser.parse_args(argv)
    global clock
    clock = time.process_time if args.cpu else time.perf_counter
    bench(args.hands, args.seed)


if __name__ == "__main__":
    main()
