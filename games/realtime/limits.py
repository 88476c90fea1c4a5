"""Limits of the live server per player and per socket (docs/live.md, "Limits").

**Connections per player.** Every waiting connection (a WebSocket, an event stream, a long-poll
that waits) holds a ``Lease`` while it is open: at most ``LIVE_CONNECTIONS_PER_PLAYER_MAX``
(16 by default, 0: no cap) per player, across every live server process. With ``REDIS_URL`` the
leases are the members of a sorted set per player (``canasta:live:leases:<player id>``) whose
scores are expiry times: a process refreshes its leases every ``LEASE_REFRESH_SECONDS`` (one
pipeline for all of them), removes each as its connection ends, and a lease of a process that
died expires after ``LEASE_SECONDS``, so a killed process never leaks a count for long. Taking a
lease is one Lua script (drop the expired, count, add): atomic, so concurrent connections of
one player in several processes cannot pass the cap together. Without Redis, each process
counts its own. When Redis fails, connections are let through (logged): the cap is a defence,
never a reason to refuse everyone.

A lease nobody released (its connection's code never reached its end) is dropped with its last
reference: the registry holds leases weakly, so it is neither refreshed nor counted any more.

**Messages per socket.** ``TokenBucket``: ``LIVE_SOCKET_MESSAGES_PER_SECOND`` messages a second
(10 by default) with bursts of twice that, in the socket's memory.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
import uuid
import weakref
from collections.abc import AsyncIterator
from typing import Any

from django.conf import settings

from core import metrics
from games import errors

logger = logging.getLogger(__name__)

CONNECTIONS_PER_PLAYER_DEFAULT = 16
MESSAGES_PER_SECOND_DEFAULT = 10
LEASE_SECONDS = 60  # a lease not refreshed for this long (its process died) no longer counts
LEASE_REFRESH_SECONDS = 20
RETRY_AFTER_SECONDS = 5  # what a refused connection is told to wait
KEY_PREFIX = "canasta:live:leases:"

# KEYS[1]: the player's set; ARGV: cap, lease seconds, lease id. Returns 1 (taken) or 0 (full).
# The server's clock scores the leases, so the clocks of the live hosts need not agree.
ACQUIRE_SCRIPT = """
local now = redis.call('TIME')
local t = tonumber(now[1]) + tonumber(now[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', t)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  return 0
end
redis.call('ZADD', KEYS[1], t + tonumber(ARGV[2]), ARGV[3])
redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2])) + 1)
return 1
"""

# KEYS[1]: the player's set; ARGV: lease seconds, then the lease ids to extend (never re-added:
# one released meanwhile stays released).
REFRESH_SCRIPT = """
local now = redis.call('TIME')
local until_ = tonumber(now[1]) + tonumber(now[2]) / 1000000 + tonumber(ARGV[1])
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], 'XX', until_, ARGV[i])
end
redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[1])) + 1)
return 1
"""


def connections_cap() -> int:
    return int(getattr(settings, "LIVE_CONNECTIONS_PER_PLAYER_MAX", CONNECTIONS_PER_PLAYER_DEFAULT))


def messages_per_second() -> int:
    return int(getattr(settings, "LIVE_SOCKET_MESSAGES_PER_SECOND", MESSAGES_PER_SECOND_DEFAULT))


def lease_key(player_id: int) -> str:
    return f"{KEY_PREFIX}{player_id}"


# ============================================================================== leases
class Lease:
    """One open connection of a player, counted until ``release``."""

    def __init__(self, player_id: int, leases: Leases | None) -> None:
        self.player_id = player_id
        self.id = uuid.uuid4().hex
        self._leases = leases  # the Redis registry of its event loop; None: counted in-process
        self.released = False
        self.transport = ""  # set by ``connection_acquire``: counted in core.metrics until released

    async def release(self) -> None:
        """Stop counting this connection (at once, in every process); idempotent."""
        if self.released:
            return
        self.released = True
        if self.transport:
            metrics.follower_closed(self.transport)
        if self._leases is None:
            _local_release(self)
        else:
            await self._leases.release(self)


# ------------------------------------------------------------------------------ in-process
_local_lock = threading.Lock()
_local: dict[int, weakref.WeakSet[Lease]] = {}


def _local_acquire(player_id: int, cap: int) -> Lease | None:
    with _local_lock:
        held = _local.setdefault(player_id, weakref.WeakSet())
        if len(held) >= cap:
            return None
        lease = Lease(player_id, None)
        held.add(lease)
        return lease


def _local_release(lease: Lease) -> None:
    with _local_lock:
        held = _local.get(lease.player_id)
        if held is not None:
            held.discard(lease)
            if not held:
                del _local[lease.player_id]


# ------------------------------------------------------------------------------ Redis
class Leases:
    """The leases taken on one event loop, with its Redis client and refresher."""

    def __init__(self, loop: asyncio.AbstractEventLoop, url: str) -> None:
        import redis.asyncio as aioredis

        self.loop = loop
        self.redis: Any = aioredis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        self.acquire_script = self.redis.register_script(ACQUIRE_SCRIPT)
        self.refresh_script = self.redis.register_script(REFRESH_SCRIPT)
        self.held: weakref.WeakSet[Lease] = weakref.WeakSet()
        self.refresher: asyncio.Task[None] | None = None

    async def acquire(self, player_id: int, cap: int) -> Lease | None:
        lease = Lease(player_id, self)
        try:
            taken = await self.acquire_script(
                keys=[lease_key(player_id)], args=[cap, LEASE_SECONDS, lease.id]
            )
        except Exception as exc:  # noqa: BLE001 - the cap must not refuse everyone
            logger.warning("live: counting player %s's connections failed: %r", player_id, exc)
            return Lease(player_id, None)  # not counted anywhere; releasing it does nothing
        if not taken:
            return None
        self.held.add(lease)
        if self.refresher is None or self.refresher.done():
            self.refresher = self.loop.create_task(self.refresh_forever())
        return lease

    async def release(self, lease: Lease) -> None:
        self.held.discard(lease)
        if not self.held and self.refresher is not None:
            self.refresher.cancel()  # nothing left to refresh
            self.refresher = None
        try:
            await self.redis.zrem(lease_key(lease.player_id), lease.id)
        except Exception as exc:  # noqa: BLE001 - it expires after LEASE_SECONDS anyway
            logger.warning("live: releasing a connection of %s failed: %r", lease.player_id, exc)

    async def refresh(self) -> None:
        by_player: dict[int, list[str]] = {}
        for lease in list(self.held):
            if not lease.released:
                by_player.setdefault(lease.player_id, []).append(lease.id)
        if not by_player:
            return
        pipe = self.redis.pipeline(transaction=False)
        for player_id, ids in by_player.items():
            await self.refresh_script(
                keys=[lease_key(player_id)], args=[LEASE_SECONDS, *ids], client=pipe
            )
        await pipe.execute()

    async def refresh_forever(self) -> None:
        while self.held:
            await asyncio.sleep(LEASE_REFRESH_SECONDS)
            try:
                await self.refresh()
            except Exception as exc:  # noqa: BLE001 - tried again at the next round
                logger.warning("live: refreshing connection leases failed: %r", exc)


_registries: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Leases] = (
    weakref.WeakKeyDictionary()
)


def _registry() -> Leases | None:
    url: str | None = getattr(settings, "REDIS_URL", None)
    if not url:
        return None
    loop = asyncio.get_running_loop()
    leases = _registries.get(loop)
    if leases is None:
        leases = _registries[loop] = Leases(loop, url)
    return leases


async def connection_acquire(player_id: int, transport: str = "") -> Lease:
    """A lease for one more live connection of ``player_id``; ``TooManyLiveConnections`` when
    the player holds ``LIVE_CONNECTIONS_PER_PLAYER_MAX`` already. ``transport`` (socket,
    stream, long-poll: ``core.metrics.TRANSPORTS``; none: not counted) counts it among the
    process's live followers."""
    cap = connections_cap()
    lease: Lease | None
    if cap <= 0:
        lease = Lease(player_id, None)
    else:
        registry = _registry()
        lease = (
            _local_acquire(player_id, cap)
            if registry is None
            else await registry.acquire(player_id, cap)
        )
    if lease is None:
        raise errors.TooManyLiveConnections(cap, RETRY_AFTER_SECONDS)
    if transport:
        lease.transport = transport
        metrics.follower_opened(transport)
    return lease


@contextlib.asynccontextmanager
async def connection_held(player_id: int, transport: str) -> AsyncIterator[Lease]:
    """``connection_acquire`` for the block (a long-poll's wait), released when it ends."""
    lease = await connection_acquire(player_id, transport)
    try:
        yield lease
    finally:
        await lease.release()


# ============================================================================== messages
class TokenBucket:
    """``rate`` tokens a second, at most ``burst`` saved up; ``take`` spends one if it can."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


def socket_bucket() -> TokenBucket | None:
    """The message budget of one socket (None: no limit)."""
    rate = messages_per_second()
    if rate <= 0:
        return None
    return TokenBucket(rate, 2 * rate)
