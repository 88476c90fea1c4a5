"""Turn timers through the services and the API (any database; time is passed in, not waited)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Player
from accounts.services.credentials import guest_key_issue
from accounts.services.players import player_create
from games import errors
from games.engine import GameState, action_to_dict, legal_actions
from games.engine.history import TIMER_FACTS
from games.models import EventSource, Game, GameEvent, GameStatus, Seat
from games.selectors.timers import timer_log_get
from games.services.actions import game_action_apply
from games.services.deadlines import TimerOptions, grace, turn_timer_arm
from games.services.lobby import BotSeatSpec, game_create, game_start
from games.services.timers import Expiry, minimal_choose, turn_timer_expire_apply, turn_timers_sweep
from tests.games.services.timers.conftest import (
    after_deadline,
    assert_log_consistent,
    overdue,
    play_turn,
    timed_table,
    timeouts,
    timer_moves,
)

pytestmark = pytest.mark.django_db


def client_for(player: Player) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {guest_key_issue(player.user)}")
    return client


# ============================================================================== options, state
def test_a_deadline_is_set_at_the_start_and_shown_with_the_server_time() -> None:
    table = timed_table(turn_seconds=30)
    game = table.game()
    assert game.turn_seconds == 30 and game.to_act is not None
    assert game.turn_deadline is not None
    left = (game.turn_deadline - timezone.now()).total_seconds()
    assert 25 < left <= 30
    body = client_for(table.players[0]).get(f"/api/v1/games/{table.game_id}/").json()
    timer = body["timer"]
    assert timer["enabled"] is True and timer["turn_seconds"] == 30
    assert timer["deadline"] is not None and timer["server_time"] is not None
    assert timer["seat"] == game.to_act and 25 < timer["seconds_left"] <= 30
    assert [s["timeouts"] for s in timer["seats"]] == [0, 0]


def test_create_request_takes_and_validates_the_timer_options() -> None:
    ada = player_create(display_name="Ada")[0]
    client = client_for(ada)
    made = client.post(
        "/api/v1/games/",
        {
            "preset": "two_player",
            "turn_seconds": 45,
            "timeout_limit": 2,
            "timeout_outcome": "abandon",
        },
        format="json",
    )
    assert made.status_code == 201, made.content
    game = Game.objects.get(pk=made.json()["id"])
    assert (game.turn_seconds, game.timeout_limit, game.timeout_outcome) == (45, 2, "abandon")
    assert made.json()["timer"]["deadline"] is None  # nothing runs in the lobby
    for bad in ({"turn_seconds": 0}, {"turn_seconds": 7 * 24 * 3600 + 1}, {"timeout_outcome": "x"}):
        refused = client.post("/api/v1/games/", {"preset": "two_player", **bad}, format="json")
        assert refused.status_code == 400, refused.content
        assert refused.json()["code"] == "invalid_request"
    with pytest.raises(errors.TimerOptionInvalid):
        TimerOptions(turn_seconds=-5).fields()


def test_the_deadline_runs_per_turn_and_moves_on_with_the_turn() -> None:
    table = timed_table(turn_seconds=30)
    game = table.game()
    seat, first_deadline = game.to_act, game.turn_deadline
    assert seat is not None
    game_action_apply(
        game_id=table.game_id, seat=seat, action={"type": "draw"}, expected_version=game.version
    )
    game.refresh_from_db()
    assert game.to_act == seat and game.turn_deadline == first_deadline  # same turn
    play_turn_rest = GameState.from_dict(game.snapshot or {})
    discard = next(a for a in legal_actions(play_turn_rest) if a.type == "discard")
    game_action_apply(
        game_id=table.game_id,
        seat=seat,
        action=action_to_dict(discard),
        expected_version=game.version,
    )
    game.refresh_from_db()
    assert game.to_act == 1 - seat
    assert first_deadline is not None and game.turn_deadline is not None
    assert game.turn_deadline > first_deadline


# ============================================================================== expiry
def test_an_expiry_completes_the_turn_once_and_is_logged() -> None:
    table = timed_table()
    game = table.game()
    seat, version = game.to_act, game.version
    assert seat is not None
    when = after_deadline(game)

    early = turn_timer_expire_apply(table.game_id, version, now=game.turn_deadline)
    assert early.outcome is Expiry.NOT_DUE  # the grace after the deadline
    assert table.game().version == version

    assert turn_timer_expire_apply(table.game_id, version, now=when).applied
    # every later path finds nothing to do: the same task again, the sweeper, a request (the
    # next seat's deadline is 30 s from now)
    assert turn_timer_expire_apply(table.game_id, version, now=when).outcome is Expiry.NOTHING
    assert turn_timers_sweep() == 0
    client_for(table.players[0]).get(f"/api/v1/games/{table.game_id}/")

    game.refresh_from_db()
    moves = timer_moves(table.game_id)
    assert [m.type for m in moves] == ["draw", "discard"]
    assert all(m.seat == seat for m in moves)
    # the log: the timeout (a fact of the table), then the two moves the timer played
    assert game.version == version + 3 and game.to_act == 1 - seat
    [timeout] = timeouts(table.game_id)
    assert timeout.seat == seat and timeout.seq == version + 1 and timeout.source == "timer"
    assert timeout.payload["consecutive"] == 1
    [entry] = [e for e in timer_log_get(game) if e["type"] == "turn_timed_out"]
    assert entry["at_version"] == version and entry["payload"]["events"] == [
        version + 2,
        version + 3,
    ]
    assert Seat.objects.get(game_id=table.game_id, index=seat).timeouts == 1
    assert game.turn_deadline is not None and game.turn_deadline > timezone.now()
    assert_log_consistent(table.game_id)

    events = client_for(table.players[0]).get(f"/api/v1/games/{table.game_id}/events/").json()
    assert [e["source"] for e in events["events"][-2:]] == ["timer", "timer"]


def test_a_move_before_the_deadline_wins_over_the_timer() -> None:
    table = timed_table()
    game = table.game()
    seat, version = game.to_act, game.version
    assert seat is not None
    late = after_deadline(game)
    play_turn(table.game_id, seat)  # in time
    # the ETA task for the old version, and the sweeper at the old deadline: nothing
    assert turn_timer_expire_apply(table.game_id, version, now=late).outcome is Expiry.NOTHING
    assert turn_timers_sweep() == 0
    assert timeouts(table.game_id) == [] and timer_moves(table.game_id) == []


def test_a_started_turn_still_expires_at_its_deadline() -> None:
    table = timed_table()
    game = table.game()
    seat = game.to_act
    assert seat is not None
    game_action_apply(
        game_id=table.game_id, seat=seat, action={"type": "draw"}, expected_version=game.version
    )
    game.refresh_from_db()
    assert turn_timers_sweep(now=after_deadline(game)) == 1
    assert [m.type for m in timer_moves(table.game_id)] == ["discard"]
    assert table.game().to_act == 1 - seat


def test_a_read_writes_nothing_and_the_next_write_applies_an_overdue_expiry() -> None:
    table = timed_table()
    version = table.game().version
    overdue(table.game_id)
    client = client_for(table.players[1])
    body = client.get(f"/api/v1/games/{table.game_id}/").json()
    assert body["version"] == version and timeouts(table.game_id) == []  # reads never write
    assert body["timer"]["seconds_left"] == 0
    assert client.post(f"/api/v1/games/{table.game_id}/presence/").status_code == 200
    assert table.game().version == version + 3
    [timeout] = timeouts(table.game_id)
    assert timeout.payload["via"] == "request"
    assert_log_consistent(table.game_id)


def test_timers_off_nothing_fires() -> None:
    table = timed_table(turn_seconds=None)
    game = table.game()
    assert game.turn_seconds is None and game.turn_deadline is None
    far = timezone.now() + timedelta(days=1)
    assert turn_timer_expire_apply(table.game_id, game.version, now=far).outcome is Expiry.NOTHING
    assert turn_timers_sweep(now=far) == 0
    body = client_for(table.players[0]).get(f"/api/v1/games/{table.game_id}/").json()
    assert body["version"] == game.version
    assert body["timer"]["enabled"] is False and body["timer"]["deadline"] is None
    assert (
        GameEvent.objects.filter(type__in=TIMER_FACTS).count() == 0
        and timer_moves(table.game_id) == []
    )


# ============================================================================== K timeouts
def _time_out(table: Any, times: int) -> None:
    """Let the seat to act time out ``times`` times in a row (the other seat plays itself)."""
    for _ in range(times):
        game = table.game()
        if game.status != GameStatus.ACTIVE:
            return
        if game.to_act != 0:
            play_turn(table.game_id, 1)
            game.refresh_from_db()
        turn_timers_sweep(now=after_deadline(game))


def test_k_timeouts_hand_the_seat_to_a_bot_until_its_player_is_back() -> None:
    table = timed_table(timeout_limit=2)
    _time_out(table, 2)
    ada = Seat.objects.get(game_id=table.game_id, index=0)
    assert ada.timeouts == 2 and ada.stand_in
    types = list(
        GameEvent.objects.filter(game_id=table.game_id, type__in=TIMER_FACTS).values_list(
            "type", flat=True
        )
    )
    assert types == ["turn_timed_out", "turn_timed_out", "seat_handed_to_bot"]

    # the stand-in plays Ada's next turn at once (source bot), without counting a timeout
    play_turn(table.game_id, 1)
    game = table.game()
    assert game.to_act == 0 and game.turn_deadline is not None
    assert game.turn_deadline + grace() <= timezone.now()
    assert turn_timers_sweep() == 1
    assert GameEvent.objects.filter(game_id=table.game_id, source=EventSource.BOT).exists()
    assert len(timeouts(table.game_id)) == 2

    # Ada reads the game: her seat stays with the bot (reads never write)
    play_turn(table.game_id, 1)
    client_for(table.players[0]).get(f"/api/v1/games/{table.game_id}/")
    ada.refresh_from_db()
    assert ada.stand_in
    # Ada makes a write request: her seat is hers again, the run of timeouts starts again
    client_for(table.players[0]).post(f"/api/v1/games/{table.game_id}/presence/")
    ada.refresh_from_db()
    assert not ada.stand_in and ada.timeouts == 0
    game = table.game()
    assert game.to_act == 0 and game.turn_deadline is not None
    assert game.turn_deadline > timezone.now() + timedelta(seconds=20)  # a full turn
    last = GameEvent.objects.filter(game_id=table.game_id, type__in=TIMER_FACTS).last()
    assert last is not None and last.type == "seat_returned"
    assert_log_consistent(table.game_id)


def test_k_timeouts_abandon_the_game_when_so_chosen() -> None:
    table = timed_table(timeout_limit=2, timeout_outcome="abandon")
    _time_out(table, 2)
    game = table.game()
    assert game.status == GameStatus.ABANDONED and game.turn_deadline is None
    assert len(timeouts(table.game_id)) == 2
    last = GameEvent.objects.filter(game_id=table.game_id, type__in=TIMER_FACTS).last()
    assert last is not None and last.type == "game_abandoned"
    assert len(timer_moves(table.game_id)) == 2  # only the first timeout played a turn


def test_a_players_own_move_resets_the_run_of_timeouts() -> None:
    table = timed_table(timeout_limit=2)
    _time_out(table, 1)
    assert Seat.objects.get(game_id=table.game_id, index=0).timeouts == 1
    play_turn(table.game_id, 1)
    play_turn(table.game_id, 0)  # Ada in time
    assert Seat.objects.get(game_id=table.game_id, index=0).timeouts == 0


# ============================================================================== turning it off
def test_turning_the_timer_off_needs_every_player() -> None:
    table = timed_table()
    ada, bob = (client_for(p) for p in table.players)
    url = f"/api/v1/games/{table.game_id}/timer/"
    assert ada.post(url + "off/accept/").json()["code"] == "timer_proposal_missing"

    proposed = ada.post(url + "off/propose/")
    assert proposed.status_code == 200, proposed.content
    assert proposed.json()["timer"]["proposal"]["waiting_for"] == [1]
    assert bob.post(url + "off/propose/").json()["code"] == "timer_proposal_pending"
    assert ada.post(url + "off/accept/").status_code == 200  # twice: no change
    assert table.game().turn_seconds == 30

    declined = bob.post(url + "off/decline/")
    assert declined.status_code == 200 and declined.json()["timer"]["proposal"] is None

    # Ada's proposal was declined: she waits (PROPOSAL_COOLDOWN_SECONDS); Bob may propose.
    assert ada.post(url + "off/propose/").json()["code"] == "proposal_cooldown"
    bob.post(url + "off/propose/")
    done = ada.post(url + "off/accept/").json()
    assert done["timer"]["enabled"] is False and done["timer"]["deadline"] is None
    assert [e["type"] for e in done["events"]] == [
        "timer_off_proposed",
        "timer_off_declined",
        "timer_off_proposed",
        "timer_off_accepted",
        "timer_turned_off",
    ]
    assert ada.post(url + "off/propose/").json()["code"] == "timer_not_running"
    game = table.game()
    assert turn_timers_sweep(now=timezone.now() + timedelta(days=1)) == 0
    assert game.turn_deadline is None

    outsider = client_for(player_create(display_name="Cy")[0])
    table2 = timed_table()
    refused = outsider.post(f"/api/v1/games/{table2.game_id}/timer/off/propose/")
    assert refused.status_code == 403 and refused.json()["code"] == "not_seated"
    assert outsider.get(f"/api/v1/games/{table2.game_id}/timer/").status_code == 200


def test_the_minimal_play_answers_a_partners_question_with_no() -> None:
    ada = player_create(display_name="Ada")[0]
    game = game_create(
        creator=ada,
        preset="classic",
        options={"target_score": 1000},
        bots=[BotSeatSpec(seat) for seat in (1, 2, 3)],
        timer=TimerOptions(turn_seconds=30),
    )
    game_start(game_id=game.pk, player=ada)
    game.refresh_from_db()
    state = GameState.from_dict(game.snapshot or {})
    state.phase = "answer"  # as if seat 2 had asked whether it may go out
    state.to_act = 0
    assert minimal_choose(game, state, 0) == {"type": "answer_partner", "allow": False}
    state.phase = "draw"
    assert minimal_choose(game, state, 0)["type"] == "draw"


def test_a_new_turn_of_the_same_seat_gets_a_full_deadline() -> None:
    """The deadline is kept while a seat goes on with its turn, not into its next turn (a new
    round may begin with the seat that ended the last one)."""
    table = timed_table(turn_seconds=30)
    game = table.game()
    seats = list(game.seats.order_by("index"))
    old = timezone.now() - timedelta(seconds=5)
    assert game.snapshot is not None
    for phase, kept in (("play", True), ("draw", False)):
        game.turn_deadline = old
        game.snapshot["phase"] = phase
        turn_timer_arm(game, seats, acted=game.to_act, source=EventSource.PLAYER)
        assert (game.turn_deadline == old) is kept, phase
        assert game.turn_deadline is not None
        if not kept:
            assert game.turn_deadline > timezone.now() + timedelta(seconds=25)


def test_an_action_request_applies_an_overdue_expiry_first_and_is_then_stale() -> None:
    table = timed_table()
    version = table.game().version
    overdue(table.game_id)
    response = client_for(table.players[0]).post(
        f"/api/v1/games/{table.game_id}/actions/",
        {"action": {"type": "draw"}, "expected_version": version},
        format="json",
    )
    # the expiry is committed (it played Ada's turn), and her move, chosen before it, is stale
    assert response.status_code == 409, response.content
    assert response.json()["current_version"] == version + 3
    [timeout] = timeouts(table.game_id)
    assert timeout.payload["via"] == "request" and timeout.seat == 0
    assert table.game().version == version + 3
    assert_log_consistent(table.game_id)


def test_a_player_whose_seat_a_bot_holds_gets_it_back_by_acting() -> None:
    table = timed_table(timeout_limit=1)
    _time_out(table, 1)
    play_turn(table.game_id, 1)
    ada = Seat.objects.get(game_id=table.game_id, index=0)
    assert ada.stand_in and table.game().to_act == 0
    version = table.game().version
    response = client_for(table.players[0]).post(
        f"/api/v1/games/{table.game_id}/actions/",
        {"action": {"type": "draw"}, "expected_version": version},
        format="json",
    )
    # her seat is hers again before her move is tried, and her move is applied
    assert response.status_code == 201, response.content
    ada.refresh_from_db()
    assert not ada.stand_in and ada.timeouts == 0
    assert GameEvent.objects.get(game_id=table.game_id, seq=version + 1).source == "player"
    last = GameEvent.objects.filter(game_id=table.game_id, type__in=TIMER_FACTS).last()
    assert last is not None and last.type == "seat_returned"
    assert_log_consistent(table.game_id)


@pytest.mark.django_db(transaction=True)
def test_a_fact_in_the_log_does_not_stall_the_bot_to_act() -> None:
    """A fact moves the version after a move scheduled the bot's turn: the turn is sent again
    for the new version, and the bot plays on."""
    ada, _ = player_create(display_name="Ada")
    game = game_create(
        creator=ada,
        preset="two_player",
        seat=0,
        bots=[BotSeatSpec(seat=1)],
        timer=TimerOptions(turn_seconds=30, timeout_limit=1),
    )
    game_start(game_id=game.pk, player=ada)
    game.refresh_from_db()
    assert game.to_act == 0
    assert turn_timers_sweep(now=after_deadline(game)) == 1
    log = list(GameEvent.objects.filter(game=game).order_by("seq"))
    handed = next(e.seq for e in log if e.type == "seat_handed_to_bot")
    assert any(e.seq > handed and e.seat == 1 and e.source == "bot" for e in log), [
        (e.seq, e.type, e.source) for e in log
    ]
    game.refresh_from_db()
    assert game.to_act == 0 and game.version == log[-1].seq
