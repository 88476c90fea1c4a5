"""Correspondence turns (hours to days) driven by a fake clock: no ETA task, the sweep expires
them with the same once-only guarantees, and reminds the player to act once per turn."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import pytest
from django.utils import timezone

from accounts.services.players import player_create
from canasta_service.celery import app as celery_app
from games import tasks
from games.models import Game, Seat
from games.services.actions import game_action_apply
from games.services.deadlines import REMINDER_FRACTION_DEFAULT, TimerOptions
from games.services.lobby import BotSeatSpec, game_create, game_start
from games.services.timer_schedule import (
    TURN_SECONDS_ETA_MAX,
    TURN_TIMER_EXPIRE_TASK,
    turn_timer_schedule,
)
from games.services.timers import turn_reminder_send, turn_reminders_send, turn_timers_sweep
from notifications.models import Notification, NotificationKind, NotificationSettings
from notifications.services.notifications import preferences_set
from tests.games.api.test_race import race
from tests.games.services.timers.clock import FakeClock
from tests.games.services.timers.conftest import (
    Table,
    after_deadline,
    assert_log_consistent,
    play_turn,
    timed_table,
    timeouts,
    timer_moves,
)

# The tests check what the outbox writes; no delivery leaves after a commit.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("nothing_delivered")]

HOUR = 3600


def reachable(table: Table) -> None:
    """Both players get their notifications by e-mail (an endpoint the outbox writes for)."""
    for player in table.players:
        preferences_set(player.pk, email=f"{player.display_name.lower()}@example.com")


def correspondence_table(turn_seconds: int = HOUR) -> Table:
    table = timed_table(turn_seconds=turn_seconds)
    reachable(table)
    return table


def reminders(game_id: int) -> list[Notification]:
    return list(
        Notification.objects.filter(game_id=game_id, kind=NotificationKind.REMINDER).order_by("pk")
    )


def turn_start(game: Game) -> datetime:
    """When the current turn's deadline was armed (its full length before the deadline)."""
    assert game.turn_deadline is not None and game.turn_seconds is not None
    return game.turn_deadline - timedelta(seconds=game.turn_seconds)


# ============================================================================== ETA tasks
@pytest.fixture
def sent_tasks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[str, Any, Any]]]:
    """As with a broker configured (not eager): the tasks sent, none leaving the process."""
    calls: list[tuple[str, Any, Any]] = []
    monkeypatch.setattr(
        celery_app, "send_task", lambda name, args=None, **kw: calls.append((name, args, kw))
    )
    saved = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        yield calls
    finally:
        celery_app.conf.task_always_eager = saved


def test_a_correspondence_turn_sends_no_eta_task_and_a_short_turn_does(
    sent_tasks: list[tuple[str, Any, Any]],
) -> None:
    long_turn, short_turn = timed_table(turn_seconds=HOUR), timed_table(turn_seconds=30)
    turn_timer_schedule(long_turn.game_id)
    assert sent_tasks == []  # the sweep keeps an hour-long turn
    turn_timer_schedule(short_turn.game_id)
    [(name, args, options)] = sent_tasks
    game = short_turn.game()
    assert name == TURN_TIMER_EXPIRE_TASK and args == (short_turn.game_id, game.version)
    assert game.turn_deadline is not None and options["eta"] > game.turn_deadline


def test_a_correspondence_turn_gets_an_eta_task_once_its_deadline_is_near(
    sent_tasks: list[tuple[str, Any, Any]],
) -> None:
    """What counts is how far the deadline is: within TURN_SECONDS_ETA_MAX a task is safe."""
    table = timed_table(turn_seconds=HOUR)
    near = timezone.now() + timedelta(seconds=TURN_SECONDS_ETA_MAX - 60)
    Game.objects.filter(pk=table.game_id).update(turn_deadline=near)
    turn_timer_schedule(table.game_id)
    assert [name for name, _, _ in sent_tasks] == [TURN_TIMER_EXPIRE_TASK]


def test_a_move_of_a_correspondence_game_sends_no_eta_task(
    sent_tasks: list[tuple[str, Any, Any]],
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    table = timed_table(turn_seconds=2 * 24 * HOUR)
    seat = table.game().to_act
    assert seat is not None
    with django_capture_on_commit_callbacks(execute=True) as hooks:
        play_turn(table.game_id, seat)
    assert hooks  # the timer's hook ran after each move's commit, and sent nothing
    assert [name for name, _, _ in sent_tasks if name == TURN_TIMER_EXPIRE_TASK] == []
    game = table.game()
    assert game.turn_deadline is not None
    assert game.turn_deadline > timezone.now() + timedelta(days=1, hours=23)


# ============================================================================== reminder, expiry
def test_the_reminder_and_the_expiry_of_a_one_hour_turn_each_happen_once(
    clock: FakeClock,
) -> None:
    table = correspondence_table()
    game = table.game()
    seat, version = game.to_act, game.version
    assert seat is not None and game.turn_deadline == clock.now + timedelta(hours=1)
    assert game.reminder_at == clock.now + timedelta(seconds=REMINDER_FRACTION_DEFAULT * HOUR)
    deadline = game.turn_deadline

    # half an hour in: nothing is due
    assert turn_timers_sweep(now=clock.advance(minutes=30)) == 0
    assert reminders(table.game_id) == [] and table.game().version == version

    # past the reminder time: one reminder, however many sweeps run
    clock.advance(minutes=16)
    for _ in range(3):
        assert turn_timers_sweep(now=clock.now) == 0
    assert turn_reminders_send(now=clock.now) == 0
    assert turn_reminder_send(table.game_id, now=clock.now) is False
    [reminder] = reminders(table.game_id)
    assert reminder.player_id == table.players[seat].pk and reminder.event_seq == version
    assert reminder.payload["deadline"] == deadline.isoformat()
    assert reminder.payload["kind"] == "reminder" and reminder.payload["game_id"] == game.pk
    game.refresh_from_db()
    assert game.reminder_at is None and game.version == version  # a reminder is no event

    # past the deadline: one expiry, however many sweeps run
    late = clock.to(after_deadline(game))
    assert turn_timers_sweep(now=clock.now) == 1
    assert turn_timers_sweep(now=clock.now) == 0
    assert turn_timers_sweep(now=clock.advance(minutes=5)) == 0
    [timeout] = timeouts(table.game_id)
    assert timeout.seat == seat and timeout.seq == version + 1
    assert timeout.payload["via"] == "sweep" and timeout.payload["deadline"] == deadline.isoformat()
    assert [m.type for m in timer_moves(table.game_id)] == ["draw", "discard"]
    assert len(reminders(table.game_id)) == 1
    # the other seat's turn: a full hour from when the timer played it, with its own reminder
    game.refresh_from_db()
    assert game.to_act == 1 - seat and game.turn_deadline is not None
    assert game.turn_deadline == late + timedelta(hours=1)
    assert game.reminder_at == game.turn_deadline - timedelta(minutes=15)
    assert_log_consistent(table.game_id)


def test_a_reminder_is_not_sent_once_the_turn_has_moved_on(clock: FakeClock) -> None:
    table = correspondence_table()
    game = table.game()
    seat = game.to_act
    assert seat is not None and game.reminder_at is not None
    old_reminder = game.reminder_at
    clock.advance(minutes=10)
    play_turn(table.game_id, seat)  # in time, before the reminder
    assert turn_timers_sweep(now=clock.to(old_reminder + timedelta(seconds=1))) == 0
    assert reminders(table.game_id) == []
    game.refresh_from_db()
    assert game.to_act == 1 - seat
    assert game.reminder_at == old_reminder + timedelta(minutes=10)  # the next seat's own
    clock.to(game.reminder_at)
    assert turn_timers_sweep(now=clock.now) == 0
    [reminder] = reminders(table.game_id)
    assert reminder.player_id == table.players[1 - seat].pk


def test_a_turn_keeps_its_reminder_while_it_goes_on(clock: FakeClock) -> None:
    table = correspondence_table()
    game = table.game()
    seat, reminder_at = game.to_act, game.reminder_at
    assert seat is not None
    clock.advance(minutes=20)
    game_action_apply(
        game_id=table.game_id, seat=seat, action={"type": "draw"}, expected_version=game.version
    )
    assert table.game().reminder_at == reminder_at


def test_the_reminder_time_follows_the_players_chosen_fraction(clock: FakeClock) -> None:
    table = timed_table(turn_seconds=HOUR)
    game = table.game()
    seat = game.to_act
    assert seat is not None
    NotificationSettings.objects.update_or_create(
        player=table.players[1 - seat], defaults={"reminder_fraction": 0.5}
    )
    play_turn(table.game_id, seat)
    game.refresh_from_db()
    assert game.reminder_at == clock.now + timedelta(minutes=30)


def test_short_turns_and_bots_get_no_reminder(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    short = timed_table(turn_seconds=TURN_SECONDS_ETA_MAX)
    assert short.game().turn_deadline is not None and short.game().reminder_at is None
    ada = player_create(display_name="Ada")[0]
    game = game_create(
        creator=ada,
        preset="two_player",
        seat=0,
        bots=[BotSeatSpec(seat=1)],
        timer=TimerOptions(turn_seconds=HOUR),
    )
    game_start(game_id=game.pk, player=ada)
    for _ in range(3):  # Ada's turns have a reminder; the bot plays at once (eager)
        game.refresh_from_db()
        assert game.to_act == 0 and game.reminder_at is not None
        with django_capture_on_commit_callbacks(execute=True):
            play_turn(game.pk, 0)
    assert game.events.filter(source="bot").exists()
    game.refresh_from_db()
    assert game.to_act == 0  # the bot's turns never had a deadline nor a reminder


def test_a_stand_in_seat_is_not_reminded(clock: FakeClock) -> None:
    table = correspondence_table()
    game = table.game()
    seat = game.to_act
    assert seat is not None and game.reminder_at is not None
    original = list(game.seating)
    Seat.objects.filter(game_id=table.game_id, index=seat).update(stand_in=True)
    Game.objects.filter(pk=table.game_id).update(
        seating=[{**e, "stand_in": e["index"] == seat} for e in original]
    )
    assert turn_reminder_send(table.game_id, now=clock.to(game.reminder_at)) is False
    assert reminders(table.game_id) == [] and table.game().reminder_at is None
    # the seat back as the log has it (the verifier compares them)
    Seat.objects.filter(game_id=table.game_id, index=seat).update(stand_in=False)
    Game.objects.filter(pk=table.game_id).update(seating=original)


def test_a_week_long_turn_is_reminded_once_and_expires_after_a_week(clock: FakeClock) -> None:
    table = correspondence_table(turn_seconds=7 * 24 * HOUR)
    game = table.game()
    assert turn_start(game) == clock.now
    for hours in (24, 24 * 5, 24 * 5 + 6, 24 * 6, 24 * 7 - 1):  # swept now and then
        clock.to(turn_start(game) + timedelta(hours=hours))
        assert turn_timers_sweep(now=clock.now) == 0
        assert len(reminders(table.game_id)) == (1 if hours >= 24 * 5.25 else 0), hours
    assert timeouts(table.game_id) == []
    assert turn_timers_sweep(now=clock.to(after_deadline(game))) == 1
    assert len(timeouts(table.game_id)) == 1


# ============================================================================== concurrency
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_sweeps_racing_remind_once_and_expire_once() -> None:
    """Sweeps at once (threads, each with its own connection): past the reminder time one
    reminder, past the deadline one expiry. (Real time: the threads share no fake clock.)"""
    table = correspondence_table()
    game = table.game()
    assert game.reminder_at is not None
    at_reminder = game.reminder_at + timedelta(seconds=1)
    sweeps: list[Callable[[], Any]] = [
        partial(turn_timers_sweep, now=at_reminder) for _ in range(4)
    ]
    results = race(sweeps)
    assert not [r for r in results if isinstance(r, BaseException)], results
    assert len(reminders(table.game_id)) == 1
    assert Game.objects.get(pk=table.game_id).reminder_at is None
    # past the deadline (but before the next turn's, armed at the real time of the expiry)
    late = after_deadline(game)
    sweeps = [partial(turn_timers_sweep, now=late) for _ in range(3)]
    results = race([*sweeps, partial(turn_reminders_send, now=late)])
    assert not [r for r in results if isinstance(r, BaseException)], results
    assert sorted(results[:3]) == [0, 0, 1], results
    assert len(timeouts(table.game_id)) == 1
    # one reminder per turn: the first seat's, and the next seat's (its turn was armed at the
    # real time of the expiry, so its reminder time is before ``late``)
    reminded = [r.player_id for r in reminders(table.game_id)]
    seat = game.to_act or 0
    assert reminded in (
        [table.players[seat].pk],
        [table.players[seat].pk, table.players[1 - seat].pk],
    )
    assert_log_consistent(table.game_id)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_beat_sweeps_racing_expire_an_overdue_correspondence_turn_once() -> None:
    table = correspondence_table()
    game = table.game()
    Game.objects.filter(pk=table.game_id).update(
        turn_deadline=timezone.now() - timedelta(minutes=1), reminder_at=None
    )
    results = race([tasks.turn_timers_sweep for _ in range(3)])
    assert sorted(results) == [0, 0, 1], results
    [timeout] = timeouts(table.game_id)
    assert timeout.seq == game.version + 1
    assert_log_consistent(table.game_id)
