"""The attacks of the third hardening round (no player can stall anyone else's game), one per
finding, each bounded in time (``seconds``) and driven as an attacker would, over real HTTP
and WebSocket. The victim's game and the probe run meanwhile (``bench.attack.victim``); each
attack here checks what the server let through, by behaviour, against the limits below (the
refusal codes are not checked: a limit can refuse with 429 or another 4xx).

    slow_webhooks      1: 10 webhooks at a receiver that accepts and never answers, then chat
    slashless_polls    2: long-polls without the trailing slash (/events?wait=30) in parallel
    reviews_imports    3: reviews asked by one account, imports making more games to review
    bot_tables         4: 40 all-bot hard tables created and started at once by one account
    push_rebinding     5: skipped: a name flipping public/loopback needs DNS control
    push_bounds        6: a push service answering 300 MiB, another a byte every few seconds
    huge_frames        7: unauthenticated sockets sending 16 MiB frames
    throttle_race      8: concurrent requests on throttled endpoints, accepted against the limit
    rating_farm        9: rated private tables conceded at once by one's own second account;
                          two own accounts queueing together
    pause_spam        10: pause propose/decline in a loop; the opponent's moves refused as stale
    imports_parallel  11: imports at once (each replays a whole game's log)
    socket_floods     14: many sockets and streams for one token; action messages flooding one
    review_leak       15: an outsider's review of an abandoned public game: cards named?
    push_takeover     16: registering another player's push endpoint
    rating_privacy    17: another's view of a rating history: private games listed?
"""

from __future__ import annotations

import json
import os
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

from bench.attack.common import (
    Accounts,
    Answer,
    Outcome,
    Player,
    Target,
    choose,
    told_refusal,
)
from bench.attack.victim import Victim
from bench.attack.wire import BadPushService, Silent, Socket, stream_open, streams_close, ws_frame

# The limits the checks hold the server to (the defaults of canasta_service/settings.py, or
# what the third hardening round asks for). Adjust here when a limit changes.
LIMITS = {
    "signup": 30,  # THROTTLE_SIGNUP 30/hour per client address
    "review": 30,  # THROTTLE_REVIEW 30/hour per player
    "hint": 60,  # THROTTLE_HINT 60/minute per player
    "chat": 30,  # THROTTLE_CHAT 30/minute per player
}
RATING_GAIN_MAX = 60  # rating points one account may gain from its own second account
PUSH_HOLD_MAX = 20.0  # seconds a push attempt may hold its worker
PUSH_READ_MAX = 32 << 20  # bytes of a push service's answer a worker may take
LIVE_GROWTH_MAX = 200 << 20  # bytes the live server may grow by under 16 MiB frames
STALE_SHARE_MAX = 0.2  # share of the opponent's moves refused as stale under pause spam
PAUSE_FACTS_PER_MINUTE_MAX = 60  # pause facts one player may log in a minute
SOCKETS_TRIED = 100  # sockets (and streams) opened for one token
FLOOD_MESSAGES = 2000  # action messages sent on one socket
CARD_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
CARD_SUITS = ("C", "D", "H", "S")


@dataclass
class Ctx:
    target: Target
    accounts: Accounts
    victim: Victim
    seconds: float
    finished_game: int | None = None  # a public finished game (reviewable by anyone)
    document: dict[str, Any] | None = None  # its export (importable)
    pids: dict[str, list[int]] = field(default_factory=dict)  # "live", "deliveries" -> pids
    shared: dict[str, Any] = field(default_factory=dict)


def until(seconds: float) -> Callable[[], bool]:
    deadline = time.monotonic() + seconds
    return lambda: time.monotonic() < deadline


def swarm(n: int, fn: Callable[[int], Any]) -> list[Any]:
    """``fn(0..n-1)`` in ``n`` threads released together; what each returned (or raised)."""
    barrier = threading.Barrier(n)

    def one(i: int) -> Any:
        with suppress(threading.BrokenBarrierError):
            barrier.wait(10)
        try:
            return fn(i)
        except Exception as exc:  # noqa: BLE001 - counted by the caller
            return exc

    with ThreadPoolExecutor(n) as pool:
        return list(pool.map(one, range(n)))


def loop_threads(n: int, seconds: float, fn: Callable[[int], None]) -> None:
    """``fn(i)`` called again and again in ``n`` threads for ``seconds``."""
    going = until(seconds)

    def worker(i: int) -> None:
        while going():
            try:
                fn(i)
            except Exception:  # noqa: BLE001 - an attacker goes on
                time.sleep(0.2)

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(seconds + 60)


def statuses(answers: list[Any]) -> Counter[str]:
    return Counter(str(a.status) if isinstance(a, Answer) else type(a).__name__ for a in answers)


def accepted(answers: list[Any]) -> int:
    """Answers that were not refused by a limit (any status but 429 and errors)."""
    return sum(1 for a in answers if isinstance(a, Answer) and a.status != 429)


def table_of(t: Target, host: Player, guests: list[Player], **create: Any) -> int:
    """A started table ``host`` created and ``guests`` joined; its id."""
    seats = len(guests) + 1
    preset = {2: "two_player", 3: "three_player"}.get(seats, "classic")
    body = {"preset": preset, **create}
    created = t.call("POST", "/games/", body, token=host.token)
    if created.status != 201:
        raise RuntimeError(f"table: {created.status} {created.code}")
    game = created.body
    for guest in guests:
        path = (
            f"/games/{game['id']}/join/"
            if game.get("is_public", True)
            else f"/games/join/{game['join_code']}/"
        )
        joined = t.call("POST", path, {}, token=guest.token)
        if joined.status not in (200, 201):
            raise RuntimeError(f"join: {joined.status} {joined.code}")
    started = t.call("POST", f"/games/{game['id']}/start/", {}, token=host.token)
    if started.status != 200:
        raise RuntimeError(f"start: {started.status} {started.code}")
    return int(game["id"])


def chat_loop(
    t: Target, speaker: Player, game_id: int, seconds: float, every: float
) -> Counter[int]:
    sent: Counter[int] = Counter()
    going = until(seconds)
    while going():
        sent[
            t.call("POST", f"/games/{game_id}/chat/", {"phrase": "hello"}, speaker.token).status
        ] += 1
        time.sleep(every)
    return sent


def rss_bytes(pids: list[int]) -> int:
    total = 0
    for pid in pids:
        with suppress(OSError):
            for line in open(f"/proc/{pid}/status").read().splitlines():  # noqa: SIM115
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    return total


def tree(pids: list[int]) -> list[int]:
    from bench.harness import process_tree

    return [p for pid in pids for p in process_tree(pid)]


# ============================================================================== 1
def slow_webhooks(ctx: Ctx, out: Outcome) -> None:
    t = ctx.target
    owner, chatter = ctx.accounts.new("Hooked"), ctx.accounts.new("Chatter")
    silent = Silent()
    try:
        made = [
            t.call(
                "POST",
                "/players/me/webhooks/",
                {"url": f"http://127.0.0.1:{silent.port}/hook/{i}", "description": f"hook {i}"},
                owner.token,
            )
            for i in range(10)
        ]
        created = sum(1 for a in made if a.status == 201)
        if not created:
            out.skipped = f"no webhook could be made: {statuses(made)} {made[0].code}"
            return
        game_id = table_of(t, chatter, [owner])
        sent = chat_loop(t, chatter, game_id, ctx.seconds, 2.5)
        out.say(f"{created} webhooks at a silent receiver, chat answered {dict(sent)}")
        out.say(f"{silent.accepted} delivery connections accepted")
        out.check(sent.get(201, 0) + sent.get(200, 0) > 0, f"no chat got through: {dict(sent)}")
    finally:
        silent.stop()


# ============================================================================== 2
def slashless_polls(ctx: Ctx, out: Outcome, parallel: int = 24) -> None:
    t, game_id = ctx.target, ctx.victim.game_id
    attacker = ctx.accounts.new("Poller")
    seen: Counter[int] = Counter()
    lock = threading.Lock()

    def poll(_: int) -> None:
        after = ctx.victim.after + 1000  # nothing will come: the whole wait is held
        answer = t.call(
            "GET",
            f"/games/{game_id}/events?after={after}&wait=30",
            token=attacker.token,
            timeout=45,
        )
        with lock:
            seen[answer.status] += 1

    loop_threads(parallel, ctx.seconds, poll)
    out.say(f"{sum(seen.values())} slash-less long-polls, {parallel} at a time: {dict(seen)}")
    out.check(not any(s >= 500 for s in seen), f"server errors: {dict(seen)}")


# ============================================================================== 3
def reviews_imports(ctx: Ctx, out: Outcome) -> None:
    t = ctx.target
    if not ctx.document:
        out.skipped = "no finished game to import (import_records did not run or finish)"
        return
    attacker = ctx.accounts.new("Reviewer")
    counts: Counter[str] = Counter()
    lock = threading.Lock()

    def one(_: int) -> None:
        imported = t.call(
            "POST",
            "/games/import/",
            {"document": ctx.document, "seat": 0},
            attacker.token,
            timeout=60,
        )
        with lock:
            counts[f"import {imported.status}"] += 1
        game_id = (imported.body or {}).get("id") if isinstance(imported.body, dict) else None
        if imported.status == 429:
            time.sleep(1)
        for seat in (0, 1):
            asked = t.call(
                "POST",
                f"/games/{game_id or ctx.finished_game}/review/",
                {"seat": seat},
                attacker.token,
            )
            with lock:
                counts[f"review {asked.status}"] += 1

    loop_threads(3, ctx.seconds, one)
    reviews = counts.get("review 202", 0)
    out.say(", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))
    out.check(reviews <= LIMITS["review"], f"{reviews} reviews queued (limit {LIMITS['review']}/h)")


# ============================================================================== 4
def bot_tables(ctx: Ctx, out: Outcome, tables: int = 40, preset: str = "two_player") -> None:
    t = ctx.target
    attacker = ctx.accounts.new("Botfarm")
    seats = {"two_player": 2, "three_player": 3}.get(preset, 4)
    body = {
        "preset": preset,
        "spectate": True,
        "bots": [{"seat": s, "level": "hard"} for s in range(seats)],
    }

    def one(_: int) -> str:
        created = t.call("POST", "/games/", body, attacker.token)
        if created.status != 201:
            return f"create {created.status}"
        started = t.call("POST", f"/games/{created.body['id']}/start/", {}, attacker.token)
        return f"start {started.status}"

    began = time.monotonic()
    results = Counter(str(r) for r in swarm(min(tables, 20), one))
    if tables > 20:
        results += Counter(str(r) for r in swarm(tables - 20, one))
    took = time.monotonic() - began
    started = results.get("start 200", 0)
    out.say(f"{tables} all-bot hard tables asked in {took:.1f} s: {dict(results)}")
    out.check(started < tables, f"all {started} tables of bots started")
    time.sleep(max(0.0, ctx.seconds - took))


# ============================================================================== 5
def push_rebinding(ctx: Ctx, out: Outcome) -> None:
    out.skipped = (
        "needs a name that resolves alternately to a public and a loopback address: DNS "
        "control this machine does not give (no resolver of ours; the hosts file cannot flip), "
        "and no traffic may leave loopback"
    )


# ============================================================================== 6
def _push_keys() -> dict[str, str]:
    import base64

    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    )

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    return {"p256dh": b64(point), "auth": b64(os.urandom(16))}


def subscribe(t: Target, player: Player, endpoint: str) -> Answer:
    return t.call(
        "POST",
        "/players/me/push-subscriptions/",
        {"endpoint": endpoint, "keys": _push_keys()},
        player.token,
    )


def push_bounds(ctx: Ctx, out: Outcome) -> None:
    t = ctx.target
    huge, trickle = BadPushService("huge"), BadPushService("trickle")
    try:
        chatter = ctx.accounts.new("PushChat")
        big, slow = ctx.accounts.new("PushHuge"), ctx.accounts.new("PushSlow")
        for player, service in ((big, huge), (slow, trickle)):
            answer = subscribe(t, player, service.url)
            if answer.status not in (200, 201):
                out.skipped = f"push subscription refused: {answer.status} {answer.code}"
                return
        before = rss_bytes(tree(ctx.pids.get("deliveries", [])))
        game_id = table_of(t, chatter, [big, slow])
        sent = chat_loop(t, chatter, game_id, ctx.seconds, 2.5)
        # Long enough to see whether a trickling answer holds a worker past the bound.
        deadline = time.monotonic() + PUSH_HOLD_MAX + 5
        while time.monotonic() < deadline and trickle.open_since:
            if trickle.longest_hold > PUSH_HOLD_MAX:
                break
            time.sleep(0.5)
        after = rss_bytes(tree(ctx.pids.get("deliveries", [])))
        held = trickle.longest_hold
        taken = max(huge.sent_bytes + [0])
        out.say(
            f"chat {dict(sent)}; huge: {huge.requests} requests, at most {taken >> 20} MiB sent "
            f"to a worker; trickle: {trickle.requests} requests, held at most {held:.0f} s"
        )
        if before:
            out.say(f"delivery workers' memory {before >> 20} -> {after >> 20} MiB")
        out.check(taken <= PUSH_READ_MAX, f"a worker took {taken >> 20} MiB of a push answer")
        out.check(held <= PUSH_HOLD_MAX, f"a trickling push service held a worker {held:.0f} s")
        if before:
            growth = after - before
            out.check(growth <= PUSH_READ_MAX, f"delivery workers grew by {growth >> 20} MiB")
    finally:
        huge.stop()
        trickle.stop()


# ============================================================================== 7
def huge_frames(ctx: Ctx, out: Outcome, sockets: int = 24, frame: int = 16 << 20) -> None:
    t, game_id = ctx.target, ctx.victim.game_id
    live = tree(ctx.pids.get("live", []))
    before = rss_bytes(live)
    head = ws_frame(0x1, b"")[:1] + bytes([0x80 | 127]) + frame.to_bytes(8, "big") + os.urandom(4)
    closed: Counter[str] = Counter()
    lock = threading.Lock()
    peak = [before]

    def one(_: int) -> None:
        ws = Socket(t, game_id or 1, None)
        sent = 0
        try:
            if ws.status != 101:
                with lock:
                    closed[f"upgrade {ws.status}"] += 1
                return
            ws.send_raw(head)
            chunk = b"x" * (256 << 10)
            with suppress(OSError):
                while sent < frame:
                    ws.send_raw(chunk)
                    sent += len(chunk)
            ws.sock.settimeout(5)
            ws.receive()
            with lock:
                closed[f"close {ws.close_code} after {sent >> 20} MiB"] += 1
        finally:
            ws.close()

    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], rss_bytes(tree(ctx.pids.get("live", []))))
            time.sleep(0.2)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    swarm(sockets, one)
    time.sleep(2)
    stop.set()
    watcher.join()
    after = rss_bytes(tree(ctx.pids.get("live", [])))
    out.say(f"{sockets} sockets x {frame >> 20} MiB frames: {dict(closed)}")
    if before:
        out.say(f"live server {before >> 20} -> peak {peak[0] >> 20} -> {after >> 20} MiB")
        out.check(
            peak[0] - before <= LIVE_GROWTH_MAX,
            f"the live server grew by {(peak[0] - before) >> 20} MiB",
        )
    time.sleep(max(0.0, ctx.seconds - 10))


# ============================================================================== 8
def throttle_race(ctx: Ctx, out: Outcome) -> None:
    t = ctx.target
    # Sign-ups from an address of their own: 60 at once against 30 an hour.
    signer = t.from_address(f"127.0.0.{200 + random.randrange(50)}")
    signups = swarm(60, lambda i: signer.call("POST", "/players/", {"display_name": f"Race{i}"}))
    got = accepted(signups)
    out.say(f"sign-ups {got}/60 accepted (limit {LIMITS['signup']})")
    out.check(got <= LIMITS["signup"], f"{got} of 60 sign-ups accepted (limit {LIMITS['signup']})")
    # Hints: 90 at once against 60 a minute.
    hinter = ctx.accounts.new("Hinter")
    created = t.call(
        "POST",
        "/games/",
        {"preset": "two_player", "hints": True, "bots": [{"seat": 1, "level": "easy"}]},
        hinter.token,
    )
    if created.status == 201:
        t.call("POST", f"/games/{created.body['id']}/start/", {}, hinter.token)
        hints = swarm(
            90, lambda i: t.call("GET", f"/games/{created.body['id']}/hint/", token=hinter.token)
        )
        got = accepted(hints)
        out.say(f"hints {got}/90 ({dict(statuses(hints))})")
        out.check(got <= LIMITS["hint"], f"{got} of 90 hints accepted (limit {LIMITS['hint']})")
    # Chat: 60 at once against 30 a minute.
    talker, other = ctx.accounts.new("Talker"), ctx.accounts.new("Listener")
    game_id = table_of(t, talker, [other])
    chats = swarm(
        60, lambda i: t.call("POST", f"/games/{game_id}/chat/", {"phrase": "hello"}, talker.token)
    )
    got = accepted(chats)
    out.say(f"chat {got}/60")
    out.check(got <= LIMITS["chat"], f"{got} of 60 chats accepted (limit {LIMITS['chat']})")
    # Reviews: 64 at once against 30 an hour (the same finished public game).
    if ctx.finished_game:
        reviewer = ctx.accounts.new("Racer")
        reviews = swarm(
            64,
            lambda i: t.call(
                "POST", f"/games/{ctx.finished_game}/review/", {"seat": i % 2}, reviewer.token
            ),
        )
        got = accepted(reviews)
        out.say(f"reviews {got}/64 ({dict(statuses(reviews))})")
        out.check(
            got <= LIMITS["review"], f"{got} of 64 reviews accepted (limit {LIMITS['review']})"
        )
    time.sleep(max(0.0, ctx.seconds - 15))


# ============================================================================== 9, 17
def rating_of(
    t: Target, player: Player, viewer: Player, fmt: str = "two_player"
) -> tuple[int, list[int]]:
    """(the sum of the rating changes, the game ids) of ``player``'s history as ``viewer``
    sees it."""
    answer = t.call("GET", f"/players/{player.id}/ratings/{fmt}/history/", token=viewer.token)
    if answer.status != 200 or not isinstance(answer.body, dict):
        return 0, []
    entries = next((v for v in answer.body.values() if isinstance(v, list)), [])
    return sum(e.get("change", 0) for e in entries), [e.get("game_id") for e in entries]


def rating_farm(ctx: Ctx, out: Outcome) -> None:
    t = ctx.target
    farmer, feeder = ctx.accounts.new("Farmer"), ctx.accounts.new("Feeder")
    private: list[int] = []
    refused: Counter[str] = Counter()
    for _ in range(4):
        try:
            game_id = table_of(t, farmer, [feeder], is_public=False, rated=True)
        except RuntimeError as exc:
            refused[str(exc)] += 1
            continue
        private.append(game_id)
        conceded = t.call("POST", f"/games/{game_id}/concede/", {}, feeder.token)
        refused[f"concede {conceded.status}"] += 1
    # The two accounts queue together, rated: paired with each other?
    paired = 0
    going = until(min(ctx.seconds, 20))
    while going() and paired < 2:
        for player in (farmer, feeder):
            t.call("POST", "/queue/", {"preset": "two_player", "rated": True}, player.token)
        deadline = time.monotonic() + 8
        paired_id: int | None = None
        while time.monotonic() < deadline and paired_id is None:
            status = t.call("GET", "/queue/", token=feeder.token)
            body = status.body if isinstance(status.body, dict) else {}
            paired_id = body.get("game_id")
            time.sleep(0.5)
        if paired_id is None:
            for player in (farmer, feeder):
                t.call("DELETE", "/queue/", token=player.token)
            break
        paired += 1
        t.call("POST", f"/games/{paired_id}/concede/", {}, feeder.token)
    gained, _ = rating_of(t, farmer, farmer)
    out.say(
        f"{len(private)} rated private tables conceded at once ({dict(refused)}); "
        f"paired with itself {paired} times; rating gained {gained:+d}"
    )
    out.check(gained <= RATING_GAIN_MAX, f"rating gained {gained:+d} (at most {RATING_GAIN_MAX})")
    ctx.shared["farm"] = (farmer, private)


def rating_privacy(ctx: Ctx, out: Outcome) -> None:
    t = ctx.target
    if "farm" not in ctx.shared:
        rating_farm(ctx, Outcome("rating_farm (for rating_privacy)"))
    farmer, private = ctx.shared["farm"]
    _, own = rating_of(t, farmer, farmer)
    outsider = ctx.accounts.new("Curious")
    _, seen = rating_of(t, farmer, outsider)
    shown = sorted(set(seen) & set(private))
    out.say(f"own history lists {len(own)} games; an outsider's view {len(seen)}")
    out.check(not shown, f"private games {shown} listed to an outsider")


# ============================================================================== 10
def pause_spam(ctx: Ctx, out: Outcome) -> None:
    t = ctx.target
    spammer, opponent = ctx.accounts.new("Pauser"), ctx.accounts.new("Opponent")
    game_id = table_of(t, spammer, [opponent], turn_seconds=120)
    spam: Counter[int] = Counter()
    moves: Counter[str] = Counter()
    version0 = t.call("GET", f"/games/{game_id}/", token=opponent.token).body["version"]
    stop = threading.Event()

    def spamming() -> None:
        while not stop.is_set():
            spam[t.call("POST", f"/games/{game_id}/pause/", {}, spammer.token).status] += 1
            spam[t.call("POST", f"/games/{game_id}/pause/decline/", {}, spammer.token).status] += 1

    def playing() -> None:
        # Both seats play their turns (the spammer too, so the game goes on); the opponent's
        # refusals are what the attack costs the other side.
        while not stop.is_set():
            for who, player in (("opponent", opponent), ("spammer", spammer)):
                view = t.call("GET", f"/games/{game_id}/", token=player.token).body
                legal = (view.get("state") or {}).get("legal_actions") or []
                if not legal:
                    continue
                acted = t.call(
                    "POST",
                    f"/games/{game_id}/actions/",
                    {"action": choose(legal), "expected_version": view["version"]},
                    player.token,
                )
                moves[f"{who} {acted.status} {acted.code or ''}".strip()] += 1
            time.sleep(0.05)

    threads = [threading.Thread(target=f, daemon=True) for f in (spamming, spamming, playing)]
    for thread in threads:
        thread.start()
    time.sleep(ctx.seconds)
    stop.set()
    for thread in threads:
        thread.join(30)
    version1 = t.call("GET", f"/games/{game_id}/", token=opponent.token).body["version"]
    facts = version1 - version0 - sum(n for k, n in moves.items() if " 201" in k)
    tried = sum(n for k, n in moves.items() if k.startswith("opponent"))
    stale = sum(n for k, n in moves.items() if k.startswith("opponent 409"))
    share = stale / tried if tried else 0.0
    per_minute = facts * 60 / ctx.seconds
    out.say(
        f"{sum(spam.values())} pause calls {dict(spam)}; {facts} pause facts logged "
        f"({per_minute:.0f}/min); the opponent's moves: {tried}, {stale} refused as stale"
    )
    out.check(
        per_minute <= PAUSE_FACTS_PER_MINUTE_MAX, f"{facts} pause facts in {ctx.seconds:.0f} s"
    )
    out.check(
        share <= STALE_SHARE_MAX, f"{stale} of {tried} of the opponent's moves refused as stale"
    )


# ============================================================================== 11
def imports_parallel(ctx: Ctx, out: Outcome, parallel: int = 12) -> None:
    t = ctx.target
    if not ctx.document:
        out.skipped = "no finished game to import (import_records did not run or finish)"
        return
    importer = ctx.accounts.new("Importer")
    counts: Counter[str] = Counter()
    lock = threading.Lock()

    def one(_: int) -> None:
        answer = t.call(
            "POST",
            "/games/import/",
            {"document": ctx.document, "seat": 0},
            importer.token,
            timeout=60,
        )
        told = told_refusal(answer.status, answer.code, "retry-after" in answer.headers)
        with lock:
            counts[f"{answer.status} {answer.code or ''}".strip()] += 1
            if answer.status >= 500 and not told:
                counts["server error"] += 1
        if answer.status in (429, 503):
            time.sleep(0.2)  # as a client told to come back would, a little

    loop_threads(parallel, ctx.seconds, one)
    out.say(f"{sum(counts.values())} imports, {parallel} at a time: {dict(counts)}")
    out.check(not counts.get("server error"), f"server errors: {dict(counts)}")


# ============================================================================== 14
def socket_floods(ctx: Ctx, out: Outcome) -> None:
    t = ctx.target
    owner, other = ctx.accounts.new("Sockets"), ctx.accounts.new("SockOpp")
    game_id = table_of(t, owner, [other])
    sockets: list[Socket] = []
    try:
        for _ in range(SOCKETS_TRIED):
            ws = Socket(t, game_id, owner.token)
            sockets.append(ws)
            if ws.status == 101:
                ws.sock.settimeout(3)
                first = ws.receive()
                if first is None:
                    ws.status = -1  # upgraded, then closed
        opened = sum(1 for ws in sockets if ws.status == 101)
        streams = [
            stream_open(t, f"/games/{game_id}/stream/", owner.token) for _ in range(SOCKETS_TRIED)
        ]
        streamed = sum(1 for s in streams if s == 200)
        out.say(
            f"one token: {opened}/{SOCKETS_TRIED} sockets, {streamed}/{SOCKETS_TRIED} streams open"
        )
        out.check(opened < SOCKETS_TRIED, f"all {opened} sockets of one token accepted")
        out.check(streamed < SOCKETS_TRIED, f"all {streamed} streams of one token accepted")
    finally:
        for ws in sockets:
            ws.close()
        streams_close()
    # One socket, a flood of action messages (stale versions: each is a whole action call).
    ws = Socket(t, game_id, owner.token)
    answered: Counter[str] = Counter()
    try:
        ws.sock.settimeout(5)
        ws.receive()
        message = {"type": "action", "expected_version": 0, "action": {"type": "draw"}}
        batch = b"".join(
            ws_frame(0x1, json.dumps({**message, "request_id": i}).encode())
            for i in range(FLOOD_MESSAGES)
        )
        with suppress(OSError):
            ws.send_raw(batch)
        going = until(min(ctx.seconds, 20))
        while going():
            got = ws.receive()
            if got is None:
                answered[f"closed {ws.close_code}"] += 1
                break
            if got.get("type") == "action_result":
                answered[f"result {got.get('status')}"] += 1
            elif got.get("type") == "error":
                answered[f"error {(got.get('problem') or {}).get('code')}"] += 1
            if sum(answered.values()) >= FLOOD_MESSAGES:
                break
    finally:
        ws.close()
    worked = sum(n for k, n in answered.items() if k.startswith("result") and k != "result 429")
    out.say(f"{FLOOD_MESSAGES} action messages on one socket: {dict(answered)}")
    out.check(worked < FLOOD_MESSAGES, f"all {worked} action messages were served")


# ============================================================================== 15
def cards_named(value: Any) -> set[str]:
    names = {r + s for r in CARD_RANKS for s in CARD_SUITS} | {"JK"}
    found: set[str] = set()
    if isinstance(value, str):
        if value in names:
            found.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            found |= cards_named(item)
    elif isinstance(value, list):
        for item in value:
            found |= cards_named(item)
    return found


def review_leak(ctx: Ctx, out: Outcome) -> None:
    """A public table, the host against a bot, played to the end of the first round and then
    left to its timer (1 s a turn, abandoned at the first timeout); an outsider asks for the
    bot seat's review and reads it: every card it names must be one the outsider's own views
    of the game (export, replay, events) name."""
    t = ctx.target
    host, outsider = ctx.accounts.new("Leaver"), ctx.accounts.new("Outsider")
    created = t.call(
        "POST",
        "/games/",
        {
            "preset": "two_player",
            "seat": 0,
            "bots": [{"seat": 1, "level": "easy"}],
            "turn_seconds": 5,
            "timeout_limit": 1,
            "timeout_outcome": "abandon",
        },
        host.token,
    )
    if created.status != 201:
        out.skipped = f"the table: {created.status} {created.code}"
        return
    game_id = created.body["id"]
    t.call("POST", f"/games/{game_id}/start/", {}, host.token)
    going = until(max(ctx.seconds, 60))
    after, rounds_over = 0, False
    while going() and not rounds_over:
        events = t.call("GET", f"/games/{game_id}/events/?after={after}", token=host.token).body
        for event in (events or {}).get("events") or []:
            after = max(after, event["seq"])
            rounds_over |= any(e.get("kind") == "round_ended" for e in event.get("effects") or [])
        view = t.call("GET", f"/games/{game_id}/", token=host.token).body
        if rounds_over or view.get("status") != "active":
            break
        state = view.get("state") or {}
        legal = state.get("legal_actions") or []
        if state.get("to_act") == 0 and legal and view["version"] == after:
            t.call(
                "POST",
                f"/games/{game_id}/actions/",
                {"action": choose(legal), "expected_version": view["version"]},
                host.token,
            )
        else:
            time.sleep(0.05)
    # Now leave it to the timer: abandoned after a timeout of the host's seat.
    while going():
        view = t.call("GET", f"/games/{game_id}/", token=host.token).body
        if view.get("status") != "active":
            break
        time.sleep(1)
    status = t.call("GET", f"/games/{game_id}/", token=outsider.token).body.get("status")
    if status != "abandoned":
        out.skipped = f"the game did not end abandoned in time (status {status})"
        return
    asked = t.call("POST", f"/games/{game_id}/review/", {"seat": 1}, outsider.token)
    out.say(f"review asked by an outsider: {asked.status} {asked.code or ''}")
    review = asked.body if isinstance(asked.body, dict) else {}
    deadline = time.monotonic() + 120
    while (
        asked.status in (200, 202)
        and review.get("status") == "pending"
        and time.monotonic() < deadline
    ):
        time.sleep(1)
        got = t.call("GET", f"/games/{game_id}/review/?seat=1", token=outsider.token)
        review = got.body if isinstance(got.body, dict) else {}
    if asked.status not in (200, 202):
        out.check(asked.status < 500, f"review answered {asked.status}")
        return
    known: set[str] = set()
    for path in (
        f"/games/{game_id}/export/",
        f"/games/{game_id}/replay/?at=last",
        f"/games/{game_id}/events/?limit=500",
    ):
        known |= cards_named(t.call("GET", path, token=outsider.token).body)
    named = cards_named(review.get("decisions") or review)
    leaked = sorted(named - known)
    out.say(
        f"review {review.get('status')}: names {len(named)} cards, "
        f"{len(leaked)} never shown to the outsider"
    )
    out.check(not leaked, f"the review named hidden cards {leaked[:8]}")


# ============================================================================== 16
def push_takeover(ctx: Ctx, out: Outcome) -> None:
    t = ctx.target
    owner, thief = ctx.accounts.new("PushOwner"), ctx.accounts.new("PushThief")
    endpoint = f"http://127.0.0.1:9/push/{os.urandom(8).hex()}"  # nothing is sent to it here
    first = subscribe(t, owner, endpoint)
    if first.status not in (200, 201):
        out.skipped = f"push subscription refused: {first.status} {first.code}"
        return
    second = subscribe(t, thief, endpoint)
    mine = t.call("GET", "/players/me/push-subscriptions/", token=owner.token).body or {}
    kept = any(s.get("endpoint") == endpoint for s in mine.get("subscriptions", []))
    out.say(
        f"the same endpoint by another player: {second.status} {second.code or ''}; "
        f"the owner still has it: {kept}"
    )
    out.check(kept and second.status >= 400, "another player took the push subscription over")


ISOLATION: dict[str, Callable[[Ctx, Outcome], None]] = {
    "slashless_polls": slashless_polls,
    "throttle_race": throttle_race,
    "imports_parallel": imports_parallel,
    "huge_frames": huge_frames,
    "socket_floods": socket_floods,
    "pause_spam": pause_spam,
    "rating_farm": rating_farm,
    "rating_privacy": rating_privacy,
    "review_leak": review_leak,
    "push_takeover": push_takeover,
    "push_rebinding": push_rebinding,
    "push_bounds": push_bounds,
    "slow_webhooks": slow_webhooks,
    "reviews_imports": reviews_imports,
    "bot_tables": bot_tables,  # last: its tables go on playing after it
}
# Attacks whose effect on the victim is not the point (a check of a rule, short): no latency
# row is required of them, but it is printed.
FINDING = {
    "slow_webhooks": 1,
    "slashless_polls": 2,
    "reviews_imports": 3,
    "bot_tables": 4,
    "push_rebinding": 5,
    "push_bounds": 6,
    "huge_frames": 7,
    "throttle_race": 8,
    "rating_farm": 9,
    "pause_spam": 10,
    "imports_parallel": 11,
    "socket_floods": 14,
    "review_leak": 15,
    "push_takeover": 16,
    "rating_privacy": 17,
}
