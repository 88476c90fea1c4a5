"""The lobby: create a table, sit at it, leave it, start it (deal the first round)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Player, PlayerRelation, RelationKind
from games import errors, hooks
from games.engine import (
    EngineError,
    Event,
    effects_to_json,
    make_options,
    new_game,
    rules_version_of,
    seed_commitment,
)
from games.models import BotLevel, EventSource, Game, GameStatus, Seat, TimeoutOutcome
from games.selectors.log import game_options, options_stored
from games.selectors.seating import seat_index_of
from games.services.bots import bot_turn_register
from games.services.deadlines import TimerOptions, turn_timer_arm
from games.services.locks import game_lock
from games.services.log import log_append
from games.services.projections import projections_write
from games.services.quotas import bot_table_is, bot_tables_check
from games.services.seating import seat_save, seats_written

JOIN_CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
JOIN_CODE_LENGTH = 8


def join_code_new() -> str:
    """A fresh join code (unique by the column's constraint; a clash is vanishingly rare)."""
    return "".join(secrets.choice(JOIN_CODE_ALPHABET) for _ in range(JOIN_CODE_LENGTH))


def seat_check(game: Game, index: int) -> None:
    if not 0 <= index < game.players:
        raise errors.InvalidSeat(
            f"Seat {index} does not exist: this table has seats 0 to {game.players - 1}."
        )


def outsider_check(game: Game, player: Player, join_code: str | None = None) -> None:
    """Refuse (404 ``not_found``, as if it did not exist) a private table to a player who
    neither created it nor sits at it, unless they give its join code (the caller holds the
    game row lock)."""
    if game.is_public or game.created_by_id == player.pk:
        return
    if seat_index_of(game, player.pk) is not None:
        return
    if join_code is None or join_code.strip().upper() != game.join_code:
        raise errors.GameNotFound()


def join_block_check(game: Game, player: Player) -> None:
    """Refuse (403 ``player_blocked``) a player whom the table's creator or anyone seated at it
    has blocked (the caller holds the game row lock)."""
    insiders = Q(owner_id=game.created_by_id) | Q(owner__seats__game=game)
    if PlayerRelation.objects.filter(insiders, other=player, kind=RelationKind.BLOCK).exists():
        raise errors.PlayerBlocked()


def seat_wanted_check(player: Player) -> None:
    """Let the other apps refuse ``player`` a seat (``SeatWanted``: competition refuses, 409
    ``queued_for_match``, a player waiting in a quick-play queue, whom the pairing run may
    seat at any moment). Holds the player's row lock, as ``queue_join`` does, so a table and
    a queue entry cannot be made at once."""
    Player.objects.select_for_update().filter(pk=player.pk).values_list("pk").get()
    hooks.publish(hooks.SeatWanted(player))


@dataclass(frozen=True)
class BotSeatSpec:
    seat: int
    level: str = BotLevel.EASY


def game_create(
    *,
    creator: Player,
    preset: str,
    options: dict[str, Any] | None = None,
    is_public: bool = True,
    bots: list[BotSeatSpec] | None = None,
    seat: int | None = None,
    spectate: bool = False,
    timer: TimerOptions | None = None,
    rated: bool = False,
    hints: bool = False,
    seed: str | None = None,
    seated: dict[int, Player] | None = None,
) -> Game:
    """A new table in the lobby.

    The number of seats is the options' ``players``. ``bots`` reserves seats for bots; the
    creator sits at ``seat`` (by default the lowest seat not given to a bot) unless ``spectate``.
    A ``rated`` table plays its preset as it is (an option that differs from the preset's: 422
    ``rated_custom_options``) with people only (a bot seat: 422 ``rated_humans_only``), and its
    turn timer abandons the game for a seat that runs out of time ``timeout_limit`` times in a
    row (``timeout_outcome`` is ``abandon`` whatever was asked). A player waiting in a
    quick-play queue creates no table (409 ``queued_for_match``). ``hints`` lets the seat to
    act ask for a suggested move (casual tables only: 422 ``rated_no_hints``); a bot account
    creates no rated table (422 ``rated_humans_only``). ``seed`` deals a chosen shuffle (a
    duplicate tournament's board, the same at every table); by default a fresh random one.
    ``seated`` puts other players in their seats at once (a table made for them by a
    tournament's pairing, which already kept apart those who blocked one another and took them
    out of quick play): nobody joins through the lobby.
    """
    try:
        opts = make_options(preset, options or {})
    except EngineError as exc:
        raise errors.engine_error(exc) from None
    if rated:
        if opts.to_dict() != make_options(preset, {}).to_dict():
            raise errors.RatedCustomOptions()
        if bots:
            raise errors.RatedHumansOnly()
        if hints:
            raise errors.RatedNoHints()
        if creator.is_bot:
            raise errors.RatedHumansOnly("A bot account cannot sit at a rated table.")
        timer = replace(timer or TimerOptions(), timeout_outcome=TimeoutOutcome.ABANDON)
    bots = list(bots or [])
    bot_levels: dict[int, str] = {}
    for spec in bots:
        if not 0 <= spec.seat < opts.players:
            raise errors.InvalidSeat(
                f"Bot seat {spec.seat} does not exist: the table has seats 0 to {opts.players - 1}."
            )
        if spec.seat in bot_levels:
            raise errors.SeatTaken(f"Seat {spec.seat} is given to two bots.")
        bot_levels[spec.seat] = spec.level
    creator_seat: int | None = None
    if not spectate:
        if seat is None:
            free = [i for i in range(opts.players) if i not in bot_levels]
            if not free:
                raise errors.GameFull("Every seat is given to a bot; create it with spectate.")
            creator_seat = free[0]
        else:
            if not 0 <= seat < opts.players:
                raise errors.InvalidSeat(
                    f"Seat {seat} does not exist: the table has seats 0 to {opts.players - 1}."
                )
            if seat in bot_levels:
                raise errors.SeatTaken(f"Seat {seat} is given to a bot.")
            creator_seat = seat
    seated = dict(seated or {})
    for index, person in seated.items():
        if not 0 <= index < opts.players or index in bot_levels or index == creator_seat:
            raise errors.SeatTaken(f"Seat {index} cannot be given to another player.")
        if rated and person.is_bot:
            raise errors.RatedHumansOnly("A bot account cannot sit at a rated table.")
    if len({p.pk for p in seated.values()} | {creator.pk}) != len(seated) + 1:
        raise errors.AlreadySeated()
    timer_fields = (timer or TimerOptions()).fields()  # the turn timer (games.services.deadlines)
    now = timezone.now()
    with transaction.atomic():
        seat_wanted_check(creator)
        game = Game.objects.create(
            preset=preset,
            options=options_stored(opts),
            status=GameStatus.LOBBY,
            version=0,
            rules_version=rules_version_of(opts.family),
            seed=seed or secrets.token_hex(32),
            is_public=is_public,
            rated=rated,
            hints=hints,
            join_code=join_code_new(),
            created_by=creator,
            **timer_fields,
        )
        teams = opts.teams
        seats = Seat.objects.bulk_create(
            [
                Seat(
                    game=game,
                    index=i,
                    team=i % teams,
                    player=creator if i == creator_seat else seated.get(i),
                    bot_level=bot_levels.get(i),
                    joined_at=now
                    if (i == creator_seat or i in bot_levels or i in seated)
                    else None,
                )
                for i in range(opts.players)
            ]
        )
        seats_written(game, seats)
    return game


def game_join(
    *,
    player: Player,
    game_id: int | None = None,
    join_code: str | None = None,
    seat: int | None = None,
) -> Game:
    """Sit ``player`` at a table in the lobby: by id (public, or private with its code) or by
    join code alone. ``seat`` picks a seat, by default the lowest free one. A private table
    without its code is 404 ``not_found`` to whoever is not at it (``outsider_check``); a
    player waiting in a quick-play queue is refused (409 ``queued_for_match``)."""
    with transaction.atomic():
        if game_id is None:
            code = (join_code or "").strip().upper()
            found = Game.objects.filter(join_code=code).values_list("pk", flat=True).first()
            if found is None:
                raise errors.GameNotFound("No table has this join code.")
            game_id = found
        game = game_lock(game_id)
        outsider_check(game, player, join_code)
        if game.status != GameStatus.LOBBY:
            raise errors.GameAlreadyStarted()
        seats = list(game.seats.select_for_update().order_by("index"))
        if any(s.player_id == player.pk for s in seats):
            raise errors.AlreadySeated()
        seat_wanted_check(player)
        join_block_check(game, player)
        if game.rated and player.is_bot:
            raise errors.RatedHumansOnly("A bot account cannot sit at a rated table.")
        if seat is None:
            free = [s for s in seats if s.is_empty]
            if not free:
                raise errors.GameFull()
            target = free[0]
        else:
            seat_check(game, seat)
            target = seats[seat]
            if not target.is_empty:
                raise errors.SeatTaken(f"Seat {seat} is already taken.")
        target.player = player
        target.joined_at = timezone.now()
        seat_save(game, target, ["player", "joined_at"])
    return game


def game_leave(*, game_id: int, player: Player) -> Game:
    """Give up one's seat before the game starts."""
    with transaction.atomic():
        game = game_lock(game_id)
        outsider_check(game, player)
        seat = game.seats.filter(player=player).first()
        if seat is None:
            raise errors.NotSeated()
        if game.status != GameStatus.LOBBY:
            raise errors.GameAlreadyStarted("The game has started: seats can no longer be left.")
        seat.player = None
        seat.joined_at = None
        seat_save(game, seat, ["player", "joined_at"])
    return game


def game_start(
    *,
    game_id: int,
    player: Player,
    fill_with_bots: bool = False,
    bot_level: str = BotLevel.EASY,
    bot_tables_capped: bool = False,
) -> Game:
    """Deal the first round (the creator only). Empty seats are refused unless filled with bots.

    Appends event 1, ``game_started``, whose effects carry each seat's dealt hand privately,
    and tells every seat with a player that the game started. With ``bot_tables_capped`` (a
    start the player asked for: the API, a rematch) a table where only bots play with its
    creator is refused past the creator's ``BOT_TABLES_ACTIVE_MAX`` (409 ``bot_tables_limit``,
    ``games.services.quotas``); quick play's pairing, which seats one queue entry at a time,
    starts its tables without it.
    """
    with transaction.atomic():
        game = game_lock(game_id)
        outsider_check(game, player)
        if game.created_by_id != player.pk:
            raise errors.NotGameCreator()
        if game.status != GameStatus.LOBBY:
            raise errors.GameAlreadyStarted()
        seats = list(game.seats.select_for_update().order_by("index"))
        bot_accounts = set(
            Player.objects.filter(
                pk__in=[s.player_id for s in seats if s.player_id is not None], is_bot=True
            ).values_list("pk", flat=True)
        )
        empty = [s for s in seats if s.is_empty]
        if empty and fill_with_bots and game.rated:
            raise errors.RatedHumansOnly("A rated game starts with a person in every seat.")
        if empty and not fill_with_bots:
            raise errors.SeatsEmpty(
                f"Seats {', '.join(str(s.index) for s in empty)} are empty; start with "
                "fill_with_bots or wait for players."
            )
        if bot_tables_capped and bot_table_is(game.created_by_id, seats):
            bot_tables_check(player)
        now = timezone.now()
        for s in empty:
            s.bot_level = bot_level
            s.joined_at = now
            seat_save(game, s, ["bot_level", "joined_at"])
        opts = game_options(game)
        events: list[Event] = []
        state = new_game(opts, game.seed, events)
        log_append(
            game,
            seq=1,
            seat=None,
            type="game_started",
            source=EventSource.SYSTEM,
            payload={
                "preset": game.preset,
                "rules_version": game.rules_version,
                "rated": game.rated,
                "hints": game.hints,
                "seed_commitment": seed_commitment(game.seed),
                # Who sits where as the game starts (the log's seating; later changes are
                # facts of the log: games.engine.history).
                "seats": [
                    {
                        "index": s.index,
                        "team": s.team,
                        "player": s.player_id,
                        "bot_level": s.bot_level,
                        "bot_account": s.player_id in bot_accounts,
                    }
                    for s in seats
                ],
            },
            effects=effects_to_json(events),
        )
        game.status = GameStatus.ACTIVE
        game.started_at = now
        game.version = 1
        projections_write(game, state)
        turn_timer_arm(game, seats)  # the first turn's deadline (games.services.deadlines)
        game.save()
        hooks.publish(hooks.GameStarted(game))
        bot_turn_register(game, seats)
    return game
