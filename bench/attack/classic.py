"""The attacks of the earlier hardening rounds (input shapes, privacy, records, sessions):

    chunked_body      a create-game body sent chunked is read (or refused), never taken as empty
    oversized_body    a huge declared or streamed body is refused with 413 while it streams in
    malformed_action  lists, objects, numbers as an action's type: 400 with a code, game unchanged
    nul_character     NUL in a path, a query and a body string: 400, never 500
    private_probe     an outsider's join/leave/start/reads of a private game: 404 everywhere
    spectator_delay   a delayed spectator sees no version newer than its horizon, anywhere
    import_records    importing a finished game five times adds nothing to the public record
    killed_session    the server's database sessions killed mid-move (needs --database-url):
                      503 with Retry-After, never 500; keyed retries apply each move once
    forwarded_for     sign-ups with a new X-Forwarded-For each time still meet the rate limit

Each sends at most a few dozen requests (the oversized ones stop at 64 MiB).
"""

from __future__ import annotations

import json
import socket
import threading
import time
import uuid
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from bench.attack.common import (
    TIMEOUT,
    Outcome,
    Player,
    Target,
    detail,
    game_of_two,
    play_one,
    problem,
)

STREAM_LIMIT = 64 * 1024 * 1024  # the most an oversized-body attack sends
CHUNK = 64 * 1024


@dataclass
class Context:
    target: Target
    players: list[Player]
    database_url: str | None
    # A finished game's export (the bot table of import_records), for the attacks that import.
    finished_document: dict[str, Any] | None = None
    finished_game: int | None = None
    shared: dict[str, Any] = field(default_factory=dict)


# ============================================================================== attacks
def chunked_body(ctx: Context, out: Outcome) -> None:
    t, (ada, bob) = ctx.target, ctx.players[:2]
    created = t.call(
        "POST", "/games/", {"preset": "two_player", "is_public": False}, ada.token, chunked=True
    )
    honoured = created.status == 201 and (
        created.body.get("preset") == "two_player" and created.body.get("is_public") is False
    )
    shown = created.body if created.status == 201 else created.code
    out.check(
        honoured or problem(created, 411) or problem(created, 400),
        f"chunked create answered {created.status} {shown}",
    )
    if created.status != 201:
        return
    game_id = created.body["id"]
    joined = t.call("POST", f"/games/join/{created.body['join_code']}/", {}, bob.token)
    started = t.call("POST", f"/games/{game_id}/start/", {}, ada.token, chunked=True)
    out.check(started.status == 200, f"chunked start answered {started.status} {started.code}")
    view = detail(t, game_id, ada)
    legal = (view.get("state") or {}).get("legal_actions") or []
    if joined.status == 200 and legal:
        body = {"action": legal[0], "expected_version": view["version"]}
        acted = t.call("POST", f"/games/{game_id}/actions/", body, ada.token, chunked=True)
        out.check(acted.status == 201, f"chunked action answered {acted.status} {acted.code}")


def _oversized_declared(t: Target, token: str) -> tuple[bool, str]:
    """Headers declaring 1 GiB, then 64 KiB of it: the answer must come without the rest."""
    with socket.create_connection((t.host, t.port), timeout=TIMEOUT) as s:
        s.sendall(
            (
                f"POST /api/v1/games/ HTTP/1.1\r\nHost: {t.host}\r\nAuthorization: Token {token}"
                f"\r\nContent-Type: application/json\r\nContent-Length: {1 << 30}\r\n\r\n"
            ).encode()
        )
        with suppress(OSError):
            s.sendall(b"[" + b" " * CHUNK)
        head = _read_head(s)
    status = _status_of(head)
    return status == 413 and b"problem+json" in head, f"declared 1 GiB answered {status}"


def _oversized_streamed(t: Target, token: str) -> tuple[bool, str]:
    """A chunked body streamed until the server answers (at most STREAM_LIMIT bytes)."""
    sent = 0
    with socket.create_connection((t.host, t.port), timeout=TIMEOUT) as s:
        s.sendall(
            (
                f"POST /api/v1/games/ HTTP/1.1\r\nHost: {t.host}\r\nAuthorization: Token {token}"
                "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            ).encode()
        )
        piece = b"%x\r\n" % CHUNK + b" " * CHUNK + b"\r\n"
        s.setblocking(False)
        answered = b""
        while sent < STREAM_LIMIT:
            with suppress(BlockingIOError):
                answered += s.recv(65536)
            if answered:
                break
            try:
                s.sendall(piece)
            except (BlockingIOError, InterruptedError):
                time.sleep(0.01)
                continue
            except OSError:
                break  # the server closed its side: its answer is waiting
            sent += CHUNK
        s.setblocking(True)
        s.settimeout(TIMEOUT)
        head = answered if b"\r\n\r\n" in answered else answered + _read_head(s)
    status = _status_of(head)
    ok = status == 413 and b"problem+json" in head and sent < STREAM_LIMIT
    return ok, f"streamed {sent >> 20} MiB chunked, answered {status}"


def _read_head(s: socket.socket) -> bytes:
    head = b""
    with suppress(OSError):
        while b"\r\n\r\n" not in head and len(head) < 65536:
            data = s.recv(4096)
            if not data:
                break
            head += data
    return head


def _status_of(head: bytes) -> int:
    try:
        return int(head.split(b" ", 2)[1])
    except (IndexError, ValueError):
        return 0


def oversized_body(ctx: Context, out: Outcome) -> None:
    token = ctx.players[0].token
    for attack in (_oversized_declared, _oversized_streamed):
        ok, what = attack(ctx.target, token)
        out.check(ok, what)
        out.note = (out.note + "; " if out.note else "") + what


MALFORMED_ACTIONS: list[Any] = [
    {"type": []},
    {"type": {}},
    {"type": 1},
    {"type": None},
    {"type": True},
    {"type": "meld", "cards": {"a": 1}},
    {"type": "discard", "card": []},
    {"type": "draw", "extra": {"type": []}},
    [],
    "draw",
    None,
]


def malformed_action(ctx: Context, out: Outcome) -> None:
    t, (ada, bob) = ctx.target, ctx.players[:2]
    game = game_of_two(t, ada, bob)
    t.call("POST", f"/games/{game['id']}/start/", {}, ada.token)
    before = detail(t, game["id"], ada)["version"]
    for action in MALFORMED_ACTIONS:
        for player in (ada, bob):
            answer = t.call(
                "POST",
                f"/games/{game['id']}/actions/",
                {"action": action, "expected_version": before},
                player.token,
            )
            out.check(
                400 <= answer.status < 500 and answer.code is not None,
                f"{json.dumps(action)} answered {answer.status} {answer.code}",
            )
    after = detail(t, game["id"], ada)["version"]
    out.check(after == before, f"the game moved from version {before} to {after}")


def nul_character(ctx: Context, out: Outcome) -> None:
    t, ada = ctx.target, ctx.players[0]
    answers = {
        "path": t.call("GET", "/games/join/%00/", token=ada.token),
        "path (join)": t.call("POST", "/games/join/%00/", {}, token=ada.token),
        "query": t.call("GET", "/games/?status=%00", token=ada.token),
        "body (name)": t.call("PATCH", "/players/me/", {"display_name": "a\u0000b"}, ada.token),
        "body (key)": t.call("POST", "/games/", {"preset\u0000": "classic"}, ada.token),
        "import document": t.call(
            "POST",
            "/games/import/",
            {"document": {"format": "canasta-game\u0000", "seed": "\u0000", "events": []}},
            ada.token,
        ),
    }
    for where, answer in answers.items():
        out.check(
            answer.status < 500 and answer.code is not None,
            f"NUL in {where}: {answer.status} {answer.code}",
        )


PRIVATE_PROBES: list[tuple[str, str, Any]] = [
    ("POST", "/join/", {}),
    ("POST", "/leave/", {}),
    ("POST", "/start/", {}),
    ("GET", "/", None),
    ("GET", "/table/", None),
    ("GET", "/scorecard/", None),
    ("GET", "/timer/", None),
    ("GET", "/events/", None),
    ("GET", "/replay/", None),
    ("GET", "/export/", None),
    ("GET", "/spectate/", None),
    ("GET", "/presence/", None),
    ("POST", "/chat/", {"phrase": "hello"}),
    ("POST", "/actions/", {"action": {"type": "draw"}, "expected_version": 0}),
]


def private_probe(ctx: Context, out: Outcome) -> None:
    t, (ada, bob, eve) = ctx.target, ctx.players[:3]
    lobby = t.call("POST", "/games/", {"preset": "two_player", "is_public": False}, ada.token)
    started = game_of_two(t, ada, bob, is_public=False)
    t.call("POST", f"/games/{started['id']}/start/", {}, ada.token)
    for game in (lobby.body, started):
        for method, tail, body in PRIVATE_PROBES:
            answer = t.call(method, f"/games/{game['id']}{tail}", body, eve.token)
            out.check(
                answer.status == 404 and answer.code == "not_found",
                f"{method} {tail} of a private game: {answer.status} {answer.code}",
            )


def spectator_delay(ctx: Context, out: Outcome) -> None:
    t, (ada, bob, eve) = ctx.target, ctx.players[:3]
    delay = 3
    game = game_of_two(t, ada, bob)
    t.call("PATCH", f"/games/{game['id']}/table/", {"spectator_delay": delay}, ada.token)
    t.call("POST", f"/games/{game['id']}/start/", {}, ada.token)
    dealt = detail(t, game["id"], ada)["version"]  # the deal itself is shown at once
    for _ in range(2 * delay + 2):
        if play_one(t, game["id"], [ada, bob]).status != 201:
            break
        live = detail(t, game["id"], ada)["version"]
        horizon = live - delay
        reads = {
            "detail": t.call("GET", f"/games/{game['id']}/", token=eve.token),
            "spectate": t.call("GET", f"/games/{game['id']}/spectate/", token=eve.token),
            "timer": t.call("GET", f"/games/{game['id']}/timer/", token=eve.token),
            "scorecard": t.call("GET", f"/games/{game['id']}/scorecard/", token=eve.token),
            "events": t.call("GET", f"/games/{game['id']}/events/", token=eve.token),
        }
        for name, answer in reads.items():
            shown = _versions_in(answer.body)
            out.check(
                answer.status == 200 and all(v <= max(horizon, dealt) for v in shown),
                f"{name} at live {live} (horizon {horizon}) shows {sorted(set(shown))[-3:]}",
            )


def _versions_in(body: Any) -> list[int]:
    """Every version a body shows: its ``version``s and its events' ``seq``s (a fact of the
    table moves the version as a move does, so every event's seq counts)."""
    found: list[int] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("version", "seq") and isinstance(item, int):
                    found.append(item)
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(body)
    return found


def import_records(ctx: Context, out: Outcome) -> None:
    t, ada = ctx.target, ctx.players[3]
    created = t.call(
        "POST",
        "/games/",
        {
            "preset": "two_player",
            "options": {"target_score": 1000},
            "spectate": True,
            "bots": [{"seat": 0, "level": "medium"}, {"seat": 1, "level": "medium"}],
        },
        ada.token,
    )
    if created.status != 201:
        out.skipped = f"a table of bots could not be made ({created.status} {created.code})"
        return
    game_id = created.body["id"]
    t.call("POST", f"/games/{game_id}/start/", {}, ada.token)
    deadline = time.monotonic() + 240
    view = detail(t, game_id, ada)
    while view["status"] != "finished" and time.monotonic() < deadline:
        time.sleep(1)
        view = detail(t, game_id, ada)
    if view["status"] != "finished":
        out.skipped = "the table of bots did not finish within 240 s"
        return
    winner_seat = next(s["index"] for s in view["seats"] if s["team"] == view["winner_team"])
    document = t.call("GET", f"/games/{game_id}/export/", token=ada.token).body
    ctx.finished_document, ctx.finished_game = document, game_id
    before = t.call("GET", f"/players/{ada.id}/profile/", token=ada.token).body["record"]
    for _ in range(5):
        imported = t.call(
            "POST", "/games/import/", {"document": document, "seat": winner_seat}, ada.token
        )
        out.check(
            imported.status in (201, 202), f"import answered {imported.status} {imported.code}"
        )
    after = t.call("GET", f"/players/{ada.id}/profile/", token=ada.token).body["record"]
    out.check(after == before, f"the record went from {before} to {after}")


def killed_session(ctx: Context, out: Outcome) -> None:
    if not ctx.database_url:
        out.skipped = "needs --database-url (the server's database) to kill its sessions"
        return
    import psycopg

    t, (ada, bob) = ctx.target, ctx.players[4:6]
    game = game_of_two(t, ada, bob)
    t.call("POST", f"/games/{game['id']}/start/", {}, ada.token)
    start_version = detail(t, game["id"], ada)["version"]
    stop = threading.Event()

    def killer() -> None:
        with psycopg.connect(str(ctx.database_url), autocommit=True) as db:
            while not stop.is_set():
                db.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid() "
                    "AND backend_type = 'client backend'"
                )
                time.sleep(0.05)

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    applied = 0
    try:
        for i in range(12):
            key = f"attack-{uuid.uuid4().hex}-{i}"
            for _try in range(20):
                try:
                    answer = play_one(t, game["id"], [ada, bob], {"Idempotency-Key": key})
                except (RuntimeError, KeyError, TypeError, OSError) as exc:
                    out.check(True, f"read failed ({type(exc).__name__})")
                    time.sleep(0.2)
                    continue
                if answer.status == 503:
                    out.check(
                        int(answer.headers.get("retry-after", "0")) >= 1
                        and answer.code == "database_unavailable",
                        f"503 without Retry-After/code: {answer.code}",
                    )
                    continue
                out.check(answer.status < 500, f"a move answered {answer.status} {answer.code}")
                if answer.status == 201:
                    applied += 1
                break
    finally:
        stop.set()
        thread.join()
    final = detail(t, game["id"], ada)["version"]
    out.check(
        final == start_version + applied,
        f"{applied} moves answered 201 but the version moved by {final - start_version}",
    )
    out.note = f"{applied} moves applied under session kills every 50 ms"


def forwarded_for(ctx: Context, out: Outcome) -> None:
    t = ctx.target
    answers = [
        t.call(
            "POST",
            "/players/",
            {"display_name": f"Xff{i}"},
            headers={"X-Forwarded-For": f"203.0.113.{i % 250 + 1}"},
        )
        for i in range(40)
    ]
    accepted = sum(a.status == 201 for a in answers)
    limited = [a for a in answers if a.status == 429]
    out.check(bool(limited), f"{accepted} of 40 sign-ups accepted with a rotating header")
    for answer in limited:
        out.check(
            int(answer.headers.get("retry-after", "0")) >= 1 and answer.code == "throttled",
            "429 without Retry-After",
        )
    out.note = f"{accepted} of 40 accepted, {len(limited)} answered 429 with Retry-After"


CLASSIC: dict[str, Callable[[Context, Outcome], None]] = {
    "chunked_body": chunked_body,
    "oversized_body": oversized_body,
    "malformed_action": malformed_action,
    "nul_character": nul_character,
    "private_probe": private_probe,
    "spectator_delay": spectator_delay,
    "import_records": import_records,
    "killed_session": killed_session,
    "forwarded_for": forwarded_for,  # last: it uses up the sign-up quota
}
