"""Atomic counts on a Django cache: a sliding-window rate count and a small semaphore.

Both use only the cache operations that are atomic on their own: ``add`` (Redis ``SET NX``),
``incr`` and ``decr`` (Redis ``INCRBY``; under the lock of the in-memory backend). Nothing is
read, changed and written back, so concurrent requests in any number of processes sharing the
cache (Redis) cannot count the same slot twice. With the in-memory backend (no ``CACHE_URL``
nor ``REDIS_URL``: ``make run``, the SQLite test run) each process counts alone.

``window_take`` is a sliding-window counter: one counter per fixed window of ``duration``
seconds, and a request is let through while the current window's count plus the part of the
previous window's count still inside the last ``duration`` seconds stays within the limit. A
refused request takes its count back, so refusals use up no quota.

``slot_hold`` is a semaphore of ``slots`` keys, each taken with ``add`` and expiring after
``seconds`` (a process that dies holding one frees it then).
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass

from django.core.cache import BaseCache

# Seconds a window's counter outlives the window after it (which still reads it).
_WINDOW_SLACK_SECONDS = 60


@dataclass(frozen=True)
class WindowDecision:
    allowed: bool
    retry_after: float  # whole seconds until a request would be let through (0 when allowed)


def _counter_incr(cache: BaseCache, key: str, timeout: int) -> int:
    """Add one to ``key`` (created at 0 with ``timeout`` if missing) and return the new count."""
    for _ in range(3):
        cache.add(key, 0, timeout=timeout)
        try:
            return int(cache.incr(key))
        except ValueError:  # the key went between add and incr (evicted, cache emptied)
            continue
    return 1


def _retry_after(before: int, current: int, limit: int, duration: int, elapsed: float) -> float:
    """Seconds until ``before`` * weight + ``current`` + 1 <= ``limit`` holds."""
    if limit <= 0:
        return float(duration)
    if current + 1 <= limit and before > 0:
        # Still room in this window once enough of the previous one has slid out.
        share = 1 - (limit - current - 1) / before
        return max(share * duration - elapsed, 0.0)
    # This window is full: wait for the next, where this window's count is the previous one.
    share = max(0.0, 1 - (limit - 1) / current) if current else 0.0
    return (duration - elapsed) + share * duration


def window_take(
    cache: BaseCache, key: str, limit: int, duration: int, now: float
) -> WindowDecision:
    """Count one request under ``key`` if the sliding window of ``duration`` seconds ending at
    ``now`` holds fewer than ``limit``; otherwise count nothing and say how long to wait."""
    index = math.floor(now / duration)
    elapsed = now - index * duration
    weight = 1 - elapsed / duration  # the share of the previous window still in the last duration
    current_key, previous_key = f"w{index}:{key}", f"w{index - 1}:{key}"
    count = _counter_incr(cache, current_key, 2 * duration + _WINDOW_SLACK_SECONDS)
    before = int(cache.get(previous_key) or 0)
    if before * weight + count <= limit:
        return WindowDecision(True, 0.0)
    with suppress(ValueError):  # gone meanwhile: nothing to take back
        cache.decr(current_key)
    wait = _retry_after(before, max(count - 1, 0), limit, duration, elapsed)
    return WindowDecision(False, float(max(math.ceil(wait), 1)))  # whole seconds, as Retry-After


@dataclass(frozen=True)
class Slot:
    key: str
    token: str


def slot_take(cache: BaseCache, name: str, slots: int, seconds: int) -> Slot | None:
    """One of ``slots`` places named ``name``, held for at most ``seconds``; None when every
    place is taken."""
    token = secrets.token_hex(8)
    for index in range(slots):
        key = f"slot:{name}:{index}"
        if cache.add(key, token, timeout=seconds):
            return Slot(key, token)
    return None


def slot_release(cache: BaseCache, slot: Slot) -> None:
    """Give the place back (unless it expired and someone else holds it now)."""
    if cache.get(slot.key) == slot.token:
        cache.delete(slot.key)


@contextmanager
def slot_hold(
    cache: BaseCache, name: str, slots: int, seconds: int, refusal: Callable[[], Exception]
) -> Iterator[Slot]:
    """Hold one of ``slots`` places named ``name`` for the block; raise ``refusal()`` at once
    when none is free."""
    slot = slot_take(cache, name, slots, seconds)
    if slot is None:
        raise refusal()
    try:
        yield slot
    finally:
        slot_release(cache, slot)
