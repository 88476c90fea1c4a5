"""Reads of games: who may see one, the game as a requester may know it, the table lists.

Hidden cards leave the server only through the engine's player view (``player_view``): a seat
sees its own hand, everyone else sees counts. The snapshot is never served, the seed only once
the game is over (so the deal can be checked against the published commitments).
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Max, Q, QuerySet
from django.db.models.functions import Coalesce

from accounts.models import Player
from games import errors, hooks
from games.engine import GameState, action_from_dict, apply, new_game, seed_commitment
from games.engine.history import TABLE_FACTS
from games.engine.view import player_view
from games.hot_sql import game_read
from games.models import Game, GameStatus, Seat
from games.selectors.horizon import game_record_at, horizon_of, spectator_horizon
from games.selectors.log import game_options, rules_version_check
from games.selectors.pause import pause_view
from games.selectors.reveal import game_revealed
from games.selectors.seating import seat_index_of, seats_of
from games.selectors.timers import timer_view


def game_get(game_id: int) -> Game:
    """The game with its creator (404 ``not_found`` when there is none)."""
    game = game_read(game_id)  # the hot read's SQL (games.hot_sql)
    if game is None:
        raise errors.GameNotFound()
    return game


def game_get_visible(*, game_id: int, player: Player) -> Game:
    """The game if ``player`` may look at it: public tables to everyone, private ones only to
    their creator and seated players (others get 404, as if it did not exist)."""
    game = game_get(game_id)
    if game.is_public or game.created_by_id == player.pk:
        return game
    if seat_index_of(game, player.pk) is None:
        raise errors.GameNotFound()
    return game


def viewer_seat_get(*, game: Game, player: Player | None) -> int | None:
    if player is None:
        return None
    return seat_index_of(game, player.pk)


def seat_view(seat: Seat) -> dict[str, Any]:
    if seat.player is not None:
        kind = "player"
    elif seat.bot_level:
        kind = "bot"
    else:
        kind = "empty"
    return {
        "index": seat.index,
        "team": seat.team,
        "kind": kind,
        "player": (
            {"id": seat.player.pk, "display_name": seat.player.display_name}
            if seat.player is not None
            else None
        ),
        "bot_level": seat.bot_level,
        "bot_account": seat.player is not None and seat.player.is_bot,
    }


def game_state_get(game: Game) -> GameState | None:
    """The engine state from the snapshot (None before the deal)."""
    return GameState.from_dict(game.snapshot) if game.snapshot else None


def game_detail_get(
    *,
    game: Game,
    player: Player | None,
    seats: list[Seat] | None = None,
    state: GameState | None = None,
) -> dict[str, Any]:
    """Everything ``player`` may know about ``game``, with the table as their seat sees it
    (``seats``: the game's seats with their players, when the caller has them already)."""
    seats = seats_of(game) if seats is None else seats
    mine = next((s.index for s in seats if player is not None and s.player_id == player.pk), None)
    insider = mine is not None or (player is not None and game.created_by_id == player.pk)
    state = game_state_get(game) if state is None else state
    started = game.status != GameStatus.LOBBY and state is not None
    horizon = spectator_horizon(game, mine) if started else game.version
    table, timer, pause = None, None, None
    if started and state is not None:
        if horizon < game.version:  # a delayed spectator: the game as it was at the horizon
            record = game_record_at(game, horizon)
            table = player_view(record.state, None, with_legal=False)
            timer = timer_view(game, seats, upto=horizon, record=record)
            pause = pause_view(game, seats, record=record)
        else:
            table = player_view(state, mine)
    return {
        "id": game.pk,
        "preset": game.preset,
        "options": game.options,
        "status": game.status,
        "is_public": game.is_public,
        "rated": game.rated,
        "hints": game.hints,
        "version": horizon,
        "rules_version": game.rules_version,
        "created_by": {"id": game.created_by.pk, "display_name": game.created_by.display_name},
        "created_at": game.created_at,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
        "join_code": game.join_code if insider else None,
        "your_seat": mine,
        "seats": [seat_view(s) for s in seats],
        "seed_commitment": seed_commitment(game.seed) if started else None,
        "seed": game.seed if game_revealed(game) else None,
        "winner_team": game.winner_team,
        "state": table,
        "timer": timer or timer_view(game, seats),
        "pause": pause or pause_view(game, seats),
        "rating_changes": hooks.answer(hooks.RatingChangesWanted(game)),  # public: no card in it
    }


def game_list_open(
    *,
    preset: str | None = None,
    players: int | None = None,
    seats_free: int | None = None,
) -> QuerySet[Game]:
    """Public tables waiting in the lobby with at least one free seat (or ``seats_free``),
    newest first, each annotated with ``free_seats``."""
    qs = (
        Game.objects.filter(status=GameStatus.LOBBY, is_public=True)
        .select_related("created_by")
        .prefetch_related("seats__player")
        .annotate(
            free_seats=Count(
                "seats", filter=Q(seats__player__isnull=True, seats__bot_level__isnull=True)
            )
        )
        .filter(free_seats__gte=max(1, seats_free or 1))
    )
    if preset:
        qs = qs.filter(preset=preset)
    if players:
        qs = qs.filter(options__players=players)
    return qs.order_by("-created_at", "-id")


def game_list_mine(*, player: Player) -> QuerySet[Game]:
    """Every game ``player`` created or sits at, any status, newest first (each annotated with
    ``free_seats`` and its ``spectator_delay``: a creator may watch without a seat)."""
    return (
        Game.objects.filter(Q(created_by=player) | Q(seats__player=player))
        .distinct()
        .select_related("created_by")
        .prefetch_related("seats__player")
        .annotate(
            free_seats=Count(
                "seats", filter=Q(seats__player__isnull=True, seats__bot_level__isnull=True)
            ),
            spectator_delay=Coalesce(Max("table__spectator_delay"), 0),
        )
        .order_by("-created_at", "-id")
    )


def game_summary(game: Game, player: Player | None = None) -> dict[str, Any]:
    """One line of the table list (no cards, no code) as ``player`` may see it; seats may be
    prefetched. A game listed with its ``spectator_delay`` is shown at the horizon to a
    requester without a seat."""
    seats = sorted(game.seats.all(), key=lambda s: s.index)
    seated = player is not None and any(s.player_id == player.pk for s in seats)
    delay = int(getattr(game, "spectator_delay", 0) or 0)
    version = horizon_of(version=game.version, status=game.status, delay=delay, seated=seated)
    return {
        "id": game.pk,
        "preset": game.preset,
        "players": game.players,
        "target_score": game.options.get("target_score"),
        "status": game.status,
        "is_public": game.is_public,
        "rated": game.rated,
        "hints": game.hints,
        "free_seats": sum(1 for s in seats if s.is_empty),
        "version": version,
        "created_by": {"id": game.created_by.pk, "display_name": game.created_by.display_name},
        "created_at": game.created_at,
        "seats": [seat_view(s) for s in seats],
    }


def game_replay_state(game: Game, upto: int | None = None) -> GameState:
    """The engine state rebuilt from the move log alone (up to seq ``upto`` if given).

    The log is the truth: for a started game this must equal ``game.snapshot``.
    """
    rules_version_check(game.rules_version)
    state = new_game(game_options(game), game.seed)
    events = game.events.filter(seq__gt=1).exclude(type__in=TABLE_FACTS).order_by("seq")
    if upto is not None:
        events = events.filter(seq__lte=upto)
    # Plain values: model instances from ``.only()`` on the related manager defer ``game_id``
    # and reload each row on access (one query per event).
    for seat, payload in events.values_list("seat", "payload"):
        assert seat is not None, "every action event has a seat"
        apply(state, action_from_dict(payload, seat))
    return state
