"""Turn timers: what happens when a seat runs out of time, and turning the timer off.

A game created with ``turn_seconds`` gives the human seat to act a deadline
(``Game.turn_deadline``, set by ``games.services.deadlines.turn_timer_arm`` on every move).
When it passes (plus a small grace, so a move sent just before the deadline wins), the seat's turn
is completed for it: a minimal play (draw if not yet drawn, discard the least useful card, answer
a partner's question with no), each action applied like any other and logged with source
``timer``; the timer log says why (``turn_timed_out``). After ``timeout_limit`` consecutive
timeouts the seat is handed to a bot (``stand_in``: the medium bot plays it, source ``bot``,
until the player is back: ``games.services.reclaim``) or the game is abandoned
(``timeout_outcome``; always at a rated table, where the abandoning side loses:
``competition.services.ratings``).

Three paths apply an expiry, and any of them may run any number of times:

1. ``turn_timer_expire(game_id, version)``: a Celery task with an ETA at the deadline, sent on
   commit by ``turn_timer_arm``;
2. ``turn_timers_sweep()``: a Celery beat task every ``TURN_TIMER_SWEEP_SECONDS`` that expires
   every game whose deadline has passed (a lost message, a dead worker);
3. the next write: a player's request that changes the game (an action, and every write of the
   table services) first applies an overdue expiry (``game_touch``). Reads never write: a GET
   shows the deadline as passed until one of the three paths has run.

All of them end in ``turn_timer_expire_apply``, which locks the game row and re-checks, under the
lock, that the game is at the version the deadline was set for (or only facts that change no
deadline came after it: ``timer_schedule.deadline_version_current``; such facts send no new
task) and that the deadline (plus grace) has passed. Every applied action bumps the version and
every real move sets a new deadline, so a second path (a duplicate, a redelivered message, a
late task) finds nothing to do: exactly one expiry per turn, and none after a real move.

A correspondence turn (longer than ``TURN_SECONDS_ETA_MAX``, up to a week) gets no ETA task:
the sweep applies its expiry, and before that reminds the player to act once
(``Game.reminder_at``, set with the deadline: ``turn_reminders_send``). A paused game
(``games.services.pause``) has no deadline and no reminder: nothing expires while it is paused.

"Turn off the timer": a seated player proposes, every seat with a player must accept (a decline
drops the proposal). Proposals, answers and the switch-off are in the timer log.
"""

from __future__ import annotations

import enum
import hashlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import Player
from games import errors, hooks
from games.engine import GameState, action_to_dict, legal_actions
from games.engine.actions import Action, AnswerPartner, Discard
from games.engine.cards import IS_BLACK_THREE, IS_RED_THREE, IS_WILD, RANK_OF, VALUE_OF
from games.engine.history import (
    GAME_ABANDONED,
    SEAT_HANDED_TO_BOT,
    TIMER_OFF_ACCEPTED,
    TIMER_OFF_DECLINED,
    TIMER_OFF_PROPOSED,
    TIMER_TURNED_OFF,
    TURN_TIMED_OUT,
)
from games.errors import ServiceError
from games.models import EventSource, Game, GameStatus, Seat, TimeoutOutcome
from games.selectors.seating import seats_of
from games.services.bots import bot_player_get
from games.services.deadlines import grace, seat_back, turn_timer_arm
from games.services.facts import fact_append
from games.services.moves import move_apply
from games.services.proposals import proposal_cooldown_left
from games.services.seating import seat_save
from games.services.timer_schedule import deadline_version_current

logger = logging.getLogger(__name__)

MAX_TIMER_ACTIONS = 12  # actions one expiry may apply for a seat (a turn is 2-4)


MAX_LAZY_EXPIRIES = 8  # expiries one request applies in a row (stand-ins play at once)


SWEEP_BATCH = 500


class Expiry(enum.Enum):
    APPLIED = "applied"  # this call completed the turn (or abandoned the game)
    NOT_DUE = "not_due"  # the deadline (plus grace) has not passed yet
    NOTHING = "nothing"  # no timer, another version, not active, not a human's turn


@dataclass(frozen=True)
class ExpiryResult:
    outcome: Expiry
    due: datetime | None = None  # for NOT_DUE: when it will be

    @property
    def applied(self) -> bool:
        return self.outcome is Expiry.APPLIED


NOTHING = ExpiryResult(Expiry.NOTHING)


def turn_timer_expire_apply(
    game_id: int, version: int | None = None, *, now: datetime | None = None, via: str = "task"
) -> ExpiryResult:
    """Complete the turn of the seat whose deadline has passed, at most once.

    Under the game row lock: nothing unless the game is active, at ``version`` (when given), has
    a deadline and that deadline plus grace is past ``now``. A seat played by its stand-in bot
    plays its turn (source ``bot``); otherwise the timeout is counted and logged, the turn is
    played minimally (source ``timer``), and at ``timeout_limit`` the seat is handed to a bot or
    the game abandoned. Everything happens in one transaction.
    """
    now = now or timezone.now()
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None or game.status != GameStatus.ACTIVE or game.to_act is None:
            return NOTHING
        if game.turn_deadline is None:
            return NOTHING
        if version is not None and not deadline_version_current(game, version):
            return NOTHING
        due = game.turn_deadline + grace()
        if now < due:
            return ExpiryResult(Expiry.NOT_DUE, due)
        seat = Seat.objects.get(game=game, index=game.to_act)
        if seat.player_id is None or seat.is_bot:
            game.turn_deadline = None
            game.save(update_fields=["turn_deadline", "updated_at"])
            return NOTHING
        if seat.stand_in:
            _turn_play(game_id, seat.index, _heuristic_choose, EventSource.BOT)
            return ExpiryResult(Expiry.APPLIED)
        seat.timeouts += 1
        handed = bool(game.timeout_limit) and seat.timeouts >= game.timeout_limit
        timed_out: dict[str, Any] = {
            "seat": seat.index,
            "source": EventSource.TIMER,
            "deadline": game.turn_deadline.isoformat(),
            "via": via,
            "consecutive": seat.timeouts,
        }
        if handed and game.timeout_outcome == TimeoutOutcome.ABANDON:
            seat_save(game, seat, ["timeouts"])
            fact_append(game, TURN_TIMED_OUT, **timed_out)
            fact_append(
                game,
                GAME_ABANDONED,
                seat=seat.index,
                source=EventSource.TIMER,
                consecutive=seat.timeouts,
            )
            game.status = GameStatus.ABANDONED
            game.turn_deadline = None
            game.reminder_at = None
            game.to_act = None
            game.finished_at = now
            game.save(
                update_fields=[
                    "status",
                    "turn_deadline",
                    "reminder_at",
                    "to_act",
                    "finished_at",
                    "updated_at",
                ]
            )
            # Rated: the side whose seat stayed away loses (competition); all are told.
            hooks.publish(
                hooks.GameEnded(
                    game,
                    seats_of(game),
                    ended=hooks.ENDED_ABANDONED,
                    scores=GameState.from_dict(game.snapshot or {}).scores,
                    losing_team=seat.team,
                )
            )
            return ExpiryResult(Expiry.APPLIED)
        if handed:
            seat.stand_in = True
        seat_save(game, seat, ["timeouts", "stand_in"])
        fact_append(game, TURN_TIMED_OUT, **timed_out)
        chooser = _heuristic_choose if handed else minimal_choose
        _turn_play(game_id, seat.index, chooser, EventSource.TIMER)
        if handed:
            game.refresh_from_db()
            fact_append(
                game,
                SEAT_HANDED_TO_BOT,
                seat=seat.index,
                source=EventSource.TIMER,
                consecutive=seat.timeouts,
            )
    return ExpiryResult(Expiry.APPLIED)


Chooser = Callable[[Game, GameState, int], dict[str, Any]]


def _turn_play(game_id: int, seat: int, choose: Chooser, source: str) -> None:
    """Apply actions for ``seat`` until another seat is to act (inside the caller's transaction,
    which holds the row lock)."""
    for _ in range(MAX_TIMER_ACTIONS):
        game = Game.objects.get(pk=game_id)
        if game.status != GameStatus.ACTIVE or game.to_act != seat or not game.snapshot:
            break
        state = GameState.from_dict(game.snapshot)
        action = choose(game, state, seat)
        try:
            move_apply(
                game_id=game_id,
                seat=seat,
                action=action,
                expected_version=game.version,
                source=source,
            )
        except ServiceError as exc:  # the chooser's move refused (a bug): a plain legal one
            logger.error(
                # The action and the message may name the seat's cards: log only their kinds.
                "timer move refused in game %s at version %s (seat %s, %s): %s",
                game_id,
                game.version,
                seat,
                action.get("type"),
                exc.code,
            )
            move_apply(
                game_id=game_id,
                seat=seat,
                action=_first_legal(state),
                expected_version=game.version,
                source=source,
            )


# The minimal play's preference among legal actions when no discard is chosen.
MINIMAL_PREFERENCE = (
    "draw",
    "decline_pile",
    "end_round",
    "take_pile",
    "discard",
    "answer_partner",
    "meld",
    "ask_partner",
    "declare_special_hand",
)


def _first_legal(state: GameState) -> dict[str, Any]:
    options = legal_actions(state)
    refusals = [a for a in options if isinstance(a, AnswerPartner) and not a.allow]
    best = refusals[0] if refusals else min(options, key=lambda a: MINIMAL_PREFERENCE.index(a.type))
    return action_to_dict(best)


def minimal_choose(game: Game, state: GameState, seat: int) -> dict[str, Any]:
    """The timer's play for an absent player: answer a partner's question with no, draw if not
    yet drawn, then discard the least useful card (the heuristic bot's choice when the bots app
    is there, else by a simple rule); never melds on the player's behalf unless nothing else is
    legal."""
    options = legal_actions(state)
    if any(isinstance(a, AnswerPartner) for a in options):
        return _first_legal(state)
    discards = [a for a in options if isinstance(a, Discard)]
    if discards:
        return action_to_dict(_discard_choose(game, state, seat, discards))
    return _first_legal(state)


def _policy_seed(game: Game, seat: int) -> int:
    digest = hashlib.sha256(f"timer:{game.pk}:{game.version}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _discard_choose(game: Game, state: GameState, seat: int, discards: list[Discard]) -> Action:
    """The registered bot player's discard for the seat, else the least useful card by a
    simple rule."""
    bots = bot_player_get()
    chosen = bots.discard_choose(game, seat, _policy_seed(game, seat)) if bots else None
    if chosen is not None and chosen in discards:
        return chosen
    hand = state.hands[seat]

    def cost(action: Discard) -> tuple[int, int, int]:
        card = action.card
        if IS_WILD[card]:
            return (3, 0, 0)
        if IS_BLACK_THREE[card]:
            return (0, 0, 0)
        pairs = sum(1 for c in hand if not IS_WILD[c] and RANK_OF[c] == RANK_OF[card])
        return (1 if pairs <= 1 else 2, pairs, VALUE_OF[card])

    return min((a for a in discards if not IS_RED_THREE[a.card]), key=cost, default=discards[0])


def _heuristic_choose(game: Game, state: GameState, seat: int) -> dict[str, Any]:
    """The stand-in bot's move: the medium (heuristic) bot from the seat's own view."""
    bots = bot_player_get()
    if bots is None:
        return minimal_choose(game, state, seat)
    return bots.action_choose(game, seat, "medium", _policy_seed(game, seat))


def turn_timers_sweep(*, now: datetime | None = None, limit: int = SWEEP_BATCH) -> int:
    """Expire every game whose deadline (plus grace) has passed (correspondence turns too: they
    have no ETA task), then send the reminders that are due; returns how many expiries
    applied."""
    now = now or timezone.now()
    applied = _expiries_apply(now, limit)
    turn_reminders_send(now=now, limit=limit)
    return applied


def _expiries_apply(now: datetime, limit: int) -> int:
    due = list(
        Game.objects.filter(status=GameStatus.ACTIVE, turn_deadline__lte=now - grace())
        .order_by("turn_deadline")
        .values_list("pk", "version")[:limit]
    )
    applied = 0
    for game_id, version in due:
        try:
            if turn_timer_expire_apply(game_id, version, now=now, via="sweep").applied:
                applied += 1
        except Exception:  # one broken game must not stop the sweep of the others
            logger.exception("turn timer sweep failed for game %s", game_id)
    return applied


def turn_reminders_send(*, now: datetime | None = None, limit: int = SWEEP_BATCH) -> int:
    """Remind the player to act of every correspondence turn whose reminder time has passed;
    returns how many were reminded. Each reminder is sent once per turn, however many sweeps
    run at once (``turn_reminder_send``)."""
    now = now or timezone.now()
    due = list(
        Game.objects.filter(status=GameStatus.ACTIVE, reminder_at__lte=now)
        .order_by("reminder_at")
        .values_list("pk", flat=True)[:limit]
    )
    sent = 0
    for game_id in due:
        try:
            if turn_reminder_send(game_id, now=now):
                sent += 1
        except Exception:  # one broken game must not stop the others
            logger.exception("turn reminder failed for game %s", game_id)
    return sent


def turn_reminder_send(game_id: int, *, now: datetime | None = None) -> bool:
    """Remind the player to act in ``game_id`` if its reminder is due, at most once: under the
    game row lock the reminder time is re-checked and cleared in the transaction that writes
    the notification (the outbox's unique (player, kind, game, version) is a second guard).
    True when this call reminded someone."""
    now = now or timezone.now()
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None or game.reminder_at is None or game.reminder_at > now:
            return False
        due = game.status == GameStatus.ACTIVE and game.paused_at is None
        told = due and any(hooks.publish(hooks.TurnReminderDue(game)))
        game.reminder_at = None
        game.save(update_fields=["reminder_at"])
    return told


def game_touch(game: Game, player: Player | None, *, now: datetime | None = None) -> Game:
    """Before a write request on ``game`` (never a read): welcome back the requester's seat if
    a bot stood in for it, then apply any overdue expiry (the game row is re-read when anything
    changed). Costs nothing for a game without a timer."""
    if game.turn_seconds is None and game.turn_deadline is None:
        return game
    if game.status != GameStatus.ACTIVE:
        return game
    changed = False
    if player is not None and any(e["player"] == player.pk and e["stand_in"] for e in game.seating):
        changed = seat_return(game_id=game.pk, player=player)
    for _ in range(MAX_LAZY_EXPIRIES):
        if changed:
            game.refresh_from_db()
        if game.status != GameStatus.ACTIVE or game.turn_deadline is None:
            break
        if (now or timezone.now()) < game.turn_deadline + grace():
            break
        changed = turn_timer_expire_apply(game.pk, game.version, now=now, via="request").applied
        if not changed:
            break
    if changed:
        game.refresh_from_db()
    return game


def seat_return(*, game_id: int, player: Player) -> bool:
    """``player`` is back at their seat: the stand-in bot stops; if it is their turn, a full
    turn's time starts now."""
    with transaction.atomic():
        game = Game.objects.select_for_update().filter(pk=game_id).first()
        if game is None or game.status != GameStatus.ACTIVE:
            return False
        seats = list(game.seats.order_by("index"))
        mine = next((s for s in seats if s.player_id == player.pk), None)
        if mine is None or not seat_back(game, mine, reason="request"):
            return False
        if game.to_act == mine.index:
            game.turn_deadline = None
            turn_timer_arm(game, seats)
            game.save(update_fields=["turn_deadline", "reminder_at", "updated_at"])
    return True


def game_timer_work_apply(*, game_id: int, player: Player | None) -> None:
    """The timer's due work for a write request on ``game_id`` (``game_touch``)."""
    game = Game.objects.filter(pk=game_id).first()
    if game is not None:
        game_touch(game, player)


def _seated(game: Game, player: Player) -> tuple[list[Seat], Seat]:
    seats = list(game.seats.order_by("index"))
    mine = next((s for s in seats if s.player_id == player.pk), None)
    if mine is None:
        raise errors.NotSeated()
    return seats, mine


# What turning the timer off writes on the game row.
TIMER_OFF_FIELDS = ["timer_proposal", "turn_seconds", "turn_deadline", "reminder_at", "updated_at"]


def _lock_with_timer(game_id: int) -> Game:
    game = Game.objects.select_for_update().filter(pk=game_id).first()
    if game is None:
        raise errors.GameNotFound()
    if game.status != GameStatus.ACTIVE:  # the log, which records it, starts at the deal
        raise errors.GameNotActive()
    if game.turn_seconds is None:
        raise errors.TimerNotRunning()
    return game


def timer_off_propose(*, game_id: int, player: Player) -> Game:
    """A seated player proposes to turn the timer off (counts as their acceptance)."""
    with transaction.atomic():
        game = _lock_with_timer(game_id)
        seats, mine = _seated(game, player)
        if game.timer_proposal:
            raise errors.TimerProposalPending()
        wait = proposal_cooldown_left(
            game,
            mine.index,
            timezone.now(),
            proposed=TIMER_OFF_PROPOSED,
            declined=TIMER_OFF_DECLINED,
        )
        if wait:
            raise errors.ProposalCooldown(wait)
        game.timer_proposal = {
            "proposed_by": mine.index,
            "accepted": [mine.index],
            "proposed_at": timezone.now().isoformat(),
        }
        fact_append(game, TIMER_OFF_PROPOSED, seat=mine.index, source=EventSource.PLAYER)
        _timer_off_if_agreed(game, seats)
        game.save(update_fields=TIMER_OFF_FIELDS)
    return game


def timer_off_accept(*, game_id: int, player: Player) -> Game:
    """A seated player accepts the pending proposal; once every seat with a player has, the
    timer is off. Accepting twice changes nothing."""
    with transaction.atomic():
        game = _lock_with_timer(game_id)
        seats, mine = _seated(game, player)
        proposal = game.timer_proposal
        if not proposal:
            raise errors.TimerProposalMissing()
        if mine.index in proposal["accepted"]:
            return game
        proposal["accepted"] = sorted([*proposal["accepted"], mine.index])
        fact_append(game, TIMER_OFF_ACCEPTED, seat=mine.index, source=EventSource.PLAYER)
        _timer_off_if_agreed(game, seats)
        game.save(update_fields=TIMER_OFF_FIELDS)
    return game


def timer_off_decline(*, game_id: int, player: Player) -> Game:
    """A seated player declines: the proposal is dropped and the timer keeps running."""
    with transaction.atomic():
        game = _lock_with_timer(game_id)
        _, mine = _seated(game, player)
        if not game.timer_proposal:
            raise errors.TimerProposalMissing()
        game.timer_proposal = None
        fact_append(game, TIMER_OFF_DECLINED, seat=mine.index, source=EventSource.PLAYER)
        game.save(update_fields=["timer_proposal", "updated_at"])
    return game


def _timer_off_if_agreed(game: Game, seats: list[Seat]) -> None:
    humans = [s.index for s in seats if s.player_id is not None]
    proposal = game.timer_proposal or {}
    if not set(humans) <= set(proposal.get("accepted", [])):
        return
    fact_append(
        game,
        TIMER_TURNED_OFF,
        source=EventSource.PLAYER,
        seats=humans,
        turn_seconds=game.turn_seconds,
    )
    game.turn_seconds = None
    game.turn_deadline = None
    game.reminder_at = None
    game.timer_proposal = None
    for seat in seats:  # without a timer nothing would play for an absent player
        seat_back(game, seat, reason="timer_off")
