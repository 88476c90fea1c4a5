"""Scale-out: one web server and one Celery worker, then two of each, against one PostgreSQL
and one Redis, with the load spread over the web servers.

Each web server is its own gunicorn master on its own port (gthread, 2 processes x 4 threads):
separate hosts behind a load balancer, as far as one machine allows. The two seats of a game
are served by different web servers, and every fourth client plays against a bot, so bot turns
go through the workers. After each configuration, ``bench.check`` verifies the guarantees in the
database: no missing or doubled seq in any game, and every game's log replays to its snapshot.

    python -m bench.scaleout [--clients 16] [--seconds 20]

On this 2-core machine the servers, the workers, PostgreSQL and the clients share the same
cores: the figure to read is whether the guarantees hold and how throughput moves, not an
absolute speed-up. Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

from bench.driver import run_tables
from bench.harness import ROOT, stack, summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument(
        "--asgi",
        action="store_true",
        help="serve the ASGI app with uvicorn workers (as docker-compose does), not WSGI gthread",
    )
    args = parser.parse_args()

    rates = {}
    for n in (1, 2):
        with stack(web=n, workers=n, asgi=args.asgi) as s:
            stats, wall = run_tables(s.urls, args.clients, args.seconds, bot_every=4)
            rate = len(stats.moves) / wall
            rates[n] = rate
            errors = sum(v for k, v in stats.statuses.items() if k >= 500)
            load = os.getloadavg()[0]
            print(
                f"{n} web server(s) + {n} worker(s): {rate:7.1f} moves/s  "
                f"{summary(stats.moves)}  5xx: {errors}  load {load:.1f}"
            )
            subprocess.run([sys.executable, "-m", "bench.check"], cwd=ROOT, env=s.env, check=False)
    print(f"throughput two / one: {rates[2] / rates[1]:.2f}x")


if __name__ == "__main__":
    main()
