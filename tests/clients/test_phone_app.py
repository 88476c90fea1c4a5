"""The service as a phone app uses it, end to end, as one story.

Ada's app speaks Spanish and accepts gzip; Bob is the other player at a two-player casual table
with a turn timer (one timeout hands a seat to a stand-in bot). The story:

1. Ada signs up as a guest and chooses Spanish: every JSON answer says ``Content-Language: es``,
   and those big enough come gzipped (decoded here and checked against the schema).
2. Her app registers an FCM and an APNs device.
3. When Bob's move passes the turn to her, "your turn" reaches both local push receivers
   (tests/notifications/push_receivers.py: HTTP/2 over TLS, the FCM assertion and access
   token and the APNs provider token verified), in Spanish, with the whitelisted fields and no
   card; the time from Bob's request to each arrival is printed.
4. The app goes to the background (its socket closes); her turn runs out (the timer is driven
   with its deadline passed, not waited for): a stand-in holds her seat and her game view
   offers ``reclaim_url``; she takes it back with ``POST .../seat/reclaim/``. Later, away
   again (her last sighting set a minute back), reopening the socket within the grace takes it
   back by itself, and she plays a turn on it (``"return": "minimal"``). Both returns are in
   the log as ``seat_returned``.
5. She plays on with conditional GETs (304 while nothing changed, 200 and a new tag after a
   move) and minimal answers (``Prefer: return=minimal``, ``Preference-Applied``), choosing
   each next action from the minimal answer's ``legal_actions``, until the round ends.
6. The game verifies (``game_verify`` and ``manage.py replay <id> --verify``).

In-process: the API through Django's test client (its middleware, gzip and languages included),
the socket through the ASGI application (``Socket`` of tests/games/api/test_socket.py), the
receivers real HTTP/2 servers. On PostgreSQL (with Redis: the live feed's wake-ups and the
cache go through it) the service's own delivery thread sends
(``NOTIFICATION_DELIVERY_IN_PROCESS``, as ``make run`` does); on SQLite each delivery is
attempted by the committing thread right after the commit (``_deliveries_run`` says why).
Schema checks use the committed openapi.yaml, or the
one ``CANASTA_OPENAPI`` names.
"""

from __future__ import annotations

import gzip
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.core.cache import cache
from django.core.management import call_command
from django.db import connection
from django.utils import timezone, translation
from rest_framework.test import APIClient

from games.engine import card_text
from games.models import Game, Seat
from games.presence import KEY as PRESENCE_KEY
from games.presence import PRESENCE_WINDOW_SECONDS
from games.selectors.verify import game_verify
from games.services.deadlines import grace
from games.services.timers import turn_timer_expire_apply
from notifications.tasks import notification_deliver
from tests.games.api.conftest import (  # noqa: F401 - eager_bots: bots and tasks in-process
    PlayerClient,
    SchemaCheckedClient,
    choose,
    eager_bots,
)
from tests.games.api.schema_check import check_response
from tests.games.api.test_socket import Socket, check_action_result
from tests.notifications.push_receivers import ApnsReceiver, FcmReceiver, Received

pytestmark = pytest.mark.django_db(transaction=True)

FCM_TOKEN = "phone-fcm:" + "Zq9_x-Y8.w7" * 12
APNS_TOKEN = "5f3a" * 16
PUBLIC_FIELDS = {"id", "created_at", "kind", "player_id", "game_id", "game_version"} | {
    "title",
    "text",
    "url",
    "deadline",
}
CARD_TOKENS = frozenset(card_text(c) for c in range(53))
GZIP_FROM = 1024  # bytes: a JSON answer at least this big must come compressed
MAX_STEPS = 2000  # actions, both players together, before the round must have ended
WAIT = 10.0


# ============================================================================== the app
@dataclass
class Reply:
    """One answer as the app reads it: the status, the headers, the decoded body."""

    status: int
    response: Any
    body: Any
    wire_bytes: int  # the body as sent (compressed or not)

    def __getitem__(self, name: str) -> str:
        return str(self.response[name])

    def has(self, name: str) -> bool:
        return bool(self.response.has_header(name))


class Decoded:
    """A response with its body decoded, for the schema check."""

    def __init__(self, response: Any, content: bytes) -> None:
        self.status_code = response.status_code
        self.content = content
        self._response = response

    def get(self, name: str, default: str = "") -> str:
        return str(self._response.get(name, default))


class App:
    """Ada's phone app: Spanish, gzip, a bearer of her key; every JSON answer is checked for
    its language, its compression and its schema."""

    def __init__(self) -> None:
        self.http = APIClient()
        self.token = ""
        self.player_id = 0
        self.compressed = 0  # answers that came gzipped
        self.seat = -1

    def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> Reply:
        sent = {"Accept-Language": "es", "Accept-Encoding": "gzip", **(headers or {})}
        if self.token:
            sent["Authorization"] = f"Token {self.token}"
        response = getattr(self.http, method.lower())(
            path, body, format="json" if body is not None else None, headers=sent
        )
        content = response.content
        if response.get("Content-Encoding") == "gzip":
            self.compressed += 1
            assert "Accept-Encoding" in response["Vary"]
            content = gzip.decompress(content)
        if response.status_code == 304:
            assert content == b""
            check_response(method, path, Decoded(response, content))
            return Reply(304, response, None, 0)
        if response.status_code == 204:
            return Reply(204, response, None, 0)
        assert response["Content-Language"] == "es", (path, response["Content-Language"])
        assert "Accept-Language" in response["Vary"]
        if len(content) >= GZIP_FROM and not path.rstrip("/").endswith("/players"):
            # (a sign-up answer carries a key: never compressed; canasta_service/compression.py)
            assert response.get("Content-Encoding") == "gzip", (path, len(content))
        check_response(method, path, Decoded(response, content))
        return Reply(response.status_code, response, json.loads(content), len(response.content))


def _player(name: str) -> PlayerClient:
    """Another player (a guest) on the tests' schema-checked client."""
    response = SchemaCheckedClient().post("/api/v1/players/", {"display_name": name}, format="json")
    assert response.status_code == 201, response.content
    client = PlayerClient()
    body = response.json()
    client.player_id, client.display_name, client.token = body["id"], name, body["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {client.token}")
    return client


def _game(app: App, game_id: int, etag: str | None = None) -> Reply:
    headers = {"If-None-Match": etag} if etag else None
    return app.call("GET", f"/api/v1/games/{game_id}/", headers=headers)


def _your_turn(receiver: FcmReceiver | ApnsReceiver, version: int) -> Received:
    """The "your turn" message of the game's ``version`` (waiting for it a few seconds)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        for message in receiver.wait_for(len(receiver.messages()) + 1, timeout=0.2):
            body = message.json()
            data = body["message"]["data"] if "message" in body else body["canasta"]
            if (data.get("kind"), str(data.get("game_version"))) == ("your_turn", str(version)):
                return message
    raise AssertionError(f"no your_turn of version {version} at {type(receiver).__name__}")


def _no_card_in(body: Any) -> None:
    text = json.dumps(body)
    found = [token for token in CARD_TOKENS if f'"{token}"' in text]
    assert not found, found


def _bob_plays_his_turn(bob: PlayerClient, game_id: int, seat: int) -> tuple[float, int]:
    """Bob (to act) plays until the turn passes; when his last request left, and the version
    it made."""
    for _ in range(20):
        view = bob.game(game_id)
        assert view["state"]["to_act"] == seat
        started = time.monotonic()
        answer = bob.act(game_id, choose(view["state"]["legal_actions"]), view["version"])
        assert answer.status_code == 201, answer.content
        body = answer.json()
        if body["to_act"] != seat or body["game"]["status"] != "active":
            return started, int(body["version"])
    raise AssertionError("Bob's turn did not end")


def _ada_plays_her_turn(app: App, game_id: int, legal: list[dict[str, Any]], version: int) -> int:
    """Ada (to act) plays her turn with minimal answers, each next action chosen from the last
    answer's ``legal_actions``; the version her turn ended at."""
    path = f"/api/v1/games/{game_id}/actions/"
    for _ in range(20):
        reply = app.call(
            "POST",
            path,
            {"action": choose(legal), "expected_version": version},
            headers={"Prefer": "return=minimal"},
        )
        assert reply.status == 201, reply.body
        assert reply["Preference-Applied"] == "return=minimal"
        assert set(reply.body) == {"version", "to_act", "legal_actions", "events"}
        version, legal = reply.body["version"], reply.body["legal_actions"]
        assert reply.body["events"][-1]["seq"] == version
        if reply.body["to_act"] != app.seat:
            assert legal == []  # not hers to play any more
            return int(version)
    raise AssertionError("Ada's turn did not end")


def _result_of(request_id: str) -> Callable[[dict[str, Any]], bool]:
    return lambda m: bool(m["type"] == "action_result" and m["request_id"] == request_id)


async def _socket_turn(
    socket: Socket, seat: int, legal: list[dict[str, Any]], version: int
) -> list[dict[str, Any]]:
    """Ada (to act) plays her turn on the socket with ``"return": "minimal"``, each next action
    chosen from the last result's ``legal_actions``; the results."""
    results = []
    for number in range(20):
        request_id = f"turn-{version}-{number}"
        await socket.send_json(
            {
                "type": "action",
                "request_id": request_id,
                "expected_version": version,
                "action": choose(legal),
                "return": "minimal",
            }
        )
        [*_, result] = await socket.until(_result_of(request_id))
        assert result["status"] == 201 and result["body"]["outcome"] == "minimal", result
        results.append(result)
        version, legal = result["body"]["version"], result["body"]["legal_actions"]
        if result["body"]["to_act"] != seat:
            return results
    raise AssertionError("Ada's turn did not end")


def _timed_out(game_id: int, seat: int) -> None:
    """Ada's turn runs out (the timer is run as its task would run it, after the deadline):
    with one timeout allowed, her seat goes to a stand-in, which plays the turn."""
    game = Game.objects.get(pk=game_id)
    assert game.to_act == seat and game.turn_deadline is not None
    now = game.turn_deadline + grace() + timedelta(seconds=1)
    assert turn_timer_expire_apply(game_id, now=now).applied
    assert Seat.objects.get(game_id=game_id, index=seat).stand_in
    assert Game.objects.get(pk=game_id).to_act != seat  # the stand-in played her turn


def _seat_returned(app: App, game_id: int, after: int) -> list[dict[str, Any]]:
    events = app.call("GET", f"/api/v1/games/{game_id}/events/?after={after}").body["events"]
    return [e for e in events if e["type"] == "seat_returned"]


def _deliveries_run(settings: Any, monkeypatch: pytest.MonkeyPatch) -> str:
    """How deliveries are sent here, after each commit: on PostgreSQL by the service's own
    delivery thread (``NOTIFICATION_DELIVERY_IN_PROCESS``, as ``make run`` sends them); on
    SQLite, whose in-memory test database answers "table is locked" at once to a second
    connection writing (no busy wait, unlike a database file), by the committing thread itself,
    one attempt each (``notification_deliver``, what the worker's task runs)."""
    if connection.vendor != "sqlite":
        settings.NOTIFICATION_DELIVERY_IN_PROCESS = True
        return "the delivery thread"

    def attempts(delivery_ids: list[int], countdown: float = 0.0) -> None:
        if countdown <= 0:
            for delivery_id in delivery_ids:
                notification_deliver(delivery_id)

    monkeypatch.setattr("notifications.services.notifications.deliveries_send", attempts)
    monkeypatch.setattr("notifications.services.delivery.deliveries_send", attempts)
    return "attempted after the commit"


# ============================================================================== the story
def test_a_phone_app_plays_a_round_with_push_reclaim_and_light_payloads(
    fcm_receiver: FcmReceiver,
    apns_receiver: ApnsReceiver,
    settings: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    how = _deliveries_run(settings, monkeypatch)
    settings.SEAT_RECLAIM_GRACE_SECONDS = 300
    app = App()

    # 1. signing up, in Spanish
    signed = app.call("POST", "/api/v1/players/", {"display_name": "Ada"})
    assert signed.status == 201
    app.token, app.player_id = signed.body["token"], signed.body["id"]
    me = app.call("PATCH", "/api/v1/players/me/", {"language": "es"})
    assert me.status == 200 and me.body["language"] == "es"
    rules = app.call("GET", "/api/v1/rules/")
    assert rules.status == 200 and rules.has("ETag")
    assert rules["Content-Encoding"] == "gzip" and rules.wire_bytes < len(json.dumps(rules.body))
    assert app.call("GET", "/api/v1/rules/", headers={"If-None-Match": rules["ETag"]}).status == 304

    # 2. the app's two devices
    for platform, token in (("fcm", FCM_TOKEN), ("apns", APNS_TOKEN)):
        body = {"platform": platform, "token": token}
        if platform == "apns":
            body |= {"app_id": "org.example.canasta", "environment": "sandbox"}
        device = app.call("POST", "/api/v1/players/me/push-devices/", body)
        assert device.status == 201, device.body
        assert device.body["platform"] == platform
    listed = app.call("GET", "/api/v1/players/me/push-devices/").body
    assert sorted(d["platform"] for d in listed["devices"]) == ["apns", "fcm"]
    # the table: Ada at seat 0, Bob joins; 30-second turns, one timeout hands a seat over
    created = app.call(
        "POST",
        "/api/v1/games/",
        {"preset": "two_player", "seat": 0, "turn_seconds": 30, "timeout_limit": 1},
    )
    assert created.status == 201, created.body
    game_id = int(created.body["id"])
    app.seat = 0
    bob = _player("Bob")
    assert bob.post(f"/api/v1/games/{game_id}/join/", {}, format="json").status_code == 200
    started = app.call("POST", f"/api/v1/games/{game_id}/start/", {})
    assert started.status == 200, started.body
    bob_seat = 1

    # 3. the app in the foreground: its socket open; Bob's move passes the turn to Ada and
    # "your turn" reaches both of her devices
    view = _game(app, game_id).body
    if view["state"]["to_act"] == app.seat:
        _ada_plays_her_turn(app, game_id, view["state"]["legal_actions"], view["version"])
    version = Game.objects.get(pk=game_id).version

    async def foreground() -> tuple[list[dict[str, Any]], float, int]:
        socket = Socket(game_id, app.token, query=f"cursor={version}-0")
        assert await socket.open()
        assert (await socket.next())["type"] == "sync"
        left, made = await sync_to_async(_bob_plays_his_turn)(bob, game_id, bob_seat)
        got = await socket.until(lambda m: m["type"] == "game_event" and m["event"]["seq"] == made)
        await socket.leave()  # 4. the app goes to the background
        return got, left, made

    pushed, left, made = async_to_sync(foreground)()
    last = pushed[-1]
    assert (last["version"], last["to_act"]) == (made, app.seat)
    with translation.override("es"):
        spanish_title = translation.gettext("Your turn")
    latencies: dict[str, list[float]] = {"FcmReceiver": [], "ApnsReceiver": []}
    for receiver in (fcm_receiver, apns_receiver):
        message = _your_turn(receiver, made)
        latencies[type(receiver).__name__].append((message.at - left) * 1000)
        assert message.http_version == "2"
        body = message.json()
        if receiver is fcm_receiver:
            sent = body["message"]
            assert sent["token"] == FCM_TOKEN and sent["android"]["priority"] == "HIGH"
            data = sent["data"]
            assert sent["notification"] == {"title": data["title"], "body": data["text"]}
        else:
            assert message.path == f"/3/device/{APNS_TOKEN}"
            assert message.headers["apns-priority"] == "10"
            assert message.headers["apns-topic"] == "org.example.canasta"
            data = body["canasta"]
            assert body["aps"]["alert"] == {"title": data["title"], "body": data["text"]}
        assert set(data) <= PUBLIC_FIELDS
        assert (str(data["game_id"]), str(data["player_id"])) == (str(game_id), str(app.player_id))
        assert data["title"] == spanish_title != "Your turn"  # in her language
        _no_card_in(body)
    assert fcm_receiver.problems == [] and apns_receiver.problems == []
    assert len(fcm_receiver.issued) == 1  # the FCM assertion was verified, a token issued
    assert len(apns_receiver.provider_tokens) == 1  # the APNs provider token verified
    first_push = {name: values[0] for name, values in latencies.items()}

    # 4. in the background her turn runs out: a stand-in holds the seat; she reclaims it
    _timed_out(game_id, app.seat)
    view = _game(app, game_id).body
    mine = view["timer"]["seats"][app.seat]
    assert mine["stand_in"] is True and view["your_seat"] == app.seat
    assert mine["reclaim_url"] == f"/api/v1/games/{game_id}/seat/reclaim/"
    assert mine["reconnect_until"] is not None
    before = view["version"]
    reclaimed = app.call("POST", mine["reclaim_url"])
    assert reclaimed.status == 200, reclaimed.body
    assert reclaimed.body["timer"]["seats"][app.seat]["reclaim_url"] is None
    [returned] = _seat_returned(app, game_id, before)
    assert (returned["seat"], returned["payload"]["reason"]) == (app.seat, "reclaimed")

    # away again: Bob plays, her turn runs out again; a minute later the app comes back and
    # its socket, opened within the grace, takes the seat back by itself
    _bob_plays_his_turn(bob, game_id, bob_seat)
    _timed_out(game_id, app.seat)
    before = Game.objects.get(pk=game_id).version
    assert bob.game(game_id)["timer"]["seats"][app.seat]["stand_in"] is True  # (the app sleeps)
    away = timezone.now() - timedelta(seconds=PRESENCE_WINDOW_SECONDS + 15)
    cache.set(PRESENCE_KEY.format(game=game_id, player=app.player_id), away, timeout=600)

    async def back() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        socket = Socket(game_id, app.token, query=f"cursor={before}-0")
        assert await socket.open()
        got = [await socket.next()]  # sync
        got += await socket.fence()
        # the app stays open: Bob plays, then Ada plays her turn on the socket, minimal answers
        _, made = await sync_to_async(_bob_plays_his_turn)(bob, game_id, bob_seat)
        await socket.until(lambda m: m["type"] == "game_event" and m["event"]["seq"] == made)
        look = (await sync_to_async(_game)(app, game_id)).body
        results = await _socket_turn(
            socket, app.seat, look["state"]["legal_actions"], look["version"]
        )
        await socket.leave()
        return got, results

    messages, results = async_to_sync(back)()
    events = [m["event"] for m in messages if m["type"] == "game_event"]
    assert [(e["type"], e["payload"]["reason"]) for e in events] == [
        ("seat_returned", "reconnected")
    ]
    for result in results:
        check_action_result(game_id, result)
    [returned] = _seat_returned(app, game_id, before)
    assert returned["payload"]["reason"] == "reconnected"
    assert not Seat.objects.get(game_id=game_id, index=app.seat).stand_in

    # 5. playing on with conditional GETs and minimal answers until the round ends
    first = _game(app, game_id)
    etag = first["ETag"]
    events_page = app.call("GET", f"/api/v1/games/{game_id}/events/?after=0&limit=500")
    events_tag = events_page["ETag"]
    assert events_page.body["to_act"] == first.body["state"]["to_act"]
    assert events_page.body["version"] == first.body["version"]
    headers = {"If-None-Match": events_tag}
    path = f"/api/v1/games/{game_id}/events/?after=0&limit=500"
    assert app.call("GET", path, headers=headers).status == 304
    conditional = {"200": 0, "304": 0}
    round_over = False
    current = first.body
    for _ in range(MAX_STEPS):
        unchanged = _game(app, game_id, etag)
        assert unchanged.status == 304  # nothing moved since her last look: her copy holds
        conditional["304"] += 1
        if current["state"]["to_act"] == bob_seat:
            left, made = _bob_plays_his_turn(bob, game_id, bob_seat)
            if Game.objects.filter(pk=game_id, version=made, to_act=app.seat).exists():
                for receiver in (fcm_receiver, apns_receiver):
                    arrived = _your_turn(receiver, made).at
                    latencies[type(receiver).__name__].append((arrived - left) * 1000)
        else:
            legal = current["state"]["legal_actions"]
            _ada_plays_her_turn(app, game_id, legal, current["version"])
        changed = _game(app, game_id, etag)
        assert changed.status == 200 and changed["ETag"] != etag
        conditional["200"] += 1
        page = app.call("GET", f"/api/v1/games/{game_id}/events/?after={current['version']}")
        assert page.body["version"] == changed.body["version"]
        assert page.body["to_act"] == changed.body["state"]["to_act"]
        etag, current = changed["ETag"], changed.body
        if any(
            e["kind"] == "round_ended" for event in page.body["events"] for e in event["effects"]
        ):
            round_over = True
            break
        if current["status"] != "active":
            break
    assert round_over, "the round did not end"
    assert app.compressed > 0
    assert fcm_receiver.problems == [] and apns_receiver.problems == []
    for message in fcm_receiver.messages() + apns_receiver.messages():
        _no_card_in(message.json())
    print(f"\nmove -> your_turn, {how}, {connection.vendor}:")
    for name, values in latencies.items():
        later = sorted(values[1:])
        median = statistics.median(later)
        print(
            f"  {name}: with the app open {first_push[name]:.1f} ms; later p50 {median:.1f} ms, "
            f"max {later[-1]:.1f} ms (n={len(later)})"
        )
    print(
        f"conditional GETs: {conditional}; gzipped answers: {app.compressed}; "
        f"pushes: fcm {len(fcm_receiver.messages())}, apns {len(apns_receiver.messages())}"
    )

    # 6. the game verifies from its log
    report = game_verify(Game.objects.get(pk=game_id))
    assert report.ok, report.problems
    out = StringIO()
    call_command("replay", str(game_id), "--verify", stdout=out)
    assert f"game {game_id}: ok" in out.getvalue()
