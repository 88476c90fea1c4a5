"""``POST /games/{id}/seat/reclaim/`` ("I'm back"), the seat taken back by a live connection
within the grace, what the game view tells a player whose seat a stand-in plays, and the turn
timer's rules in the rule book (``GET /rules/``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.core.cache import cache
from django.test import override_settings
from django.utils import timezone

from games.engine.history import SEAT_HANDED_TO_BOT
from games.models import Game, GameEvent, Seat
from games.presence import KEY as PRESENCE_KEY
from games.presence import PRESENCE_WINDOW_SECONDS
from games.selectors.timers import QUICK_PLAY_TURN_SECONDS
from games.services.deadlines import grace
from games.services.timers import turn_timer_expire_apply
from tests.games.api.conftest import PlayerClient, create_game, move, two_player_game
from tests.games.api.test_socket import Socket

pytestmark = pytest.mark.django_db


def _absent(ada: PlayerClient, bob: PlayerClient) -> tuple[int, PlayerClient, PlayerClient, int]:
    """A timed two-player game (one timeout hands a seat over) whose seat to act ran out of
    time: (game, the absent player, the other, the absent one's seat). The stand-in played
    that turn; the other is to act."""
    game_id = two_player_game(ada, bob, turn_seconds=30, timeout_limit=1)
    game = Game.objects.get(pk=game_id)
    seat = game.to_act
    assert seat is not None and game.turn_deadline is not None
    now = game.turn_deadline + grace() + timedelta(seconds=1)
    assert turn_timer_expire_apply(game_id, now=now).applied
    absent, other = (ada, bob) if seat == 0 else (bob, ada)
    assert Seat.objects.get(game_id=game_id, index=seat).stand_in
    return game_id, absent, other, seat


def _url(game_id: int) -> str:
    return f"/api/v1/games/{game_id}/seat/reclaim/"


def _stood_in(game_id: int, seat: int) -> bool:
    return Seat.objects.get(game_id=game_id, index=seat).stand_in


def test_the_game_view_tells_a_player_their_seat_is_stood_in_and_how_to_reclaim(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game_id, absent, other, seat = _absent(ada, bob)
    handed = GameEvent.objects.get(game_id=game_id, type=SEAT_HANDED_TO_BOT).created_at
    body = absent.game(game_id)
    assert body["your_seat"] == seat  # still their seat, not a spectator's view
    mine = body["timer"]["seats"][seat]
    assert mine["stand_in"] is True
    assert mine["reclaim_url"] == _url(game_id)
    reconnect_until = mine["reconnect_until"].replace("Z", "+00:00")
    assert reconnect_until == (handed + timedelta(seconds=300)).isoformat()
    theirs = body["timer"]["seats"][1 - seat]
    assert (theirs["stand_in"], theirs["reclaim_url"], theirs["reconnect_until"]) == (
        False,
        None,
        None,
    )
    # the timer endpoint shows the same, and the hand-off in its log
    timer = absent.get(f"/api/v1/games/{game_id}/timer/").json()
    assert timer["timer"]["seats"][seat]["reclaim_url"] == _url(game_id)
    assert [e["type"] for e in timer["events"]] == ["turn_timed_out", "seat_handed_to_bot"]


def test_reclaim_takes_the_seat_back_once_and_is_logged(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game_id, absent, other, seat = _absent(ada, bob)
    version = Game.objects.get(pk=game_id).version

    answer = absent.post(_url(game_id))

    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["your_seat"] == seat and body["version"] == version + 1
    assert body["timer"]["seats"][seat] == {
        "index": seat,
        "timeouts": 0,
        "stand_in": False,
        "reclaim_url": None,
        "reconnect_until": None,
    }
    assert not _stood_in(game_id, seat)
    # in the move log (what the replay and the live feed carry) and the timer's log
    events = absent.get(f"/api/v1/games/{game_id}/events/", {"after": version}).json()["events"]
    [fact] = events
    assert (fact["seq"], fact["type"], fact["seat"], fact["source"]) == (
        version + 1,
        "seat_returned",
        seat,
        "player",
    )
    assert fact["payload"]["reason"] == "reclaimed"
    log = absent.get(f"/api/v1/games/{game_id}/timer/").json()["events"]
    assert log[-1]["type"] == "seat_returned" and log[-1]["payload"]["reason"] == "reclaimed"

    # twice: refused, nothing changes
    again = absent.post(_url(game_id))
    assert again.status_code == 409, again.content
    assert again.json()["code"] == "seat_not_stood_in"
    assert Game.objects.get(pk=game_id).version == version + 1
    # the other player's seat has nothing to take back either
    refused = other.post(_url(game_id))
    assert refused.status_code == 409 and refused.json()["code"] == "seat_not_stood_in"


def test_reclaim_on_the_seats_turn_gives_a_full_turn(ada: PlayerClient, bob: PlayerClient) -> None:
    game_id, absent, other, seat = _absent(ada, bob)
    game = other.game(game_id)
    # the other player plays their turn: the absent seat is to act, its stand-in due at once
    while Game.objects.get(pk=game_id).to_act != seat:
        move(other, game_id)
    stand_in_due = Game.objects.get(pk=game_id).turn_deadline
    assert stand_in_due is not None and stand_in_due <= timezone.now()

    answer = absent.post(_url(game_id))

    assert answer.status_code == 200, answer.content
    timer = answer.json()["timer"]
    assert timer["seat"] == seat and timer["seconds_left"] > 25  # a full 30 s turn
    assert answer.json()["state"]["legal_actions"]  # theirs to play
    assert game["version"] < answer.json()["version"]


def test_who_may_not_reclaim(ada: PlayerClient, bob: PlayerClient, make_player: Any) -> None:
    game_id, absent, other, seat = _absent(ada, bob)
    cy = make_player("Cy")
    refused = cy.post(_url(game_id))
    assert refused.status_code == 403 and refused.json()["code"] == "not_seated"
    lobby = create_game(ada, preset="two_player", seat=0)
    refused = ada.post(_url(lobby["id"]))
    assert refused.status_code == 409 and refused.json()["code"] == "game_not_active"
    unknown = ada.post(_url(game_id + 1000))
    assert unknown.status_code == 404 and unknown.json()["code"] == "not_found"
    assert _stood_in(game_id, seat)


@override_settings(SEAT_RECLAIM_GRACE_SECONDS=300)
def test_a_long_poll_of_a_player_coming_back_within_the_grace_takes_the_seat_back(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    """A live connection opening (here the long-poll; the stream shares its entry) after the
    player was away is the player coming back; one that never went away is not."""
    game_id, absent, other, seat = _absent(ada, bob)
    handed = GameEvent.objects.get(game_id=game_id, type=SEAT_HANDED_TO_BOT)
    poll = {"after": 0, "wait": 1}
    # too late: the hand-off was more than the grace ago
    GameEvent.objects.filter(pk=handed.pk).update(
        created_at=timezone.now() - timedelta(seconds=301)
    )
    assert absent.get(f"/api/v1/games/{game_id}/events/", poll).status_code == 200
    assert _stood_in(game_id, seat)
    # the other player's long-poll takes nothing from anybody
    other.get(f"/api/v1/games/{game_id}/events/", poll)
    assert _stood_in(game_id, seat)

    GameEvent.objects.filter(pk=handed.pk).update(
        created_at=timezone.now() - timedelta(seconds=299)
    )
    # within the grace, but the player was polling all along (seen a moment ago): not a return
    assert absent.get(f"/api/v1/games/{game_id}/events/", poll).status_code == 200
    assert _stood_in(game_id, seat)
    # away for longer than the presence window, then back: the seat is theirs again
    cache.delete(PRESENCE_KEY.format(game=game_id, player=absent.player_id))
    polled = absent.get(f"/api/v1/games/{game_id}/events/", poll)
    assert polled.status_code == 200
    assert not _stood_in(game_id, seat)
    last = polled.json()["events"][-1]
    assert last["type"] == "seat_returned" and last["payload"]["reason"] == "reconnected"


# ============================================================================== the rule book
@override_settings(SEAT_RECLAIM_GRACE_SECONDS=240, TURN_TIMER_GRACE_MS=500)
def test_the_rule_book_states_the_timer_rules_from_the_settings(ada: PlayerClient) -> None:
    timers = ada.get("/api/v1/rules/").json()["timers"]
    assert timers["quick_play_turn_seconds"] == QUICK_PLAY_TURN_SECONDS == 60
    assert timers["grace_ms"] == 500
    assert timers["timeout_limit"] == 3
    assert (timers["casual_timeout_outcome"], timers["rated_timeout_outcome"]) == (
        "bot",
        "abandon",
    )
    assert timers["reclaim_grace_seconds"] == 240
    assert timers["reclaim_path"] == "/api/v1/games/{id}/seat/reclaim/"
    assert timers["presence_window_seconds"] == PRESENCE_WINDOW_SECONDS
    text = " ".join(timers["rules"])
    for figure in ("60 seconds", "500 ms", "After 3 timeouts", "within 240 seconds"):
        assert figure in text, figure
    assert "abandoned" in text and "seat/reclaim/" in text


# ============================================================================== the socket
@pytest.mark.django_db(transaction=True)
@override_settings(SEAT_RECLAIM_GRACE_SECONDS=300)
def test_a_socket_opened_within_the_grace_takes_the_seat_back(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game_id, absent, other, seat = _absent(ada, bob)
    version = Game.objects.get(pk=game_id).version

    async def scenario() -> list[dict[str, Any]]:
        socket = Socket(game_id, absent.token, query=f"cursor={version}-0")
        assert await socket.open()
        got = [await socket.next()]  # sync
        got += await socket.fence()
        await socket.leave()
        return got

    messages = async_to_sync(scenario)()
    assert not _stood_in(game_id, seat)
    events = [m["event"] for m in messages if m["type"] == "game_event"]
    assert [(e["type"], e["payload"]["reason"]) for e in events] == [
        ("seat_returned", "reconnected")
    ]


@pytest.mark.django_db(transaction=True)
@override_settings(SEAT_RECLAIM_GRACE_SECONDS=0)
def test_a_socket_opened_after_the_grace_leaves_the_seat_to_its_stand_in(
    ada: PlayerClient, bob: PlayerClient
) -> None:
    game_id, absent, other, seat = _absent(ada, bob)
    GameEvent.objects.filter(game_id=game_id, type=SEAT_HANDED_TO_BOT).update(
        created_at=timezone.now() - timedelta(seconds=1)
    )

    async def scenario() -> None:
        socket = Socket(game_id, absent.token)
        assert await socket.open()
        await socket.next()  # sync
        await socket.fence()
        await socket.leave()

    async_to_sync(scenario)()
    assert _stood_in(game_id, seat)
    assert absent.post(_url(game_id)).status_code == 200  # the explicit reclaim still works
    assert not _stood_in(game_id, seat)
