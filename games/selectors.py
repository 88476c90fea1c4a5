"""Reads: what a requester may see of games, their events and their scorecards.

Hidden cards leave the server only through the engine's player view (``player_view``,
``event_view``): a seat sees its own hand and its own private event parts, everyone else sees
counts. The snapshot and the seed are never served (the seed only once the game is over, so
the deal can be checked against the published commitments).
"""

from __future__ import annotations

import json
from typing import Any

from django.db.models import Count, Q, QuerySet
from rest_framework.utils.encoders import JSONEncoder

from canasta_service.prepared import PreparedQuery
from games import errors
from games.engine import Event, GameState, seed_commitment
from games.engine.view import event_view, player_view
from games.models import Game, GameEvent, GameStatus, Player, RoundScore, Seat
from games.seating import seat_index_of, seats_of
from games.timers import game_touch, timer_view

# ============================================================================== games
# Every game view reads this: compiled once per connection (canasta_service.prepared).
GAME_WITH_CREATOR = PreparedQuery(
    lambda pk: Game.objects.select_related("created_by").filter(pk=pk), int
)


def game_get_visible(*, game_id: int, player: Player) -> Game:
    """The game if ``player`` may look at it: public tables to everyone, private ones only to
    their creator and seated players (others get 404, as if it did not exist)."""
    game = GAME_WITH_CREATOR.first(game_id)
    if game is None:
        raise errors.GameNotFound()
    game = game_touch(game, player)  # an overdue turn timer applies first (games.timers)
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
    return {
        "id": game.pk,
        "preset": game.preset,
        "options": game.options,
        "status": game.status,
        "is_public": game.is_public,
        "version": game.version,
        "rules_version": game.rules_version,
        "created_by": {"id": game.created_by.pk, "display_name": game.created_by.display_name},
        "created_at": game.created_at,
        "started_at": game.started_at,
        "finished_at": game.finished_at,
        "join_code": game.join_code if insider else None,
        "your_seat": mine,
        "seats": [seat_view(s) for s in seats],
        "seed_commitment": seed_commitment(game.seed) if started else None,
        "seed": game.seed if game.status == GameStatus.FINISHED else None,
        "winner_team": game.winner_team,
        "state": _table_view(game, state, mine) if started and state is not None else None,
        "timer": timer_view(game, seats),
    }


def _spectator_horizon(game: Game, viewer: int | None) -> int:
    """The last seq ``viewer`` may see: spectators of a game with a spectator delay see it
    that many moves late (games/table.py)."""
    from games.table import spectator_horizon

    return spectator_horizon(game, viewer)


def _table_view(game: Game, state: GameState, viewer: int | None) -> dict[str, Any]:
    """``player_view``, for a spectator of a delayed game as it was at the horizon."""
    horizon = _spectator_horizon(game, viewer)
    if horizon < game.version:
        from games.services import game_replay_state

        return player_view(game_replay_state(game, upto=horizon), None, with_legal=False)
    return player_view(state, viewer)


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
    """Every game ``player`` created or sits at, any status, newest first."""
    return (
        Game.objects.filter(Q(created_by=player) | Q(seats__player=player))
        .distinct()
        .select_related("created_by")
        .prefetch_related("seats__player")
        .annotate(
            free_seats=Count(
                "seats", filter=Q(seats__player__isnull=True, seats__bot_level__isnull=True)
            )
        )
        .order_by("-created_at", "-id")
    )


def game_summary(game: Game) -> dict[str, Any]:
    """One line of the table list (no cards, no code); seats may be prefetched."""
    seats = sorted(game.seats.all(), key=lambda s: s.index)
    return {
        "id": game.pk,
        "preset": game.preset,
        "players": game.players,
        "target_score": game.options.get("target_score"),
        "status": game.status,
        "is_public": game.is_public,
        "free_seats": sum(1 for s in seats if s.is_empty),
        "version": game.version,
        "created_by": {"id": game.created_by.pk, "display_name": game.created_by.display_name},
        "created_at": game.created_at,
        "seats": [seat_view(s) for s in seats],
    }


# ============================================================================== events
def effects_from_json(effects: list[dict[str, Any]]) -> list[Event]:
    """The stored form of engine events (``GameEvent.effects``) back as engine Events."""
    return [
        Event(
            kind=e["kind"],
            seat=e["seat"],
            public=dict(e["public"]),
            private={int(s): dict(part) for s, part in e["private"].items()},
        )
        for e in effects
    ]


def event_view_get(event: GameEvent, viewer: int | None) -> dict[str, Any]:
    """One log entry as ``viewer`` (a seat, or None for a spectator) may see it."""
    return {
        "seq": event.seq,
        "type": event.type,
        "seat": event.seat,
        "source": event.source,
        "created_at": event.created_at,
        "payload": event.payload,
        "effects": [event_view(e, viewer) for e in effects_from_json(event.effects)],
    }


EVENTS_PAGE_MAX = 500


def game_events_list(
    *, game: Game, player: Player | None, after: int = 0, limit: int = 200
) -> dict[str, Any]:
    """Log entries with seq > ``after`` (at most ``limit``), redacted for the requester."""
    viewer = viewer_seat_get(game=game, player=player)
    limit = max(1, min(limit, EVENTS_PAGE_MAX))
    horizon = _spectator_horizon(game, viewer)
    rows = list(game.events.filter(seq__gt=after, seq__lte=horizon).order_by("seq")[: limit + 1])
    more = len(rows) > limit
    rows = rows[:limit]
    return {
        "game": game.pk,
        "version": horizon,
        "viewer": viewer,
        "events": [event_view_get(e, viewer) for e in rows],
        "has_more": more,
    }


def action_response_build(
    *,
    game: Game,
    event: GameEvent,
    player: Player,
    seats: list[Seat] | None = None,
    state: GameState | None = None,
) -> dict[str, Any]:
    """The answer to an applied action: the new event and the game as the actor now sees it
    (datetimes included as they are: ``json_ready`` makes it storable). ``seats`` and
    ``state``: the game's, when the caller has them already."""
    detail = game_detail_get(game=game, player=player, seats=seats, state=state)
    return {"event": event_view_get(event, event.seat), "game": detail}


def json_ready(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` as the API renders it (DRF's encoder: datetimes as ISO 8601 text), for storing
    in a JSON column."""
    ready: dict[str, Any] = json.loads(json.dumps(body, cls=JSONEncoder))
    return ready


# ============================================================================== scorecard
def game_scorecard_get(*, game: Game) -> dict[str, Any]:
    """Every finished round with each team's score components, round total and cumulative."""
    seats = seats_of(game)
    teams = max(s.team for s in seats) + 1 if seats else 0
    rounds: dict[int, dict[str, Any]] = {}
    for row in RoundScore.objects.filter(game=game).order_by("round_no", "team"):
        entry = rounds.setdefault(
            row.round_no,
            {
                "round": row.round_no,
                "dealer": row.dealer,
                "reason": row.reason,
                "went_out": row.went_out,
                "concealed": row.concealed,
                "teams": [],
            },
        )
        entry["teams"].append(
            {
                "team": row.team,
                **{name: getattr(row, name) for name in RoundScore.COMPONENTS},
                "total": row.total,
                "cumulative": row.cumulative,
            }
        )
    ordered = [rounds[k] for k in sorted(rounds)]
    totals = [0] * teams
    if ordered:
        totals = [t["cumulative"] for t in ordered[-1]["teams"]]
    return {
        "game": game.pk,
        "status": game.status,
        "target_score": game.options.get("target_score"),
        "teams": [
            {"team": t, "seats": [s.index for s in seats if s.team == t]} for t in range(teams)
        ],
        "rounds": ordered,
        "totals": totals,
        "winner_team": game.winner_team,
    }
