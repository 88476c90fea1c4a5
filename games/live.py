"""Live updates: waking the clients that wait for a game to change.

A change is a committed ``GameEvent`` (a move), a committed ``TableEvent`` (chat, concession,
rematch) or a change of the game's status. Whoever commits one calls ``notify_on_commit``
(every event of the move log is appended by ``games.services.log.log_append``, which does).
 Waiters (the long-poll and Server-Sent Events views) never trust a
notification's content: a wake-up only makes them read the database again, so a lost or
duplicated notification costs latency, never correctness.

Two transports:

- **Redis pub/sub** when ``REDIS_URL`` is set: ``notify`` publishes on ``canasta:game:<id>``;
  each server process keeps ONE pattern subscription per event loop (a "hub") and wakes its
  local waiters. Waiting clients cost no worker and no database connection: they are
  ``asyncio`` tasks of an ASGI worker, suspended on an ``asyncio.Event``.
- **In-process** otherwise (development, tests): ``notify`` wakes the waiters of this process
  directly (thread-safe, through each waiter's event loop).

The hub re-subscribes when Redis comes back and then wakes every local waiter (a notification
may have been lost meanwhile); waiters also re-read now and then on their own (the feed of
``games.realtime.feed`` every ``RECHECK_SECONDS``).

Players have a channel too (``canasta:player:<id>``, ``player_notify`` / ``player_listening``),
for what concerns a player rather than a game: their quick-play queue status
(``competition.services.matchmaking``). Same transports, same hub, the same "a wake-up only means
read again". So have the events of the apps above (``canasta:event:<id>``, ``event_notify`` /
``event_listening``): a tournament whose log moved on (its standings, its pairings).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import weakref
from collections import defaultdict
from collections.abc import AsyncIterator
from typing import Any

from django.conf import settings

from core import tracing

logger = logging.getLogger(__name__)

CHANNEL_PREFIX = "canasta:game:"
PLAYER_CHANNEL_PREFIX = "canasta:player:"
EVENT_CHANNEL_PREFIX = "canasta:event:"

# ------------------------------------------------------------------------------ local waiters
_Waiters = dict[int, set[tuple[asyncio.AbstractEventLoop, asyncio.Event]]]
_lock = threading.Lock()
_waiters: _Waiters = defaultdict(set)  # by game id
_player_waiters: _Waiters = defaultdict(set)  # by player id
_event_waiters: _Waiters = defaultdict(set)  # by event (tournament) id


def waiter_count(game_id: int | None = None) -> int:
    """How many clients of this process wait (for ``game_id``, or for any game)."""
    with _lock:
        if game_id is not None:
            return len(_waiters.get(game_id, ()))
        return sum(len(s) for s in _waiters.values())


def _wake_all_local() -> None:
    with _lock:
        games = list(_waiters)
        players = list(_player_waiters)
        events = list(_event_waiters)
    for game_id in games:
        _wake_local(game_id)
    for player_id in players:
        _wake_in(_player_waiters, player_id)
    for event_id in events:
        _wake_in(_event_waiters, event_id)


def _wake_local(game_id: int) -> None:
    _wake_in(_waiters, game_id)


def _wake_in(waiters: _Waiters, key: int) -> None:
    with _lock:
        targets = list(waiters.get(key, ()))
    for loop, event in targets:
        with contextlib.suppress(RuntimeError):  # the waiter's loop has closed meanwhile
            loop.call_soon_threadsafe(event.set)


# ------------------------------------------------------------------------------ publishing
_redis_sync: Any = None
_redis_sync_lock = threading.Lock()


def _redis_url() -> str | None:
    url: str | None = getattr(settings, "REDIS_URL", None)
    return url


def _redis_publisher() -> Any:
    global _redis_sync
    if _redis_sync is None:
        with _redis_sync_lock:
            if _redis_sync is None:
                import redis

                _redis_sync = redis.Redis.from_url(
                    str(_redis_url()), socket_timeout=2, socket_connect_timeout=2
                )
    return _redis_sync


def notify(game_id: int) -> None:
    """Tell every waiter of ``game_id`` (in every server process) that the game changed.

    Never raises: a failed publish is logged and the local waiters are woken anyway (the others
    find the change at their next re-check).
    """
    channel = f"{CHANNEL_PREFIX}{game_id}"
    with tracing.span(
        "live publish",
        **{
            "messaging.system": "redis" if _redis_url() is not None else "in_process",
            "messaging.operation.type": "publish",
            "messaging.destination.name": channel,
        },
    ):
        if _redis_url() is None:
            _wake_local(game_id)
            return
        try:
            _redis_publisher().publish(channel, "1")
        except Exception:  # noqa: BLE001 - a notification must never break a committed move
            logger.warning("live: publishing a change of game %s failed", game_id, exc_info=True)
            _wake_local(game_id)


def notify_on_commit(game_id: int) -> None:
    """``notify`` once the current transaction commits (at once outside a transaction)."""
    tracing.on_commit("live.notify", lambda: notify(game_id))


def player_notify(player_id: int) -> None:
    """Tell every waiter of ``player_id`` (in every server process) that something of theirs
    changed (their queue status). Never raises, like ``notify``."""
    if _redis_url() is None:
        _wake_in(_player_waiters, player_id)
        return
    try:
        _redis_publisher().publish(f"{PLAYER_CHANNEL_PREFIX}{player_id}", "1")
    except Exception:  # noqa: BLE001 - a notification must never break a commit
        logger.warning("live: publishing a change of player %s failed", player_id, exc_info=True)
        _wake_in(_player_waiters, player_id)


def players_notify(player_ids: list[int]) -> None:
    """``player_notify`` for many players, in one round trip to Redis (a pipeline)."""
    if not player_ids:
        return
    if _redis_url() is None:
        for player_id in player_ids:
            _wake_in(_player_waiters, player_id)
        return
    try:
        pipe = _redis_publisher().pipeline(transaction=False)
        for player_id in player_ids:
            pipe.publish(f"{PLAYER_CHANNEL_PREFIX}{player_id}", "1")
        pipe.execute()
    except Exception:  # noqa: BLE001 - a notification must never break a commit
        logger.warning("live: publishing changes of %d players failed", len(player_ids))
        for player_id in player_ids:
            _wake_in(_player_waiters, player_id)


def player_notify_on_commit(player_id: int) -> None:
    """``player_notify`` once the current transaction commits (at once outside one)."""
    tracing.on_commit("live.player_notify", lambda: player_notify(player_id))


def event_notify(event_id: int) -> None:
    """Tell every waiter of event ``event_id`` (a tournament) that it changed. Never raises."""
    if _redis_url() is None:
        _wake_in(_event_waiters, event_id)
        return
    try:
        _redis_publisher().publish(f"{EVENT_CHANNEL_PREFIX}{event_id}", "1")
    except Exception:  # noqa: BLE001 - a notification must never break a commit
        logger.warning("live: publishing a change of event %s failed", event_id, exc_info=True)
        _wake_in(_event_waiters, event_id)


def event_notify_on_commit(event_id: int) -> None:
    """``event_notify`` once the current transaction commits (at once outside one)."""
    tracing.on_commit("live.event_notify", lambda: event_notify(event_id))


# ------------------------------------------------------------------------------ Redis hub
class _Hub:
    """One Redis pattern subscription of an event loop, dispatching to the local waiters."""

    def __init__(self) -> None:
        self.ready = asyncio.Event()
        self.failed = False
        self.task: asyncio.Task[None] | None = None

    async def run(self, url: str) -> None:
        """Subscribe, dispatch, and subscribe again after a failure (backing off up to 5 s);
        after a re-subscription every local waiter is woken to re-read."""
        import redis.asyncio as aioredis

        backoff = 0.2
        subscribed_before = False
        while True:
            client = aioredis.Redis.from_url(url, socket_connect_timeout=2)
            pubsub = client.pubsub()
            try:
                await pubsub.psubscribe(
                    f"{CHANNEL_PREFIX}*", f"{PLAYER_CHANNEL_PREFIX}*", f"{EVENT_CHANNEL_PREFIX}*"
                )
                self.failed = False
                self.ready.set()
                if subscribed_before:
                    _wake_all_local()
                subscribed_before = True
                backoff = 0.2
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=30)
                    if message is None:
                        continue
                    channel = message.get("channel", b"")
                    if isinstance(channel, bytes):
                        channel = channel.decode()
                    name = str(channel)
                    waiters = (
                        _player_waiters
                        if name.startswith(PLAYER_CHANNEL_PREFIX)
                        else _event_waiters
                        if name.startswith(EVENT_CHANNEL_PREFIX)
                        else _waiters
                    )
                    with contextlib.suppress(ValueError):
                        _wake_in(waiters, int(str(channel).rsplit(":", 1)[-1]))
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - waiters re-check on their own meanwhile
                logger.warning("live: the Redis subscription failed", exc_info=True)
                self.failed = True
                self.ready.set()
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                    await client.aclose()
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 5.0)


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Hub] = weakref.WeakKeyDictionary()


async def _hub_ensure() -> None:
    """Subscribe this event loop to Redis (once) before a waiter first reads the database, so
    that no change committed after that read can be missed."""
    url = _redis_url()
    if url is None:
        return
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None or (hub.task is not None and hub.task.done()):
        hub = _Hub()
        _hubs[loop] = hub
        hub.task = loop.create_task(hub.run(url))
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(hub.ready.wait(), timeout=3)


# ------------------------------------------------------------------------------ waiting
class Listener:
    """A registered waiter: ``wait`` returns True when woken, False on timeout."""

    def __init__(self, event: asyncio.Event) -> None:
        self._event = event

    async def wait(self, timeout: float) -> bool:
        if timeout <= 0:
            return False
        # asyncio.timeout, not wait_for: on Python 3.11 wait_for drops a cancellation that
        # arrives as the event is set, and a cancelled feed then ran on until idle.
        try:
            async with asyncio.timeout(timeout):
                await self._event.wait()
        except TimeoutError:
            return False
        self._event.clear()
        return True


@contextlib.asynccontextmanager
async def listening(game_id: int) -> AsyncIterator[Listener]:
    """Register as a waiter of ``game_id`` for the block. Read the database only inside it."""
    async with _listening_in(_waiters, game_id) as listener:
        yield listener


@contextlib.asynccontextmanager
async def player_listening(player_id: int) -> AsyncIterator[Listener]:
    """Register as a waiter of player ``player_id`` for the block (woken by
    ``player_notify``). Read the database only inside it."""
    async with _listening_in(_player_waiters, player_id) as listener:
        yield listener


@contextlib.asynccontextmanager
async def event_listening(event_id: int) -> AsyncIterator[Listener]:
    """Register as a waiter of event ``event_id`` (a tournament) for the block (woken by
    ``event_notify``). Read the database only inside it."""
    async with _listening_in(_event_waiters, event_id) as listener:
        yield listener


@contextlib.asynccontextmanager
async def _listening_in(waiters: _Waiters, key: int) -> AsyncIterator[Listener]:
    loop = asyncio.get_running_loop()
    entry = (loop, asyncio.Event())
    with _lock:
        waiters[key].add(entry)
    try:
        await _hub_ensure()
        yield Listener(entry[1])
    finally:
        with _lock:
            waiting = waiters.get(key)
            if waiting is not None:
                waiting.discard(entry)
                if not waiting:
                    del waiters[key]
