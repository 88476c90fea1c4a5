"""Pausing a game by agreement (a vacation) and resuming it.

A seated player proposes to pause (``pause_proposed``, which counts as their acceptance); each
other seat with a player accepts (``pause_accepted``) or one declines (``pause_declined``: the
proposal is dropped). With the last acceptance the game is paused (``game_paused``): the turn's
deadline and reminder are cleared and what was left of the turn is kept
(``Game.pause_remaining``). While it is paused every move is refused (409 ``game_paused``), no
turn expires and no bot plays. Any seated player resumes it (``game_resumed``): the deadline is
restored to now plus what was left, and a bot to act plays on.

Each step is a fact of the move log (``games.engine.history``), so the live feed carries it,
the log alone says whether a game is paused, and the verifier compares it with the game row.
The house rule of every service: one transaction, the game row locked first.

A game has one proposal at a time (a second ``propose`` accepts it). A player whose proposal was
declined (by anyone, themselves included) may not propose again for
``PROPOSAL_COOLDOWN_SECONDS`` (429 ``proposal_cooldown``, nothing written): the
log's last proposals and declines say when, so the rule needs nothing stored besides the log.
A proposal, an acceptance short of the pause and a decline change no deadline, so they send no
timer task (``games.services.timer_schedule``).
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta

from django.db import transaction
from django.utils import timezone

from accounts.models import Player
from games import errors
from games.engine.history import (
    GAME_PAUSED,
    GAME_RESUMED,
    PAUSE_ACCEPTED,
    PAUSE_DECLINED,
    PAUSE_PROPOSED,
)
from games.models import EventSource, Game, GameStatus, Seat
from games.selectors.seating import seats_of
from games.services.deadlines import reminder_time, turn_timer_arm
from games.services.facts import fact_append
from games.services.locks import game_lock
from games.services.proposals import proposal_cooldown_left

# What pausing and resuming write on the game row.
PAUSE_FIELDS = [
    "pause_proposal",
    "paused_at",
    "pause_remaining",
    "turn_deadline",
    "reminder_at",
    "updated_at",
]


def _lock_seated(game_id: int, player: Player) -> tuple[Game, list[Seat], Seat]:
    """The game row, locked, with its seats and the requester's (403 ``not_seated``; 409
    ``game_not_active`` unless the game is being played)."""
    game = game_lock(game_id)
    seats = seats_of(game)
    mine = next((s for s in seats if s.player_id == player.pk), None)
    if mine is None:
        raise errors.NotSeated()
    if game.status != GameStatus.ACTIVE:
        raise errors.GameNotActive()
    return game, seats, mine


def game_pause_propose(*, game_id: int, player: Player, now: datetime | None = None) -> Game:
    """Propose to pause the game, or accept the pending proposal (accepting twice changes
    nothing). Once every seat with a player has accepted, the game is paused. 409
    ``game_paused`` when it already is."""
    now = now or timezone.now()
    with transaction.atomic():
        game, seats, mine = _lock_seated(game_id, player)
        if game.paused_at is not None:
            raise errors.GamePaused("The game is already paused.")
        proposal = game.pause_proposal
        if proposal and mine.index in proposal["accepted"]:
            return game
        if not proposal:
            wait = proposal_cooldown_left(
                game, mine.index, now, proposed=PAUSE_PROPOSED, declined=PAUSE_DECLINED
            )
            if wait:
                raise errors.ProposalCooldown(wait)
        if proposal:
            proposal["accepted"] = sorted({*proposal["accepted"], mine.index})
            fact_append(game, PAUSE_ACCEPTED, seat=mine.index, source=EventSource.PLAYER)
        else:
            proposal = game.pause_proposal = {
                "proposed_by": mine.index,
                "accepted": [mine.index],
                "proposed_at": now.isoformat(),
            }
            fact_append(game, PAUSE_PROPOSED, seat=mine.index, source=EventSource.PLAYER)
        humans = [s.index for s in seats if s.player_id is not None]
        if set(humans) <= set(proposal["accepted"]):
            _pause(game, humans, now)
        game.save(update_fields=PAUSE_FIELDS)
    return game


def _pause(game: Game, humans: list[int], now: datetime) -> None:
    """Every seat with a player agreed: no deadline, no reminder, what was left of the turn
    kept (whole seconds, rounded up; a deadline already past keeps 0)."""
    remaining = None
    if game.turn_deadline is not None:
        remaining = max(0, math.ceil((game.turn_deadline - now).total_seconds()))
    game.paused_at = now
    game.pause_remaining = remaining
    game.pause_proposal = None
    game.turn_deadline = None  # before the fact: nothing is scheduled for the paused version
    game.reminder_at = None
    fact_append(
        game, GAME_PAUSED, source=EventSource.PLAYER, seats=humans, remaining_seconds=remaining
    )


def game_pause_decline(*, game_id: int, player: Player) -> Game:
    """Decline the pending proposal to pause: it is dropped (409 ``pause_proposal_missing``
    without one)."""
    with transaction.atomic():
        game, _, mine = _lock_seated(game_id, player)
        if not game.pause_proposal:
            raise errors.PauseProposalMissing()
        game.pause_proposal = None
        fact_append(game, PAUSE_DECLINED, seat=mine.index, source=EventSource.PLAYER)
        game.save(update_fields=["pause_proposal", "updated_at"])
    return game


def game_resume(*, game_id: int, player: Player, now: datetime | None = None) -> Game:
    """Resume the paused game (any seated player; 409 ``game_not_paused`` when it is not): the
    turn's deadline is now plus what was left of it when the game was paused (with its
    reminder, if that time is still ahead); a bot to act plays on."""
    now = now or timezone.now()
    with transaction.atomic():
        game, seats, mine = _lock_seated(game_id, player)
        if game.paused_at is None:
            raise errors.GameNotPaused()
        remaining = game.pause_remaining
        game.paused_at = None
        game.pause_remaining = None
        if remaining is None:  # no deadline ran when it was paused: as for a new turn
            turn_timer_arm(game, seats, now=now)
        else:
            _deadline_restore(game, seats, remaining, now)
        # After the row's fields: the fact sends the bot's turn and the timer's task for them.
        fact_append(
            game,
            GAME_RESUMED,
            seat=mine.index,
            source=EventSource.PLAYER,
            remaining_seconds=remaining,
        )
        game.save(update_fields=PAUSE_FIELDS)
    return game


def _deadline_restore(game: Game, seats: list[Seat], remaining: int, now: datetime) -> None:
    game.turn_deadline, game.reminder_at = None, None
    if not game.turn_seconds or game.to_act is None:  # the timer was turned off meanwhile
        return
    seat = seats[game.to_act]
    if seat.player_id is None or seat.is_bot:
        return
    game.turn_deadline = now + timedelta(seconds=remaining)
    if not seat.stand_in:
        game.reminder_at = reminder_time(game, seat, game.turn_deadline, now=now)
