"""The feed of one game in one server process: one read per change, one redaction per kind of
viewer, shared by every client that follows the game there.

Why. A client following a game (event stream, WebSocket, long-poll) that re-read the game on
its own at every change would cost queries and server CPU per client per move (figures:
bench/README.md, "Live updates"). Here a
server process keeps one ``GameFeed`` per game that has followers. A committed change wakes it
(``games.live``: Redis pub/sub between processes, in-process without Redis); it reads what is
new ONCE, builds the ``LiveItem``s once per kind of viewer present (each seat, the spectators
with their delay) and appends the same objects to every follower of that kind. A follower is a
``Subscriber``: a queue and an ``asyncio.Event``; it costs no thread and no database connection
while it waits, and its encodings (SSE frame, socket message, long-poll body) are computed once
per item, not per client. Muted chat is dropped per subscriber (a set lookup).

Correctness. A subscriber joins at the feed's position for its kind; what lies between the
client's cursor and that position is read once for it (a catch-up). Later items are pushed in
order; ``Subscriber.take`` drops anything at or before the client's cursor, so nothing is sent
twice and, the logs having no gaps, nothing is skipped. The feed subscribes to the wake-ups
before its first read, so no change committed after that read goes unnoticed; it also re-reads
every ``RECHECK_SECONDS`` in case a wake-up was lost (Redis restarting).

Every item is redacted by the engine's event view for its kind of viewer; a subscriber whose
seat changes (a player sits down or stands up) re-joins as its new kind.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import weakref
from collections import deque
from collections.abc import AsyncGenerator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from django.db import connection
from django.utils import timezone

from games import errors, live
from games.models import TableEventKind
from games.presence import presence_note_many
from games.selectors.live import (
    Cursor,
    GameNow,
    LiveItem,
    game_now_get,
    live_items_merge,
    live_rows,
    muted_seats_by_player,
)

logger = logging.getLogger(__name__)

T = TypeVar("T")

KEEPALIVE_SECONDS = 15.0  # a heartbeat to idle clients, and presence noted, this often
HEARTBEAT_TICK_SECONDS = 5.0  # heartbeats go out on this tick: 10 to 15 s after the last frame
RECHECK_SECONDS = 30.0  # re-read even without a wake-up (a lost pub/sub message)
IDLE_SECONDS = 30.0  # a feed without followers stops after this (long-polls come back)
TABLE_ONLY = 1 << 62  # a cursor's move part for a client that wants table events only
MOVES_ONLY = 1 << 62  # ... its table part for one that wants moves only


async def db_call(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run ORM work off the event loop, then give the connection back (to the pool) unless a
    transaction (a test's) is open: a waiting client holds no database connection."""

    def call() -> T:
        try:
            return fn(*args, **kwargs)
        finally:
            if not connection.in_atomic_block:
                connection.close()

    return await sync_to_async(call)()


# ============================================================================== subscriber
def _time_out(waiter: asyncio.Future[bool]) -> None:
    if not waiter.done():
        waiter.set_result(False)


class Heartbeats:
    """One timer per event loop for the heartbeats of every waiting follower.

    A timer per wait (``call_later`` and its cancel) cost more than the rest of a wake-up put
    together: with thousands of followers woken at each move, the loop's timer heap grew and
    was cleaned at every move. Here a follower that waits is noted in a dict (O(1)), and one
    timer, every ``HEARTBEAT_TICK_SECONDS`` while anyone waits, wakes those that have waited
    ``KEEPALIVE_SECONDS - HEARTBEAT_TICK_SECONDS`` or more, so a silent client hears from the
    server at least every ``KEEPALIVE_SECONDS``."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.waiting: dict[Subscriber, float] = {}
        self.timer: asyncio.TimerHandle | None = None

    def add(self, sub: Subscriber) -> None:
        self.waiting[sub] = self.loop.time()
        if self.timer is None:
            self.timer = self.loop.call_later(HEARTBEAT_TICK_SECONDS, self._tick)

    def discard(self, sub: Subscriber) -> None:
        self.waiting.pop(sub, None)

    def touch(self, sub: Subscriber) -> None:
        """``sub`` was just sent something: its next heartbeat is a full period away."""
        if sub in self.waiting:
            self.waiting[sub] = self.loop.time()

    def _tick(self) -> None:
        self.timer = None
        due = self.loop.time() - (KEEPALIVE_SECONDS - HEARTBEAT_TICK_SECONDS)
        for sub in [s for s, since in self.waiting.items() if since <= due]:
            sub.beat()
        if self.waiting:
            self.timer = self.loop.call_later(HEARTBEAT_TICK_SECONDS, self._tick)


_heartbeats: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Heartbeats] = (
    weakref.WeakKeyDictionary()
)


def heartbeats_of(loop: asyncio.AbstractEventLoop) -> Heartbeats:
    beats = _heartbeats.get(loop)
    if beats is None:
        beats = _heartbeats[loop] = Heartbeats(loop)
    return beats


class Subscriber:
    """One client following a game: the items pushed to it, in order, and a wake-up."""

    def __init__(self, feed: GameFeed, player_id: int | None, viewer: int | None, cursor: Cursor):
        self.feed = feed
        self.player_id = player_id
        self.viewer = viewer
        self.cursor = cursor
        self.muted: set[int] = set()
        self.pending: deque[LiveItem] = deque()
        self.ended = False
        self.rejoin = False  # its seat changed: follow again as the new kind of viewer
        self.direct: DirectSend | None = None  # while it waits: items go straight out
        self._waiter: asyncio.Future[bool] | None = None

    def _wake(self) -> None:
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(True)

    def beat(self) -> None:
        """Time for a heartbeat: the wait ends with False."""
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(False)

    def push(self, items: list[LiveItem]) -> None:
        self.pending.extend(items)
        if self.direct is not None:
            self.direct.flush()
        else:
            self._wake()

    def end(self) -> None:
        self.ended = True
        self._wake()

    def regroup(self) -> None:
        self.rejoin = True
        self._wake()

    def take(self) -> list[LiveItem]:
        """The pending items after the client's cursor, without muted chat; the cursor moves
        past everything taken (muted chat included)."""
        out: list[LiveItem] = []
        while self.pending:
            item = self.pending.popleft()
            at = item.cursor
            if item.name == "game_event":
                if at.move <= self.cursor.move:
                    continue
            elif at.table <= self.cursor.table:
                continue
            self.cursor = Cursor(max(self.cursor.move, at.move), max(self.cursor.table, at.table))
            if item.chat_seat is not None and item.chat_seat in self.muted:
                continue
            # shared as is, unless the client was ahead of the feed in the other log
            out.append(item if self.cursor == at else item.rebased(self.cursor))
        return out

    @property
    def done(self) -> bool:
        """The game is over and everything was taken."""
        return self.ended and not self.pending

    async def wait(self, timeout: float) -> bool:
        """Until something is pending (True) or ``timeout`` seconds pass (False)."""
        if self.pending or self.ended or self.rejoin:
            return True
        if timeout <= 0:
            return False
        # A future and a timer, not ``wait_for`` (which makes a task per wait): thousands of
        # followers wake at each move.
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[bool] = loop.create_future()
        self._waiter = waiter
        timer = loop.call_later(timeout, _time_out, waiter)
        try:
            return await waiter
        finally:
            timer.cancel()
            self._waiter = None

    async def wait_heartbeat(self) -> bool:
        """Until something is pending (True) or a heartbeat is due (False); no timer of its
        own (``Heartbeats``)."""
        if self.pending or self.ended or self.rejoin:
            return True
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[bool] = loop.create_future()
        self._waiter = waiter
        beats = heartbeats_of(loop)
        beats.add(self)
        try:
            return await waiter
        finally:
            beats.discard(self)
            self._waiter = None

    def leave(self) -> None:
        self.feed.leave(self)


# ============================================================================== direct sending
Message = dict[str, Any]
Send = Callable[[Message], Awaitable[None]]
Encoder = Callable[[list[LiveItem]], list[Message]]


class ClientGone(OSError):
    """A direct send to the follower's connection failed: the client went away."""


class DirectSend:
    """Sends a waiting follower's items from the feed's own turn of the loop, without waking
    the follower's task.

    Why. Thousands of followers are woken at each move; a task wake-up per follower (a future
    resolved, the task scheduled and stepped, a new future to wait on) cost several times the
    send itself. A server's ASGI ``send`` writes to the socket and returns without suspending
    unless the client is slow (its buffer full), so the feed steps each follower's ``send``
    coroutine by hand. One that does suspend is finished by a task of its own, and the items
    pushed meanwhile wait in the subscriber's queue until it is done: order holds. A follower
    sends the same frames as it would itself (``encode``), from ``Subscriber.take`` (cursor,
    mutes), so what a client receives is unchanged."""

    def __init__(self, sub: Subscriber, send: Send, encode: Encoder) -> None:
        self.sub = sub
        self.send = send
        self.encode = encode
        self.busy: asyncio.Task[None] | None = None
        self.failed = False

    def flush(self) -> None:
        """Send what the subscriber has pending (nothing while a send is in flight)."""
        if self.busy is not None or self.failed:
            return
        items = self.sub.take()
        if items:
            heartbeats_of(asyncio.get_running_loop()).touch(self.sub)
            self._send_all(self.encode(items))

    def _send_all(self, messages: list[Message]) -> None:
        for i, message in enumerate(messages):
            sending: Any = self.send(message)
            if asyncio.iscoroutine(sending):
                try:
                    blocker = sending.send(None)
                except StopIteration:
                    continue
                except Exception:  # noqa: BLE001 - the connection is gone; its task finds out
                    self._fail()
                    return
                sending = _resumed(sending, blocker)
            self.busy = asyncio.get_running_loop().create_task(
                self._finish(sending, messages[i + 1 :])
            )
            return

    async def _finish(self, sending: Awaitable[None], rest: list[Message]) -> None:
        try:
            await sending
            for message in rest:
                await self.send(message)
        except Exception:  # noqa: BLE001 - as in _send_all
            self._fail()
            return
        finally:
            self.busy = None
        if self.sub.direct is self:
            self.flush()

    def _fail(self) -> None:
        self.failed = True
        self.sub._wake()

    async def settle(self) -> None:
        """Until a send in flight is done."""
        if self.busy is not None:
            await self.busy


async def _resumed(coroutine: Any, blocker: Any) -> None:
    """Run a coroutine that was stepped by hand and suspended on ``blocker`` to its end, as a
    task would: wait for what it waits on, then resume it with the outcome."""
    while True:
        try:
            if blocker is None:
                await asyncio.sleep(0)  # a bare yield: let the loop run once
            else:
                await blocker
        except BaseException as exc:  # noqa: BLE001 - handed to the coroutine, as a task does
            try:
                blocker = coroutine.throw(exc)
            except StopIteration:
                return
            continue
        try:
            blocker = coroutine.send(None)
        except StopIteration:
            return


# ============================================================================== feed
@dataclass
class FeedRead:
    now: GameNow
    moves: list[Any]
    notes: list[Any]
    mutes: dict[int, set[int]] | None


def feed_read(game_id: int, seen: Cursor | None, players: list[int]) -> FeedRead:
    """What is new since ``seen`` (None: the first read, which takes the position now and the
    last ``spectator_delay`` moves a delayed spectator has yet to see)."""
    now = game_now_get(game_id)
    if not now.exists:
        return FeedRead(now, [], [], None)
    top = Cursor(now.version, now.table_seq)
    if seen is None:
        start = Cursor(now.horizon(None), now.table_seq)
        moves = live_rows(game_id, start, top)[0] if start.move < now.version else []
        return FeedRead(now, moves, [], None)
    moves, notes = live_rows(game_id, seen, top)
    chat = any(n.kind == TableEventKind.CHAT for n in notes)
    mutes = muted_seats_by_player(game_id, players) if chat and players else None
    return FeedRead(now, moves, notes, mutes)


def catch_up_read(
    game_id: int,
    viewer: int | None,
    start: Cursor,
    upto: Cursor,
    player_id: int | None,
    latest: tuple[int, int | None] | None = None,
) -> tuple[list[LiveItem], set[int]]:
    """What a joining client missed, ``start`` to ``upto``, and the seats it muted
    (``latest``: the game's version and seat to act, for the moves' ``to_act``)."""
    items: list[LiveItem] = []
    at = start
    while at.move < upto.move or at.table < upto.table:
        moves, notes = live_rows(
            game_id, at, Cursor(max(upto.move, at.move), max(upto.table, at.table))
        )
        if not moves and not notes:
            break
        page = live_items_merge(moves, notes, viewer, at, latest)
        items += page
        at = page[-1].cursor
    muted: set[int] = set()
    if player_id is not None:
        muted = muted_seats_by_player(game_id, [player_id]).get(player_id, set())
    return items, muted


class GameFeed:
    """The followers of one game in this process, and what the feed has read of it."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        self.now: GameNow | None = None
        self.seen = Cursor()  # what has been read
        self.kinds: dict[int | None, Cursor] = {}  # what each kind of viewer was sent
        self.moves: list[Any] = []  # recent move rows (a delayed spectator's backlog)
        self.floor = 0  # every move row after this seq (up to ``seen``) is in ``moves``
        self.notes: list[Any] = []
        self.subscribers: set[Subscriber] = set()
        self.ready = asyncio.Event()
        self.task: asyncio.Task[None] | None = None
        self.reads = 0
        self._idle_since: float | None = None

    # ------------------------------------------------------------------ joining
    def position(self, viewer: int | None) -> Cursor:
        assert self.now is not None
        return Cursor(min(self.now.horizon(viewer), self.seen.move), self.seen.table)

    async def join(self, player_id: int | None, cursor: Cursor) -> Subscriber:
        """Follow the game from ``cursor``: a subscriber with what it missed already queued.
        Raises ``GameNotFound`` when the game does not exist or the player may not see it."""
        await self.ready.wait()
        now = self.now
        if now is None or not now.exists:
            raise errors.GameNotFound()
        if player_id is not None and not now.may_see(player_id):
            raise errors.GameNotFound()
        viewer = now.viewer(player_id) if player_id is not None else None
        target = self.kinds.setdefault(viewer, self.position(viewer))
        sub = Subscriber(self, player_id, viewer, cursor)
        self.subscribers.add(sub)
        self._idle_since = None
        start = Cursor(min(cursor.move, target.move), min(cursor.table, target.table))
        try:
            missed, muted = await db_call(
                catch_up_read,
                self.game_id,
                viewer,
                start,
                target,
                player_id,
                now.latest(),
            )
        except BaseException:
            self.leave(sub)
            raise
        sub.muted = muted
        sub.pending = deque([*missed, *sub.pending])
        if self._caught_up(viewer) and now.over:
            sub.end()
        return sub

    def leave(self, sub: Subscriber) -> None:
        self.subscribers.discard(sub)
        if not self.subscribers:
            self._idle_since = asyncio.get_running_loop().time()

    # ------------------------------------------------------------------ reading
    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        presence_at = loop.time()
        try:
            async with live.listening(self.game_id) as listener:
                await self.refresh()
                self.ready.set()
                while True:
                    await listener.wait(RECHECK_SECONDS)
                    await self.refresh()
                    if loop.time() - presence_at >= KEEPALIVE_SECONDS:
                        presence_at = loop.time()
                        await self._presence()
                    if (
                        not self.subscribers
                        and self._idle_since is not None
                        and loop.time() - self._idle_since >= IDLE_SECONDS
                    ):
                        return
        finally:
            self.ready.set()
            feeds = _feeds.get(loop)
            if feeds is not None and feeds.get(self.game_id) is self:
                del feeds[self.game_id]

    async def refresh(self) -> None:
        """Read what is new (until nothing is) and push it to the followers."""
        while True:
            players = sorted({s.player_id for s in self.subscribers if s.player_id is not None})
            try:
                read = await db_call(
                    feed_read, self.game_id, self.seen if self.now else None, players
                )
            except Exception:  # noqa: BLE001 - the next wake-up or re-check tries again
                logger.warning("live: reading game %s failed", self.game_id, exc_info=True)
                return
            self.reads += 1
            self._apply(read, first=self.now is None)
            now = self.now
            assert now is not None
            if not now.exists or (
                self.seen.move >= now.version and self.seen.table >= now.table_seq
            ):
                return

    def _apply(self, read: FeedRead, first: bool) -> None:
        now = read.now
        self.now = now
        if not now.exists:
            for sub in list(self.subscribers):
                sub.end()
            return
        if first:
            self.moves = list(read.moves)
            self.seen = Cursor(now.version, now.table_seq)
            self.floor = self.moves[0].seq - 1 if self.moves else now.version
        else:
            self.moves += read.moves
            self.notes += read.notes
            self.seen = Cursor(
                read.moves[-1].seq if read.moves else self.seen.move,
                read.notes[-1].seq if read.notes else self.seen.table,
            )
        if read.mutes is not None:
            for sub in self.subscribers:
                if sub.player_id is not None:
                    sub.muted = read.mutes.get(sub.player_id, set())
        by_kind: dict[int | None, list[Subscriber]] = {}
        for sub in list(self.subscribers):
            viewer = now.viewer(sub.player_id) if sub.player_id is not None else None
            if viewer != sub.viewer:
                self.subscribers.discard(sub)
                sub.regroup()
                continue
            by_kind.setdefault(viewer, []).append(sub)
        for viewer in list(self.kinds):
            if viewer not in by_kind:
                del self.kinds[viewer]
        for viewer, subs in by_kind.items():
            start = self.kinds.get(viewer) or self.position(viewer)
            if start.move < self.floor:  # rows it needs are no longer kept: catch up afresh
                del self.kinds[viewer]
                for sub in subs:
                    self.subscribers.discard(sub)
                    sub.regroup()
                continue
            end = self.position(viewer)
            moves = [m for m in self.moves if start.move < m.seq <= end.move]
            notes = [n for n in self.notes if start.table < n.seq <= end.table]
            if moves or notes:
                items = live_items_merge(moves, notes, viewer, start, now.latest())
                self.kinds[viewer] = Cursor(max(start.move, end.move), max(start.table, end.table))
                for sub in subs:
                    sub.push(items)
            if now.over and self._caught_up(viewer):
                for sub in subs:
                    sub.end()
        self._trim()

    def _caught_up(self, viewer: int | None) -> bool:
        now = self.now
        sent = self.kinds.get(viewer)
        return (
            now is not None
            and sent is not None
            and sent.move >= now.version
            and sent.table >= now.table_seq
        )

    def _trim(self) -> None:
        """Keep the move rows some kind of viewer has yet to be sent (and a delayed
        spectator's backlog), and no table rows once every kind has them."""
        assert self.now is not None
        keep_move = min(
            [c.move for c in self.kinds.values()] + [self.now.horizon(None), self.seen.move]
        )
        keep_table = min([c.table for c in self.kinds.values()] + [self.seen.table])
        self.moves = [m for m in self.moves if m.seq > keep_move]
        self.floor = max(self.floor, keep_move)
        self.notes = [n for n in self.notes if n.seq > keep_table]

    async def _presence(self) -> None:
        now = self.now
        if now is None or not now.exists:
            return
        seated = sorted(
            {s.player_id for s in self.subscribers if s.viewer is not None and s.player_id}
        )
        if seated:
            with contextlib.suppress(Exception):  # presence is a hint; never break the feed
                await db_call(presence_note_many, self.game_id, seated, timezone.now())


# ============================================================================== registry
_feeds: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, GameFeed]] = (
    weakref.WeakKeyDictionary()
)


def feed_get(game_id: int) -> GameFeed:
    """This event loop's feed of ``game_id``, started if need be. Its task runs in a context of
    its own: not inside the request that happened to start it (Django's per-request thread)."""
    loop = asyncio.get_running_loop()
    feeds = _feeds.setdefault(loop, {})
    feed = feeds.get(game_id)
    if feed is None or (feed.task is not None and feed.task.done()):
        feed = GameFeed(game_id)
        feeds[game_id] = feed
        feed.task = loop.create_task(feed.run(), context=contextvars.Context())
    return feed


async def feeds_stop() -> None:
    """Stop this event loop's feeds and wait until they have: for a loop about to close (a
    server shutting down, a test's loop), whose closing would otherwise cancel them late."""
    feeds = list(_feeds.get(asyncio.get_running_loop(), {}).values())
    tasks = [f.task for f in feeds if f.task is not None and not f.task.done()]
    for task in tasks:
        task.cancel()
    if tasks:
        await asyncio.wait(tasks)


def feed_stats() -> dict[str, int]:
    """Feeds, followers and reads of this event loop (for the benchmark and tests)."""
    feeds = _feeds.get(asyncio.get_running_loop(), {})
    return {
        "feeds": len(feeds),
        "subscribers": sum(len(f.subscribers) for f in feeds.values()),
        "reads": sum(f.reads for f in feeds.values()),
    }


async def subscribe(game_id: int, player_id: int | None, cursor: Cursor) -> Subscriber:
    return await feed_get(game_id).join(player_id, cursor)


async def news_wait(sub: Subscriber, seconds: float) -> list[LiveItem]:
    """What ``sub`` receives first, waiting at most ``seconds``: [] on time-out, when the game
    is over, or when its seat changed (``sub.rejoin``: the caller follows again)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        items = sub.take()
        if items or sub.done or sub.rejoin:
            return items
        if not await sub.wait(deadline - loop.time()):
            return sub.take()


# ============================================================================== following
@dataclass(frozen=True)
class Sync:
    """The first thing a follower receives: the game's version now as the follower may see
    it, where it resumes."""

    version: int
    cursor: Cursor
    resumed: bool

    def data(self) -> dict[str, Any]:
        return {"version": self.version, "cursor": self.cursor.text(), "resumed": self.resumed}


@dataclass(frozen=True)
class End:
    """The game is over and everything was sent."""

    version: int
    cursor: Cursor

    def data(self) -> dict[str, Any]:
        return {"version": self.version, "cursor": self.cursor.text()}


@dataclass(frozen=True)
class Idle:
    """Nothing happened for ``KEEPALIVE_SECONDS``: time for a heartbeat."""


Followed = Sync | LiveItem | End | Idle


async def follow(
    game_id: int,
    player_id: int | None,
    cursor: Cursor,
    seconds: float,
    direct: tuple[Send, Encoder] | None = None,
) -> AsyncGenerator[Followed, None]:
    """Everything a follower receives, in order: ``Sync``, then each item once, ``Idle``
    while nothing happens, ``End`` when the game is over and all is sent. Stops after
    ``seconds`` (0: once what there is now was sent). Raises ``GameNotFound`` before yielding
    anything when the player may not see the game.

    With ``direct`` (the connection's ``send`` and how items become its messages), items that
    come while the follower waits are sent by the feed itself (``DirectSend``) instead of being
    yielded; the caller must have sent everything yielded before it asks for the next, as a
    send loop does. Raises ``ClientGone`` when such a send fails."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    sub = await subscribe(game_id, player_id, cursor)
    try:
        assert sub.feed.now is not None
        # the version the follower may know: a delayed spectator's horizon
        yield Sync(sub.feed.now.horizon(sub.viewer), cursor, cursor.move > 0)
        while True:
            for item in sub.take():
                yield item
            if sub.done:
                yield End(sub.feed.now.version if sub.feed.now else 0, sub.cursor)
                return
            if sub.rejoin:
                sub.leave()
                sub = await subscribe(game_id, player_id, sub.cursor)
                continue
            remaining = deadline - loop.time()
            if remaining <= 0:
                return
            sink = DirectSend(sub, *direct) if direct is not None else None
            sub.direct = sink
            try:
                if remaining > KEEPALIVE_SECONDS:
                    woke = await sub.wait_heartbeat()
                else:
                    woke = await sub.wait(remaining)
            finally:
                sub.direct = None
                if sink is not None:
                    await sink.settle()
            if sink is not None and sink.failed:
                raise ClientGone("the client went away")
            if not woke and loop.time() < deadline and not sub.pending:
                yield Idle()
    finally:
        sub.leave()
