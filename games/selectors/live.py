"""Reads of the live tier: what a viewer receives of a game as it is played, as ``LiveItem``s.

A live item is one move-log entry (``game_event``) or one table event (``table_event``),
redacted for one kind of viewer (a seat, or the spectators) and numbered by the ``Cursor``
after it. The same items feed the event stream, the WebSocket and the long-poll; the feed of
a server process (``games.realtime.feed``) builds them once per kind of viewer and shares
them between every client of that kind. Chat of a muted seat is filtered per client.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from rest_framework.utils.encoders import JSONEncoder

from games.engine import ACTION_TYPES
from games.models import ChatMute, Game, GameEvent, GameStatus, GameTable, TableEvent
from games.models import TableEventKind as Kind
from games.selectors.events import event_view_get
from games.selectors.horizon import horizon_of
from games.selectors.table import table_event_view

ROWS_PER_READ = 200


@dataclass(frozen=True, order=True)
class Cursor:
    """Where a live client stands: the last move seq and the last table event seq it got."""

    move: int = 0
    table: int = 0

    def text(self) -> str:
        return f"{self.move}-{self.table}"

    @classmethod
    def parse(cls, text: str | None) -> Cursor | None:
        """``"12-3"`` (or a bare ``"12"``: moves after 12, every table event); None if bad."""
        if not text or len(text) > 40:
            return None
        parts = text.strip().split("-")
        if len(parts) > 2 or not all(p.isdigit() for p in parts):
            return None
        return cls(int(parts[0]), int(parts[1]) if len(parts) == 2 else 0)


def json_text(data: Any) -> str:
    """Compact JSON as the API renders it (DRF's encoder: datetimes as ISO 8601)."""
    return json.dumps(data, cls=JSONEncoder, ensure_ascii=False, separators=(",", ":"))


@dataclass(eq=False)
class LiveItem:
    """One thing a viewer receives. ``chat_seat``: the seat that wrote it, for a chat message
    (muted per client). The encodings are computed once, when a first client needs them."""

    name: str  # "game_event" | "table_event"
    cursor: Cursor  # the position after this item
    data: dict[str, Any]
    chat_seat: int | None = None

    @property
    def id(self) -> str:
        return self.cursor.text()

    def rebased(self, cursor: Cursor) -> LiveItem:
        """This item for a client already further on in the other log: numbered from its
        position (as a read from that position numbers it)."""
        data = self.data if self.name == "game_event" else {**self.data, "version": cursor.move}
        return LiveItem(self.name, cursor, data, self.chat_seat)

    @cached_property
    def sse(self) -> bytes:
        """The Server-Sent Events frame."""
        return f"id: {self.id}\nevent: {self.name}\ndata: {json_text(self.data)}\n\n".encode()

    @cached_property
    def socket(self) -> str:
        """The WebSocket message."""
        return json_text({"type": self.name, "id": self.id, **self.data})

    @cached_property
    def event_json(self) -> str:
        """A ``game_event``'s event alone, as in ``GET .../events/``."""
        return json_text(self.data["event"])


def to_act_after(moves: list[GameEvent], latest: tuple[int, int | None] | None) -> list[int | None]:
    """The seat to act after each of ``moves`` (consecutive log entries), where it is known
    without replaying the game: after the game's latest entry, its row's (``latest``: the
    version and seat to act the game row had when it was read); after an earlier one, the seat
    of the action that followed it (only the seat to act may act); otherwise None."""
    out: list[int | None] = []
    for i, move in enumerate(moves):
        following = moves[i + 1] if i + 1 < len(moves) else None
        if latest is not None and move.seq == latest[0]:
            out.append(latest[1])
        elif following is not None and following.type in ACTION_TYPES:
            out.append(following.seat)
        else:
            out.append(None)
    return out


def live_items_merge(
    moves: list[GameEvent],
    notes: list[TableEvent],
    viewer: int | None,
    start: Cursor,
    latest: tuple[int, int | None] | None = None,
) -> list[LiveItem]:
    """``moves`` (redacted for ``viewer``) and ``notes`` (table events, the same for everyone)
    after ``start``, in the order they happened, each with the cursor after it. Each move says
    the seat to act after it where it is known (``to_act_after``; ``latest``: the game row's
    version and seat to act)."""
    to_act = dict(zip((m.seq for m in moves), to_act_after(moves, latest), strict=True))
    merged: list[tuple[dt.datetime, int, int, Any]] = [(e.created_at, 0, e.seq, e) for e in moves]
    merged += [(n.created_at, 1, n.seq, n) for n in notes]
    merged.sort(key=lambda x: (x[0], x[1], x[2]))
    move_at, table_at = start.move, start.table
    items: list[LiveItem] = []
    for _, kind, _, row in merged:
        if kind == 0:
            move_at = row.seq
            data = {
                "version": row.seq,
                "to_act": to_act[row.seq],
                "event": event_view_get(row, viewer),
            }
            items.append(LiveItem("game_event", Cursor(move_at, table_at), data))
        else:
            table_at = row.seq
            data = {"version": move_at, "table_seq": row.seq, "event": table_event_view(row)}
            chat = row.seat if row.kind == Kind.CHAT else None
            items.append(LiveItem("table_event", Cursor(move_at, table_at), data, chat))
    return items


def muted_seats_by_player(game_id: int, player_ids: list[int]) -> dict[int, set[int]]:
    """The seats each of ``player_ids`` muted at the game (players who muted none are left out)."""
    out: dict[int, set[int]] = {}
    rows = ChatMute.objects.filter(game_id=game_id, player_id__in=player_ids)
    for player_id, seat in rows.values_list("player_id", "seat"):
        out.setdefault(player_id, set()).add(seat)
    return out


def live_rows(
    game_id: int, after: Cursor, upto: Cursor | None = None
) -> tuple[list[GameEvent], list[TableEvent]]:
    """Move-log entries and table events after ``after`` (up to ``upto``), oldest first, at most
    ``ROWS_PER_READ`` of each."""
    moves = GameEvent.objects.filter(game_id=game_id, seq__gt=after.move)
    notes = TableEvent.objects.filter(game_id=game_id, seq__gt=after.table)
    if upto is not None:
        moves = moves.filter(seq__lte=upto.move)
        notes = notes.filter(seq__lte=upto.table)
    return (
        list(moves.order_by("seq")[:ROWS_PER_READ]),
        list(notes.select_related("player").order_by("seq")[:ROWS_PER_READ]),
    )


@dataclass
class GameNow:
    """A game as the live tier needs it: where its logs stand, who sits where, its status."""

    game_id: int
    exists: bool
    version: int = 0
    table_seq: int = 0
    status: str = ""
    spectator_delay: int = 0
    is_public: bool = True
    created_by: int | None = None
    seats: dict[int, int] = field(default_factory=dict)  # player id -> seat index
    to_act: int | None = None  # the seat to act at ``version`` (None: nobody, or over)

    @property
    def over(self) -> bool:
        return not self.exists or self.status in (GameStatus.FINISHED, GameStatus.ABANDONED)

    def viewer(self, player_id: int) -> int | None:
        return self.seats.get(player_id)

    def may_see(self, player_id: int) -> bool:
        return self.is_public or self.created_by == player_id or player_id in self.seats

    def latest(self) -> tuple[int, int | None]:
        """The game's version and the seat to act at it (None once over)."""
        return self.version, None if self.over else self.to_act

    def horizon(self, viewer: int | None) -> int:
        """The last move seq ``viewer`` may see now (``horizon_of``)."""
        return horizon_of(
            version=self.version,
            status=self.status,
            delay=self.spectator_delay,
            seated=viewer is not None,
        )

    def position(self, viewer: int | None) -> Cursor:
        """Everything ``viewer`` may see now."""
        return Cursor(self.horizon(viewer), self.table_seq)


def game_now_get(game_id: int) -> GameNow:
    """Two queries: the game row and its table row."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return GameNow(game_id, exists=False)
    table = GameTable.objects.filter(game_id=game_id).first()
    return GameNow(
        game_id,
        exists=True,
        version=game.version,
        table_seq=table.table_seq if table is not None else 0,
        status=game.status,
        spectator_delay=table.spectator_delay if table is not None else 0,
        is_public=game.is_public,
        created_by=game.created_by_id,
        seats={e["player"]: e["index"] for e in game.seating if e["player"] is not None},
        to_act=game.to_act,
    )
