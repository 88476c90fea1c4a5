"""Bytes a phone receives per whole game, over REST and over the socket, before and after the
light payloads (docs/api.md, "Light payloads").

One player (seat 0) plays a whole game against bots (easy by default) through the API, in this
process (Django's test client on a scratch database: ``DATABASE_URL`` PostgreSQL, else a
temporary SQLite file; bots play in the request, as without a broker). Every answer the player
gets is kept, and the bytes of each way of playing are counted from them (response bodies; the
headers are left out, the same few hundred bytes per request either way):

REST
- before: the naive client: ``GET /games/{id}/`` before each action (events said nothing of
  whose turn it is), then the full answer of ``POST .../actions/``; no compression.
- gzip: the same, gzipped (Django's ``GZipMiddleware``, as nginx ``gzip_comp_level 5`` close).
- after: ``Prefer: return=minimal`` answers (the legal actions and the bots' moves come in the
  answer: no GET but the first one), gzipped.

Socket (``/games/{id}/socket/``)
- before: the ``game_event`` messages pushed to the seat and the full ``action_result``s;
- deflate: the same, each message compressed as permessage-deflate does it (raw deflate, the
  window kept between messages, the 4-byte tail dropped);
- minimal: ``"return": "minimal"`` answers;
- after: minimal answers and permessage-deflate.

The minimal answer of each action is built from its full answer by the function the views use
(``games.api.answers.answer_minimal``), so both are the answers of the same game.

    .venv/bin/python -m bench.payload_bytes [--preset classic] [--games 1] [--level easy]
        [--target-score N] [--seed S]   (the deals are random: figures vary a little per run)
"""

from __future__ import annotations

import argparse
import gzip
import random
import sys
import time
import zlib
from dataclasses import dataclass, field
from typing import Any

from bench.scratch import django_setup, scratch_database


@dataclass
class Tally:
    """The bytes of one way of playing, per game."""

    label: str
    transport: str
    bytes: int = 0
    messages: int = 0

    def add(self, size: int) -> None:
        self.bytes += size
        self.messages += 1


def gzipped(data: bytes) -> int:
    """Bytes of ``data`` gzipped as Django's GZipMiddleware does (level 6 close enough to
    nginx's 5), or as it is when that is not shorter (or under 200 bytes: left alone)."""
    if len(data) < 200:
        return len(data)
    return min(len(data), len(gzip.compress(data, compresslevel=6, mtime=0)))


@dataclass
class Deflate:
    """permessage-deflate of one direction of a socket (RFC 7692, context takeover)."""

    z: Any = field(default_factory=lambda: zlib.compressobj(6, zlib.DEFLATED, -15))

    def size(self, text: str) -> int:
        out = self.z.compress(text.encode()) + self.z.flush(zlib.Z_SYNC_FLUSH)
        return len(out) - 4  # the 00 00 ff ff tail is not sent


def play_one(preset: str, level: str, target: int | None, rng: random.Random) -> dict[str, Tally]:
    from django.contrib.auth import get_user_model
    from rest_framework.test import APIClient

    from accounts.models import Player
    from games.api.answers import answer_full, answer_minimal
    from games.models import Game, GameEvent
    from games.selectors.live import Cursor, json_text, live_items_merge

    user = get_user_model().objects.create_user(username=f"ada-{rng.randrange(1 << 30)}")
    player = Player.objects.filter(user=user).first() or Player.objects.create(
        user=user, display_name="Ada"
    )
    client = APIClient()
    client.force_authenticate(user=user)
    options = {"target_score": target} if target else {}
    created = client.post(
        "/api/v1/games/",
        {
            "preset": preset,
            "seat": 0,
            "options": options,
            "bots": [{"seat": s, "level": level} for s in (1, 2, 3)],
        },
        format="json",
    )
    if created.status_code != 201:  # a two-player preset: one bot
        created = client.post(
            "/api/v1/games/",
            {
                "preset": preset,
                "seat": 0,
                "options": options,
                "bots": [{"seat": 1, "level": level}],
            },
            format="json",
        )
    assert created.status_code == 201, created.content
    game_id = created.json()["id"]
    started = client.post(f"/api/v1/games/{game_id}/start/", {}, format="json")
    assert started.status_code == 200, started.content

    t = {
        "rest_before": Tally("before: GET before each action + full answers", "REST"),
        "rest_gzip": Tally("gzip: the same, gzipped", "REST"),
        "rest_after": Tally("after: minimal answers, gzip, one GET", "REST"),
        "ws_before": Tally("before: events + full answers", "socket"),
        "ws_deflate": Tally("deflate: events + full answers", "socket"),
        "ws_minimal": Tally("minimal: events + minimal answers", "socket"),
        "ws_after": Tally("after: events + minimal answers, deflate", "socket"),
    }
    full_z, after_z = Deflate(), Deflate()
    first = client.get(f"/api/v1/games/{game_id}/")
    t["rest_after"].add(gzipped(first.content))
    same = client.get(f"/api/v1/games/{game_id}/", HTTP_IF_NONE_MATCH=first["ETag"])
    t["get_200"] = Tally("GET /games/{id}/: 200, the whole game", "GET")
    t["get_200"].add(len(first.content))
    t["get_200_gzip"] = Tally("GET /games/{id}/: 200, gzipped", "GET")
    t["get_200_gzip"].add(gzipped(first.content))
    t["get_304"] = Tally("GET /games/{id}/ with If-None-Match, unchanged: 304", "GET")
    t["get_304"].add(len(same.content) if same.status_code == 304 else -1)
    game = first.json()
    pushed = 0
    request_id = 0
    while game["status"] == "active":
        state = game["state"]
        if state["to_act"] != game["your_seat"]:  # a bot's turn pending: should not happen
            raise RuntimeError("the bots did not play in the request")
        refetch = client.get(f"/api/v1/games/{game_id}/")
        t["rest_before"].add(len(refetch.content))
        t["rest_gzip"].add(gzipped(refetch.content))
        legal = state["legal_actions"]
        action = rng.choice(legal) if rng.random() < 0.2 else _preferred(legal)
        answer = client.post(
            f"/api/v1/games/{game_id}/actions/",
            {"action": action, "expected_version": game["version"]},
            format="json",
        )
        assert answer.status_code == 201, answer.content
        full_body = answer.json()
        t["rest_before"].add(len(answer.content))
        t["rest_gzip"].add(gzipped(answer.content))
        g = Game.objects.get(pk=game_id)
        minimal = answer_minimal(full_body, g, player)
        minimal_bytes = json_text(minimal).encode()
        t["rest_after"].add(gzipped(minimal_bytes))
        # the socket: the events pushed to seat 0 since the last time, then the answer
        moves = list(GameEvent.objects.filter(game_id=game_id, seq__gt=pushed).order_by("seq"))
        items = live_items_merge(moves, [], 0, Cursor(pushed, 0), (g.version, g.to_act))
        for item in items:
            for key in ("ws_before", "ws_deflate", "ws_minimal", "ws_after"):
                t[key].add(0)
            t["ws_before"].bytes += len(item.socket.encode())
            t["ws_minimal"].bytes += len(item.socket.encode())
            t["ws_deflate"].bytes += full_z.size(item.socket)
            t["ws_after"].bytes += after_z.size(item.socket)
        pushed = g.version
        request_id += 1
        head = {"type": "action_result", "request_id": str(request_id), "status": 201}
        full_text = json_text(
            {**head, "replayed": False, "body": {"outcome": "applied", **answer_full(full_body)}}
        )
        minimal_text = json_text(
            {**head, "replayed": False, "body": {"outcome": "minimal", **minimal}}
        )
        for key, text, z in (
            ("ws_before", full_text, None),
            ("ws_deflate", full_text, full_z),
            ("ws_minimal", minimal_text, None),
            ("ws_after", minimal_text, after_z),
        ):
            t[key].add(z.size(text) if z is not None else len(text.encode()))
        game = full_body["game"]
    return t


def _preferred(legal: list[dict[str, Any]]) -> dict[str, Any]:
    from games.services.bots import FALLBACK_PREFERENCE

    return min(legal, key=lambda a: FALLBACK_PREFERENCE.index(a["type"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--level", default="easy")
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--target-score", type=int, default=0, help="0: the preset's")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    with scratch_database("payload") as url:
        django_setup(url, "payload")
        from django.conf import settings

        from core.throttling import ClientScopedRateThrottle

        settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
        ClientScopedRateThrottle.allow_request = lambda *_a, **_k: True  # type: ignore[method-assign]
        rng = random.Random(args.seed)
        totals: dict[str, Tally] = {}
        actions = 0
        started = time.monotonic()
        for _ in range(args.games):
            one = play_one(args.preset, args.level, args.target_score or None, rng)
            actions += one["rest_after"].messages - 1
            for key, tally in one.items():
                total = totals.setdefault(key, Tally(tally.label, tally.transport))
                total.bytes += tally.bytes
                total.messages += tally.messages
        seconds = time.monotonic() - started
    n = args.games
    print(
        f"preset {args.preset}, seat 0 against {args.level} bots, {n} game(s), "
        f"{actions / n:.0f} actions of the player per game, {seconds:.0f} s"
    )
    print("\n| one request | bytes of the body |")
    print("|---|---|")
    for key in ("get_200", "get_200_gzip", "get_304"):
        print(f"| {totals[key].label} | {totals[key].bytes // n} |")
    print("\n| transport | how | messages per game | KiB per game | vs before |")
    print("|---|---|---|---|---|")
    for transport, before in (("REST", "rest_before"), ("socket", "ws_before")):
        base = totals[before].bytes
        for tally in totals.values():
            if tally.transport != transport:
                continue
            print(
                f"| {transport} | {tally.label} | {tally.messages / n:.0f} | "
                f"{tally.bytes / n / 1024:.1f} | {tally.bytes / base:.1%} |"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
