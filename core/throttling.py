"""The rate limits: DRF's scoped throttle on an atomic sliding-window count, counting anonymous
requests per client address.

DRF's own ``SimpleRateThrottle`` reads a list of timestamps from the cache, appends one and
writes it back: concurrent requests read the same list and each is let through (64 reviews at
once passed a 30/hour limit 46 times). Here the count is ``core.counters.window_take``, built on
the cache's atomic ``add``/``incr``/``decr``, so exactly the limit gets through however many
requests arrive at once. Counts live in the default cache, which is Redis whenever
``CACHE_URL`` or ``REDIS_URL`` is set, so every web process shares them.

DRF's own ``get_ident`` believes whatever ``X-Forwarded-For`` says unless ``NUM_PROXIES`` is
set, so a client rotating that header would get a fresh quota per request. Here the address
comes from ``core.proxies.client_address``: the header counts only when the peer is
one of ``TRUSTED_PROXIES``. Authenticated requests are counted per user.

Scopes and rates are DRF's (``throttle_scope`` on a view, ``DEFAULT_THROTTLE_RATES`` from the
``THROTTLE_*`` settings); a refusal is DRF's ``Throttled`` (429 ``throttled`` with
``Retry-After``).
"""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle

from core.counters import window_take
from core.proxies import request_address


class ClientScopedRateThrottle(ScopedRateThrottle):
    """``ScopedRateThrottle`` counting atomically, whose anonymous identity is the client's
    real address."""

    retry_after: float = 0.0

    def get_ident(self, request: Request) -> str:
        return request_address(request)

    def allow_request(self, request: Request, view: Any) -> bool:
        self.scope = getattr(view, self.scope_attr, None)
        if not self.scope:
            return True
        self.rate = self.get_rate()
        if self.rate is None:
            return True
        limit, duration = self.parse_rate(self.rate)
        key = self.get_cache_key(request, view)
        if key is None or limit is None or duration is None:
            return True
        self.num_requests, self.duration = limit, duration
        decision = window_take(self.cache, key, limit, duration, self.timer())
        self.retry_after = decision.retry_after
        return decision.allowed

    def wait(self) -> float | None:
        return self.retry_after or None
