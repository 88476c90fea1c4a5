"""Writes at the table: settings, quick chat and mutes, concession, rematch, presence and the
block / favourite lists.

The house rule of every service: one transaction, the game row locked first, refusals raised by
code from ``games.errors``. Table happenings are appended to ``TableEvent`` (chat is not game
state and keeps its own per-game numbering) and live clients are woken after the commit
(``games.live``).
"""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import Player
from games import errors, hooks, live
from games.engine import rules_version_of
from games.engine.history import GAME_CONCEDED
from games.models import (
    ChatMute,
    EventSource,
    Game,
    GameStatus,
    GameTable,
    Seat,
    TableEvent,
    TableEventKind,
)
from games.presence import presence_note
from games.selectors.games import game_state_get
from games.selectors.log import game_options
from games.selectors.seating import seat_index_of, seats_of
from games.selectors.table import (
    CHAT_BURST,
    CHAT_WINDOW_SECONDS,
    QUICK_CHAT,
    SPECTATOR_DELAY_MAX,
    muted_seats_get,
    rematch_get,
    rematch_status_get,
)
from games.services.facts import fact_append
from games.services.lobby import game_start, join_code_new
from games.services.locks import game_lock
from games.services.seating import seats_written


def _table_lock(game: Game) -> GameTable:
    """The table row, created if needed, locked (the caller holds the game row lock)."""
    table, _ = GameTable.objects.select_for_update().get_or_create(game=game)
    return table


def _seat_of(game: Game, player: Player) -> Seat:
    seat = game.seats.filter(player=player).first()
    if seat is None:
        raise errors.NotSeated()
    return seat


def _append(
    game: Game,
    table: GameTable,
    kind: str,
    *,
    seat: int | None = None,
    player: Player | None = None,
    data: dict[str, Any] | None = None,
) -> TableEvent:
    """Append a table event (locks held) and wake live clients once committed."""
    table.table_seq += 1
    table.save(update_fields=["table_seq"])
    event = TableEvent.objects.create(
        game=game, seq=table.table_seq, kind=kind, seat=seat, player=player, data=data or {}
    )
    live.notify_on_commit(game.pk)
    return event


def table_settings_update(
    *,
    game_id: int,
    player: Player,
    table_talk: bool | None = None,
    spectator_delay: int | None = None,
    hints: bool | None = None,
) -> Game:
    """Change the table's settings (the creator, while the table is in the lobby). ``hints``
    turns the hints option on or off (never on at a rated table: 422 ``rated_no_hints``); the
    option is the game's, and ``game_started`` records it."""
    with transaction.atomic():
        game = game_lock(game_id)
        if game.created_by_id != player.pk:
            raise errors.NotGameCreator("Only the player who created the table may change it.")
        if game.status != GameStatus.LOBBY:
            raise errors.GameAlreadyStarted("The game has started: its settings are fixed.")
        if spectator_delay is not None and not 0 <= spectator_delay <= SPECTATOR_DELAY_MAX:
            raise errors.SpectatorDelayInvalid()
        if hints and game.rated:
            raise errors.RatedNoHints()
        table = _table_lock(game)
        changed: dict[str, Any] = {}
        if table_talk is not None and table_talk != table.table_talk:
            table.table_talk = changed["table_talk"] = table_talk
        if spectator_delay is not None and spectator_delay != table.spectator_delay:
            table.spectator_delay = changed["spectator_delay"] = spectator_delay
        if changed:
            table.save(update_fields=list(changed))
        if hints is not None and hints != game.hints:  # the game's option, on its row
            game.hints = changed["hints"] = hints
            Game.objects.filter(pk=game.pk).update(hints=hints)
        if changed:
            _append(game, table, TableEventKind.SETTINGS_CHANGED, player=player, data=changed)
    return game


def chat_send(*, game_id: int, player: Player, phrase: str) -> TableEvent:
    """Say a quick-chat phrase at the table (seated players; rate-limited). The other seated
    players are notified, but those who hid the speaker's chat."""
    if phrase not in QUICK_CHAT:
        raise errors.ChatPhraseUnknown(f"Unknown phrase {phrase!r}.")
    with transaction.atomic():
        game = game_lock(game_id)
        seat = _seat_of(game, player)
        table = _table_lock(game)
        if not table.table_talk:
            raise errors.TableTalkOff()
        now = timezone.now()
        recent = list(
            TableEvent.objects.filter(
                game=game,
                player=player,
                kind=TableEventKind.CHAT,
                created_at__gt=now - dt.timedelta(seconds=CHAT_WINDOW_SECONDS),
            )
            .order_by("-created_at")
            .values_list("created_at", flat=True)[:CHAT_BURST]
        )
        if len(recent) >= CHAT_BURST:
            oldest = recent[-1]
            wait = (oldest + dt.timedelta(seconds=CHAT_WINDOW_SECONDS) - now).total_seconds()
            raise errors.ChatRateLimited(max(1, int(wait + 0.999)))
        event = _append(
            game,
            table,
            TableEventKind.CHAT,
            seat=seat.index,
            player=player,
            data={"phrase": phrase, "text": QUICK_CHAT[phrase]},
        )
        # The other seated players may be told (games.hooks): those who hid this seat's chat not.
        if any(e["player"] is not None and e["index"] != seat.index for e in game.seating):
            hidden_from = set(
                ChatMute.objects.filter(game=game, seat=seat.index).values_list(
                    "player_id", flat=True
                )
            )
            hooks.publish(
                hooks.ChatSaid(
                    game,
                    seat=seat.index,
                    event_seq=event.seq,
                    phrase=phrase,
                    text=QUICK_CHAT[phrase],
                    hidden_from=hidden_from,
                )
            )
        presence_note(game.pk, player.pk, now)
    return event


def chat_mute_set(*, game: Game, player: Player, seat: int, muted: bool) -> list[int]:
    """Hide (or show again) the chat of ``seat`` for ``player``; returns the muted seats."""
    if not 0 <= seat < game.players:
        raise errors.InvalidSeat(f"Seat {seat} does not exist: seats are 0 to {game.players - 1}.")
    if muted:
        ChatMute.objects.get_or_create(game=game, player=player, seat=seat)
    else:
        ChatMute.objects.filter(game=game, player=player, seat=seat).delete()
    return muted_seats_get(game=game, player=player)


def game_concede(*, game_id: int, player: Player) -> Game:
    """The requester's side gives up: its team loses and the game is over.

    A ``game_conceded`` event in the move log (seat, team, winner), so the log alone says how
    the game ended; the table feed carries a ``conceded`` notice for its readers. With two teams
    the other team wins; with three, the leading one of the others (the lowest team number on a
    tie). At a rated table the conceding side ranks last and the ratings change in this
    transaction (a ``ratings_changed`` fact after the concession). A paused game may be
    conceded. Every other seat with a player is told the game is over.
    """
    with transaction.atomic():
        game = game_lock(game_id)
        seat = _seat_of(game, player)
        if game.status == GameStatus.FINISHED:
            raise errors.GameOver()
        if game.status != GameStatus.ACTIVE:
            raise errors.GameNotActive()
        state = game_state_get(game)
        scores = list(state.scores) if state is not None else [0] * (seat.team + 1)
        others = [t for t in range(len(scores)) if t != seat.team]
        winner = max(others, key=lambda t: (scores[t], -t))
        fact_append(
            game,
            GAME_CONCEDED,
            seat=seat.index,
            source=EventSource.PLAYER,
            team=seat.team,
            winner_team=winner,
        )
        game.status = GameStatus.FINISHED
        game.finished_at = timezone.now()
        game.winner_team = winner
        game.to_act = None
        game.turn_deadline = None
        game.reminder_at = None
        game.paused_at, game.pause_remaining, game.pause_proposal = None, None, None
        game.save(
            update_fields=[
                "status",
                "finished_at",
                "winner_team",
                "to_act",
                "turn_deadline",
                "reminder_at",
                "paused_at",
                "pause_remaining",
                "pause_proposal",
                "updated_at",
            ]
        )
        # Rated: the side that left loses (competition); everyone else is told (notifications).
        hooks.publish(
            hooks.GameEnded(
                game,
                seats_of(game),
                ended=hooks.ENDED_CONCEDED,
                scores=scores,
                losing_team=seat.team,
                skip=(player.pk,),
            )
        )
        table = _table_lock(game)
        _append(
            game,
            table,
            TableEventKind.CONCEDED,
            seat=seat.index,
            player=player,
            data={"team": seat.team, "winner_team": winner, "version": game.version},
        )
    return game


def rematch_accept(*, game_id: int, player: Player) -> dict[str, Any]:
    """Accept a rematch of a finished game. Once every human at the table has accepted, the new
    game is created (same seats, same options, same table settings, linked by ``rematch_of``)
    and dealt; a ``rematch_created`` table event names it. Accepting again changes nothing.
    A rematch where only bots play with the creator counts towards the creator's bot tables
    (409 ``bot_tables_limit`` past the cap, and the acceptance is not recorded)."""
    with transaction.atomic():
        game = game_lock(game_id)
        _seat_of(game, player)
        if game.status != GameStatus.FINISHED:
            raise errors.GameNotFinished()
        table = _table_lock(game)
        status = rematch_get(game)
        if status["game"] is not None or player.pk in status["accepted_by"]:
            return rematch_status_get(game)
        _append(
            game,
            table,
            TableEventKind.REMATCH_ACCEPTED,
            player=player,
            seat=_seat_of(game, player).index,
        )
        status = rematch_get(game)
        if not status["waiting_for"]:
            new = _rematch_create(game, table)
            _append(game, table, TableEventKind.REMATCH_CREATED, data={"game": new.pk})
    return rematch_status_get(game)


def _rematch_create(old: Game, old_table: GameTable) -> Game:
    seats = list(old.seats.order_by("index"))
    now = timezone.now()
    new = Game.objects.create(
        preset=old.preset,
        options=old.options,
        status=GameStatus.LOBBY,
        version=0,
        rules_version=rules_version_of(game_options(old).family),
        seed=secrets.token_hex(32),
        is_public=old.is_public,
        hints=old.hints,  # a casual table's hints stay on
        rated=old.rated,  # a rated table's rematch is rated (same humans, same preset) ...
        join_code=join_code_new(),
        created_by=old.created_by,
        # ... and keeps its turn timer, which abandons the game for a side that stays away.
        **(
            {
                "turn_seconds": old.turn_seconds,
                "timeout_limit": old.timeout_limit,
                "timeout_outcome": old.timeout_outcome,
            }
            if old.rated
            else {}
        ),
    )
    new_seats = Seat.objects.bulk_create(
        [
            Seat(
                game=new,
                index=s.index,
                team=s.team,
                player=s.player,
                bot_level=s.bot_level,
                joined_at=now,
            )
            for s in seats
        ]
    )
    seats_written(new, new_seats)
    GameTable.objects.create(
        game=new,
        table_talk=old_table.table_talk,
        spectator_delay=old_table.spectator_delay,
        rematch_of=old,
    )
    return game_start(game_id=new.pk, player=old.created_by, bot_tables_capped=True)


def presence_touch(*, game: Game, player: Player) -> None:
    """Note that ``player`` (if seated at ``game``) is at the table now (``games.presence``:
    the cache, not the database)."""
    if seat_index_of(game, player.pk) is not None:
        presence_note(game.pk, player.pk, timezone.now())
