"""What every attack uses: a loopback-only HTTP client that tallies every answer's status, the
players, the outcome of an attack and the context it runs in."""

from __future__ import annotations

import http.client
import ipaddress
import json
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

TIMEOUT = 15.0


# ============================================================================== HTTP
@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: Any

    @property
    def code(self) -> str | None:
        return self.body.get("code") if isinstance(self.body, dict) else None


class Tally:
    """Every answer's status, across threads; the server errors kept with what was asked."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.statuses: Counter[int] = Counter()
        self.errors: list[str] = []  # "<status> <method> <path> <code>" (the first 50)
        # 5xx but a 503 that tells its reason (a problem ``code``) and when to come back
        # (Retry-After): a refusal the server chose (database_unavailable, imports_busy ...).
        self.server_errors = 0

    def add(self, status: int, what: str, code: str | None, retry_after: bool = False) -> None:
        with self.lock:
            self.statuses[status] += 1
            if status >= 500 and not told_refusal(status, code, retry_after):
                self.server_errors += 1
                if len(self.errors) < 50:
                    self.errors.append(f"{status} {what} {code}")


TALLY = Tally()


def told_refusal(status: int, code: str | None, retry_after: bool) -> bool:
    return status == 503 and bool(code) and retry_after


class Target:
    """A server at ``url`` (loopback only), spoken to over plain HTTP/1.1. ``source``: the
    loopback address connections come from (127.0.0.x: another client address for the
    server's per-address limits)."""

    def __init__(self, url: str, source: str | None = None) -> None:
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise SystemExit(f"--url must be http://host:port, not {url!r}")
        self.url = url
        self.host, self.port = parts.hostname, parts.port or 80
        self.source = source
        for info in socket.getaddrinfo(self.host, self.port, proto=socket.IPPROTO_TCP):
            if not ipaddress.ip_address(info[4][0]).is_loopback:
                raise SystemExit(f"refused: {self.host} is not a loopback address")
        if source and not ipaddress.ip_address(source).is_loopback:
            raise SystemExit(f"refused: {source} is not a loopback address")

    def from_address(self, source: str) -> Target:
        return Target(self.url, source)

    def connection(self, timeout: float = TIMEOUT) -> http.client.HTTPConnection:
        source = (self.source, 0) if self.source else None
        return http.client.HTTPConnection(
            self.host, self.port, timeout=timeout, source_address=source
        )

    def raw_socket(self, timeout: float = TIMEOUT) -> socket.socket:
        source = (self.source, 0) if self.source else None
        return socket.create_connection((self.host, self.port), timeout, source)

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        token: str | None = None,
        chunked: bool = False,
        headers: dict[str, str] | None = None,
        timeout: float = TIMEOUT,
        prefix: str = "/api/v1",
    ) -> Answer:
        sent = {"Accept": "application/json", **(headers or {})}
        if token:
            sent["Authorization"] = f"Token {token}"
        data: Any = None
        if body is not None:
            raw = body if isinstance(body, bytes) else json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
            data = iter([raw[: len(raw) // 2], raw[len(raw) // 2 :]]) if chunked else raw
        conn = self.connection(timeout)
        try:
            conn.request(method, prefix + path, body=data, headers=sent, encode_chunked=chunked)
            response = conn.getresponse()
            text = response.read()
            headers_in = {k.lower(): v for k, v in response.getheaders()}
        finally:
            conn.close()
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = text.decode(errors="replace")[:200]
        answer = Answer(response.status, headers_in, parsed)
        TALLY.add(
            answer.status,
            f"{method} {path.split('?')[0]}",
            answer.code,
            "retry-after" in headers_in,
        )
        return answer

    def timed(self, method: str, path: str, body: Any = None, **kw: Any) -> tuple[Answer, float]:
        started = time.perf_counter()
        answer = self.call(method, path, body, **kw)
        return answer, time.perf_counter() - started


@dataclass
class Player:
    id: int
    token: str
    name: str


def sign_up(target: Target, name: str) -> Player:
    answer = target.call("POST", "/players/", {"display_name": name})
    if answer.status != 201:
        raise RuntimeError(f"sign-up answered {answer.status} {answer.code}")
    return Player(answer.body["id"], answer.body["token"], name)


class Accounts:
    """New accounts on demand, each batch of sign-ups from another loopback address
    (127.0.0.2, .3, ...) so that the attacks' own accounts do not use up the sign-up limit of
    the address the throttling attacks measure."""

    PER_ADDRESS = 10

    def __init__(self, target: Target, first: int = 0) -> None:
        self.target = target
        self.made = first * self.PER_ADDRESS  # a rerun within the hour: other addresses
        self.lock = threading.Lock()

    def new(self, name: str) -> Player:
        with self.lock:
            index = self.made
            self.made += 1
        source = (
            f"127.0.{1 + index // (self.PER_ADDRESS * 250)}.{2 + index // self.PER_ADDRESS % 250}"
        )
        return sign_up(self.target.from_address(source), f"{name[:20]}{index}")


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
    """Take the pile or meld when possible, else draw, then discard (rounds end)."""
    return min(legal, key=lambda a: PREFERENCE.index(a["type"]) if a["type"] in PREFERENCE else 99)


def game_of_two(target: Target, ada: Player, bob: Player, **create: Any) -> dict[str, Any]:
    """A two-player game Ada created and Bob joined (by its join code when private)."""
    created = target.call(
        "POST", "/games/", {"preset": "two_player", **create}, token=ada.token
    ).body
    if created.get("is_public", True):
        target.call("POST", f"/games/{created['id']}/join/", {}, token=bob.token)
    else:
        target.call("POST", f"/games/join/{created['join_code']}/", {}, token=bob.token)
    return dict(created)


def detail(target: Target, game_id: int, player: Player) -> dict[str, Any]:
    return dict(target.call("GET", f"/games/{game_id}/", token=player.token).body)


def play_one(
    target: Target, game_id: int, players: list[Player], headers: dict[str, str] | None = None
) -> Answer:
    """The seat to act plays its first legal action."""
    for player in players:
        view = detail(target, game_id, player)
        legal = (view.get("state") or {}).get("legal_actions") or []
        if legal:
            return target.call(
                "POST",
                f"/games/{game_id}/actions/",
                {"action": legal[0], "expected_version": view["version"]},
                token=player.token,
                headers=headers,
            )
    raise RuntimeError(f"nobody can act in game {game_id}")


def problem(answer: Answer, status: int) -> bool:
    return answer.status == status and answer.headers.get("content-type", "").startswith(
        "application/problem+json"
    )


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


# ============================================================================== outcomes
@dataclass
class Outcome:
    name: str
    attempts: int = 0
    failures: list[str] = field(default_factory=list)
    note: str = ""
    skipped: str = ""

    def check(self, ok: bool, what: str) -> None:
        self.attempts += 1
        if not ok:
            self.failures.append(what)

    def say(self, what: str) -> None:
        self.note = (self.note + "; " if self.note else "") + what

    @property
    def result(self) -> str:
        if self.skipped:
            return f"skipped: {self.skipped}"
        if self.failures:
            return (
                f"GOT THROUGH {len(self.failures)}/{self.attempts}: "
                + "; ".join(self.failures[:3])
                + (f" ({self.note})" if self.note else "")
            )
        return f"held ({self.attempts}/{self.attempts}){': ' + self.note if self.note else ''}"
