"""How the page follows a game: over the WebSocket when the server is the ASGI live server
(``asgi_server``: ``canasta_service.asgi:application`` under uvicorn, in a thread of this
process), else falling back to the event stream (held open by the ASGI server) and then the
long-poll (pytest-django's ``live_server`` is WSGI: the socket's upgrade fails and its streams
close at once).

PostgreSQL only (marker ``postgres``: skipped locally on SQLite, run in CI): the servers read
and write beside the test, which SQLite's shared in-memory test database cannot take (on SQLite
the page short-polls, see conftest.short_polls_on_sqlite)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.web.conftest import AsgiServer
from tests.web.test_client import MY_TURN_OR_DONE, discard_any, expect, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

TURNS = 3


class Traffic:
    """What the page asked for: HTTP requests and WebSocket frames."""

    def __init__(self, page: Any) -> None:
        self.requests: list[tuple[str, str]] = []
        self.sockets: list[str] = []
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        page.on("request", lambda r: self.requests.append((r.method, r.url)))
        page.on("websocket", self._socket)

    def _socket(self, ws: Any) -> None:
        self.sockets.append(ws.url)
        ws.on("framesent", lambda payload: self.sent.append(_json(payload)))
        ws.on("framereceived", lambda payload: self.received.append(_json(payload)))

    def urls(self, part: str, method: str = "GET") -> list[str]:
        return [u for m, u in self.requests if m == method and part in u]

    def long_polls(self) -> list[str]:
        """Waiting reads of the move log or the table events."""
        return [u for u in self.urls("/events/?") if "wait=" in u]


def _json(payload: Any) -> dict[str, Any]:
    try:
        data = json.loads(payload)
    except (TypeError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def start_against_bots(page: Any, base: str) -> None:
    sign_up(page, base)
    page.fill("#opt-target_score", "1000")
    page.get_by_test_id("create-game").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(page.get_by_test_id("status")).to_contain_text("Your turn")


def play_turns(page: Any, turns: int) -> None:
    """Draw and discard ``turns`` times; after each discard the three bots move and the page
    must see it (by whatever it follows the game with) to offer the next turn."""
    for _ in range(turns):
        page.wait_for_function(MY_TURN_OR_DONE, timeout=30_000)
        if page.get_by_test_id("round-summary").count():
            return
        page.get_by_test_id("draw").click()
        expect(page.get_by_test_id("status")).to_contain_text("discard")
        assert discard_any(page)
    page.wait_for_function(MY_TURN_OR_DONE, timeout=30_000)


def test_the_page_plays_over_the_socket(
    asgi_server: AsgiServer, page: Any, js_errors: list[str]
) -> None:
    traffic = Traffic(page)
    start_against_bots(page, asgi_server.url)
    app = page.locator("#app")
    expect(app).to_have_attribute("data-live", "socket")
    play_turns(page, TURNS)

    game_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    assert traffic.sockets, "no WebSocket was opened"
    assert all(f"/api/v1/games/{game_id}/socket/?cursor=" in u for u in traffic.sockets)
    assert traffic.sent[0]["type"] == "auth"
    # The moves went over the socket, answered by action_results; the bots' moves came back
    # as game_events; nothing was long-polled or streamed, no action was POSTed.
    actions = [m for m in traffic.sent if m.get("type") == "action"]
    results = [m for m in traffic.received if m.get("type") == "action_result"]
    assert len(actions) >= 2 * TURNS and all(m.get("idempotency_key") for m in actions)
    assert sorted(r["request_id"] for r in results) == sorted(a["request_id"] for a in actions)
    assert all(r["status"] == 201 for r in results), results
    events = [m["event"] for m in traffic.received if m.get("type") == "game_event"]
    seqs = [e["seq"] for e in events]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs  # in order, once each
    assert {e["seat"] for e in events} >= {0, 1, 2, 3}
    assert not traffic.long_polls(), traffic.long_polls()
    assert not traffic.urls("/stream/")
    assert not traffic.urls("/actions/", "POST")

    # Chat comes back as a table_event; a concession ends the game: `end`, and the socket stops.
    page.get_by_test_id("chat").locator("summary").click()
    chip = page.get_by_test_id("chat").locator("button.chip").first
    said = chip.inner_text()
    chip.click()
    expect(page.get_by_test_id("chat-lines")).to_contain_text(f"You: {said}")
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id("concede").click()
    expect(page.get_by_test_id("status")).to_contain_text("Game over")
    expect(app).to_have_attribute("data-live", "ended")
    kinds = [m.get("type") for m in traffic.received]
    assert "table_event" in kinds and kinds[-1] == "end", kinds[-5:]
    assert not traffic.long_polls(), traffic.long_polls()
    assert not js_errors, js_errors


def test_without_sockets_the_page_falls_back(
    live_server: Any, page: Any, js_errors: list[str]
) -> None:
    traffic = Traffic(page)
    start_against_bots(page, live_server.url)
    # The WSGI server cannot upgrade (twice), and its streams close at once (twice).
    expect(page.locator("#app")).to_have_attribute("data-live", "poll", timeout=30_000)
    assert len(traffic.sockets) == 2, traffic.sockets
    assert len(traffic.urls("/stream/")) >= 2, traffic.urls("/stream/")
    play_turns(page, 2)
    assert traffic.long_polls()
    assert len(traffic.urls("/actions/", "POST")) >= 4
    assert not js_errors, js_errors


def test_without_a_socket_the_page_streams(
    asgi_server: AsgiServer, page: Any, js_errors: list[str]
) -> None:
    # The socket closes before its `sync` (a proxy without upgrades, say): twice, then the
    # stream, which the ASGI server holds open.
    refused: list[str] = []

    def refuse(ws: Any) -> None:
        refused.append(ws.url)
        ws.close(code=1011)

    page.route_web_socket("**/socket/**", refuse)
    traffic = Traffic(page)
    start_against_bots(page, asgi_server.url)
    expect(page.locator("#app")).to_have_attribute("data-live", "stream")
    play_turns(page, 2)
    assert len(refused) == 2, refused
    streams = traffic.urls("/stream/")
    assert len(streams) == 1, streams  # one stream, held open
    assert not traffic.long_polls(), traffic.long_polls()
    assert len(traffic.urls("/actions/", "POST")) >= 4  # no socket: moves over HTTP
    assert not js_errors, js_errors
