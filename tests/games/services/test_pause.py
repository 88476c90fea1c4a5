"""Pausing a game by agreement (a vacation) and resuming it: every seat with a player must
agree, nothing expires and nobody acts while it is paused, the turn gets back what it had left.
Services on a fake clock, then the endpoints."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from accounts.models import Player
from accounts.services.credentials import guest_key_issue
from accounts.services.players import player_create
from games import errors
from games.engine.history import GAME_PAUSED, GAME_RESUMED, PAUSE_FACTS
from games.models import EventSource, Game, GameEvent, GameStatus, GameTable
from games.services.actions import game_action_apply
from games.services.deadlines import TimerOptions
from games.services.lobby import BotSeatSpec, game_create, game_join, game_start
from games.services.moves import bot_action_apply
from games.services.pause import game_pause_decline, game_pause_propose, game_resume
from games.services.table import game_concede
from games.services.timers import timer_off_accept, timer_off_propose, turn_timers_sweep
from notifications.models import Notification
from notifications.services.notifications import preferences_set
from tests.games.api.conftest import (
    SchemaCheckedClient,
    eager_bots,  # noqa: F401 - fixture: bots play in-process
)
from tests.games.services.timers.clock import FakeClock
from tests.games.services.timers.conftest import (
    Table,
    after_deadline,
    assert_log_consistent,
    play_turn,
    timed_table,
    timeouts,
)

# The tests check what the outbox writes; no delivery leaves after a commit.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("nothing_delivered")]

HOUR = 3600


def pause_log(game_id: int) -> list[tuple[str, int | None]]:
    return list(
        GameEvent.objects.filter(game_id=game_id, type__in=PAUSE_FACTS)
        .order_by("seq")
        .values_list("type", "seat")
    )


def paused_table(clock: FakeClock, minutes_in: int = 20) -> Table:
    """An hour-long turn, paused by both players ``minutes_in`` minutes into it."""
    table = timed_table(turn_seconds=HOUR)
    clock.advance(minutes=minutes_in)
    ada, bob = table.players
    game_pause_propose(game_id=table.game_id, player=ada)
    game_pause_propose(game_id=table.game_id, player=bob)
    return table


# ============================================================================== services
def test_pausing_needs_every_player_and_nothing_expires_while_paused(clock: FakeClock) -> None:
    table = timed_table(turn_seconds=HOUR)
    ada, bob = table.players
    for player in table.players:
        preferences_set(player.pk, email=f"{player.display_name.lower()}@example.com")
    clock.advance(minutes=20)
    game = game_pause_propose(game_id=table.game_id, player=ada)
    assert game.paused_at is None and game.turn_deadline is not None
    assert game.pause_proposal is not None and game.pause_proposal["accepted"] == [0]
    again = game_pause_propose(game_id=table.game_id, player=ada)  # twice: no change
    assert again.version == game.version

    game = game_pause_propose(game_id=table.game_id, player=bob)
    assert game.paused_at == clock.now and game.pause_remaining == 40 * 60
    assert game.turn_deadline is None and game.reminder_at is None
    assert game.pause_proposal is None
    assert pause_log(table.game_id) == [
        ("pause_proposed", 0),
        ("pause_accepted", 1),
        ("game_paused", None),
    ]
    paused = GameEvent.objects.get(game_id=table.game_id, type=GAME_PAUSED)
    assert paused.payload == {"seats": [0, 1], "remaining_seconds": 2400}
    assert paused.source == EventSource.PLAYER

    # days go by: no expiry, no reminder, no event
    version = game.version
    for days in (1, 5, 30):
        assert turn_timers_sweep(now=clock.advance(days=days)) == 0
    assert timeouts(table.game_id) == [] and not Notification.objects.filter(kind="reminder")
    assert table.game().version == version
    assert_log_consistent(table.game_id)


def test_moves_are_refused_while_paused_and_the_game_is_unchanged(clock: FakeClock) -> None:
    table = paused_table(clock)
    game = table.game()
    seat = game.to_act
    assert seat is not None
    before = (game.version, game.snapshot, game.to_act)
    for action in ({"type": "draw"}, {"type": "take_pile"}):
        with pytest.raises(errors.GamePaused) as refused:
            game_action_apply(
                game_id=table.game_id,
                seat=seat,
                action=action,
                expected_version=game.version,
                player=table.players[seat],
            )
        assert refused.value.code == "game_paused" and refused.value.status == 409
    game.refresh_from_db()
    assert (game.version, game.snapshot, game.to_act) == before
    assert_log_consistent(table.game_id)


def test_resuming_restores_what_was_left_of_the_turn_and_its_reminder(clock: FakeClock) -> None:
    table = paused_table(clock, minutes_in=20)
    clock.advance(days=5)
    game = game_resume(game_id=table.game_id, player=table.players[1])
    assert game.paused_at is None and game.pause_remaining is None
    assert game.turn_deadline == clock.now + timedelta(minutes=40)
    # the reminder (at 3/4 of the hour: 15 minutes before the deadline) is still ahead
    assert game.reminder_at == game.turn_deadline - timedelta(minutes=15)
    resumed = GameEvent.objects.get(game_id=table.game_id, type=GAME_RESUMED)
    assert resumed.seat == 1 and resumed.payload == {"remaining_seconds": 2400}
    # the turn expires 40 minutes later, once
    assert turn_timers_sweep(now=clock.advance(minutes=39)) == 0
    assert turn_timers_sweep(now=clock.to(after_deadline(game))) == 1
    assert turn_timers_sweep(now=clock.now) == 0
    assert len(timeouts(table.game_id)) == 1
    assert_log_consistent(table.game_id)


def test_a_turn_resumed_after_its_reminder_is_not_reminded_again(clock: FakeClock) -> None:
    table = paused_table(clock, minutes_in=50)  # the reminder was due at 45
    game = table.game()
    assert game.pause_remaining == 10 * 60
    game = game_resume(game_id=table.game_id, player=table.players[0])
    assert game.turn_deadline == clock.now + timedelta(minutes=10) and game.reminder_at is None


def test_play_goes_on_after_a_resume(clock: FakeClock) -> None:
    table = paused_table(clock)
    game_resume(game_id=table.game_id, player=table.players[0])
    seat = table.game().to_act
    assert seat is not None
    play_turn(table.game_id, seat)
    assert table.game().to_act == 1 - seat
    assert_log_consistent(table.game_id)


def test_a_decline_drops_the_proposal_and_refusals_have_codes(clock: FakeClock) -> None:
    table = timed_table(turn_seconds=HOUR)
    ada, bob = table.players
    with pytest.raises(errors.PauseProposalMissing):
        game_pause_decline(game_id=table.game_id, player=bob)
    with pytest.raises(errors.GameNotPaused):
        game_resume(game_id=table.game_id, player=ada)
    game_pause_propose(game_id=table.game_id, player=ada)
    game = game_pause_decline(game_id=table.game_id, player=bob)
    assert game.pause_proposal is None and game.paused_at is None
    assert game.turn_deadline is not None
    assert pause_log(table.game_id) == [("pause_proposed", 0), ("pause_declined", 1)]
    # a new proposal, accepted: paused; proposing again is refused
    game_pause_propose(game_id=table.game_id, player=bob)
    game_pause_propose(game_id=table.game_id, player=ada)
    with pytest.raises(errors.GamePaused):
        game_pause_propose(game_id=table.game_id, player=ada)
    outsider = player_create(display_name="Cy")[0]
    for service in (game_pause_propose, game_pause_decline, game_resume):
        with pytest.raises(errors.NotSeated):
            service(game_id=table.game_id, player=outsider)
    lobby = game_create(creator=outsider, preset="two_player")
    with pytest.raises(errors.GameNotActive):
        game_pause_propose(game_id=lobby.pk, player=outsider)
    assert_log_consistent(table.game_id)


def test_alone_with_bots_the_game_pauses_at_once_and_no_bot_plays(
    django_capture_on_commit_callbacks: Callable[..., Any],
) -> None:
    ada = player_create(display_name="Ada")[0]
    game = game_create(creator=ada, preset="two_player", seat=0, bots=[BotSeatSpec(seat=1)])
    game_start(game_id=game.pk, player=ada)
    game.refresh_from_db()
    if game.to_act == 0:
        play_turn(game.pk, 0)  # no commit hook runs here: the bot's turn is left to act
    game.refresh_from_db()
    assert game.to_act == 1
    with django_capture_on_commit_callbacks(execute=True):
        paused = game_pause_propose(game_id=game.pk, player=ada)
    assert paused.paused_at is not None
    assert pause_log(game.pk) == [("pause_proposed", 0), ("game_paused", None)]
    version = paused.version
    assert bot_action_apply(game.pk, version) is None  # a bot's task finds it paused
    assert Game.objects.get(pk=game.pk).version == version
    with django_capture_on_commit_callbacks(execute=True):
        game_resume(game_id=game.pk, player=ada)
    bot_moves = GameEvent.objects.filter(game=game, seq__gt=version + 1, source=EventSource.BOT)
    assert bot_moves.exists()  # resuming sent the bot's turn again, and it played


def test_a_paused_game_may_be_conceded(clock: FakeClock) -> None:
    table = paused_table(clock)
    game = game_concede(game_id=table.game_id, player=table.players[0])
    assert game.status == GameStatus.FINISHED
    game.refresh_from_db()
    assert game.paused_at is None and game.pause_remaining is None and game.pause_proposal is None


def test_a_timer_turned_off_while_paused_runs_no_deadline_after_the_resume(
    clock: FakeClock,
) -> None:
    table = paused_table(clock)
    ada, bob = table.players
    timer_off_propose(game_id=table.game_id, player=ada)
    timer_off_accept(game_id=table.game_id, player=bob)
    game = game_resume(game_id=table.game_id, player=bob)
    assert game.turn_seconds is None and game.turn_deadline is None and game.reminder_at is None


def test_a_game_without_a_timer_pauses_and_resumes_without_a_deadline() -> None:
    table = timed_table(turn_seconds=None)
    ada, bob = table.players
    game_pause_propose(game_id=table.game_id, player=bob)
    game = game_pause_propose(game_id=table.game_id, player=ada)
    assert game.paused_at is not None and game.pause_remaining is None
    game = game_resume(game_id=table.game_id, player=ada)
    assert game.paused_at is None and game.turn_deadline is None


# ============================================================================== endpoints
def client_for(player: Player) -> SchemaCheckedClient:
    """A client signed in as ``player`` whose answers are checked against the schema."""
    client = SchemaCheckedClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {guest_key_issue(player.user)}")
    return client


def test_pause_decline_and_resume_over_http() -> None:
    table = timed_table(turn_seconds=HOUR)
    ada, bob = (client_for(p) for p in table.players)
    spectator = client_for(player_create(display_name="Cy")[0])
    url = f"/api/v1/games/{table.game_id}/"

    refused = bob.post(url + "pause/decline/")
    assert refused.status_code == 409 and refused.json()["code"] == "pause_proposal_missing"
    proposed = ada.post(url + "pause/")
    assert proposed.status_code == 200, proposed.content
    body = proposed.json()
    assert body["game"] == table.game_id and body["version"] == table.game().version
    assert body["pause"]["paused"] is False
    assert body["pause"]["proposal"]["proposed_by"] == 0
    assert body["pause"]["proposal"]["waiting_for"] == [1]
    assert spectator.get(url).json()["pause"]["proposal"]["waiting_for"] == [1]
    declined = bob.post(url + "pause/decline/")
    assert declined.status_code == 200 and declined.json()["pause"]["proposal"] is None

    bob.post(url + "pause/")  # ada's proposal was declined: she waits for the cooldown
    accepted = ada.post(url + "pause/")
    assert accepted.status_code == 200
    pause = accepted.json()["pause"]
    assert pause["paused"] is True and pause["proposal"] is None
    assert 3500 < pause["remaining_seconds"] <= HOUR

    # everyone sees it: the detail, the timer (no deadline), the move log
    seen = spectator.get(url).json()
    assert seen["pause"]["paused"] is True and seen["timer"]["deadline"] is None
    events = ada.get(url + "events/").json()["events"]
    assert [e["type"] for e in events if e["type"] in PAUSE_FACTS] == [
        "pause_proposed",
        "pause_declined",
        "pause_proposed",
        "pause_accepted",
        "game_paused",
    ]
    # an action is refused with its code, and the game is unchanged
    game = table.game()
    mover = (ada, bob)[game.to_act or 0]
    acted = mover.post(
        url + "actions/",
        {"action": {"type": "draw"}, "expected_version": game.version},
        format="json",
    )
    assert acted.status_code == 409 and acted.json()["code"] == "game_paused"
    assert table.game().version == game.version
    again = ada.post(url + "pause/")
    assert again.status_code == 409 and again.json()["code"] == "game_paused"
    outsider = spectator.post(url + "resume/")
    assert outsider.status_code == 403 and outsider.json()["code"] == "not_seated"

    resumed = bob.post(url + "resume/")
    assert resumed.status_code == 200 and resumed.json()["pause"]["paused"] is False
    detail = ada.get(url).json()
    assert detail["pause"]["paused"] is False and detail["timer"]["deadline"] is not None
    not_paused = ada.post(url + "resume/")
    assert not_paused.status_code == 409 and not_paused.json()["code"] == "game_not_paused"
    assert_log_consistent(table.game_id)


def test_a_delayed_spectator_sees_the_pause_as_it_stood_at_their_horizon() -> None:
    ada = player_create(display_name="Ada")[0]
    bob = player_create(display_name="Bob")[0]
    game = game_create(creator=ada, preset="two_player", timer=TimerOptions(turn_seconds=HOUR))
    GameTable.objects.create(game=game, spectator_delay=3)
    game_join(player=bob, game_id=game.pk)
    game_start(game_id=game.pk, player=ada)
    game_pause_propose(game_id=game.pk, player=ada)
    game_pause_propose(game_id=game.pk, player=bob)
    spectator = client_for(player_create(display_name="Cy")[0])
    seen = spectator.get(f"/api/v1/games/{game.pk}/").json()
    assert seen["version"] < Game.objects.get(pk=game.pk).version
    assert seen["pause"] == {
        "paused": False,
        "paused_at": None,
        "remaining_seconds": None,
        "proposal": None,
    }
    players_view = client_for(bob).get(f"/api/v1/games/{game.pk}/").json()
    assert players_view["pause"]["paused"] is True
