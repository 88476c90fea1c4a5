"""Challenges: a player invites another to a table; accepting creates it with both seated.

A challenge names the invitee (by player id), a preset and option overrides, rated or not, the
seat the challenger wants (or none: drawn at random when it is accepted), and how long it stays
open (``CHALLENGE_EXPIRY_DEFAULT_SECONDS`` unless given, at most
``CHALLENGE_EXPIRY_MAX_SECONDS``). Issuing it checks what creating the table would: the options
(400 ``invalid_option``), the seat (400 ``invalid_seat``), the rated-table rules (422
``rated_custom_options``; 422 ``rated_humans_only`` for a bot account on either side or bots in
the other seats), and refuses a challenge to yourself (400 ``challenge_self``), between players
either of whom blocked the other (403 ``challenge_blocked``, checked again on acceptance), a
second open challenge to the same player (409 ``challenge_exists``), and more open challenges
than a challenger may have out (``CHALLENGES_OPEN_MAX``) or an invitee may have waiting
(``CHALLENGES_INCOMING_MAX``): 409 ``challenges_limit``. The invitee is told through the
notification channels they chose (``hooks.ChallengeIssued``; ``notifications`` subscribes).

Accepting (the invitee, before ``expires_at``: else 409 ``challenge_expired``) creates the table
with the lobby's own services, so it is a table like any other: a private table (join code)
created by the challenger, who sits at their seat, the invitee at the lowest seat of another
team (an opponent). A table of two is dealt at once. At a table of three or four the other
seats go to bots of ``bot_level`` when the challenge says ``fill_with_bots`` (never rated) and
the game is dealt; otherwise they stay open, and the challenger starts the table as any
creator does (``POST /games/{id}/start/``) once others have joined by the join code, or fills
them with bots then. Whatever the lobby refuses (a player waiting in quick play: 409
``queued_for_match``; too many bot tables: 409 ``bot_tables_limit``) refuses the acceptance,
and the challenge stays open. The invitee may decline and the challenger cancel an open
challenge (an answered one: 409 ``challenge_closed``).
"""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Player, PlayerRelation, RelationKind
from accounts.selectors.players import player_get
from games import errors, hooks
from games.engine import EngineError, make_options
from games.models import BotLevel, Challenge, ChallengeStatus, Game
from games.services.lobby import BotSeatSpec, game_create, game_join, game_start

CHALLENGE_EXPIRY_DEFAULT_SECONDS = 24 * 3600
CHALLENGE_EXPIRY_MIN_SECONDS = 60
CHALLENGE_EXPIRY_MAX_SECONDS = 7 * 24 * 3600
CHALLENGES_OPEN_MAX = 10  # open challenges a player may have out at once
CHALLENGES_INCOMING_MAX = 50  # open challenges a player may have waiting for them


def _limit(name: str, default: int) -> int:
    return int(getattr(settings, name, default))


def _blocked_between(a_id: int, b_id: int) -> bool:
    return PlayerRelation.objects.filter(
        Q(owner_id=a_id, other_id=b_id) | Q(owner_id=b_id, other_id=a_id),
        kind=RelationKind.BLOCK,
    ).exists()


def _lock_players(*ids: int) -> None:
    """The players' rows locked in id order (no deadlock between two writers)."""
    list(
        Player.objects.select_for_update()
        .filter(pk__in=sorted(set(ids)))
        .order_by("pk")
        .values_list("pk", flat=True)
    )


def open_q(now: dt.datetime | None = None) -> Q:
    """Challenges still open: pending and not expired."""
    return Q(status=ChallengeStatus.PENDING, expires_at__gt=now or timezone.now())


def challenge_issue(
    *,
    challenger: Player,
    invitee_id: int,
    preset: str,
    options: dict[str, Any] | None = None,
    rated: bool = False,
    seat: int | None = None,
    fill_with_bots: bool = False,
    bot_level: str = BotLevel.EASY,
    expires_in: int | None = None,
) -> Challenge:
    """Challenge ``invitee_id`` (see the module for what is refused)."""
    if invitee_id == challenger.pk:
        raise errors.ChallengeSelf()
    invitee = player_get(invitee_id)
    options = dict(options or {})
    try:
        opts = make_options(preset, options)
    except EngineError as exc:
        raise errors.engine_error(exc) from None
    if seat is not None and not 0 <= seat < opts.players:
        raise errors.InvalidSeat(
            f"Seat {seat} does not exist: the table has seats 0 to {opts.players - 1}."
        )
    if rated:
        if opts.to_dict() != make_options(preset, {}).to_dict():
            raise errors.RatedCustomOptions()
        if challenger.is_bot or invitee.is_bot:
            raise errors.RatedHumansOnly("A bot account cannot sit at a rated table.")
        if fill_with_bots and opts.players > 2:
            raise errors.RatedHumansOnly("A rated table seats people only: no bots.")
    seconds = CHALLENGE_EXPIRY_DEFAULT_SECONDS if expires_in is None else expires_in
    if not CHALLENGE_EXPIRY_MIN_SECONDS <= seconds <= CHALLENGE_EXPIRY_MAX_SECONDS:
        raise ValueError(f"expires_in {seconds} is out of bounds")  # the API bounds it
    now = timezone.now()
    with transaction.atomic():
        _lock_players(challenger.pk, invitee.pk)
        if _blocked_between(challenger.pk, invitee.pk):
            raise errors.ChallengeBlocked()
        still_open = Challenge.objects.filter(open_q(now))
        if still_open.filter(challenger=challenger, invitee=invitee).exists():
            raise errors.ChallengeExists()
        out_max = _limit("CHALLENGES_OPEN_MAX", CHALLENGES_OPEN_MAX)
        if still_open.filter(challenger=challenger).count() >= out_max:
            raise errors.ChallengesLimit(
                f"You have {out_max} open challenges out, the most allowed at once: wait for "
                "answers or cancel one first."
            )
        in_max = _limit("CHALLENGES_INCOMING_MAX", CHALLENGES_INCOMING_MAX)
        if still_open.filter(invitee=invitee).count() >= in_max:
            raise errors.ChallengesLimit(
                f"This player has {in_max} open challenges waiting, the most allowed: try "
                "again later."
            )
        challenge = Challenge.objects.create(
            challenger=challenger,
            invitee=invitee,
            preset=preset,
            options=options,
            rated=rated,
            seat=seat,
            fill_with_bots=fill_with_bots and opts.players > 2,
            bot_level=bot_level,
            expires_at=now + dt.timedelta(seconds=seconds),
        )
        hooks.publish(hooks.ChallengeIssued(challenge))
    return challenge


def _challenge_lock(challenge_id: int, player: Player) -> Challenge:
    """The challenge, locked, if ``player`` sent or received it (else 404)."""
    found = (
        Challenge.objects.select_for_update()
        .filter(Q(challenger=player) | Q(invitee=player), pk=challenge_id)
        .first()
    )
    if found is None:
        raise errors.ChallengeNotFound()
    return found


def _open_check(challenge: Challenge, now: dt.datetime) -> None:
    if challenge.status != ChallengeStatus.PENDING:
        raise errors.ChallengeClosed(f"The challenge was already {challenge.status}.")
    if challenge.expires_at <= now:
        raise errors.ChallengeExpired()


def seats_for(challenge: Challenge, players: int, teams: int) -> tuple[int, int, list[int]]:
    """The challenger's seat (theirs, or drawn at random), the invitee's (the lowest seat of
    another team) and the other seats."""
    mine = challenge.seat if challenge.seat is not None else secrets.randbelow(players)
    others = [i for i in range(players) if i != mine]
    opponents = [i for i in others if i % teams != mine % teams]
    theirs = (opponents or others)[0]
    return mine, theirs, [i for i in others if i != theirs]


def challenge_accept(*, challenge_id: int, player: Player) -> tuple[Challenge, Game]:
    """The invitee accepts: the table is created with both seated (see the module)."""
    now = timezone.now()
    with transaction.atomic():
        challenge = _challenge_lock(challenge_id, player)
        if challenge.invitee_id != player.pk:
            raise errors.ChallengeNotYours("Only the invited player may accept a challenge.")
        _open_check(challenge, now)
        if _blocked_between(challenge.challenger_id, challenge.invitee_id):
            raise errors.ChallengeBlocked()
        challenger = Player.objects.get(pk=challenge.challenger_id)
        opts = make_options(challenge.preset, dict(challenge.options))
        mine, theirs, rest = seats_for(challenge, opts.players, opts.teams)
        bots = (
            [BotSeatSpec(seat=i, level=challenge.bot_level) for i in rest]
            if challenge.fill_with_bots
            else []
        )
        game = game_create(
            creator=challenger,
            preset=challenge.preset,
            options=dict(challenge.options),
            is_public=False,
            bots=bots,
            seat=mine,
            rated=challenge.rated,
        )
        game_join(player=player, game_id=game.pk, join_code=game.join_code, seat=theirs)
        if not rest or challenge.fill_with_bots:
            game = game_start(game_id=game.pk, player=challenger, bot_tables_capped=True)
        challenge.status = ChallengeStatus.ACCEPTED
        challenge.answered_at = now
        challenge.game = game
        challenge.save(update_fields=["status", "answered_at", "game"])
    return challenge, game


def challenge_decline(*, challenge_id: int, player: Player) -> Challenge:
    """The invitee declines an open challenge."""
    return _close(challenge_id, player, ChallengeStatus.DECLINED)


def challenge_cancel(*, challenge_id: int, player: Player) -> Challenge:
    """The challenger withdraws an open challenge."""
    return _close(challenge_id, player, ChallengeStatus.CANCELLED)


def _close(challenge_id: int, player: Player, status: str) -> Challenge:
    now = timezone.now()
    with transaction.atomic():
        challenge = _challenge_lock(challenge_id, player)
        if status == ChallengeStatus.DECLINED and challenge.invitee_id != player.pk:
            raise errors.ChallengeNotYours("Only the invited player may decline a challenge.")
        if status == ChallengeStatus.CANCELLED and challenge.challenger_id != player.pk:
            raise errors.ChallengeNotYours("Only the challenger may cancel a challenge.")
        _open_check(challenge, now)
        challenge.status = status
        challenge.answered_at = now
        challenge.save(update_fields=["status", "answered_at"])
    return challenge
