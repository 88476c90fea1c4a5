"""Clients that play real games through the API, and the baseline client, for bench/*.py.

A ``Table`` is one game driven by one client thread: two guest players (or one against a bot)
created through the API, the game created, joined and started, then moves chosen from the
legal actions the API lists (take the pile or meld when possible, else draw, then discard) and
sent with ``expected_version``. When a game ends the thread starts another. Every action's
latency is recorded; so are the reads a player needs between turns (fetching its view).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bench.harness import Api, sign_up

PREFERENCE = (
    "take_pile",
    "meld",
    "draw",
    "answer_partner",
    "discard",
    "decline_pile",
    "end_round",
    "ask_partner",
)


def choose(legal: list[dict[str, Any]]) -> dict[str, Any]:
    return min(legal, key=lambda a: PREFERENCE.index(a["type"]))


@dataclass
class Stats:
    moves: list[float] = field(default_factory=list)  # action POST latencies (s)
    reads: list[float] = field(default_factory=list)  # GETs between turns
    baseline: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    games_finished: int = 0
    game_ids: set[int] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def merge(self, other: Stats) -> None:
        with self.lock:
            self.moves += other.moves
            self.reads += other.reads
            self.baseline += other.baseline
            self.statuses.update(other.statuses)
            self.games_finished += other.games_finished
            self.game_ids |= other.game_ids


class Table:
    """One game at a time, both human seats played by this client (or one seat and a bot)."""

    def __init__(self, urls: list[str], index: int, vs_bot: bool = False) -> None:
        # Seats may sit on different web servers: the game must not care which one serves.
        self.urls = urls
        self.index = index
        self.vs_bot = vs_bot
        self.seats: list[Api] = []
        self.stats = Stats()
        self.game_id = 0
        self.view: dict[int, dict[str, Any]] = {}

    def new_game(self) -> None:
        n = len(self.urls)
        if not self.seats:
            self.seats = [
                sign_up(self.urls[(self.index + s) % n], f"bench{self.index}s{s}")
                for s in range(1 if self.vs_bot else 2)
            ]
        body: dict[str, Any] = {"preset": "two_player"}
        if self.vs_bot:
            body["bots"] = [{"seat": 1, "level": "easy"}]
        status, game, _ = self.seats[0].post("/api/v1/games/", body)
        assert status == 201, game
        self.game_id = game["id"]
        if not self.vs_bot:
            status, game, _ = self.seats[1].post(f"/api/v1/games/{self.game_id}/join/", {})
            assert status == 200, game
        status, game, _ = self.seats[0].post(f"/api/v1/games/{self.game_id}/start/", {})
        assert status == 200, game
        self.view = {0: game}
        self.stats.game_ids.add(self.game_id)

    def _fetch(self, seat: int) -> dict[str, Any]:
        status, game, elapsed = self.seats[seat].get(f"/api/v1/games/{self.game_id}/")
        self.stats.statuses[status] += 1
        assert status == 200, game
        self.stats.reads.append(elapsed)
        self.view[seat] = game
        return game

    def step(self) -> None:
        """Make one move (for a bot game: wait for the bot first if it is its turn)."""
        if not self.game_id:
            self.new_game()
        latest = max(self.view.values(), key=lambda g: g["version"])
        if latest["status"] != "active":
            self.stats.games_finished += 1
            self.new_game()
            latest = self.view[0]
        seat = latest["state"]["to_act"]
        if self.vs_bot and seat != 0:
            time.sleep(0.01)
            self._fetch(0)
            return
        mine = self.view.get(seat)
        if mine is None or mine["version"] != latest["version"]:
            mine = self._fetch(seat)
            if mine["status"] != "active" or mine["state"]["to_act"] != seat:
                return
        action = choose(mine["state"]["legal_actions"])
        status, body, elapsed = self.seats[seat].post(
            f"/api/v1/games/{self.game_id}/actions/",
            {"action": action, "expected_version": mine["version"]},
        )
        self.stats.statuses[status] += 1
        if status == 201:
            self.stats.moves.append(elapsed)
            self.view = {seat: body["game"]}
        else:  # e.g. a bot moved meanwhile (409): look again
            self._fetch(seat)


def _for(seconds: float, steps: list[Callable[[], None]]) -> float:
    """Run each step in a loop in its own thread, all starting together, for ``seconds``;
    the wall time."""
    barrier = threading.Barrier(len(steps) + 1)
    stop_at = [0.0]

    def loop(step: Callable[[], None]) -> None:
        barrier.wait()
        while time.perf_counter() < stop_at[0]:
            step()

    threads = [threading.Thread(target=loop, args=(step,)) for step in steps]
    for thread in threads:
        thread.start()
    stop_at[0] = time.perf_counter() + seconds
    started = time.perf_counter()
    barrier.wait()
    for thread in threads:
        thread.join()
    return time.perf_counter() - started


def run_tables(
    urls: list[str], clients: int, seconds: float, bot_every: int = 0, offset: int = 0
) -> tuple[Stats, float]:
    """``clients`` threads each playing games for ``seconds``; every ``bot_every``-th client
    plays against a bot (0: none). Returns the merged stats and the measured wall time."""
    total = Stats()
    tables = [
        Table(urls, offset + i, vs_bot=bool(bot_every) and i % bot_every == bot_every - 1)
        for i in range(clients)
    ]
    for table in tables:  # set-up (sign-up, first game) is not measured
        table.new_game()
    wall = _for(seconds, [table.step for table in tables])
    for table in tables:
        total.merge(table.stats)
        for api in table.seats:
            api.close()
    return total, wall


class _BaselineClient:
    def __init__(self, api: Api) -> None:
        self.api = api
        self.stats = Stats()

    def step(self) -> None:
        status, body, elapsed = self.api.post("/api/bench/baseline/", {})
        self.stats.statuses[status] += 1
        assert status == 201, body
        self.stats.baseline.append(elapsed)


def run_baseline(
    urls: list[str], clients: int, seconds: float, offset: int = 0
) -> tuple[Stats, float]:
    """``clients`` threads posting to the baseline endpoint (one read, one insert) in a loop."""
    total = Stats()
    users = [
        _BaselineClient(sign_up(urls[i % len(urls)], f"base{offset + i}")) for i in range(clients)
    ]
    wall = _for(seconds, [user.step for user in users])
    for user in users:
        total.merge(user.stats)
        user.api.close()
    return total, wall
