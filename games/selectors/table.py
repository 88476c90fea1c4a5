"""Reads at the table: settings, table events, rematch status, the spectator's view, the live
feed, presence, profiles and the block / favourite lists. JSON-ready dicts; hidden cards only
through the engine's player and event views."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from accounts.models import Player, PlayerRelation, RelationKind
from accounts.selectors.players import player_get
from games.engine.history import GAME_CONCEDED
from games.engine.view import player_view
from games.models import (
    ChatMute,
    Game,
    GameEvent,
    GameStatus,
    GameTable,
    Seat,
    TableEvent,
    TableEventKind,
)
from games.presence import PRESENCE_WINDOW_SECONDS, presence_seen
from games.selectors.games import game_replay_state, game_state_get, seat_view
from games.selectors.horizon import spectator_horizon, table_get

# The quick-chat phrases: a fixed list, so no free text and nothing to moderate. Clients show
# ``text`` (or their own translation of the id).
QUICK_CHAT: dict[str, str] = {
    "hello": "Hello!",
    "good_luck": "Good luck!",
    "have_fun": "Have fun!",
    "nice_move": "Nice move!",
    "well_played": "Well played!",
    "thanks": "Thanks!",
    "sorry": "Sorry!",
    "oops": "Oops!",
    "one_moment": "One moment, please.",
    "hurry_up": "Please hurry up.",
    "good_game": "Good game!",
    "rematch": "Rematch?",
    "bye": "Bye!",
    "emoji_smile": "\U0001f600",
    "emoji_laugh": "\U0001f602",
    "emoji_thumbs_up": "\U0001f44d",
    "emoji_clap": "\U0001f44f",
    "emoji_thinking": "\U0001f914",
    "emoji_surprised": "\U0001f62e",
    "emoji_sad": "\U0001f622",
    "emoji_heart": "\u2764\ufe0f",
    "emoji_fire": "\U0001f525",
}


CHAT_BURST = 3  # at most this many messages ...


CHAT_WINDOW_SECONDS = 10  # ... per player and game in this many seconds


SPECTATOR_DELAY_MAX = 40


PROFILE_GAMES_MAX = 50


def table_event_view(event: TableEvent) -> dict[str, Any]:
    """A table event as everyone who may see the game sees it (nothing in it is hidden)."""
    return {
        "seq": event.seq,
        "kind": event.kind,
        "seat": event.seat,
        "player": (
            {"id": event.player.pk, "display_name": event.player.display_name}
            if event.player is not None
            else None
        ),
        "data": event.data,
        "created_at": event.created_at,
    }


def concession_get(game: Game) -> tuple[int, int] | None:
    """(seat, team) of the side that conceded the game, from its log (None: nobody did)."""
    row = (
        GameEvent.objects.filter(game=game, type=GAME_CONCEDED)
        .values_list("seat", "payload")
        .first()
    )
    if row is None or row[0] is None:
        return None
    return int(row[0]), int(row[1]["team"])


def table_settings_get(game: Game) -> dict[str, Any]:
    table = table_get(game)
    conceded = concession_get(game)
    return {
        "game": game.pk,
        "table_talk": table.table_talk,
        "spectator_delay": table.spectator_delay,
        "hints": game.hints,
        "rematch_of": table.rematch_of_id,
        "conceded_seat": conceded[0] if conceded else None,
        "conceded_team": conceded[1] if conceded else None,
        "table_seq": table.table_seq,
    }


def muted_seats_get(*, game: Game, player: Player | None) -> list[int]:
    if player is None:
        return []
    return sorted(ChatMute.objects.filter(game=game, player=player).values_list("seat", flat=True))


def table_events_list(
    *, game: Game, player: Player | None, after: int = 0, limit: int = 200
) -> dict[str, Any]:
    """Table events with seq > ``after``, oldest first, without the chat of seats the
    requester muted."""
    limit = max(1, min(limit, 500))
    rows = list(
        TableEvent.objects.filter(game=game, seq__gt=after)
        .select_related("player")
        .order_by("seq")[: limit + 1]
    )
    more = len(rows) > limit
    rows = rows[:limit]
    muted = set(muted_seats_get(game=game, player=player))
    last = rows[-1].seq if rows else after
    return {
        "game": game.pk,
        "table_seq": last,
        "events": [table_event_view(e) for e in rows if not (e.kind == "chat" and e.seat in muted)],
        "has_more": more,
    }


def _humans(game: Game) -> list[int]:
    return sorted(game.seats.filter(player__isnull=False).values_list("player_id", flat=True))


def rematch_get(game: Game) -> dict[str, Any]:
    accepted = sorted(
        set(
            TableEvent.objects.filter(
                game=game, kind=TableEventKind.REMATCH_ACCEPTED, player__isnull=False
            ).values_list("player_id", flat=True)
        )
    )
    new = GameTable.objects.filter(rematch_of=game).values_list("game_id", flat=True).first()
    return {
        "accepted_by": accepted,
        "waiting_for": [p for p in _humans(game) if p not in accepted],
        "game": new,
    }


def rematch_status_get(game: Game) -> dict[str, Any]:
    return {"of_game": game.pk, **rematch_get(game)}


def spectator_view_get(*, game: Game) -> dict[str, Any]:
    """The game as a spectator sees it: no hand, and ``spectator_delay`` moves behind."""
    table = table_get(game)
    horizon = spectator_horizon(game, None, table)
    state = game_state_get(game)
    if state is not None and horizon < game.version:
        state = game_replay_state(game, upto=horizon)
    return {
        "game": game.pk,
        "status": game.status,
        "version": horizon,
        "live_version": horizon,  # nothing past a delayed spectator's horizon
        "spectator_delay": table.spectator_delay,
        "seats": [seat_view(s) for s in game.seats.select_related("player").order_by("index")],
        "winner_team": game.winner_team if game.status == GameStatus.FINISHED else None,
        "state": player_view(state, None, with_legal=False) if state is not None else None,
    }


def presence_get(*, game: Game) -> dict[str, Any]:
    """Each seat: who sits there, when they were last seen and whether they count as
    connected (seen within ``PRESENCE_WINDOW_SECONDS``; bots always are)."""
    now = timezone.now()
    seats = list(game.seats.select_related("player").order_by("index"))
    seen = presence_seen(game.pk, [s.player_id for s in seats if s.player_id is not None])
    out = []
    for s in seats:
        last = seen.get(s.player_id) if s.player_id is not None else None
        connected = s.is_bot or (
            last is not None and (now - last).total_seconds() <= PRESENCE_WINDOW_SECONDS
        )
        out.append({**seat_view(s), "last_seen": last, "connected": connected})
    return {"game": game.pk, "window_seconds": PRESENCE_WINDOW_SECONDS, "seats": out}


def player_record_get(*, player_id: int, viewer: Player) -> dict[str, Any]:
    """A player's profile as the tables know it: their record (finished games won and lost,
    concessions) and their latest finished games with links to the replays. Only games played
    on this service count: an imported game (``Game.imported_from``) replays someone's cards at
    whichever seat the importer chose, so it is neither counted nor listed. Private games count
    in the record but are listed only to someone who sat at them (competition adds the ratings:
    ``competition.selectors.profiles``)."""
    player = player_get(player_id)
    seats = list(
        Seat.objects.filter(
            player=player, game__status=GameStatus.FINISHED, game__imported_from__isnull=True
        )
        .select_related("game")
        .order_by("-game__finished_at", "-game_id")
    )
    conceded_seats = dict(
        GameEvent.objects.filter(
            game_id__in=[s.game_id for s in seats], type=GAME_CONCEDED
        ).values_list("game_id", "seat")
    )
    viewer_games = set(
        Seat.objects.filter(player=viewer, game_id__in=[s.game_id for s in seats]).values_list(
            "game_id", flat=True
        )
    )
    won = lost = conceded = 0
    listed: list[dict[str, Any]] = []
    for s in seats:
        g = s.game
        gave_up = conceded_seats.get(g.pk) == s.index
        result = (
            "won" if g.winner_team == s.team else ("lost" if g.winner_team is not None else "drawn")
        )
        won += result == "won"
        lost += result == "lost"
        conceded += gave_up
        if len(listed) < PROFILE_GAMES_MAX and (
            g.is_public or g.pk in viewer_games or player == viewer
        ):
            listed.append(
                {
                    "id": g.pk,
                    "preset": g.preset,
                    "players": g.players,
                    "finished_at": g.finished_at,
                    "seat": s.index,
                    "team": s.team,
                    "winner_team": g.winner_team,
                    "result": result,
                    "conceded": gave_up,
                    "replay": f"/api/v1/games/{g.pk}/replay/",
                }
            )
    relation = {"blocked": False, "favourite": False}
    if viewer.pk != player.pk:
        kinds = set(
            PlayerRelation.objects.filter(owner=viewer, other=player).values_list("kind", flat=True)
        )
        relation = {
            "blocked": RelationKind.BLOCK in kinds,
            "favourite": RelationKind.FAVOURITE in kinds,
        }
    return {
        "id": player.pk,
        "display_name": player.display_name,
        "is_bot": player.is_bot,
        "created_at": player.created_at,
        "record": {"played": len(seats), "won": won, "lost": lost, "conceded": conceded},
        "games": listed,
        "you": relation,
    }
