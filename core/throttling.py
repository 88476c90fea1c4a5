"""The rate limits: DRF's scoped throttle, counting anonymous requests per client address.

DRF's own ``get_ident`` believes whatever ``X-Forwarded-For`` says unless ``NUM_PROXIES`` is
set, so a client rotating that header would get a fresh quota per request. Here the address
comes from ``core.proxies.client_address``: the header counts only when the peer is
one of ``TRUSTED_PROXIES``. Counts live in the default cache, which is Redis whenever
``CACHE_URL`` or ``REDIS_URL`` is set, so every web process shares them.
"""

from __future__ import annotations

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import ScopedRateThrottle

from core.proxies import client_address


class ClientScopedRateThrottle(ScopedRateThrottle):
    """``ScopedRateThrottle`` whose anonymous identity is the client's real address."""

    def get_ident(self, request: Request) -> str:
        return client_address(request.META, settings.TRUSTED_PROXIES)
