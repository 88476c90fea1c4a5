"""CPU per request in one process: a move, the read between turns, and the baseline request.

No server and no network: Django's test client sends the requests through the whole stack
(middleware, DRF, token authentication, the service) to a fresh PostgreSQL database, and
``time.process_time`` measures this process's CPU only (PostgreSQL's own work is not in it).
This is the part of a move's cost that the web tier pays, measured without the noise of a
loaded machine; ``--profile`` prints where it goes (cProfile, top functions by own time).

    python -m bench.profile [--moves 600] [--profile] [--top 30]

Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from bench.driver import choose
from bench.harness import django_setup, stack


class InProcessClient:
    def __init__(self, token: str | None = None) -> None:
        from django.test import Client

        self.client = Client(HTTP_ACCEPT="application/json")
        self.token = token

    def _headers(self) -> dict[str, str]:
        return {"HTTP_AUTHORIZATION": f"Token {self.token}"} if self.token else {}

    # The body is decoded by the caller, outside the timed part: the client's work is not the
    # server's.
    def get(self, path: str) -> tuple[int, Any]:
        response = self.client.get(path, **self._headers())  # type: ignore[arg-type]
        return response.status_code, response

    def post(self, path: str, body: Any) -> tuple[int, Any]:
        response = self.client.post(
            path,
            data=json.dumps(body),
            content_type="application/json",
            **self._headers(),  # type: ignore[arg-type]
        )
        return response.status_code, response


def sign_up(name: str) -> InProcessClient:
    status, response = InProcessClient().post("/api/v1/players/", {"display_name": name})
    assert status == 201, response.content
    return InProcessClient(json.loads(response.content)["token"])


CHUNK = 50
QUERIES: dict[str, list[str]] = {}
WAITED: dict[int, list[float]] = {}  # wall time minus CPU time, per list of CPU times


def timed(fn: Callable[[], Any], into: list[float], kind: str = "") -> Any:
    """Run ``fn``, adding its CPU time to ``into``; keep the SQL it ran under ``kind``."""
    from django.db import connection

    statements: list[str] = []

    def record(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        statements.append(sql.split(" ", 1)[0] if sql else sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        started, wall = time.process_time(), time.perf_counter()
        out = fn()
        into.append(time.process_time() - started)
        WAITED.setdefault(id(into), []).append(time.perf_counter() - wall - into[-1])
    if kind:
        QUERIES.setdefault(kind, []).append(" ".join(statements))
    return out


class Tables:
    """Two-player games, both seats, as bench/driver.py plays them: a move's response is the
    mover's view; the other seat reads its view when its turn comes. Goes on where it
    stopped."""

    def __init__(self) -> None:
        self.seats = [sign_up("prof0"), sign_up("prof1")]
        self.game_id = 0
        self.views: dict[int, dict[str, Any]] = {}

    def _new_game(self) -> None:
        status, response = self.seats[0].post("/api/v1/games/", {"preset": "two_player"})
        assert status == 201, response.content
        self.game_id = json.loads(response.content)["id"]
        assert self.seats[1].post(f"/api/v1/games/{self.game_id}/join/", {})[0] == 200
        status, response = self.seats[0].post(f"/api/v1/games/{self.game_id}/start/", {})
        self.views = {0: json.loads(response.content)}

    def play(self, moves: int, cpu: dict[str, list[float]]) -> None:
        game_path = "/api/v1/games/{}/"
        for _ in range(moves):
            latest = max(self.views.values(), key=lambda g: g["version"]) if self.views else None
            if latest is None or latest["status"] != "active":
                self._new_game()
                latest = self.views[0]
            seat, api = latest["state"]["to_act"], self.seats[latest["state"]["to_act"]]
            path = game_path.format(self.game_id)
            mine = self.views.get(seat)
            if mine is None or mine["version"] != latest["version"]:
                _, response = timed(lambda a=api, p=path: a.get(p), cpu["read"], "read")
                mine = self.views[seat] = json.loads(response.content)
            body = {
                "action": choose(mine["state"]["legal_actions"]),
                "expected_version": mine["version"],
            }
            status, response = timed(
                lambda a=api, p=path, b=body: a.post(f"{p}actions/", b), cpu["move"], "move"
            )
            assert status == 201, response.content
            self.views = {seat: json.loads(response.content)["game"]}


class Baseline:
    def __init__(self) -> None:
        self.api = sign_up("profbase")

    def post(self, requests: int, cpu: dict[str, list[float]]) -> None:
        for _ in range(requests):
            status, response = timed(
                lambda: self.api.post("/api/bench/baseline/", {}), cpu["baseline"], "baseline"
            )
            assert status == 201, response.content


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=600)
    parser.add_argument("--profile", action="store_true", help="cProfile the moves and reads")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    with stack(web=0, workers=0) as s:
        # As the servers run: baseline mounted, rate limits off, the same log level.
        for key in (
            "BENCH_BASELINE",
            "THROTTLE_SIGNUP",
            "THROTTLE_ACTIONS",
            "LOG_LEVEL",
            "CACHE_URL",
        ):
            os.environ[key] = s.env[key]
        os.environ["DATABASE_CONN_MAX_AGE"] = "60"
        django_setup(s)
        from django.conf import settings

        settings.ALLOWED_HOSTS = ["testserver", *settings.ALLOWED_HOSTS]
        cpu: dict[str, list[float]] = {"move": [], "read": [], "baseline": []}
        tables, base = Tables(), Baseline()
        tables.play(50, {"move": [], "read": []})  # warm-up: imports, caches, connections
        base.post(50, {"baseline": []})
        profiler = cProfile.Profile(time.process_time) if args.profile else None
        # Moves and baseline requests alternate in chunks, so that both see the same machine.
        for _ in range(max(1, args.moves // CHUNK)):
            if profiler:
                profiler.enable()
            tables.play(CHUNK, cpu)
            if profiler:
                profiler.disable()
            base.post(CHUNK, cpu)
        from django.db import connections

        connections.close_all()

    def ms(values: list[float]) -> str:
        waited = statistics.fmean(WAITED[id(values)]) * 1000
        return (
            f"mean {statistics.fmean(values) * 1000:6.2f} ms CPU, {waited:5.2f} ms waiting for "
            f"the database and Redis  (n={len(values)})"
        )

    reads_per_move = len(cpu["read"]) / len(cpu["move"])
    per_move = statistics.fmean(cpu["move"]) + reads_per_move * statistics.fmean(cpu["read"])
    base = statistics.fmean(cpu["baseline"])
    print(f"move      {ms(cpu['move'])}")
    print(f"read      {ms(cpu['read'])}  ({reads_per_move:.2f} per move)")
    print(f"baseline  {ms(cpu['baseline'])}")
    print(
        f"a move with its share of reads: {per_move * 1000:.2f} ms CPU "
        f"= {per_move / base:.2f} x baseline"
    )
    for kind, runs in QUERIES.items():
        counts = Counter(runs)
        print(f"{kind} statements, most common:")
        for text, n in counts.most_common(3):
            print(f"  {n:4d} x  {len(text.split())} statements: {text}")
    if profiler:
        stats = pstats.Stats(profiler)
        if os.environ.get("PROFILE_DUMP"):
            stats.dump_stats(os.environ["PROFILE_DUMP"])
        stats.sort_stats("tottime").print_stats(args.top)
        stats.sort_stats("cumulative").print_stats("canasta|games|bots|rest_framework", args.top)


if __name__ == "__main__":
    main()
