"""The victim: an unrelated account playing a game against bots while an attack runs, and
another account reading the API in a loop; what each attack did to them.

The victim creates a public table (``two_player`` by default) with itself at seat 0 and bots
elsewhere, starts it and plays each of its turns as soon as it is its turn. It follows the
game with the long-poll (``GET /events/?after=N&wait=10``); every event carries its
``created_at`` (written by the server or the worker on this machine). For every bot move the
latency is the time from the event before it (the victim's move, or the previous bot move,
that made the bot to act) to the bot's event. A bot move is counted in the phase during which
the event that made it due was logged. A bot that has not moved when a phase is closed counts
with the time it has waited so far (``open``).

The probe is another account calling ``GET /players/me/`` and ``GET /games/{victim's game}/``
in turn, one after the other, recording each latency (a request that failed counts its whole
time).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bench.attack.common import Player, Target, choose, percentile

BOT_P95_TARGET = 2.0
BOT_MAX_TARGET = 5.0
API_P95_TARGET = 1.0
SHORT_SECONDS = 5.0  # a phase shorter than this is a check of a rule: no latency target


def when(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


class Victim(threading.Thread):
    def __init__(self, target: Target, player: Player, preset: str, level: str) -> None:
        super().__init__(daemon=True, name="victim")
        self.target, self.player, self.preset, self.level = target, player, preset, level
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.game_id: int | None = None
        self.games = 0
        self.bot_moves: list[tuple[float, float]] = []  # (due at, latency s)
        self.waiting_since: float | None = None  # a bot due since (epoch), not moved yet
        self.errors: list[str] = []
        self.ready = threading.Event()

    # ------------------------------------------------------------------ playing
    def _new_game(self) -> None:
        seats = {"two_player": 2, "three_player": 3}.get(self.preset, 4)
        body = {
            "preset": self.preset,
            "seat": 0,
            "bots": [{"seat": s, "level": self.level} for s in range(1, seats)],
        }
        created = self.target.call("POST", "/games/", body, token=self.player.token)
        if created.status != 201:
            raise RuntimeError(f"the victim's table: {created.status} {created.code}")
        game_id = created.body["id"]
        started = self.target.call("POST", f"/games/{game_id}/start/", {}, self.player.token)
        if started.status != 200:
            raise RuntimeError(f"the victim's start: {started.status} {started.code}")
        self.game_id, self.games = game_id, self.games + 1
        self.after, self.last_event_at, self.last_source = 0, 0.0, "system"

    def _record(self, events: list[dict[str, Any]]) -> None:
        with self.lock:
            for event in events:
                if event["seq"] <= self.after:
                    continue
                at = when(event["created_at"])
                if event.get("source") == "bot" and self.last_event_at:
                    self.bot_moves.append((self.last_event_at, at - self.last_event_at))
                self.after, self.last_event_at = event["seq"], at
                self.last_source = event.get("source") or ""

    def _poll(self, wait: int) -> None:
        assert self.game_id is not None
        answer = self.target.call(
            "GET",
            f"/games/{self.game_id}/events/?after={self.after}&wait={wait}",
            token=self.player.token,
            timeout=wait + 20,
        )
        if answer.status == 200:
            self._record(answer.body.get("events") or [])
        else:
            self.errors.append(f"events {answer.status} {answer.code}")
            time.sleep(0.5)

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self._step()
            except Exception as exc:  # noqa: BLE001 - the victim goes on
                self.errors.append(f"{type(exc).__name__}: {exc}")
                time.sleep(1)

    def _step(self) -> None:
        if self.game_id is None:
            self._new_game()
        assert self.game_id is not None
        self._poll(0)
        view = self.target.call("GET", f"/games/{self.game_id}/", token=self.player.token).body
        if view.get("status") != "active":
            with self.lock:
                self.waiting_since = None
            self.game_id = None
            return
        self.ready.set()
        state = view.get("state") or {}
        legal = state.get("legal_actions") or []
        if state.get("to_act") == 0 and legal and view["version"] == self.after:
            with self.lock:
                self.waiting_since = None
            self.target.call(
                "POST",
                f"/games/{self.game_id}/actions/",
                {"action": choose(legal), "expected_version": view["version"]},
                token=self.player.token,
            )
            return
        if view["version"] == self.after and state.get("to_act") not in (None, 0):
            with self.lock:
                if self.waiting_since is None:
                    self.waiting_since = self.last_event_at
        self._poll(10)

    def moves_between(self, start: float, end: float, now: float) -> tuple[list[float], bool]:
        """The bot moves due in [start, end) (seconds), and whether one still waits (counted
        with its wait so far)."""
        with self.lock:
            found = [lat for due, lat in self.bot_moves if start <= due < end]
            waiting = self.waiting_since
        pending = waiting is not None and start <= waiting < end
        if pending and waiting is not None:
            found.append(now - waiting)
        return found, pending


class Probe(threading.Thread):
    """Another account reading ``/players/me/`` and the victim's game in a loop."""

    def __init__(self, target: Target, player: Player, victim: Victim, pause: float = 0.1):
        super().__init__(daemon=True, name="probe")
        self.target, self.player, self.victim, self.pause = target, player, victim, pause
        self.stop = threading.Event()
        self.samples: list[tuple[float, float, int]] = []  # (sent at, latency, status)
        self.lock = threading.Lock()

    def run(self) -> None:
        turn = 0
        while not self.stop.is_set():
            game = self.victim.game_id
            path = "/players/me/" if turn % 2 == 0 or game is None else f"/games/{game}/"
            turn += 1
            sent, started = time.time(), time.perf_counter()
            try:
                status = self.target.call("GET", path, token=self.player.token, timeout=30).status
            except OSError:
                status = 0
            with self.lock:
                self.samples.append((sent, time.perf_counter() - started, status))
            time.sleep(self.pause)

    def between(self, start: float, end: float) -> list[tuple[float, int]]:
        with self.lock:
            return [(lat, st) for at, lat, st in self.samples if start <= at < end]


@dataclass
class Figures:
    """What one phase did to the victim and the probe."""

    name: str
    seconds: float
    bot: list[float] = field(default_factory=list)
    bot_pending: bool = False
    api: list[float] = field(default_factory=list)
    api_errors: int = 0

    @property
    def bot_p50(self) -> float:
        return percentile(self.bot, 50)

    @property
    def bot_p95(self) -> float:
        return percentile(self.bot, 95)

    @property
    def bot_max(self) -> float:
        return max(self.bot) if self.bot else float("nan")

    @property
    def api_p95(self) -> float:
        return percentile(self.api, 95)

    @property
    def api_max(self) -> float:
        return max(self.api) if self.api else float("nan")

    @property
    def short(self) -> bool:
        """Too short to say (a check of a rule, over in a few seconds): no target applies."""
        return self.seconds < SHORT_SECONDS

    def misses(self) -> list[str]:
        """The targets missed (none measured counts as missed: the victim did not play)."""
        found: list[str] = []
        if self.short:
            return found
        if not self.bot:
            found.append("no bot move measured")
        else:
            if not self.bot_p95 <= BOT_P95_TARGET:
                found.append(f"bot p95 {self.bot_p95:.2f} s > {BOT_P95_TARGET} s")
            if not self.bot_max <= BOT_MAX_TARGET:
                found.append(f"bot max {self.bot_max:.2f} s > {BOT_MAX_TARGET} s")
        if not self.api:
            found.append("no API read measured")
        elif not self.api_p95 <= API_P95_TARGET:
            found.append(f"API p95 {self.api_p95:.2f} s > {API_P95_TARGET} s")
        return found


def figures(name: str, victim: Victim, probe: Probe, start: float, end: float) -> Figures:
    bot, pending = victim.moves_between(start, end, time.time())
    api = probe.between(start, end)
    return Figures(
        name,
        end - start,
        bot,
        pending,
        [lat for lat, _ in api],
        sum(1 for _, st in api if st == 0 or st >= 500),
    )
