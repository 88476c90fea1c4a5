"""The post-game review's cost: a whole game of medium bots reviewed for one seat.

Plays a game of the preset (``--preset``, classic by default: to its target score) with the
heuristic (the ``medium`` level) in every seat, through the engine alone (no database), as a move
log; then reviews one seat (``--seat``) with the reviewer the review task runs
(``bots.policies.review.review_log``, its default settings unless ``--worlds`` / ``--plies``
change them) and prints this process's CPU time: the total, per decision (p50, p95, max), the
number of decisions reviewed and their grades.

    python -m bench.review [--seed bench-1] [--preset classic] [--seat 0] [--worlds 40]
                           [--plies 60] [--games 1]

Figures only: nothing is asserted. The budget is 60 s of one worker's CPU for a classic game.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import Counter
from dataclasses import replace

from bots.policies import HeuristicPolicy, observe
from bots.policies.review import LogDecision, ReviewSettings, review_log
from games.engine import (
    GAME_STARTED,
    Event,
    LogEntry,
    Options,
    action_to_dict,
    apply,
    make_options,
    new_game,
)
from games.engine.view import event_view, player_view


def play(options: Options, seed: str) -> list[LogEntry]:
    """A whole game of heuristic players as a move log."""
    events: list[Event] = []
    st = new_game(options, seed, events)
    entries = [LogEntry(1, None, GAME_STARTED, {}, None, "system")]
    policies = [HeuristicPolicy(i) for i in range(options.players)]
    round_start = 0
    while st.phase != "game_over":
        for i in range(len(events) - 1, round_start - 1, -1):
            if events[i].kind == "round_started":
                round_start = i
                break
        seat = st.to_act
        seen = [event_view(e, seat) for e in events[round_start:]]
        action = policies[seat].choose(observe(player_view(st, seat), seen, st.options))
        apply(st, action, events)
        entries.append(
            LogEntry(len(entries) + 1, seat, action.type, action_to_dict(action), None, "bot")
        )
    return entries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", default="bench-1")
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--seat", type=int, default=0)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--worlds", type=int, default=None)
    parser.add_argument("--plies", type=int, default=None)
    args = parser.parse_args()
    settings = ReviewSettings()
    if args.worlds is not None:
        settings = replace(settings, worlds=args.worlds)
    if args.plies is not None:
        settings = replace(settings, max_plies=args.plies)
    options = make_options(args.preset, {})
    print(f"reviewer: {settings.engine}; preset {args.preset}, seat {args.seat}")
    for g in range(args.games):
        seed = f"{args.seed}-{g}" if args.games > 1 else args.seed
        entries = play(options, seed)
        times: list[float] = []
        grades: Counter[str] = Counter()
        decisions: list[LogDecision] = []
        start = last = time.process_time()
        for decision in review_log(
            options, seed, entries, args.seat, 99, f"bench:{seed}", settings
        ):
            now = time.process_time()
            times.append(now - last)
            last = now
            grades[decision.review.severity] += 1
            decisions.append(decision)
        total = time.process_time() - start
        rounds = max((d.round_no for d in decisions), default=0)
        ms = sorted(t * 1000 for t in times)
        p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))] if ms else 0.0
        print(
            f"game {seed}: {len(entries)} events, {rounds} rounds, {len(decisions)} decisions "
            f"reviewed; CPU {total:.1f} s total; per decision p50 "
            f"{statistics.median(ms) if ms else 0:.0f} ms, p95 {p95:.0f} ms, max "
            f"{ms[-1] if ms else 0:.0f} ms; loss {sum(d.review.loss for d in decisions):.0f} "
            f"pts; {dict(grades)}"
        )


if __name__ == "__main__":
    main()
