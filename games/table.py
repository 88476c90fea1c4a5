"""At the table: quick chat, mutes, concession, rematch, spectators, presence, profiles and the
block / favourite lists.

Writes follow the house rule of ``games.services``: one transaction, the game row locked first
(``select_for_update``), refusals as ``ServiceError``s with stable codes. Table happenings are
appended to ``TableEvent`` (their own per-game numbering, not the move log, which only the
engine's actions enter) and live clients are woken after the commit (``games.live``).
Reads (``*_get`` / ``*_list``) build JSON-ready dicts and show hidden cards only through the
engine's player and event views.
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from canasta_service.exceptions import ServiceError
from games import errors, live, services
from games.engine import RULES_VERSION
from games.engine.view import player_view
from games.models import (
    ChatMute,
    Game,
    GameEvent,
    GameStatus,
    GameTable,
    Player,
    PlayerRelation,
    RelationKind,
    Seat,
    SeatPresence,
    TableEvent,
    TableEventKind,
)
from games.seating import seats_written
from games.selectors import event_view_get, game_state_get, seat_view, viewer_seat_get

# ============================================================================== settings
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
PRESENCE_WINDOW_SECONDS = 45  # a seat seen within this is "connected"
PRESENCE_WRITE_SECONDS = 5  # presence is written at most this often per player and game
PROFILE_GAMES_MAX = 50


# ============================================================================== errors
class TableTalkOff(ServiceError):
    code = "table_talk_off"
    status = 403
    default_message = "This is a 'no table talk' game: quick chat is off."


class ChatPhraseUnknown(ServiceError):
    code = "chat_phrase_unknown"
    status = 400
    default_message = "Quick chat takes a phrase id from the fixed list (GET .../chat/phrases/)."


class ChatRateLimited(ServiceError):
    code = "chat_rate_limited"
    status = 429
    default_message = "Too many chat messages: wait a moment."

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            f"At most {CHAT_BURST} messages in {CHAT_WINDOW_SECONDS} seconds; try again in "
            f"{retry_after} s.",
            extra={"retry_after": retry_after},
        )


class GameNotFinished(ServiceError):
    code = "game_not_finished"
    status = 409
    default_message = "A rematch can be asked for only once the game is over."


class PlayerBlocked(ServiceError):
    code = "player_blocked"
    status = 403
    default_message = "A player at this table has blocked you: you cannot join it."


class SpectatorDelayInvalid(ServiceError):
    code = "spectator_delay_invalid"
    status = 400
    default_message = f"The spectator delay is 0 to {SPECTATOR_DELAY_MAX} moves."


class PlayerNotFound(ServiceError):
    code = "player_not_found"
    status = 404
    default_message = "There is no such player."


class RelationSelf(ServiceError):
    code = "relation_self"
    status = 400
    default_message = "You cannot block or favour yourself."


TABLE_ERRORS: tuple[type[ServiceError], ...] = (
    TableTalkOff,
    ChatPhraseUnknown,
    ChatRateLimited,
    GameNotFinished,
    PlayerBlocked,
    SpectatorDelayInvalid,
    PlayerNotFound,
    RelationSelf,
)
TABLE_ERROR_CODES: dict[str, tuple[int, str]] = {
    cls.code: (cls.status, cls.default_message) for cls in TABLE_ERRORS
}


# ============================================================================== helpers
def table_get(game: Game) -> GameTable:
    """The game's table row, or an unsaved one with the defaults."""
    found = GameTable.objects.filter(game=game).first()
    return found if found is not None else GameTable(game=game)


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


# ============================================================================== settings
def table_settings_get(game: Game) -> dict[str, Any]:
    table = table_get(game)
    return {
        "game": game.pk,
        "table_talk": table.table_talk,
        "spectator_delay": table.spectator_delay,
        "rematch_of": table.rematch_of_id,
        "conceded_seat": table.conceded_seat,
        "conceded_team": table.conceded_team,
        "table_seq": table.table_seq,
    }


def table_settings_update(
    *,
    game_id: int,
    player: Player,
    table_talk: bool | None = None,
    spectator_delay: int | None = None,
) -> Game:
    """Change the table's settings (the creator, while the table is in the lobby)."""
    with transaction.atomic():
        game = services._game_lock(game_id)
        if game.created_by_id != player.pk:
            raise errors.NotGameCreator("Only the player who created the table may change it.")
        if game.status != GameStatus.LOBBY:
            raise errors.GameAlreadyStarted("The game has started: its settings are fixed.")
        if spectator_delay is not None and not 0 <= spectator_delay <= SPECTATOR_DELAY_MAX:
            raise SpectatorDelayInvalid()
        table = _table_lock(game)
        changed: dict[str, Any] = {}
        if table_talk is not None and table_talk != table.table_talk:
            table.table_talk = changed["table_talk"] = table_talk
        if spectator_delay is not None and spectator_delay != table.spectator_delay:
            table.spectator_delay = changed["spectator_delay"] = spectator_delay
        if changed:
            table.save(update_fields=list(changed))
            _append(game, table, TableEventKind.SETTINGS_CHANGED, player=player, data=changed)
    return game


# ============================================================================== quick chat
def chat_send(*, game_id: int, player: Player, phrase: str) -> TableEvent:
    """Say a quick-chat phrase at the table (seated players; rate-limited)."""
    if phrase not in QUICK_CHAT:
        raise ChatPhraseUnknown(f"Unknown phrase {phrase!r}.")
    with transaction.atomic():
        game = services._game_lock(game_id)
        seat = _seat_of(game, player)
        table = _table_lock(game)
        if not table.table_talk:
            raise TableTalkOff()
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
            raise ChatRateLimited(max(1, int(wait + 0.999)))
        event = _append(
            game,
            table,
            TableEventKind.CHAT,
            seat=seat.index,
            player=player,
            data={"phrase": phrase, "text": QUICK_CHAT[phrase]},
        )
        _presence_write(game, player, now)
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


# ============================================================================== concede
def game_concede(*, game_id: int, player: Player) -> Game:
    """The requester's side gives up: its team loses and the game is over.

    Recorded as a ``conceded`` table event and on the table row (the move log holds card moves
    only, so it still replays to the last position played). With two teams the other team wins;
    with three, the leading one of the others (the lowest team number on a tie).
    """
    with transaction.atomic():
        game = services._game_lock(game_id)
        seat = _seat_of(game, player)
        if game.status == GameStatus.FINISHED:
            raise ServiceError("The game is over.", code="game_over", status=422)
        if game.status != GameStatus.ACTIVE:
            raise errors.GameNotActive()
        state = game_state_get(game)
        scores = list(state.scores) if state is not None else [0] * (seat.team + 1)
        others = [t for t in range(len(scores)) if t != seat.team]
        winner = max(others, key=lambda t: (scores[t], -t))
        game.status = GameStatus.FINISHED
        game.finished_at = timezone.now()
        game.winner_team = winner
        game.to_act = None
        game.save(update_fields=["status", "finished_at", "winner_team", "to_act", "updated_at"])
        table = _table_lock(game)
        table.conceded_seat = seat.index
        table.conceded_team = seat.team
        table.save(update_fields=["conceded_seat", "conceded_team"])
        _append(
            game,
            table,
            TableEventKind.CONCEDED,
            seat=seat.index,
            player=player,
            data={"team": seat.team, "winner_team": winner, "version": game.version},
        )
    return game


# ============================================================================== rematch
def _humans(game: Game) -> list[int]:
    return sorted(game.seats.filter(player__isnull=False).values_list("player_id", flat=True))


def _rematch_get(game: Game) -> dict[str, Any]:
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
    return {"of_game": game.pk, **_rematch_get(game)}


def rematch_accept(*, game_id: int, player: Player) -> dict[str, Any]:
    """Accept a rematch of a finished game. Once every human at the table has accepted, the new
    game is created (same seats, same options, same table settings, linked by ``rematch_of``)
    and dealt; a ``rematch_created`` table event names it. Accepting again changes nothing."""
    with transaction.atomic():
        game = services._game_lock(game_id)
        _seat_of(game, player)
        if game.status != GameStatus.FINISHED:
            raise GameNotFinished()
        table = _table_lock(game)
        status = _rematch_get(game)
        if status["game"] is not None or player.pk in status["accepted_by"]:
            return rematch_status_get(game)
        _append(
            game,
            table,
            TableEventKind.REMATCH_ACCEPTED,
            player=player,
            seat=_seat_of(game, player).index,
        )
        status = _rematch_get(game)
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
        rules_version=RULES_VERSION,
        seed=secrets.token_hex(32),
        is_public=old.is_public,
        join_code=services._join_code_new(),
        created_by=old.created_by,
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
    return services.game_start(game_id=new.pk, player=old.created_by)


# ============================================================================== spectators
def spectator_horizon(game: Game, viewer: int | None, table: GameTable | None = None) -> int:
    """The last event seq ``viewer`` may see: the game's version, except for a spectator
    (``viewer`` None) of a game being played with a spectator delay, who sees ``delay`` moves
    behind (never before the deal)."""
    if viewer is not None or game.status != GameStatus.ACTIVE:
        return game.version
    delay = (table or table_get(game)).spectator_delay
    return max(min(game.version, 1), game.version - delay)


def spectator_view_get(*, game: Game) -> dict[str, Any]:
    """The game as a spectator sees it: no hand, and ``spectator_delay`` moves behind."""
    table = table_get(game)
    horizon = spectator_horizon(game, None, table)
    state = game_state_get(game)
    if state is not None and horizon < game.version:
        state = services.game_replay_state(game, upto=horizon)
    return {
        "game": game.pk,
        "status": game.status,
        "version": horizon,
        "live_version": game.version,
        "spectator_delay": table.spectator_delay,
        "seats": [seat_view(s) for s in game.seats.select_related("player").order_by("index")],
        "winner_team": game.winner_team if game.status == GameStatus.FINISHED else None,
        "state": player_view(state, None, with_legal=False) if state is not None else None,
    }


# ============================================================================== live feed
@dataclass(frozen=True)
class Cursor:
    """Where a live stream stands: the last move seq and the last table event seq sent."""

    move: int = 0
    table: int = 0

    def text(self) -> str:
        return f"{self.move}-{self.table}"

    @classmethod
    def parse(cls, text: str | None) -> Cursor | None:
        """``"12-3"`` (or a bare ``"12"``: moves after 12, every table event); None if bad."""
        if not text:
            return None
        parts = text.strip().split("-")
        if len(parts) > 2 or not all(p.isdigit() for p in parts):
            return None
        return cls(int(parts[0]), int(parts[1]) if len(parts) == 2 else 0)


@dataclass
class LiveBatch:
    items: list[tuple[str, str, dict[str, Any]]]  # (sse event name, id, data)
    cursor: Cursor
    version: int
    finished: bool


def live_batch_get(*, game_id: int, player: Player | None, cursor: Cursor) -> LiveBatch:
    """Everything after ``cursor`` that the requester may see, in the order it happened:
    moves (redacted through the engine's event view; a spectator's capped by the delay) and
    table events (without muted chat). ``finished`` when the game is over and all is sent."""
    game = Game.objects.get(pk=game_id)
    viewer = viewer_seat_get(game=game, player=player)
    table = table_get(game)
    horizon = spectator_horizon(game, viewer, table)
    moves = list(
        GameEvent.objects.filter(game=game, seq__gt=cursor.move, seq__lte=horizon).order_by("seq")[
            :200
        ]
    )
    notes = list(
        TableEvent.objects.filter(game=game, seq__gt=cursor.table)
        .select_related("player")
        .order_by("seq")[:200]
    )
    muted = set(muted_seats_get(game=game, player=player))
    merged: list[tuple[dt.datetime, int, Any]] = [(e.created_at, 0, e) for e in moves]
    merged += [(n.created_at, 1, n) for n in notes]
    merged.sort(key=lambda x: (x[0], x[1], x[2].seq))
    move_at, table_at = cursor.move, cursor.table
    items: list[tuple[str, str, dict[str, Any]]] = []
    for _, kind, row in merged:
        if kind == 0:
            move_at = row.seq
            data = {"version": row.seq, "event": event_view_get(row, viewer)}
            items.append(("game_event", Cursor(move_at, table_at).text(), data))
        else:
            table_at = row.seq
            if row.kind == TableEventKind.CHAT and row.seat in muted:
                continue
            data = {"version": move_at, "table_seq": row.seq, "event": table_event_view(row)}
            items.append(("table_event", Cursor(move_at, table_at).text(), data))
    caught_up = move_at >= game.version and table_at >= table.table_seq
    finished = game.status in (GameStatus.FINISHED, GameStatus.ABANDONED) and caught_up
    return LiveBatch(items, Cursor(move_at, table_at), game.version, finished)


# ============================================================================== presence
def _presence_write(game: Game, player: Player, now: dt.datetime) -> None:
    """Record ``now`` as ``player``'s last sighting, writing at most every few seconds (a
    read is enough while the row is fresh)."""
    last = (
        SeatPresence.objects.filter(game=game, player=player)
        .values_list("last_seen", flat=True)
        .first()
    )
    if last is None:
        SeatPresence.objects.get_or_create(game=game, player=player, defaults={"last_seen": now})
    elif (now - last).total_seconds() >= PRESENCE_WRITE_SECONDS:
        SeatPresence.objects.filter(game=game, player=player).update(last_seen=now)


def presence_touch(*, game: Game, player: Player) -> None:
    """Note that ``player`` (if seated at ``game``) is at the table now."""
    if game.seats.filter(player=player).exists():
        _presence_write(game, player, timezone.now())


def presence_get(*, game: Game) -> dict[str, Any]:
    """Each seat: who sits there, when they were last seen and whether they count as
    connected (seen within ``PRESENCE_WINDOW_SECONDS``; bots always are)."""
    now = timezone.now()
    seen = dict(SeatPresence.objects.filter(game=game).values_list("player_id", "last_seen"))
    seats = []
    for s in game.seats.select_related("player").order_by("index"):
        last = seen.get(s.player_id) if s.player_id is not None else None
        connected = s.is_bot or (
            last is not None and (now - last).total_seconds() <= PRESENCE_WINDOW_SECONDS
        )
        seats.append({**seat_view(s), "last_seen": last, "connected": connected})
    return {"game": game.pk, "window_seconds": PRESENCE_WINDOW_SECONDS, "seats": seats}


# ============================================================================== relations
def _player_get(player_id: int) -> Player:
    found = Player.objects.filter(pk=player_id).first()
    if found is None:
        raise PlayerNotFound()
    return found


def relation_set(*, owner: Player, other_id: int, kind: str, on: bool) -> dict[str, Any]:
    """Block / favour ``other_id`` (``on``) or undo it; returns the owner's lists."""
    if other_id == owner.pk:
        raise RelationSelf()
    other = _player_get(other_id)
    if on:
        PlayerRelation.objects.get_or_create(owner=owner, other=other, kind=kind)
    else:
        PlayerRelation.objects.filter(owner=owner, other=other, kind=kind).delete()
    return relations_get(owner=owner)


def relations_get(*, owner: Player) -> dict[str, Any]:
    rows = (
        PlayerRelation.objects.filter(owner=owner).select_related("other").order_by("-created_at")
    )
    out: dict[str, Any] = {"blocked": [], "favourites": []}
    for r in rows:
        key = "blocked" if r.kind == RelationKind.BLOCK else "favourites"
        out[key].append(
            {"id": r.other.pk, "display_name": r.other.display_name, "since": r.created_at}
        )
    return out


def join_block_check(game: Game, player: Player) -> None:
    """Refuse (403 ``player_blocked``) a player whom the table's creator or anyone seated at it
    has blocked. Called by ``services.game_join`` under the game row lock."""
    insiders = Q(owner_id=game.created_by_id) | Q(owner__seats__game=game)
    if PlayerRelation.objects.filter(insiders, other=player, kind=RelationKind.BLOCK).exists():
        raise PlayerBlocked()


# ============================================================================== profiles
def player_profile_get(*, player_id: int, viewer: Player) -> dict[str, Any]:
    """A player's record (finished games won and lost, concessions) and their latest finished
    games with links to the replays. Private games count in the record but are listed only to
    someone who sat at them."""
    player = _player_get(player_id)
    seats = list(
        Seat.objects.filter(player=player, game__status=GameStatus.FINISHED)
        .select_related("game")
        .order_by("-game__finished_at", "-game_id")
    )
    tables = {
        t.game_id: t for t in GameTable.objects.filter(game_id__in=[s.game_id for s in seats])
    }
    viewer_games = set(
        Seat.objects.filter(player=viewer, game_id__in=[s.game_id for s in seats]).values_list(
            "game_id", flat=True
        )
    )
    won = lost = conceded = 0
    listed: list[dict[str, Any]] = []
    for s in seats:
        g = s.game
        table = tables.get(g.pk)
        gave_up = table is not None and table.conceded_seat == s.index
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
        "created_at": player.created_at,
        "record": {"played": len(seats), "won": won, "lost": lost, "conceded": conceded},
        "games": listed,
        "you": relation,
    }
