"""Taking a seat back from its stand-in bot (``games.services.reclaim``): explicitly, at any time
while the game is played, and by reconnecting within the grace (any database; time is passed
in, not waited)."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from accounts.services.players import player_create
from games import errors, tasks
from games.engine.history import SEAT_HANDED_TO_BOT, SEAT_RETURNED, TIMER_FACTS
from games.models import EventSource, Game, GameEvent, GameStatus, Seat
from games.presence import PRESENCE_WINDOW_SECONDS, presence_note
from games.selectors.timers import timer_view
from games.selectors.verify import game_verify
from games.services.lobby import game_create
from games.services.pause import game_pause_propose, game_resume
from games.services.reclaim import seat_reclaim, seat_reconnect
from games.services.timers import Expiry, turn_timer_expire_apply, turn_timers_sweep
from tests.games.services.timers.conftest import (
    Table,
    after_deadline,
    assert_log_consistent,
    play_turn,
    timed_table,
    timeouts,
)

pytestmark = pytest.mark.django_db


def _stood_in(table: Table, *, ada_to_act: bool) -> Seat:
    """Ada's seat (0) handed to its stand-in after one timeout (``timeout_limit`` 1); with
    ``ada_to_act``, Bob has played on, so that the stand-in is to play her turn at once."""
    game = table.game()
    if game.to_act != 0:
        play_turn(table.game_id, 1)
        game.refresh_from_db()
    assert turn_timer_expire_apply(table.game_id, now=after_deadline(game)).applied
    if ada_to_act:
        play_turn(table.game_id, 1)
    seat = Seat.objects.get(game_id=table.game_id, index=0)
    assert seat.stand_in and seat.timeouts == 1
    assert (table.game().to_act == 0) is ada_to_act
    return seat


def _returned(game_id: int) -> list[GameEvent]:
    return list(GameEvent.objects.filter(game_id=game_id, type=SEAT_RETURNED).order_by("seq"))


def _verified(game_id: int) -> None:
    """The log replays to the game row, its seats and their stand-ins (``replay --verify``)."""
    assert_log_consistent(game_id)
    report = game_verify(Game.objects.get(pk=game_id))
    assert report.ok, report.problems
    out = StringIO()
    call_command("replay", str(game_id), "--verify", stdout=out)
    assert f"game {game_id}: ok" in out.getvalue()


# ============================================================================== explicitly
def test_a_reclaim_when_another_seat_is_to_act_takes_the_seat_back_at_once() -> None:
    table = timed_table(timeout_limit=1)
    _stood_in(table, ada_to_act=False)
    before = table.game()
    assert before.to_act == 1

    game = seat_reclaim(game_id=table.game_id, player_id=table.players[0].pk)

    seat = Seat.objects.get(game_id=table.game_id, index=0)
    assert not seat.stand_in and seat.timeouts == 0
    assert game.version == before.version + 1
    [fact] = _returned(table.game_id)
    assert (fact.seq, fact.seat, fact.source) == (game.version, 0, EventSource.PLAYER)
    assert fact.payload == {"reason": "reclaimed"}
    after = table.game()
    assert after.turn_deadline == before.turn_deadline  # Bob's turn runs on, untouched
    assert [e["stand_in"] for e in after.seating] == [False, False]
    _verified(table.game_id)

    # Ada's next turn is hers: when it runs out it counts as a timeout, no bot plays it
    play_turn(table.game_id, 1)
    game = table.game()
    assert game.to_act == 0 and game.turn_deadline is not None
    assert game.turn_deadline > timezone.now() + timedelta(seconds=20)
    assert turn_timer_expire_apply(table.game_id, now=after_deadline(game)).applied
    assert len(timeouts(table.game_id)) == 2
    assert not GameEvent.objects.filter(game_id=table.game_id, source=EventSource.BOT).exists()
    _verified(table.game_id)


def test_a_reclaim_on_the_seats_turn_stops_the_stand_in_and_gives_a_full_turn() -> None:
    table = timed_table(turn_seconds=30, timeout_limit=1)
    _stood_in(table, ada_to_act=True)
    game = table.game()
    version = game.version
    assert game.turn_deadline is not None and game.turn_deadline <= timezone.now()  # bot: now

    seat_reclaim(game_id=table.game_id, player_id=table.players[0].pk)

    game = table.game()
    assert game.version == version + 1 and game.to_act == 0
    assert game.turn_deadline is not None
    left = (game.turn_deadline - timezone.now()).total_seconds()
    assert 25 < left <= 30  # a fresh deadline for the player
    # the stand-in's task, sent for the version before, finds nothing to do; nor does a sweep
    assert tasks.turn_timer_expire(table.game_id, version) is False
    assert turn_timer_expire_apply(table.game_id, version).outcome is Expiry.NOTHING
    assert turn_timers_sweep() == 0
    assert turn_timer_expire_apply(table.game_id, game.version).outcome is Expiry.NOT_DUE
    assert not GameEvent.objects.filter(game_id=table.game_id, source=EventSource.BOT).exists()
    assert table.game().version == version + 1
    # Ada plays her turn herself
    play_turn(table.game_id, 0)
    assert GameEvent.objects.filter(game_id=table.game_id, seq=version + 2).get().source == (
        EventSource.PLAYER
    )
    _verified(table.game_id)


def test_a_second_reclaim_is_refused_and_changes_nothing() -> None:
    table = timed_table(timeout_limit=1)
    _stood_in(table, ada_to_act=True)
    seat_reclaim(game_id=table.game_id, player_id=table.players[0].pk)
    game = table.game()

    with pytest.raises(errors.SeatNotStoodIn):
        seat_reclaim(game_id=table.game_id, player_id=table.players[0].pk)

    again = table.game()
    assert (again.version, again.turn_deadline) == (game.version, game.turn_deadline)
    assert len(_returned(table.game_id)) == 1
    # Bob's seat never had a stand-in nor a timeout: nothing to take back either
    with pytest.raises(errors.SeatNotStoodIn):
        seat_reclaim(game_id=table.game_id, player_id=table.players[1].pk)
    assert table.game().version == game.version


def test_a_reclaim_ends_a_run_of_timeouts_without_a_stand_in() -> None:
    """A returning player gets every strike back; the running turn keeps its deadline (a
    reclaim gives no extra time)."""
    table = timed_table(timeout_limit=3)
    game = table.game()
    assert game.to_act is not None
    seat_index = game.to_act
    assert turn_timer_expire_apply(table.game_id, now=after_deadline(game)).applied
    play_turn(table.game_id, 1 - seat_index)
    seat = Seat.objects.get(game_id=table.game_id, index=seat_index)
    assert seat.timeouts == 1 and not seat.stand_in
    before = table.game()
    assert before.to_act == seat_index

    seat_reclaim(game_id=table.game_id, player_id=table.players[seat_index].pk)

    seat.refresh_from_db()
    assert seat.timeouts == 0 and not seat.stand_in
    after = table.game()
    assert after.turn_deadline == before.turn_deadline
    assert [e.payload["reason"] for e in _returned(table.game_id)] == ["reclaimed"]
    _verified(table.game_id)


def test_who_may_not_reclaim(replay_unverified: None) -> None:
    table = timed_table(timeout_limit=1)
    _stood_in(table, ada_to_act=False)
    version = table.game().version
    outsider = player_create(display_name="Cy")[0]
    with pytest.raises(errors.NotSeated):
        seat_reclaim(game_id=table.game_id, player_id=outsider.pk)
    with pytest.raises(errors.GameNotFound):
        seat_reclaim(game_id=table.game_id + 1000, player_id=table.players[0].pk)
    lobby = game_create(creator=table.players[0], preset="two_player")
    with pytest.raises(errors.GameNotActive):
        seat_reclaim(game_id=lobby.pk, player_id=table.players[0].pk)
    # (the rows changed by hand: the log does not say so, hence ``replay_unverified``)
    Game.objects.filter(pk=table.game_id).update(status=GameStatus.ABANDONED)
    with pytest.raises(errors.GameNotActive):
        seat_reclaim(game_id=table.game_id, player_id=table.players[0].pk)
    Game.objects.filter(pk=table.game_id).update(status=GameStatus.FINISHED)
    with pytest.raises(errors.GameOver):
        seat_reclaim(game_id=table.game_id, player_id=table.players[0].pk)
    assert Game.objects.get(pk=table.game_id).version == version
    assert Seat.objects.get(game_id=table.game_id, index=0).stand_in


def test_a_paused_game_resumes_with_a_whole_turn_for_the_reclaimed_seat() -> None:
    table = timed_table(turn_seconds=30, timeout_limit=1)
    _stood_in(table, ada_to_act=True)
    ada, bob = table.players
    game_pause_propose(game_id=table.game_id, player=bob)
    game_pause_propose(game_id=table.game_id, player=ada)  # accepts: paused
    game = table.game()
    assert game.paused_at is not None and game.turn_deadline is None
    assert game.pause_remaining == 0  # the stand-in was to play at once

    seat_reclaim(game_id=table.game_id, player_id=ada.pk)
    game = table.game()
    assert game.turn_deadline is None and game.pause_remaining is None  # still paused

    game_resume(game_id=table.game_id, player=ada)
    game = table.game()
    assert game.to_act == 0 and game.turn_deadline is not None
    assert game.turn_deadline > timezone.now() + timedelta(seconds=25)  # a whole turn
    _verified(table.game_id)


# ============================================================================== reconnecting
def _handed_at(game_id: int) -> GameEvent:
    return GameEvent.objects.filter(game_id=game_id, type=SEAT_HANDED_TO_BOT).latest("seq")


@override_settings(SEAT_RECLAIM_GRACE_SECONDS=300)
def test_a_reconnect_within_the_grace_takes_the_seat_back() -> None:
    table = timed_table(timeout_limit=1)
    _stood_in(table, ada_to_act=True)
    handed = _handed_at(table.game_id).created_at
    version = table.game().version
    # Bob connecting changes nothing: his seat has no stand-in (and no query beyond the row)
    assert not seat_reconnect(game_id=table.game_id, player_id=table.players[1].pk)

    back = seat_reconnect(
        game_id=table.game_id,
        player_id=table.players[0].pk,
        now=handed + timedelta(seconds=299),
    )

    assert back
    assert not Seat.objects.get(game_id=table.game_id, index=0).stand_in
    [fact] = _returned(table.game_id)
    assert fact.payload == {"reason": "reconnected"} and fact.source == EventSource.PLAYER
    game = table.game()
    assert game.version == version + 1 and game.to_act == 0
    assert game.turn_deadline is not None and game.turn_deadline > timezone.now()
    assert tasks.turn_timer_expire(table.game_id, version) is False
    # connecting again changes nothing
    assert not seat_reconnect(game_id=table.game_id, player_id=table.players[0].pk)
    assert table.game().version == version + 1
    _verified(table.game_id)


@override_settings(SEAT_RECLAIM_GRACE_SECONDS=300)
def test_a_reconnect_after_the_grace_leaves_the_seat_to_its_stand_in() -> None:
    table = timed_table(timeout_limit=1)
    _stood_in(table, ada_to_act=False)
    handed = _handed_at(table.game_id).created_at
    version = table.game().version

    back = seat_reconnect(
        game_id=table.game_id,
        player_id=table.players[0].pk,
        now=handed + timedelta(seconds=301),
    )

    assert not back
    assert Seat.objects.get(game_id=table.game_id, index=0).stand_in
    assert table.game().version == version and _returned(table.game_id) == []
    # the explicit reclaim still works after the grace
    seat_reclaim(game_id=table.game_id, player_id=table.players[0].pk)
    assert not Seat.objects.get(game_id=table.game_id, index=0).stand_in
    _verified(table.game_id)


@override_settings(SEAT_RECLAIM_GRACE_SECONDS=300)
def test_a_player_seen_lately_was_connected_all_along_and_is_not_coming_back() -> None:
    """An idle client that stayed connected (its long-poll or stream comes back every few
    seconds) does not undo the hand-off; a player away for the presence window does."""
    table = timed_table(timeout_limit=1)
    _stood_in(table, ada_to_act=False)
    ada = table.players[0]
    handed = _handed_at(table.game_id).created_at
    presence_note(table.game_id, ada.pk, handed + timedelta(seconds=10))
    at = handed + timedelta(seconds=10 + PRESENCE_WINDOW_SECONDS - 1)
    assert not seat_reconnect(game_id=table.game_id, player_id=ada.pk, now=at)
    assert Seat.objects.get(game_id=table.game_id, index=0).stand_in
    at = handed + timedelta(seconds=10 + PRESENCE_WINDOW_SECONDS + 1)
    assert seat_reconnect(game_id=table.game_id, player_id=ada.pk, now=at)
    assert not Seat.objects.get(game_id=table.game_id, index=0).stand_in
    _verified(table.game_id)


def test_a_reconnect_does_not_end_a_run_of_timeouts_without_a_stand_in() -> None:
    """Timeouts count while the player is connected; a connection is not a move."""
    table = timed_table(timeout_limit=3)
    game = table.game()
    assert game.to_act is not None
    seat_index = game.to_act
    assert turn_timer_expire_apply(table.game_id, now=after_deadline(game)).applied
    assert not seat_reconnect(game_id=table.game_id, player_id=table.players[seat_index].pk)
    assert Seat.objects.get(game_id=table.game_id, index=seat_index).timeouts == 1


def test_the_timer_view_tells_how_to_take_a_stood_in_seat_back() -> None:
    table = timed_table(timeout_limit=1)
    before = timer_view(table.game())
    assert [(s["reclaim_url"], s["reconnect_until"]) for s in before["seats"]] == [
        (None, None),
        (None, None),
    ]
    _stood_in(table, ada_to_act=False)
    handed = _handed_at(table.game_id).created_at
    seats = timer_view(table.game())["seats"]
    assert seats[0]["stand_in"] is True
    assert seats[0]["reclaim_url"] == f"/api/v1/games/{table.game_id}/seat/reclaim/"
    assert seats[0]["reconnect_until"] == handed + timedelta(seconds=300)
    assert (seats[1]["reclaim_url"], seats[1]["reconnect_until"]) == (None, None)
    types = list(
        GameEvent.objects.filter(game_id=table.game_id, type__in=TIMER_FACTS).values_list(
            "type", flat=True
        )
    )
    assert types == ["turn_timed_out", "seat_handed_to_bot"]
