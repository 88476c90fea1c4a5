"""The live server's HTTP fast path (games/api/asgi.py), driven as an ASGI application
(``canasta_service.asgi.application``) in-process, no server: the event stream and the
long-poll waits served straight from the game's feed, and everything the fast path does not
take handed to Django, which answers exactly as it does alone (compared with
``canasta_service.asgi.django_application`` given the same request).

Moves wake the feed after their commit and the feed reads in other threads: the tests commit
(``transaction=True``).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from canasta_service.asgi import application, django_application
from games.models import Game
from games.realtime.feed import feed_stats
from tests.games.api.conftest import (
    PlayerClient,
    against_a_bot,
    create_game,
    move,
    to_act,
    two_player_game,
)
from tests.games.api.test_leak import cards_in, states_of, visible
from tests.games.services.table.conftest import sse_parse

pytestmark = pytest.mark.django_db(transaction=True)

WAIT = 10.0  # seconds: the bound of every wait (never reached when all is well)
App = Callable[..., Any]


# ============================================================================== the client
class Call:
    """One HTTP request to an ASGI application: ``receive`` gives the request, then blocks
    until ``disconnect()``; what the application sends is collected."""

    def __init__(
        self,
        path: str,
        query: str = "",
        token: str | None = None,
        headers: list[tuple[bytes, bytes]] | None = None,
        app: App = application,
    ) -> None:
        # A fixed request id: Django echoes it (canasta_service/logs.py), so answers compare.
        sent = [(b"host", b"localhost"), (b"x-request-id", b"fast-path"), *(headers or [])]
        if token is not None:
            sent.append((b"authorization", f"Token {token}".encode()))
        self.scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": sent,
            "client": ("127.0.0.1", 50000),
            "server": ("localhost", 80),
        }
        self.app = app
        self.messages: list[dict[str, Any]] = []
        self.requested = False
        self.gone = asyncio.Event()
        self.changed = asyncio.Event()
        self.task: asyncio.Task[Any] | None = None

    async def receive(self) -> dict[str, Any]:
        if not self.requested:
            self.requested = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await self.gone.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        self.changed.set()

    def start(self) -> Call:
        # a fresh context, as a server gives each request
        self.task = contextvars.Context().run(
            asyncio.ensure_future, self.app(self.scope, self.receive, self.send)
        )
        return self

    def disconnect(self) -> None:
        self.gone.set()

    async def finished(self) -> Call:
        """Until the application returns (at most ``WAIT``)."""
        assert self.task is not None
        await asyncio.wait_for(asyncio.shield(self.task), WAIT)
        return self

    async def until(self, done: Callable[[Call], bool]) -> Call:
        """Until ``done(self)`` (at most ``WAIT``)."""

        async def watch() -> None:
            while not done(self):
                assert self.task is not None
                if self.task.done():
                    self.task.result()
                    assert done(self), "the application returned first"
                    return
                self.changed.clear()
                changed = asyncio.ensure_future(self.changed.wait())
                await asyncio.wait([changed, self.task], return_when=asyncio.FIRST_COMPLETED)
                changed.cancel()

        await asyncio.wait_for(watch(), WAIT)
        return self

    async def close(self) -> None:
        """The client goes away; the application must return."""
        self.disconnect()
        await self.finished()

    # ------------------------------------------------------------------ the answer
    @property
    def status(self) -> int:
        return int(self.start_message["status"])

    @property
    def start_message(self) -> dict[str, Any]:
        [start] = [m for m in self.messages if m["type"] == "http.response.start"]
        return start

    @property
    def headers(self) -> dict[str, str]:
        return {k.decode().lower(): v.decode() for k, v in self.start_message["headers"]}

    @property
    def body(self) -> bytes:
        return b"".join(
            m.get("body", b"") for m in self.messages if m["type"] == "http.response.body"
        )

    @property
    def complete(self) -> bool:
        return any(
            m["type"] == "http.response.body" and not m.get("more_body", False)
            for m in self.messages
        )

    def json(self) -> Any:
        return json.loads(self.body)

    def frames(self) -> list[dict[str, str]]:
        return sse_parse(self.body.decode())


def data(frame: dict[str, str]) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(frame["data"])
    return loaded


async def fetch(path: str, query: str = "", **kwargs: Any) -> Call:
    """A request that ends by itself: its whole answer."""
    call = Call(path, query, **kwargs).start()
    try:
        await call.finished()
    finally:
        call.disconnect()
    return call


async def same_as_django(path: str, query: str = "", **kwargs: Any) -> tuple[Call, Call]:
    """The live application's answer and Django's alone, to the same request."""
    live = await fetch(path, query, **kwargs)
    django = await fetch(path, query, app=django_application, **kwargs)
    return live, django


def assert_same_answer(live: Call, django: Call) -> None:
    assert live.status == django.status
    assert live.headers == django.headers
    assert live.body == django.body


@pytest.fixture
def long_waits(settings: Any) -> None:
    """Streams and long-polls may wait longer than the suite's 3 to 5 s (test_settings.py), so
    that a test that waits for a wake-up never sees a time-out instead."""
    settings.LIVE_WAIT_MAX_SECONDS = 30
    settings.LIVE_STREAM_MAX_SECONDS = 600


# ============================================================================== games


def stream_path(game_id: int) -> str:
    return f"/api/v1/games/{game_id}/stream/"


def events_path(game_id: int) -> str:
    return f"/api/v1/games/{game_id}/events/"


def named(frames: list[dict[str, str]]) -> list[dict[str, str]]:
    return [f for f in frames if "id" in f]


def is_problem(call: Call, status: int, code: str) -> dict[str, Any]:
    assert call.status == status, (call.status, call.body)
    assert call.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = call.json()
    assert body["code"] == code and body["status"] == status
    return body


# ============================================================================== the stream
def test_the_stream_sends_sync_and_every_event_once_in_order(
    ada: PlayerClient, django_calls: list[str]
) -> None:
    game_id = against_a_bot(ada)
    version = ada.game(game_id)["version"]
    log = ada.get(events_path(game_id), {"limit": 500}).json()["events"]

    call = async_to_sync(fetch)(stream_path(game_id), "timeout=0", token=ada.token)
    assert django_calls == [], "the fast path answered"
    assert call.status == 200
    assert call.headers["content-type"].startswith("text/event-stream")
    assert call.headers["cache-control"] == "no-cache"
    assert call.complete
    frames = call.frames()
    assert frames[0] == {"retry": "2000"}
    assert frames[1]["event"] == "sync"
    assert data(frames[1]) == {"version": version, "cursor": "0-0", "resumed": False}
    items = named(frames)
    assert len(items) == len(frames) - 2 == version + 1, "every move and the chat, nothing else"
    moves = [f for f in items if f["event"] == "game_event"]
    assert [data(f)["event"]["seq"] for f in moves] == list(range(1, version + 1))
    assert [data(f)["event"] for f in moves] == log, "as the move log over HTTP"
    assert all(data(f)["version"] == data(f)["event"]["seq"] for f in moves)
    assert all(f["id"] == f"{data(f)['version']}-{f['id'].split('-')[1]}" for f in moves)
    notes = [f for f in items if f["event"] == "table_event"]
    assert [data(f)["event"]["kind"] for f in notes] == ["chat"]
    ids = [tuple(int(x) for x in f["id"].split("-")) for f in items]
    assert len(set(ids)) == len(ids) and ids == sorted(ids)
    assert items[-1]["id"] == f"{version}-1"


def test_the_stream_resumes_after_last_event_id(ada: PlayerClient, django_calls: list[str]) -> None:
    game_id = against_a_bot(ada)
    everything = named(
        async_to_sync(fetch)(stream_path(game_id), "timeout=0", token=ada.token).frames()
    )
    cut = everything[2]["id"]
    header = async_to_sync(fetch)(
        stream_path(game_id),
        "timeout=0",
        token=ada.token,
        headers=[(b"last-event-id", cut.encode())],
    ).frames()
    assert data(header[1]) == {
        "version": ada.game(game_id)["version"],
        "cursor": cut,
        "resumed": True,
    }
    assert named(header) == everything[3:]
    query = async_to_sync(fetch)(
        stream_path(game_id), f"timeout=0&last_event_id={cut}", token=ada.token
    ).frames()
    assert named(query) == everything[3:]
    last = everything[-1]["id"]
    assert (
        named(
            async_to_sync(fetch)(
                stream_path(game_id), f"timeout=0&last_event_id={last}", token=ada.token
            ).frames()
        )
        == []
    )
    assert django_calls == []


def test_the_stream_pushes_a_move_and_ends_when_the_client_goes(
    ada: PlayerClient, bob: PlayerClient, long_waits: None, django_calls: list[str]
) -> None:
    game_id = two_player_game(ada, bob)
    actor = to_act([ada, bob], game_id)
    watcher = bob if actor is ada else ada

    async def scenario() -> tuple[list[dict[str, str]], bool, dict[str, int]]:
        call = Call(stream_path(game_id), "after=1", token=watcher.token).start()
        await call.until(lambda c: b"event: sync" in c.body)
        await sync_to_async(move)(actor, game_id)
        await call.until(lambda c: b"event: game_event" in c.body and c.body.endswith(b"\n\n"))
        running = not call.task.done()  # type: ignore[union-attr]
        # the stream would last 600 s: the handler returns because the client went away
        await call.close()
        return call.frames(), running, feed_stats()

    frames, running, stats = async_to_sync(scenario)()
    assert running, "the stream was still open when the client went away"
    assert stats["subscribers"] == 0, "it left the game's feed"
    assert django_calls == []
    assert frames[0] == {"retry": "2000"}
    assert frames[1]["event"] == "sync" and data(frames[1])["cursor"] == "1-0"
    assert [(f["event"], f["id"]) for f in named(frames)] == [("game_event", "2-0")]
    log = watcher.get(events_path(game_id), {"after": 1}).json()["events"]
    assert [data(f)["event"] for f in named(frames)] == log


def test_a_stream_ends_with_the_game(
    ada: PlayerClient, bob: PlayerClient, long_waits: None
) -> None:
    game_id = two_player_game(ada, bob)

    async def scenario() -> Call:
        call = Call(stream_path(game_id), "after=1", token=bob.token).start()
        await call.until(lambda c: b"event: sync" in c.body)
        conceded = await sync_to_async(ada.post)(f"/api/v1/games/{game_id}/concede/")
        assert conceded.status_code == 200
        await call.finished()  # the server ends the response
        call.disconnect()
        return call

    call = async_to_sync(scenario)()
    assert call.complete
    frames = call.frames()
    assert frames[-1]["event"] == "end"
    assert data(frames[-1])["version"] == bob.game(game_id)["version"]
    notes = [f for f in frames if f.get("event") == "table_event"]
    assert data(notes[-1])["event"]["kind"] == "conceded"


# ------------------------------------------------------------------------------ handed to Django
def test_a_stream_without_a_token_is_djangos_401(
    ada: PlayerClient, django_calls: list[str]
) -> None:
    game_id = against_a_bot(ada, moves=0)
    live, django = async_to_sync(same_as_django)(stream_path(game_id))
    assert django_calls == [stream_path(game_id)]
    assert_same_answer(live, django)
    is_problem(live, 401, live.json()["code"])


def test_a_stream_with_a_wrong_token_is_djangos_401(
    ada: PlayerClient, django_calls: list[str]
) -> None:
    game_id = against_a_bot(ada, moves=0)
    live, django = async_to_sync(same_as_django)(stream_path(game_id), token="wrong")
    assert django_calls == [stream_path(game_id)]
    assert_same_answer(live, django)
    assert live.status == 401


@pytest.mark.parametrize("query", ["after=-1", "after=abc", "table_after=x", "timeout=-5"])
def test_a_bad_stream_parameter_is_djangos_400(
    ada: PlayerClient, django_calls: list[str], query: str
) -> None:
    game_id = against_a_bot(ada, moves=0)
    live, django = async_to_sync(same_as_django)(stream_path(game_id), query, token=ada.token)
    assert django_calls == [stream_path(game_id)]
    assert_same_answer(live, django)
    is_problem(live, 400, "invalid_request")


@pytest.mark.parametrize("query", ["after=abc", "table_after=-1", "last_event_id=1-0&after=x"])
def test_a_bad_parameter_beside_a_resume_cursor_is_djangos_400(
    ada: PlayerClient, django_calls: list[str], query: str
) -> None:
    """Django validates every parameter before it looks at ``Last-Event-ID``: a bad ``after``
    is a 400 even when the client also resumes from an id."""
    game_id = against_a_bot(ada, moves=0)
    resume = [(b"last-event-id", b"1-0")]
    live, django = async_to_sync(same_as_django)(
        stream_path(game_id), f"timeout=0&{query}", token=ada.token, headers=resume
    )
    is_problem(django, 400, "invalid_request")
    assert live.status == django.status, live.body[:200]
    assert_same_answer(live, django)
    assert django_calls == [stream_path(game_id)]


def test_a_private_game_of_someone_else_is_djangos_404(
    ada: PlayerClient, bob: PlayerClient, django_calls: list[str]
) -> None:
    game_id = int(create_game(ada, preset="two_player", is_public=False)["id"])
    for path in (stream_path(game_id), events_path(game_id)):
        query = "after=0&wait=1" if path == events_path(game_id) else ""
        live, django = async_to_sync(same_as_django)(path, query, token=bob.token)
        assert_same_answer(live, django)
        is_problem(live, 404, "not_found")
    assert django_calls == [stream_path(game_id), events_path(game_id)]


def test_an_unknown_parameter_goes_to_django(ada: PlayerClient, django_calls: list[str]) -> None:
    game_id = against_a_bot(ada, moves=1)
    live, django = async_to_sync(same_as_django)(
        stream_path(game_id), "timeout=0&colour=blue", token=ada.token
    )
    assert django_calls == [stream_path(game_id)]
    assert_same_answer(live, django)
    assert live.status == 200
    # and Django's stream carries what the fast path's does
    fast = async_to_sync(fetch)(stream_path(game_id), "timeout=0", token=ada.token)
    assert django_calls == [stream_path(game_id)]
    assert [f for f in fast.frames() if "comment" not in f] == [
        f for f in live.frames() if "comment" not in f
    ]


def test_a_browser_origin_goes_to_django(ada: PlayerClient, django_calls: list[str]) -> None:
    game_id = against_a_bot(ada, moves=1)
    origin = [(b"origin", b"https://elsewhere.example")]
    live, django = async_to_sync(same_as_django)(
        stream_path(game_id), "timeout=0", token=ada.token, headers=origin
    )
    assert django_calls == [stream_path(game_id)]
    assert_same_answer(live, django)
    assert live.status == 200
    live, django = async_to_sync(same_as_django)(
        events_path(game_id), "after=0&wait=1", token=ada.token, headers=origin
    )
    assert django_calls[1:] == [events_path(game_id)]
    assert_same_answer(live, django)
    assert [e["seq"] for e in live.json()["events"]] == list(range(1, live.json()["version"] + 1))


# ============================================================================== the long-poll
def test_a_long_poll_is_answered_by_a_move(
    ada: PlayerClient, bob: PlayerClient, long_waits: None, django_calls: list[str]
) -> None:
    game_id = two_player_game(ada, bob)
    actor = to_act([ada, bob], game_id)
    watcher = bob if actor is ada else ada

    async def scenario() -> tuple[Call, Call, bool]:
        call = Call(events_path(game_id), "after=1&wait=25", token=watcher.token).start()
        # the poll is waiting on the feed (it joined as a follower) before the move
        await asyncio.wait_for(_until_subscribed(1), WAIT)
        waiting = not call.task.done()  # type: ignore[union-attr]
        await sync_to_async(move)(actor, game_id)
        await call.finished()
        call.disconnect()
        django = await fetch(
            events_path(game_id), "after=1", token=watcher.token, app=django_application
        )
        return call, django, waiting

    call, django, waiting = async_to_sync(scenario)()
    assert waiting, "it waited for the move"
    assert django_calls == [], "the fast path answered"
    assert call.status == 200
    assert call.headers["content-type"].split(";")[0] == "application/json"
    assert int(call.headers["content-length"]) == len(call.body)
    body = call.json()
    assert [e["seq"] for e in body["events"]] == [2]
    assert body["version"] == 2 and body["has_more"] is False
    assert body["viewer"] == watcher.game(game_id)["your_seat"]
    assert body["to_act"] == watcher.game(game_id)["state"]["to_act"]  # whose turn, the game's
    assert body == django.json(), "the same answer as Django's to GET events/?after=1"


async def _until_subscribed(count: int) -> None:
    while feed_stats()["subscribers"] < count:
        await asyncio.sleep(0.01)


def test_a_long_poll_times_out_empty(
    ada: PlayerClient, bob: PlayerClient, django_calls: list[str]
) -> None:
    game_id = two_player_game(ada, bob)
    call = async_to_sync(fetch)(events_path(game_id), "after=1&wait=1", token=bob.token)
    assert django_calls == []
    assert call.status == 200
    body = call.json()
    assert body["events"] == [] and body["version"] == 1 and body["has_more"] is False
    django = async_to_sync(fetch)(
        events_path(game_id), "after=1", token=bob.token, app=django_application
    )
    assert body == django.json()


def test_a_long_poll_behind_the_version_is_answered_at_once_by_django(
    ada: PlayerClient, django_calls: list[str], long_waits: None
) -> None:
    game_id = against_a_bot(ada, moves=2)
    version = ada.game(game_id)["version"]
    after = version - 2

    async def scenario() -> Call:
        call = Call(events_path(game_id), f"after={after}&wait=25", token=ada.token).start()
        # answered with what there is: no move happens here, so a wait would last 25 s
        await call.finished()
        call.disconnect()
        return call

    call = async_to_sync(scenario)()
    assert django_calls == [events_path(game_id)]
    assert call.status == 200
    body = call.json()
    assert [e["seq"] for e in body["events"]] == [version - 1, version]
    assert body["version"] == version


@pytest.mark.parametrize("query", ["after=1&wait=31", "after=-1&wait=1", "after=1&wait=x"])
def test_a_bad_long_poll_is_djangos_400(
    ada: PlayerClient, bob: PlayerClient, django_calls: list[str], query: str
) -> None:
    game_id = two_player_game(ada, bob)
    live, django = async_to_sync(same_as_django)(events_path(game_id), query, token=bob.token)
    assert django_calls == [events_path(game_id)]
    assert_same_answer(live, django)
    is_problem(live, 400, "invalid_request")


# ============================================================================== one read per move
def test_fifty_streams_cost_one_feed_read_per_move(
    ada: PlayerClient,
    bob: PlayerClient,
    long_waits: None,
    django_calls: list[str],
    settings: Any,
) -> None:
    game_id = two_player_game(ada, bob)
    actor = to_act([ada, bob], game_id)
    followers = 50
    settings.LIVE_CONNECTIONS_PER_PLAYER_MAX = followers  # 25 streams a player: over the default

    async def scenario() -> tuple[dict[str, int], dict[str, int], list[Call]]:
        calls = [
            Call(stream_path(game_id), "after=1", token=(ada, bob)[i % 2].token).start()
            for i in range(followers)
        ]
        for call in calls:
            await call.until(lambda c: b"event: sync" in c.body)
        before = feed_stats()
        await sync_to_async(move)(actor, game_id)
        for call in calls:
            await call.until(lambda c: b"event: game_event" in c.body and c.body.endswith(b"\n\n"))
        after = feed_stats()
        for call in calls:
            await call.close()
        return before, after, calls

    before, after, calls = async_to_sync(scenario)()
    assert django_calls == []
    assert before["feeds"] == 1 and before["subscribers"] == followers
    for call in calls:
        assert [(f["event"], f["id"]) for f in named(call.frames())] == [("game_event", "2-0")]
    reads = after["reads"] - before["reads"]
    assert 1 <= reads <= 3, f"{reads} feed reads for one move and {followers} streams"


def test_the_streams_of_a_spectator_show_no_hand(
    ada: PlayerClient, bob: PlayerClient, make_player: Callable[..., PlayerClient]
) -> None:
    game_id = two_player_game(ada, bob)
    for _ in range(6):
        move(to_act([ada, bob], game_id), game_id)
    eve = make_player("Eve")
    spectator = async_to_sync(fetch)(stream_path(game_id), "timeout=0", token=eve.token)
    seated = async_to_sync(fetch)(stream_path(game_id), "timeout=0", token=ada.token)
    dealt = {
        who: [
            e
            for f in named(call.frames())
            if f["event"] == "game_event"
            for e in data(f)["event"]["effects"]
            if e["kind"] == "round_started"
        ]
        for who, call in (("eve", spectator), ("ada", seated))
    }
    assert dealt["eve"] and all("hand" not in e for e in dealt["eve"])
    assert dealt["ada"] and all("hand" in e for e in dealt["ada"])
    assert [data(f)["event"] for f in named(spectator.frames())] == eve.get(
        events_path(game_id), {"limit": 500}
    ).json()["events"]
    assert leaks(game_id, spectator.frames(), None) == []
    assert leaks(game_id, seated.frames(), 0) == []
    # the scan sees cards: ada's own hand and draws, which eve does not get
    assert sum(cards_in(data(f)).total() for f in named(seated.frames())) > sum(
        cards_in(data(f)).total() for f in named(spectator.frames())
    )


def leaks(game_id: int, frames: list[dict[str, str]], seat: int | None) -> list[Any]:
    """Cards a stream showed ``seat`` (None: a spectator) that it could not know (the leak
    scanner of tests/games/api/test_leak.py); only moves carry cards."""
    game = Game.objects.get(pk=game_id)
    allowed = {
        event.seq: visible(before, seat) | visible(after, seat) | cards_in(event.payload) | shown
        for event, before, after, shown in states_of(game)
    }
    found: list[Any] = []
    for frame in frames:
        if frame.get("event") == "game_event":
            event = data(frame)["event"]
            for effect in event["effects"]:
                extra = cards_in(effect) - allowed[event["seq"]]
                if extra:
                    found.append((event["seq"], effect, extra))
        elif "data" in frame and cards_in(data(frame)):
            found.append(frame)
    return found
