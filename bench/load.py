"""Load: moves per second and latency through a real server, side by side with a baseline.

PostgreSQL, a Celery worker on Redis, and one server, served one of these ways (``--serving``):

- ``wsgi``: gunicorn gthread, 2 processes x 4 threads, on the WSGI app;
- ``asgi``: the ASGI app on 2 uvicorn workers (every request, REST ones included);
- ``production``: as docker-compose serves it: nginx (deploy/nginx.conf) in front of the WSGI
  server above (the REST API) and an ASGI server of 2 uvicorn workers (the live endpoints);
- ``side-by-side`` (the default): the production serving, measured through nginx and, in the
  same run, on its WSGI server directly (``--compare`` adds ``asgi``: the live server directly,
  which is how everything was served before nginx split the two).

``--clients`` threads each play two-player games through the API (both seats, moves chosen from
the listed legal actions); then the same number of threads post to the baseline endpoint (one
authenticated read and one insert, canasta_service/baseline.py). Phases alternate (moves,
baseline, for each serving in turn; then again in the reverse order) so that all see the same
machine; figures are over all rounds.

    python -m bench.load [--serving side-by-side] [--clients 16] [--seconds 15] [--rounds 2]

Prints moves/s and p50/p95/p99 of the action requests, the baseline's requests/s and
percentiles, and the ratio; side by side, also production moves/s / WSGI moves/s. Figures only:
nothing is asserted.
"""

from __future__ import annotations

import argparse
import os

from bench.driver import Stats, run_baseline, run_tables
from bench.harness import Server, stack, summary

DESCRIBE = {
    "wsgi": "WSGI, gthread 2 x 4",
    "asgi": "ASGI, 2 uvicorn workers",
    "production": "nginx -> WSGI gthread 2 x 4 (API) + ASGI 2 uvicorn workers (live)",
}


def _url(server: Server, serving: str, stack_serving: str) -> str:
    if stack_serving != "production":
        return server.url
    return {"production": server.url, "wsgi": server.api_url, "asgi": server.live_url}[serving]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=15.0, help="per phase")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument(
        "--serving", choices=["wsgi", "asgi", "production", "side-by-side"], default="side-by-side"
    )
    parser.add_argument(
        "--compare",
        default="wsgi,production",
        help="side-by-side: the servings measured, comma-separated (wsgi, production, asgi)",
    )
    parser.add_argument("--asgi", action="store_true", help="the same as --serving asgi")
    args = parser.parse_args()
    if args.asgi:
        args.serving = "asgi"
    if args.serving == "side-by-side":
        servings = [s.strip() for s in args.compare.split(",") if s.strip()]
        stack_serving = "production"
    else:
        servings = [args.serving]
        stack_serving = args.serving

    print(
        f"machine: {os.cpu_count()} CPUs; {args.clients} clients; {args.rounds} x "
        f"{args.seconds:.0f} s per phase; 1 Celery worker; load average "
        f"{os.getloadavg()[0]:.1f}"
    )
    for serving in servings:
        direct = " (its WSGI server directly)" if stack_serving != serving == "wsgi" else ""
        direct = " (its live server directly)" if stack_serving != serving == "asgi" else direct
        print(f"  {serving:10s} {DESCRIBE[serving]}{direct}")
    moves = {s: Stats() for s in servings}
    baseline = {s: Stats() for s in servings}
    move_wall = dict.fromkeys(servings, 0.0)
    base_wall = dict.fromkeys(servings, 0.0)
    with stack(web=1, workers=1, serving=stack_serving) as s:
        for r in range(args.rounds):
            # A, B, then B, A: neither serving always runs first (the machine drifts).
            order = servings if r % 2 == 0 else servings[::-1]
            for serving in order:
                k = servings.index(serving)
                urls = [_url(server, serving, stack_serving) for server in s.servers]
                offset = (r * len(servings) + k) * 1000
                played, wall = run_tables(urls, args.clients, args.seconds, offset=offset)
                moves[serving].merge(played)
                move_wall[serving] += wall
                based, bwall = run_baseline(urls, args.clients, args.seconds, offset=offset)
                baseline[serving].merge(based)
                base_wall[serving] += bwall
                print(
                    f"  round {r + 1} {serving:10s}: {len(played.moves) / wall:6.1f} moves/s, "
                    f"baseline {len(based.baseline) / bwall:6.1f} req/s"
                )
    rates = {}
    for serving in servings:
        move_rate = len(moves[serving].moves) / move_wall[serving]
        base_rate = len(baseline[serving].baseline) / base_wall[serving]
        rates[serving] = move_rate
        errors = {
            k: v
            for k, v in (moves[serving].statuses + baseline[serving].statuses).items()
            if k >= 500
        }
        print()
        print(f"[{serving}] {DESCRIBE[serving]}")
        print(f"moves     {move_rate:8.1f} moves/s   {summary(moves[serving].moves)}")
        print(
            f"  (reads between turns: {summary(moves[serving].reads)}; "
            f"{moves[serving].games_finished} games finished)"
        )
        print(f"baseline  {base_rate:8.1f} req/s     {summary(baseline[serving].baseline)}")
        print(f"ratio     moves/s / baseline req/s = {move_rate / base_rate:.2f}")
        print(f"5xx responses: {sum(errors.values())}  statuses: {dict(moves[serving].statuses)}")
    if "wsgi" in rates:
        print()
        for serving in servings:
            if serving != "wsgi":
                print(
                    f"{serving} moves/s / wsgi moves/s = {rates[serving] / rates['wsgi']:.2f}"
                    f"   ({rates[serving]:.1f} / {rates['wsgi']:.1f})"
                )


if __name__ == "__main__":
    main()
