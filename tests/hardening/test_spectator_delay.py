"""A delayed spectator sees nothing newer than its horizon, on every endpoint.

A game with a spectator delay of ``DELAY`` is played by two humans through the API, watched
by its creator (not seated) and by another spectator, up to and just past the end of a round,
then conceded. At each checkpoint every JSON GET endpoint of the game that the committed
schema lists is fetched by each viewer, with the lobby list of the creator's games; the
answers are recorded once (``recording``) and checked per endpoint (parametrized over the
schema's paths, so a new endpoint is checked too and must be given its rule here).

What a delayed spectator may see is computed from the log with the engine, not through the
selectors: the horizon ``h = max(1, version - DELAY)`` while the game is active, the table
after event ``h``, the rounds ended by then, a timer-off proposal made by then. Nothing may
show a version, move or step past ``h``, a round total before the round's end is within
``h``, a deadline, or a time later than event ``h``. Seated players see the live game; once
the game is over every viewer does.

The live tier (event stream, WebSocket, long-poll) is checked at the end of the module.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.db import transaction
from django.utils.dateparse import parse_datetime

from canasta_service.asgi import django_application
from games.engine import LogEntry, make_options, replay_log
from games.engine.history import TABLE_FACTS
from games.engine.view import player_view
from games.models import Game, GameStatus
from tests.games.api.conftest import (
    PlayerClient,
    SchemaCheckedClient,
    create_game,
    move,
    play_until,
)
from tests.games.api.test_leak import _game_get_paths
from tests.games.api.test_live_fast_path import Call, data, fetch
from tests.games.api.test_socket import Socket

DELAY = 12
PATHS = _game_get_paths()
SPECTATORS = ("creator", "spectator")  # the creator watches without a seat
NOW_KEYS = frozenset({"server_time", "exported_at"})  # the time of the answer itself
ISO_TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d")


# ============================================================================== the truth
@dataclass
class Truth:
    """What the log says a delayed spectator may know at one checkpoint."""

    name: str
    version: int  # the game's live version
    horizon: int  # a spectator's (the version once the game is over)
    over: bool
    table: dict[str, Any]  # the table after event ``horizon``, as a spectator sees it
    scores: list[int]  # the totals after event ``horizon``
    rounds: int  # rounds ended by event ``horizon``
    rounds_live: int
    proposal: dict[str, Any] | None  # a timer-off proposal pending after event ``horizon``
    hidden_from: dt.datetime | None  # when event ``horizon + 1`` was logged (None: no such)
    answers: dict[str, dict[str, tuple[int, Any]]] = field(default_factory=dict)
    mine: dict[str, dict[str, Any]] = field(default_factory=dict)  # the lobby list's entry

    @property
    def delayed(self) -> bool:
        return self.horizon < self.version


def truth_at(game_id: int, name: str) -> Truth:
    game = Game.objects.get(pk=game_id)
    over = game.status != GameStatus.ACTIVE
    horizon = game.version if over else max(1, game.version - DELAY)
    events = list(game.events.order_by("seq"))
    ends = [e.seq for e in events if any(x["kind"] == "round_ended" for x in e.effects)]
    entries = [LogEntry(e.seq, e.seat, e.type, e.payload, None, e.source) for e in events]
    steps = replay_log(
        make_options(game.preset, game.options),
        game.seed,
        entries[:horizon],
        record=False,
        passthrough=TABLE_FACTS,
    )
    state = [step.state for step in steps][-1]
    proposal: dict[str, Any] | None = None
    for e in events[:horizon]:
        if e.type == "timer_off_proposed":
            proposal = {"proposed_by": e.seat, "accepted": [e.seat]}
        elif e.type in ("timer_off_declined", "timer_turned_off"):
            proposal = None
    hidden = [e.created_at for e in events if e.seq == horizon + 1]
    return Truth(
        name=name,
        version=game.version,
        horizon=horizon,
        over=over,
        table=json.loads(json.dumps(player_view(state, None, with_legal=False))),
        scores=list(state.scores),
        rounds=sum(1 for s in ends if s <= horizon),
        rounds_live=len(ends),
        proposal=proposal,
        hidden_from=hidden[0] if hidden else None,
    )


# ============================================================================== the game
def player(name: str) -> PlayerClient:
    response = SchemaCheckedClient().post("/api/v1/players/", {"display_name": name}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    client = PlayerClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    client.player_id, client.display_name, client.token = body["id"], name, body["token"]
    return client


def record(game_id: int, name: str, viewers: dict[str, PlayerClient]) -> Truth:
    """Every endpoint as every viewer sees it now."""
    truth = truth_at(game_id, name)
    for who, client in viewers.items():
        truth.answers[who] = {}
        for path in PATHS:
            response = client.get(path.replace("{game_id}", str(game_id)))
            truth.answers[who][path] = (response.status_code, response.json())
        listed = client.get("/api/v1/games/", {"mine": "true"}).json()["results"]
        truth.mine[who] = next((g for g in listed if g["id"] == game_id), {})
    return truth


def play(game_id: int, seated: list[PlayerClient], stop: Callable[[dict[str, Any]], bool]) -> int:
    return int(play_until(seated, game_id, stop)["version"])


def checkpoints() -> list[Truth]:
    """The game played through the API, with the answers at each checkpoint."""
    creator, ada, bob, eve = player("Cat"), player("Ada"), player("Bob"), player("Eve")
    game = create_game(
        creator,
        preset="two_player",
        spectate=True,
        options={"target_score": 10000},
        turn_seconds=900,
    )
    game_id = int(game["id"])
    url = f"/api/v1/games/{game_id}/"
    delayed = creator.patch(url + "table/", {"spectator_delay": DELAY}, format="json")
    assert delayed.status_code == 200, delayed.content
    for who in (ada, bob):
        assert who.post(url + "join/", {}, format="json").status_code == 200
    assert creator.post(url + "start/", {}, format="json").status_code == 200
    seated = sorted([ada, bob], key=lambda c: c.game(game_id)["your_seat"])
    viewers = {"creator": creator, "spectator": eve, "seated": ada}

    out = []
    for _ in range(3):
        move(seated[snapshot_to_act(game_id)], game_id)
    out.append(record(game_id, "opening", viewers))  # fewer moves than the delay
    play(game_id, seated, lambda g: g["version"] >= DELAY + 8)
    out.append(record(game_id, "mid-round", viewers))
    ended = play(game_id, seated, lambda g: g["state"]["round"] >= 2)  # the round's last move
    assert ada.post(url + "timer/off/propose/").status_code == 200  # pending: Bob to accept
    out.append(record(game_id, "round ended", viewers))
    play(game_id, seated, lambda g: g["version"] - DELAY > ended + 1)
    out.append(record(game_id, "round seen", viewers))
    assert ada.post(url + "concede/").status_code == 200
    out.append(record(game_id, "over", viewers))
    return out


def snapshot_to_act(game_id: int) -> int:
    return int(Game.objects.get(pk=game_id).to_act or 0)


@pytest.fixture(scope="module")
def recording(django_db_setup: Any, django_db_blocker: Any) -> Iterator[list[Truth]]:
    """The game is played once for every test of the module, in a transaction rolled back."""
    with django_db_blocker.unblock(), transaction.atomic():
        out = checkpoints()
        transaction.set_rollback(True)
    yield out


# ============================================================================== the checks
def walk(body: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    """Every (key, value) of a JSON body, nested ones included."""
    if isinstance(body, dict):
        for k, v in body.items():
            yield k, v
            yield from walk(v, k)
    elif isinstance(body, list):
        for v in body:
            yield from walk(v, key)


def nothing_past_the_horizon(body: Any, t: Truth) -> None:
    """No version, move or step number past the horizon, no time after it, no deadline."""
    for key, value in walk(body):
        if key in ("version", "live_version", "at", "seq") and isinstance(value, int):
            assert value <= t.horizon, (key, value, t.horizon)
        if key == "at_version" and isinstance(value, int):
            assert value < t.horizon, (key, value, t.horizon)
        if key in ("deadline", "seconds_left"):
            assert value is None, (key, value)
        if key in NOW_KEYS or not isinstance(value, str) or not ISO_TIME.match(value):
            continue
        when = parse_datetime(value)
        assert when is not None and t.hidden_from is not None
        assert when < t.hidden_from, (key, value, "after the horizon")


def same_table(table: dict[str, Any], t: Truth) -> None:
    """The table as it was after event ``horizon`` (each member the answer has)."""
    assert table is not None
    differ = {k: v for k, v in table.items() if k in t.table and v != t.table[k]}
    assert not differ, differ


def timer_at_horizon(timer: dict[str, Any], t: Truth) -> None:
    assert timer["enabled"] is True and timer["turn_seconds"] == 900
    assert timer["deadline"] is None and timer["seconds_left"] is None and timer["seat"] is None
    proposal = timer["proposal"]
    if t.proposal is None:
        assert proposal is None
    else:
        assert proposal is not None
        assert {k: proposal[k] for k in ("proposed_by", "accepted")} == t.proposal


def detail(body: dict[str, Any], t: Truth) -> None:
    assert body["version"] == t.horizon
    same_table(body["state"], t)
    timer_at_horizon(body["timer"], t)


def scorecard(body: dict[str, Any], t: Truth) -> None:
    assert len(body["rounds"]) == t.rounds, "a round's totals before its end is seen"
    assert body["totals"] == t.scores


def timer(body: dict[str, Any], t: Truth) -> None:
    assert body["version"] == t.horizon
    timer_at_horizon(body["timer"], t)
    proposed = [e for e in body["events"] if e["type"] == "timer_off_proposed"]
    assert len(proposed) == (t.proposal is not None)


def events(body: dict[str, Any], t: Truth) -> None:
    assert body["version"] == t.horizon
    assert [e["seq"] for e in body["events"]] == list(range(1, t.horizon + 1))


def replay(body: dict[str, Any], t: Truth) -> None:
    assert body["version"] == body["at"] == t.horizon
    same_table(body["state"], t)


def replay_steps(body: dict[str, Any], t: Truth) -> None:
    assert body["version"] == t.horizon
    assert [s["seq"] for s in body["steps"]] == list(range(1, t.horizon + 1))


def export(body: dict[str, Any], t: Truth) -> None:
    assert body["version"] == body["final"]["version"] == t.horizon
    assert [e["seq"] for e in body["events"]] == list(range(1, t.horizon + 1))
    assert body["final"]["scores"] == t.scores and body["final"]["rounds"] == t.rounds


def fairness(body: dict[str, Any], t: Truth) -> None:
    assert len(body["rounds"]) == t.rounds + 1, "the deals seen so far"


def spectate(body: dict[str, Any], t: Truth) -> None:
    assert body["version"] == t.horizon and body["live_version"] <= t.horizon
    same_table(body["state"], t)


def nothing_more(body: dict[str, Any], t: Truth) -> None:
    """Nothing of the moves in it: the checks every endpoint gets are enough."""


# What a delayed spectator sees at each endpoint (besides ``nothing_past_the_horizon``). A new
# endpoint must be given its rule here.
RULES: dict[str, Callable[[Any, Truth], None]] = {
    "/api/v1/games/{game_id}/": detail,
    "/api/v1/games/{game_id}/events/": events,
    "/api/v1/games/{game_id}/export/": export,
    "/api/v1/games/{game_id}/fairness/": fairness,
    "/api/v1/games/{game_id}/hint/": nothing_more,  # the seat to act's only: 403 not_seated
    "/api/v1/games/{game_id}/presence/": nothing_more,  # who is connected
    "/api/v1/games/{game_id}/rematch/": nothing_more,  # after the end only
    "/api/v1/games/{game_id}/replay/": replay,
    "/api/v1/games/{game_id}/replay/steps/": replay_steps,
    "/api/v1/games/{game_id}/scorecard/": scorecard,
    "/api/v1/games/{game_id}/spectate/": spectate,
    "/api/v1/games/{game_id}/table/": nothing_more,  # settings
    "/api/v1/games/{game_id}/table/events/": nothing_more,  # chat, numbered apart
    "/api/v1/games/{game_id}/timer/": timer,
}


def live_version(body: dict[str, Any], t: Truth) -> None:
    assert body["version"] == t.version


def live_scorecard(body: dict[str, Any], t: Truth) -> None:
    assert len(body["rounds"]) == t.rounds_live


# What a viewer who may see the live game sees there.
LIVE: dict[str, Callable[[Any, Truth], None]] = {
    "/api/v1/games/{game_id}/": live_version,
    "/api/v1/games/{game_id}/events/": live_version,
    "/api/v1/games/{game_id}/timer/": live_version,
    "/api/v1/games/{game_id}/scorecard/": live_scorecard,
}


# ============================================================================== the tests
# The recording plays in the test database (set up for tests that ask for it).
recorded = pytest.mark.django_db


def test_every_game_endpoint_has_a_rule() -> None:
    assert sorted(RULES) == sorted(PATHS), "say what a delayed spectator sees at a new endpoint"


@recorded
def test_the_checkpoints_cover_the_round_end(recording: list[Truth]) -> None:
    by_name = {t.name: t for t in recording}
    assert by_name["opening"].horizon == 1 and by_name["opening"].version > 1
    ended = by_name["round ended"]
    assert ended.delayed and ended.rounds == 0 and ended.rounds_live == 1
    assert ended.proposal is None
    seen = by_name["round seen"]
    assert seen.delayed and seen.rounds == 1 and seen.proposal is not None
    assert by_name["over"].over and not by_name["over"].delayed


@recorded
@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("who", SPECTATORS)
def test_a_delayed_spectator_sees_nothing_past_the_horizon(
    recording: list[Truth], path: str, who: str
) -> None:
    for t in recording:
        if not t.delayed:
            continue
        status, body = t.answers[who][path]
        if status != 200:
            # e.g. no rematch yet (404), or a hint, which only a seated player may ask for (403)
            refused = status in (404, 409) or (status == 403 and body["code"] == "not_seated")
            assert refused, (t.name, status, body)
            nothing_past_the_horizon(body, t)
            continue
        nothing_past_the_horizon(body, t)
        RULES.get(path, nothing_more)(body, t)


@recorded
def test_the_lobby_list_shows_a_delayed_spectator_the_horizon(recording: list[Truth]) -> None:
    for t in recording:
        entry = t.mine["creator"]
        assert entry["version"] == t.horizon, (t.name, entry["version"], t.horizon)
        assert t.mine["seated"]["version"] == t.version


@recorded
@pytest.mark.parametrize("path", sorted(LIVE))
def test_seated_players_and_everyone_after_the_end_see_the_live_game(
    recording: list[Truth], path: str
) -> None:
    for t in recording:
        viewers = ["seated", *SPECTATORS] if t.over else ["seated"]
        for who in viewers:
            status, body = t.answers[who][path]
            assert status == 200
            LIVE[path](body, t)


@pytest.mark.django_db
def test_a_timer_turned_off_past_the_horizon_still_runs_for_a_delayed_spectator(
    make_player: Callable[..., PlayerClient],
) -> None:
    ada, bob, eve = make_player("Ada"), make_player("Bob"), make_player("Eve")
    game_id = int(create_game(ada, preset="two_player", seat=0, turn_seconds=900)["id"])
    url = f"/api/v1/games/{game_id}/"
    ada.patch(url + "table/", {"spectator_delay": 5}, format="json")
    bob.post(url + "join/", {}, format="json")
    ada.post(url + "start/", {}, format="json")
    assert ada.post(url + "timer/off/propose/").status_code == 200
    assert bob.post(url + "timer/off/accept/").status_code == 200  # events 2 to 4
    assert ada.get(url + "timer/").json()["timer"]["enabled"] is False
    for body in (eve.get(url + "timer/").json(), eve.game(game_id)):
        assert body["version"] == 1
        assert body["timer"]["enabled"] is True and body["timer"]["turn_seconds"] == 900
        assert body["timer"]["proposal"] is None and body["timer"]["deadline"] is None
    assert eve.get(url + "timer/").json()["events"] == []


# ============================================================================== the live tier
live_db = pytest.mark.django_db(transaction=True)  # the feed reads in other threads


@pytest.fixture
def delayed_game(make_player: Callable[..., PlayerClient]) -> tuple[int, PlayerClient]:
    """A game against a bot with a spectator delay, some moves in (more than the delay)."""
    ada = make_player("Ada")
    game = create_game(ada, preset="two_player", seat=0, bots=[{"seat": 1, "level": "easy"}])
    game_id = int(game["id"])
    ada.patch(f"/api/v1/games/{game_id}/table/", {"spectator_delay": 3}, format="json")
    assert ada.post(f"/api/v1/games/{game_id}/start/", {}, format="json").status_code == 200
    for _ in range(4):
        move(ada, game_id)
    return game_id, ada


def live_horizon(game_id: int) -> tuple[int, int]:
    version = Game.objects.get(pk=game_id).version
    return version, version - 3


def stream_frames(game_id: int, token: str, count: int, app: Any = None) -> list[dict[str, Any]]:
    """What a stream sends at once: ``sync``, then each item (``kind``: the frame's event)."""
    kwargs = {"app": app} if app is not None else {}
    path = f"/api/v1/games/{game_id}/stream/"
    call = async_to_sync(fetch)(path, "timeout=0", token=token, **kwargs)
    assert call.status == 200, call.body
    return [{"kind": f["event"], **data(f)} for f in call.frames() if "event" in f]


def socket_messages(game_id: int, token: str, count: int) -> list[dict[str, Any]]:
    """``sync``, ``count`` items and whatever else was queued (``kind``: the message type)."""

    async def scenario() -> list[dict[str, Any]]:
        socket = Socket(game_id, token)
        assert await socket.open()
        got = [await socket.next() for _ in range(count + 1)]
        got += await socket.fence()
        await socket.leave()
        return got

    messages: list[dict[str, Any]] = async_to_sync(scenario)()
    return [{"kind": m["type"], **m} for m in messages]


FOLLOWERS: dict[str, Callable[[int, str, int], list[dict[str, Any]]]] = {
    "stream (live server)": stream_frames,
    "stream (Django view)": lambda g, token, n: stream_frames(g, token, n, django_application),
    "socket": socket_messages,
}


@live_db
@pytest.mark.parametrize("follower", sorted(FOLLOWERS))
def test_live_followers_sync_at_the_horizon(
    delayed_game: tuple[int, PlayerClient], make_player: Callable[..., PlayerClient], follower: str
) -> None:
    game_id, ada = delayed_game
    version, horizon = live_horizon(game_id)
    assert horizon > 1
    got = FOLLOWERS[follower](game_id, make_player("Eve").token, horizon)
    assert got[0]["kind"] == "sync" and got[0]["version"] == horizon, got[0]
    moves = [m for m in got if m["kind"] == "game_event"]
    assert [m["event"]["seq"] for m in moves] == list(range(1, horizon + 1))
    assert all(m["version"] <= horizon for m in got if "version" in m)
    # a seated player follows the live game
    mine = FOLLOWERS[follower](game_id, ada.token, version)
    assert mine[0]["version"] == version
    assert [m["event"]["seq"] for m in mine if m["kind"] == "game_event"][-1] == version


@live_db
def test_a_long_poll_woken_by_a_move_answers_at_the_new_horizon(
    delayed_game: tuple[int, PlayerClient], make_player: Callable[..., PlayerClient]
) -> None:
    game_id, ada = delayed_game
    _, horizon = live_horizon(game_id)
    eve = make_player("Eve")

    async def scenario() -> Call:
        call = Call(f"/api/v1/games/{game_id}/events/", f"after={horizon}&wait=5", eve.token)
        call.start()
        await sync_to_async(move)(ada, game_id)  # the bot answers: the horizon moves on
        await call.until(lambda c: c.complete)
        await call.close()
        return call

    call = async_to_sync(scenario)()
    assert call.status == 200
    body = call.json()
    _, now = live_horizon(game_id)
    assert horizon < body["version"] <= now
    assert [e["seq"] for e in body["events"]] == list(range(horizon + 1, body["version"] + 1))
