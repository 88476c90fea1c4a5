"""Load: moves per second and latency through a real server, side by side with a baseline.

One gunicorn server (WSGI, gthread, 2 processes x 4 threads; or with ``--asgi`` the ASGI app on
2 uvicorn workers, as docker-compose serves it), PostgreSQL, a Celery worker on Redis.
``--clients`` threads each play two-player games through the API (both seats, moves chosen from
the listed legal actions); then the same number of threads post to the baseline endpoint (one
authenticated read and one insert, canasta_service/baseline.py). Phases alternate (moves,
baseline, moves, baseline) so that both see the same machine; figures are over both rounds.

    python -m bench.load [--clients 16] [--seconds 15] [--rounds 2] [--asgi]

Prints moves/s and p50/p95/p99 of the action requests, the baseline's requests/s and
percentiles, and the ratio. Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import os

from bench.driver import Stats, run_baseline, run_tables
from bench.harness import stack, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=15.0, help="per phase")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--asgi",
        action="store_true",
        help="serve the ASGI app with uvicorn workers (as docker-compose does), not WSGI gthread",
    )
    args = parser.parse_args()

    server = "ASGI, 2 uvicorn workers" if args.asgi else "WSGI, gthread 2 x 4"
    print(
        f"machine: {os.cpu_count()} CPUs; {args.clients} clients; {args.rounds} x "
        f"{args.seconds:.0f} s per phase; 1 gunicorn ({server}), 1 Celery worker; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    moves, baseline = Stats(), Stats()
    move_wall = base_wall = 0.0
    with stack(web=1, workers=1, asgi=args.asgi) as s:
        for r in range(args.rounds):
            played, wall = run_tables(s.urls, args.clients, args.seconds, offset=r * 1000)
            moves.merge(played)
            move_wall += wall
            based, wall = run_baseline(s.urls, args.clients, args.seconds, offset=r * 1000)
            baseline.merge(based)
            base_wall += wall
            print(
                f"  round {r + 1}: {len(played.moves) / move_wall * (r + 1):.0f} moves/s so "
                f"far, baseline {len(based.baseline) / wall:.0f} req/s"
            )
    move_rate = len(moves.moves) / move_wall
    base_rate = len(baseline.baseline) / base_wall
    errors = {k: v for k, v in (moves.statuses + baseline.statuses).items() if k >= 500}
    print()
    print(f"moves     {move_rate:8.1f} moves/s   {summary(moves.moves)}")
    print(f"  (reads between turns: {summary(moves.reads)}; {moves.games_finished} games finished)")
    print(f"baseline  {base_rate:8.1f} req/s     {summary(baseline.baseline)}")
    print(f"ratio     moves/s / baseline req/s = {move_rate / base_rate:.2f}")
    print(f"5xx responses: {sum(errors.values())}  statuses: {dict(moves.statuses)}")


if __name__ == "__main__":
    main()
