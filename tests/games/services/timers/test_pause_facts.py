"""Pause proposals and declines against the turn timer (finding 10 of the third hardening round):

- a fact that changes no deadline sends no timer task: with a broker, spamming propose and
  decline leaves one ETA message waiting, not one per fact (Redis, a queue nobody consumes);
- the task already waiting still expires the turn after such facts, exactly once; after a move,
  a pause or a resume it does nothing;
- a player whose proposal was declined may not propose again for the cooldown (429
  ``proposal_cooldown``, nothing written), at the source of the spam.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis
from django.conf import settings
from django.test import override_settings

from canasta_service.celery import app as celery_app
from games import errors
from games.engine.history import PAUSE_FACTS
from games.models import Game, GameEvent
from games.services.actions import game_action_apply
from games.services.pause import game_pause_decline, game_pause_propose, game_resume
from games.services.timers import Expiry, turn_timer_expire_apply
from tests.games.services.timers.clock import FakeClock
from tests.games.services.timers.conftest import (
    after_deadline,
    assert_log_consistent,
    play_turn,
    timed_table,
    timeouts,
)

COOLDOWN = 300


def spam(game_id: int, rounds: int, proposer_index: int = 0) -> None:
    """``rounds`` proposals, each declined by the proposer themselves."""
    table_players = list(Game.objects.get(pk=game_id).seats.order_by("index"))
    proposer = table_players[proposer_index].player
    assert proposer is not None
    for _ in range(rounds):
        game_pause_propose(game_id=game_id, player=proposer)
        game_pause_decline(game_id=game_id, player=proposer)


# ============================================================================== with a broker
@pytest.fixture
def timer_queue() -> Iterator[tuple[str, redis.Redis]]:
    """A timer queue of this test's own that no worker consumes: its messages wait in Redis."""
    name = f"timer-test-{uuid.uuid4().hex}"
    client = redis.Redis.from_url(celery_app.conf.broker_url)
    try:
        queues = {**settings.TASK_QUEUES, "interactive": name}  # where timer tasks travel
        with override_settings(TASK_QUEUES=queues, PROPOSAL_COOLDOWN_SECONDS=0):
            yield name, client
    finally:
        for key in client.scan_iter(match=f"{name}*"):
            client.delete(key)
        client.close()


def waiting(queue: tuple[str, redis.Redis]) -> int:
    name, client = queue
    return sum(int(client.llen(key)) for key in client.scan_iter(match=f"{name}*"))


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_pause_facts_send_no_timer_message(timer_queue: tuple[str, redis.Redis]) -> None:
    assert not celery_app.conf.task_always_eager
    table = timed_table(turn_seconds=600)
    assert waiting(timer_queue) == 1  # the deal's deadline
    spam(table.game_id, 10)
    assert GameEvent.objects.filter(game_id=table.game_id, type__in=PAUSE_FACTS).count() == 20
    assert waiting(timer_queue) == 1  # before: 21
    game = table.game()
    game_action_apply(  # a move arms the deadline again: a new task, as before
        game_id=table.game_id,
        seat=game.to_act,
        action={"type": "draw"},
        expected_version=game.version,
    )
    assert waiting(timer_queue) == 2
    assert_log_consistent(table.game_id)


# ============================================================================== the expiry
pytestmark_db = pytest.mark.django_db


@pytestmark_db
@override_settings(PROPOSAL_COOLDOWN_SECONDS=0)
def test_the_waiting_task_expires_the_turn_after_pause_facts_once() -> None:
    table = timed_table(turn_seconds=30)
    game = table.game()
    sent_at = game.version  # the version the deal's task carries
    spam(table.game_id, 3)
    assert table.game().version == sent_at + 6
    later = after_deadline(game)
    assert turn_timer_expire_apply(table.game_id, sent_at, now=later).applied
    assert len(timeouts(table.game_id)) == 1
    # Redelivered, or sent again for the versions of the facts: nothing more.
    for version in (sent_at, sent_at + 3, sent_at + 6):
        result = turn_timer_expire_apply(table.game_id, version, now=later)
        assert result.outcome is Expiry.NOTHING
    assert len(timeouts(table.game_id)) == 1
    assert_log_consistent(table.game_id)


@pytestmark_db
@override_settings(PROPOSAL_COOLDOWN_SECONDS=0)
def test_after_a_move_the_earlier_task_does_nothing_even_past_pause_facts() -> None:
    table = timed_table(turn_seconds=30)
    game = table.game()
    sent_at = game.version
    play_turn(table.game_id, game.to_act or 0)
    spam(table.game_id, 2)
    moved = table.game()
    assert not turn_timer_expire_apply(table.game_id, sent_at, now=after_deadline(moved)).applied
    assert timeouts(table.game_id) == []


@pytestmark_db
def test_after_a_pause_and_resume_the_earlier_task_does_nothing(clock: FakeClock) -> None:
    table = timed_table(turn_seconds=3600)
    ada, bob = table.players
    sent_at = table.game().version
    game_pause_propose(game_id=table.game_id, player=ada)
    game_pause_propose(game_id=table.game_id, player=bob)  # paused
    game_resume(game_id=table.game_id, player=ada)
    resumed = table.game()
    clock.to(after_deadline(resumed))
    assert not turn_timer_expire_apply(table.game_id, sent_at).applied
    assert turn_timer_expire_apply(table.game_id, resumed.version).applied  # the resume's task
    assert len(timeouts(table.game_id)) == 1


# ============================================================================== the cooldown
@pytestmark_db
@override_settings(PROPOSAL_COOLDOWN_SECONDS=COOLDOWN)
def test_a_declined_proposer_waits_for_the_cooldown_and_nothing_is_written(
    clock: FakeClock,
) -> None:
    table = timed_table(turn_seconds=3600)
    ada, bob = table.players
    game_pause_propose(game_id=table.game_id, player=ada)
    game_pause_decline(game_id=table.game_id, player=bob)
    clock.advance(seconds=100)
    before = table.game()
    with pytest.raises(errors.ProposalCooldown) as refused:
        game_pause_propose(game_id=table.game_id, player=ada)
    assert refused.value.code == "proposal_cooldown" and refused.value.status == 429
    assert refused.value.extra["retry_after"] == COOLDOWN - 100
    after = table.game()
    assert (after.version, after.pause_proposal, after.turn_deadline) == (
        before.version,
        None,
        before.turn_deadline,
    )
    # Withdrawing one's own proposal counts as a decline too.
    game_pause_propose(game_id=table.game_id, player=bob)
    game_pause_decline(game_id=table.game_id, player=bob)
    with pytest.raises(errors.ProposalCooldown):
        game_pause_propose(game_id=table.game_id, player=bob)
    # Once the cooldown has passed, ada proposes again; bob accepts (accepting is not proposing).
    clock.advance(seconds=COOLDOWN - 100)
    game_pause_propose(game_id=table.game_id, player=ada)
    paused = game_pause_propose(game_id=table.game_id, player=bob)
    assert paused.paused_at is not None
    assert_log_consistent(table.game_id)


@pytestmark_db
@override_settings(PROPOSAL_COOLDOWN_SECONDS=COOLDOWN)
def test_a_declined_timer_off_proposal_cools_down_apart_from_pauses(clock: FakeClock) -> None:
    from games.services.timers import timer_off_decline, timer_off_propose

    table = timed_table(turn_seconds=3600)
    ada, bob = table.players
    timer_off_propose(game_id=table.game_id, player=ada)
    timer_off_decline(game_id=table.game_id, player=bob)
    clock.advance(seconds=10)
    before = table.game().version
    with pytest.raises(errors.ProposalCooldown) as refused:
        timer_off_propose(game_id=table.game_id, player=ada)
    assert refused.value.extra["retry_after"] == COOLDOWN - 10
    assert table.game().version == before and table.game().timer_proposal is None
    # Another kind of proposal, and another player, are not held back.
    game_pause_propose(game_id=table.game_id, player=ada)
    game_pause_decline(game_id=table.game_id, player=ada)
    timer_off_propose(game_id=table.game_id, player=bob)
    timer_off_decline(game_id=table.game_id, player=bob)
    clock.advance(seconds=COOLDOWN)
    assert timer_off_propose(game_id=table.game_id, player=ada).timer_proposal is not None
    assert_log_consistent(table.game_id)


@pytestmark_db
@override_settings(PROPOSAL_COOLDOWN_SECONDS=COOLDOWN)
def test_a_proposal_that_was_not_declined_sets_no_cooldown(clock: FakeClock) -> None:
    table = timed_table(turn_seconds=3600)
    ada, bob = table.players
    game_pause_propose(game_id=table.game_id, player=ada)
    game_pause_propose(game_id=table.game_id, player=bob)  # paused
    game_resume(game_id=table.game_id, player=bob)
    game_pause_propose(game_id=table.game_id, player=ada)  # at once: nothing was declined
    assert table.game().pause_proposal is not None
    # One open proposal per game: the other's "propose" accepts it.
    assert game_pause_propose(game_id=table.game_id, player=bob).paused_at is not None
