"""The rate limits count atomically: however many requests arrive at once, exactly the limit
gets through (core/throttling.py on core/counters.py).

DRF's ``SimpleRateThrottle`` reads the request history from the cache and writes it back, so
concurrent requests each saw room (46 of 64 reviews passed a 30/hour limit). These tests fire
many ``allow_request`` calls from threads released together against the in-memory cache and,
where the service has it (the PostgreSQL + Redis run), against Redis: the count must be exact.
Swapping ``THROTTLE`` for ``rest_framework.throttling.ScopedRateThrottle`` makes the Redis test
fail.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import pytest
from django.conf import settings
from django.core.cache import BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from core.counters import slot_release, slot_take, window_take
from core.throttling import ClientScopedRateThrottle

THROTTLE = ClientScopedRateThrottle
REDIS_CONFIGURED = settings.CACHES["default"]["BACKEND"].endswith("RedisCache")


@pytest.fixture(params=["memory", "redis"])
def cache(request: pytest.FixtureRequest) -> Iterator[BaseCache]:
    """A cache of its own for the test: the in-memory backend, or Redis at the service's cache
    location (skipped where none is configured) under a fresh key prefix."""
    prefix = f"test-throttling-{uuid.uuid4().hex[:8]}"
    if request.param == "memory":
        yield LocMemCache(prefix, {})
        return
    if not REDIS_CONFIGURED:
        pytest.skip("needs REDIS_URL or CACHE_URL (the CI run on Redis)")
    redis_cache = RedisCache(settings.CACHES["default"]["LOCATION"], {"KEY_PREFIX": prefix})
    yield redis_cache
    client = redis_cache._cache.get_client(write=True)
    keys = list(client.scan_iter(match=f"{prefix}:*"))
    if keys:
        client.delete(*keys)


def anonymous_request(address: str) -> Request:
    return Request(APIRequestFactory().post("/", REMOTE_ADDR=address), authenticators=())


def fire_at_once(count: int, call: Any) -> list[Any]:
    """``call()`` from ``count`` threads released together; the answers."""
    barrier = threading.Barrier(count)

    def one(_: int) -> Any:
        barrier.wait()
        return call()

    with ThreadPoolExecutor(max_workers=count) as pool:
        return list(pool.map(one, range(count)))


@pytest.mark.parametrize(("rate", "limit", "requests"), [("30/hour", 30, 64), ("60/min", 60, 90)])
def test_concurrent_requests_get_exactly_the_limit_through(
    cache: BaseCache,
    monkeypatch: pytest.MonkeyPatch,
    rate: str,
    limit: int,
    requests: int,
) -> None:
    monkeypatch.setattr(THROTTLE, "THROTTLE_RATES", {"burst": rate})
    monkeypatch.setattr(THROTTLE, "cache", cache)
    view = SimpleNamespace(throttle_scope="burst")

    def ask() -> tuple[bool, float | None]:
        throttle = THROTTLE()  # DRF makes one per request
        allowed = throttle.allow_request(anonymous_request("198.51.100.20"), view)
        return allowed, None if allowed else throttle.wait()

    answers = fire_at_once(requests, ask)
    assert sum(allowed for allowed, _ in answers) == limit
    assert all(wait is not None and wait >= 1 for allowed, wait in answers if not allowed)
    # Another client has its own count.
    assert THROTTLE().allow_request(anonymous_request("198.51.100.21"), view)


def test_a_refused_request_uses_up_no_quota_and_the_window_slides() -> None:
    """Counts of the previous window weigh in by the part of it still within the last
    duration: no burst of twice the limit across a window's edge, and the wait announced is
    enough."""
    cache = LocMemCache("sliding", {})
    start = 6000.0  # the start of a 60 s window
    assert [window_take(cache, "k", 3, 60, start + i).allowed for i in range(3)] == [True] * 3
    refused = [window_take(cache, "k", 3, 60, start + 10) for _ in range(5)]
    assert not any(d.allowed for d in refused)
    # Just after the edge, the previous window's 3 still count in full.
    assert not window_take(cache, "k", 3, 60, start + 60.5).allowed
    # Halfway through the next window, half of them count: one request fits, not two.
    assert window_take(cache, "k", 3, 60, start + 90).allowed
    late = window_take(cache, "k", 3, 60, start + 90)
    assert not late.allowed
    # Waiting as long as announced is enough.
    assert window_take(cache, "k", 3, 60, start + 90 + late.retry_after).allowed


def test_the_announced_wait_lets_the_next_request_through() -> None:
    cache = LocMemCache("waits", {})
    now, refusals = 7200.0 + 12.5, 0
    for _ in range(40):
        decision = window_take(cache, "w", 4, 60, now)
        if not decision.allowed:
            refusals += 1
            assert decision.retry_after >= 1
            now += decision.retry_after
            assert window_take(cache, "w", 4, 60, now).allowed
        now += 3.7
    assert refusals > 5


def test_concurrent_slot_takers_get_exactly_the_slots(cache: BaseCache) -> None:
    answers = fire_at_once(24, lambda: slot_take(cache, "imports", 2, 60))
    held = [slot for slot in answers if slot is not None]
    assert len(held) == 2
    assert slot_take(cache, "imports", 2, 60) is None
    slot_release(cache, held[0])
    again = slot_take(cache, "imports", 2, 60)
    assert again is not None
    assert again.key == held[0].key


def test_an_expired_slot_is_free_again_and_its_late_release_frees_nothing() -> None:
    cache = LocMemCache("expiry", {})
    stale = slot_take(cache, "imports", 1, 1)
    assert stale is not None
    cache.set(stale.key, stale.token, timeout=0)  # expired
    fresh = slot_take(cache, "imports", 1, 60)
    assert fresh is not None
    slot_release(cache, stale)  # the old holder gives back a place it no longer holds
    assert slot_take(cache, "imports", 1, 60) is None
