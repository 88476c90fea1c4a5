"""Native push latency: from a move (``POST /api/v1/games/{id}/actions/``) to the local FCM and
APNs receivers getting the "your turn" message.

Two players, each with an FCM and an APNs device, play two-player games through Django's test
client in this process, against a fresh PostgreSQL database (bench/harness.py, dropped at the
end). A move that passes the turn commits its notification and deliveries; after the commit
their tasks go to Redis and ONE Celery worker set, as docker-compose runs them (the deliveries
on their own queue, a thread pool), sends them: the FCM access token fetched once (cached), the
APNs provider token signed once (cached), each message over HTTP/2 with TLS to the local
receivers (tests/notifications/push_receivers.py: hypercorn in this process, every JWT and
bearer token verified). ``--in-process``: no broker, the deliveries on a thread of this process
(``NOTIFICATION_DELIVERY_IN_PROCESS``, as ``make run`` does; it opens a database connection per
delivery).

The figure is the time from just before the move's request to each message's arrival at its
receiver (both on this process's ``time.monotonic``), p50/p95 over the moves that passed the
turn; the first message of each platform (the token exchange, the TLS handshake) is reported
apart, and the move's own answer beside, for scale.

    python -m bench.push_latency [--turns 200] [--in-process]

Needs PostgreSQL (and Redis without ``--in-process``). Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.driver import choose
from bench.harness import percentile, stack


class Receivers:
    """The local FCM and APNs receivers (started before Django: their URLs go into the
    settings of this process and of the workers)."""

    def __init__(self) -> None:
        from tests.notifications import push_receivers as receivers

        self.directory = Path(tempfile.mkdtemp(prefix="push-bench-"))
        tls = receivers.tls_files(self.directory)
        self.fcm = receivers.FcmReceiver()
        self.fcm.server = receivers.Http2Server(self.fcm, tls).start()
        self.apns = receivers.ApnsReceiver()
        self.apns.server = receivers.Http2Server(self.apns, tls).start()
        key_file = self.directory / "AuthKey.p8"
        key_file.write_bytes(self.apns.key_pem())
        self.env = {
            "FCM_SERVICE_ACCOUNT_JSON": json.dumps(self.fcm.service_account()),
            "FCM_ENDPOINT": self.fcm.base_url,
            "APNS_KEY_FILE": str(key_file),
            "APNS_KEY_ID": receivers.KEY_ID,
            "APNS_TEAM_ID": receivers.TEAM_ID,
            "APNS_TOPIC": receivers.TOPIC,
            "APNS_ENDPOINT": self.apns.base_url,
            "PUSH_TLS_CA_FILE": tls.ca_file,
            "NATIVE_PUSH_ALLOW_HOSTS": "127.0.0.1",
        }

    def stop(self) -> None:
        for receiver in (self.fcm, self.apns):
            if receiver.server is not None:
                receiver.server.stop()


@contextlib.contextmanager
def environment(receivers: Receivers, in_process: bool) -> Iterator[str]:
    """A fresh, migrated PostgreSQL database, and either one Celery worker set (as
    docker-compose runs them: the deliveries on their own queue) or none (no broker: the
    deliveries on a thread of this process). Yields how deliveries run."""
    overrides: dict[str, str | None] = {**receivers.env, "LOG_LEVEL": "WARNING"}
    if in_process:
        overrides |= {"REDIS_URL": None, "CACHE_URL": None, "CELERY_BROKER_URL": None}
        overrides["NOTIFICATION_DELIVERY_IN_PROCESS"] = "1"
    with stack(web=0, workers=0 if in_process else 1, env_overrides=overrides) as s:
        for name in ("REDIS_URL", "CACHE_URL", "CELERY_BROKER_URL"):
            os.environ.pop(name, None)
        os.environ.update(s.env)
        os.environ["ALLOWED_HOSTS"] = "testserver"
        yield "a thread of this process (no broker)" if in_process else "a Celery worker"


class Player:
    def __init__(self, name: str) -> None:
        from django.test import Client

        self.client = Client(HTTP_ACCEPT="application/json")
        self.token = ""
        answer = self.post("/api/v1/players/", {"display_name": name})
        self.id, self.token = int(answer["id"]), str(answer["token"])

    def post(self, path: str, body: Any) -> Any:
        headers = {"HTTP_AUTHORIZATION": f"Token {self.token}"} if self.token else {}
        response = self.client.post(
            path,
            data=json.dumps(body),
            content_type="application/json",
            **headers,  # type: ignore[arg-type]
        )
        assert response.status_code in (200, 201), response.content
        return json.loads(response.content)

    def get(self, path: str) -> Any:
        response = self.client.get(path, HTTP_AUTHORIZATION=f"Token {self.token}")
        assert response.status_code == 200, response.content
        return json.loads(response.content)


def _kind_and_version(message: Any) -> tuple[str, str]:
    body = message.json()
    data = body["message"]["data"] if "message" in body else body["canasta"]
    return str(data.get("kind")), str(data.get("game_version"))


def _your_turn(receiver: Any, seen: int, *, version: int) -> float | None:
    """When the "your turn" message of the game's ``version`` arrived (None: not in 10 s)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        got = receiver.wait_for(seen + 1, timeout=0.5)
        for message in got[seen:]:
            if _kind_and_version(message) == ("your_turn", str(version)):
                return float(message.at)
        seen = len(got)
    return None


def run(receivers: Receivers, turns: int, how: str) -> None:
    import django

    django.setup()
    from notifications.models import DeviceRegistration

    fcm, apns = receivers.fcm, receivers.apns
    players = [Player("bench-a"), Player("bench-b")]
    for i, player in enumerate(players):
        DeviceRegistration.objects.create(player_id=player.id, platform="fcm", token=f"fcm-{i}" * 8)
        DeviceRegistration.objects.create(player_id=player.id, platform="apns", token=f"{i}a" * 32)

    latencies: dict[str, list[float]] = {"fcm": [], "apns": []}
    moves: list[float] = []
    first: dict[str, float] = {}
    lost = passed = 0
    game_id, view = 0, None
    while passed < turns:
        if view is None or view["status"] != "active":
            made = players[0].post("/api/v1/games/", {"preset": "two_player", "seat": 0})
            game_id = int(made["id"])
            players[1].post(f"/api/v1/games/{game_id}/join/", {})
            players[0].post(f"/api/v1/games/{game_id}/start/", {})
            view = players[0].get(f"/api/v1/games/{game_id}/")
        seat = view["state"]["to_act"]
        actor = players[seat]
        mine = actor.get(f"/api/v1/games/{game_id}/")
        before = (len(fcm.messages()), len(apns.messages()))
        body = {
            "action": choose(mine["state"]["legal_actions"]),
            "expected_version": mine["version"],
        }
        started = time.monotonic()
        view = actor.post(f"/api/v1/games/{game_id}/actions/", body)["game"]
        answered = time.monotonic() - started
        if view["status"] != "active" or view["state"]["to_act"] == seat:
            continue  # the turn did not pass: nobody is told
        passed += 1
        moves.append(answered)
        for name, receiver, count in (("fcm", fcm, before[0]), ("apns", apns, before[1])):
            arrived = _your_turn(receiver, count, version=view["version"])
            if arrived is None:
                lost += 1
                continue
            seconds = arrived - started
            if name not in first:
                first[name] = seconds
            else:
                latencies[name].append(seconds)
    problems = fcm.problems + apns.problems
    print(f"deliveries: {how}; PostgreSQL; receivers: HTTP/2 + TLS on loopback")
    print(f"turns passed: {turns}, messages lost: {lost}, receiver problems: {len(problems)}")
    ms = [v * 1000 for v in moves]
    print(
        f"the move's own answer:  p50 {percentile(ms, 50):6.1f} ms  "
        f"p95 {percentile(ms, 95):6.1f} ms  (n={len(ms)})"
    )
    for name in ("fcm", "apns"):
        ms = [v * 1000 for v in latencies[name]]
        print(
            f"{name:5} move -> receiver: p50 {percentile(ms, 50):6.1f} ms  "
            f"p95 {percentile(ms, 95):6.1f} ms  max {max(ms):6.1f} ms  "
            f"(mean {statistics.fmean(ms):.1f}, n={len(ms)}); "
            f"first message {first[name] * 1000:.1f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument(
        "--in-process",
        action="store_true",
        help="no broker: deliveries on a thread of this process",
    )
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    receivers = Receivers()
    try:
        with environment(receivers, args.in_process) as how:
            run(receivers, args.turns, how)
    finally:
        receivers.stop()


if __name__ == "__main__":
    main()
