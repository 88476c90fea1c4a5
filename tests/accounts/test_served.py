"""The accounts flows through real servers: two uvicorn processes on one database (as two
machines behind a load balancer would be), e-mail through a real SMTP receiver on loopback.

A guest plays, opens a device session, adds and verifies an e-mail and sets a password (the
same player: id, games and all), signs in on a second device against the other process, and
both devices play. A refresh rotates; the used refresh key presented again ends that session;
signing out everywhere turns every key of the person to 401 at the next request on both
processes; a token that holds ``profile:read`` only cannot move."""

from __future__ import annotations

import http.client
import json
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from bench import harness
from bench.driver import choose
from tests.clients.conftest import HOST, run, server_env

CODE = re.compile(r"^([A-Z0-9]{4}-[A-Z0-9]{4})$", re.MULTILINE)
PASSWORD = "tilted-canasta-at-dawn-41"


class Inbox:
    """aiosmtpd's handler: every message's (recipients, text)."""

    def __init__(self) -> None:
        self.messages: list[tuple[list[str], str]] = []
        self.arrived = threading.Condition()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:  # noqa: N802
        with self.arrived:
            self.messages.append((list(envelope.rcpt_tos), envelope.content.decode()))
            self.arrived.notify_all()
        return "250 OK"

    def code_for(self, address: str) -> str:
        with self.arrived:
            self.arrived.wait_for(lambda: any(address in to for to, _ in self.messages), 20)
        text = [body for to, body in self.messages if address in to][-1]
        found = CODE.search(text.replace("\r\n", "\n"))
        assert found, text
        return found.group(1)


class Http:
    def __init__(self, base: str) -> None:
        self.host, _, port = base.removeprefix("http://").partition(":")
        self.port = int(port)

    def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        key: str | None = None,
        scheme: str = "Bearer",
    ) -> tuple[int, Any]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        headers = {"Accept": "application/json", "User-Agent": "served-test/1.0"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if key:
            headers["Authorization"] = f"{scheme} {key}"
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            raw = response.read()
        finally:
            connection.close()
        return response.status, json.loads(raw) if raw else None


@pytest.fixture(scope="module")
def inbox() -> Iterator[tuple[Inbox, int]]:
    handler = Inbox()
    port = harness.free_port()
    controller = Controller(handler, hostname=HOST, port=port)
    controller.start()
    try:
        yield handler, port
    finally:
        controller.stop()


@pytest.fixture(scope="module")
def servers(
    tmp_path_factory: pytest.TempPathFactory, inbox: tuple[Inbox, int]
) -> Iterator[list[Http]]:
    work = tmp_path_factory.mktemp("accounts-served")
    env = server_env(work / "db.sqlite3")
    env.update(
        EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
        EMAIL_HOST=HOST,
        EMAIL_PORT=str(inbox[1]),
        THROTTLE_GAME_CREATE="off",
        THROTTLE_GAME_START="off",
    )
    redis_db = _redis_db()
    if redis_db is not None:  # each process remembers keys; revocations cross by pub/sub
        env["REDIS_URL"] = f"{harness.REDIS_BASE}/{redis_db}"
    run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], env)
    ports = [harness.free_port(), harness.free_port()]
    command = [
        sys.executable,
        "-m",
        "uvicorn",
        "canasta_service.asgi:application",
        f"--host={HOST}",
    ]
    try:
        with (
            harness.listening_process(
                [*command, f"--port={ports[0]}"], env, work / "a.log", ports[0]
            ),
            harness.listening_process(
                [*command, f"--port={ports[1]}"], env, work / "b.log", ports[1]
            ),
        ):
            yield [Http(f"http://{HOST}:{port}") for port in ports]
    finally:
        if redis_db is not None:  # leave the database empty for the next run
            import redis

            redis.Redis.from_url(env["REDIS_URL"]).flushdb()


def _redis_db() -> int | None:
    """An empty Redis database if Redis runs here (its pub/sub is what the key cache needs;
    the servers' Celery messages wait there unread), else None (keys are looked up always)."""
    try:
        return harness.redis_free_db()
    except Exception:  # noqa: BLE001 - no Redis: the servers run without it
        return None


def play_one_move(server: Http, key: str, game_id: int, scheme: str = "Bearer") -> None:
    status, game = server.call("GET", f"/api/v1/games/{game_id}/", key=key, scheme=scheme)
    assert status == 200, game
    action = choose(game["state"]["legal_actions"])
    status, body = server.call(
        "POST",
        f"/api/v1/games/{game_id}/actions/",
        {"action": action, "expected_version": game["version"]},
        key=key,
        scheme=scheme,
    )
    assert status == 201, body


def test_a_guest_keeps_the_account_on_a_second_device_and_signing_out_everywhere_holds(
    servers: list[Http], inbox: tuple[Inbox, int]
) -> None:
    a, b = servers
    mail, _ = inbox
    # A guest, and an opponent; they play.
    status, ann = a.call("POST", "/api/v1/players/", {"display_name": "Ann"})
    assert status == 201, ann
    status, bob = a.call("POST", "/api/v1/players/", {"display_name": "Bob"})
    guest_key = ann["token"]
    status, game = a.call(
        "POST", "/api/v1/games/", {"preset": "two_player"}, key=guest_key, scheme="Token"
    )
    assert status == 201, game
    game_id = game["id"]
    assert (
        a.call("POST", f"/api/v1/games/{game_id}/join/", {}, key=bob["token"], scheme="Token")[0]
        == 200
    )
    status, game = a.call(
        "POST", f"/api/v1/games/{game_id}/start/", {}, key=guest_key, scheme="Token"
    )
    assert status == 200, game
    keys = {0: ("Token", guest_key), 1: ("Token", bob["token"])}

    def turn() -> None:
        _, state = a.call("GET", f"/api/v1/games/{game_id}/", key=bob["token"], scheme="Token")
        seat = state["state"]["to_act"]
        scheme, key = keys[seat]
        play_one_move(a, key, game_id, scheme)

    turn()

    # The guest opens a device session, adds an e-mail (verified by code) and a password.
    status, device_one = a.call(
        "POST", "/api/v1/account/sessions/", {"device": "phone"}, key=guest_key, scheme="Token"
    )
    assert status == 201, device_one
    access_one = device_one["access_token"]
    status, body = a.call(
        "POST", "/_allauth/app/v1/account/email", {"email": "ann@example.org"}, key=access_one
    )
    assert status == 200, body
    code = mail.code_for("ann@example.org")
    status, body = a.call(
        "POST", "/_allauth/app/v1/auth/email/verify", {"key": code}, key=access_one
    )
    assert status == 200, body
    status, body = a.call(
        "POST",
        "/_allauth/app/v1/account/password/change",
        {"new_password": PASSWORD},
        key=access_one,
    )
    assert status == 200, body
    assert body["data"]["user"]["has_usable_password"] is True

    # A second device signs in on the other process: the same player.
    status, signed_in = b.call(
        "POST", "/_allauth/app/v1/auth/login", {"email": "ann@example.org", "password": PASSWORD}
    )
    assert status == 200, signed_in
    access_two, refresh_two = signed_in["meta"]["access_token"], signed_in["meta"]["refresh_token"]
    status, me = b.call("GET", "/api/v1/players/me/", key=access_two)
    assert (status, me["id"], me["display_name"]) == (200, ann["id"], "Ann")

    # Both devices play Ann's moves (the first device with its access key now).
    keys[0] = ("Bearer", access_two)
    for _ in range(4):
        turn()
    keys[0] = ("Bearer", access_one)
    for _ in range(2):
        turn()

    # A refresh rotates: a new pair; the old access key is gone.
    status, rotated = b.call(
        "POST", "/_allauth/app/v1/tokens/refresh", {"refresh_token": refresh_two}
    )
    assert status == 200, rotated
    access_three = rotated["data"]["access_token"]
    assert rotated["data"]["refresh_token"] != refresh_two
    assert b.call("GET", "/api/v1/players/me/", key=access_two)[0] == 401
    assert a.call("GET", "/api/v1/players/me/", key=access_three)[0] == 200
    # The used refresh key presented again ends that session: its new keys too.
    status, _ = a.call("POST", "/_allauth/app/v1/tokens/refresh", {"refresh_token": refresh_two})
    assert status in (400, 401)
    assert a.call("GET", "/api/v1/players/me/", key=access_three)[0] == 401
    assert b.call(
        "POST",
        "/_allauth/app/v1/tokens/refresh",
        {"refresh_token": rotated["data"]["refresh_token"]},
    )[0] in (400, 401)

    # A token with profile:read reads but cannot move.
    status, token = a.call(
        "POST",
        "/api/v1/account/tokens/",
        {"name": "reader", "scopes": ["profile:read"]},
        key=access_one,
    )
    assert status == 201, token
    assert b.call("GET", "/api/v1/players/me/", key=token["token"])[0] == 200
    status, refused = b.call(
        "POST",
        f"/api/v1/games/{game_id}/actions/",
        {"action": {"type": "draw"}, "expected_version": 1},
        key=token["token"],
    )
    assert (status, refused["code"]) == (403, "insufficient_scope"), refused

    # Signing out everywhere: every key of Ann answers 401 on both processes at once.
    status, signed_in = b.call(
        "POST", "/_allauth/app/v1/auth/login", {"email": "ann@example.org", "password": PASSWORD}
    )
    access_four = signed_in["meta"]["access_token"]
    assert a.call("POST", "/api/v1/account/sign-out-everywhere/", {}, key=access_four)[0] == 204
    for server in (a, b):
        for scheme, key in (
            ("Token", guest_key),
            ("Bearer", access_one),
            ("Bearer", access_four),
            ("Bearer", token["token"]),
        ):
            status, problem = server.call("GET", "/api/v1/players/me/", key=key, scheme=scheme)
            assert status == 401, (scheme, key[:6], problem)
    # Bob was not signed out.
    assert b.call("GET", "/api/v1/players/me/", key=bob["token"], scheme="Token")[0] == 200


def test_the_log_of_the_first_server_has_no_key(
    servers: list[Http], tmp_path_factory: pytest.TempPathFactory
) -> None:
    logs = list(Path(tmp_path_factory.getbasetemp()).glob("accounts-served*/*.log"))
    assert logs
    for log in logs:
        text = log.read_text()
        assert "cat_" not in text and "crt_" not in text and "cpt_" not in text
