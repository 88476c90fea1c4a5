"""Rate limits of the sign-in endpoints: every refusal is a 429 that says when to come back.

allauth counts its own endpoints (``ACCOUNT_RATE_LIMITS``: per address, per e-mail, per
account) and answers a refusal with its envelope ``{"status": 429}`` but no ``Retry-After``;
too many failed sign-ins for one e-mail it answers 400 ``too_many_login_attempts``.
Here:

- ``retry_after_seconds`` reads allauth's own counts (a list of hit times per address, e-mail
  or account, in the default cache) and says when the first of the refusing limits lets a
  request through again;
- ``AccountAdapter.pre_authenticate`` (``accounts.adapters``) turns the failed-sign-in refusal
  into a 429 with ``Retry-After``, for a known and an unknown e-mail alike;
- ``SignInLimitsMiddleware`` adds ``Retry-After`` to every other 429 allauth answers, and
  counts ``POST /_allauth/app/v1/tokens/refresh`` per client address (allauth does not): the
  ``token_refresh`` rate of ``THROTTLE_RATES`` (``THROTTLE_TOKEN_REFRESH``), on the same
  atomic sliding window as the API's throttles (``core.counters.window_take``).

The API's own endpoints (guest sign-up, device sessions from a guest key, personal tokens)
use DRF's throttles (``throttle_scope``): a 429 problem document ``throttled`` with
``Retry-After``."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, JsonResponse

from core.counters import window_take
from core.proxies import request_address
from core.throttling import ClientScopedRateThrottle

ALLAUTH_PREFIX = "/_allauth/"
REFRESH_PATH = "/_allauth/app/v1/tokens/refresh"
REFRESH_SCOPE = "token_refresh"

# allauth's endpoint (the part after /_allauth/<client>/v1/) -> the limits that may refuse it,
# each (action, the body field whose value is the per-key count's key, or None).
# A sign-up, a sign-in or an added address may also meet ``confirm_email``: one code mailed to
# an address per window (allauth answers 429 when a code would go out again too soon).
_LIMITS: dict[str, tuple[tuple[str, str | None], ...]] = {
    "auth/login": (("login", None), ("confirm_email", "email")),
    "auth/signup": (("signup", None), ("confirm_email", "email")),
    "auth/password/request": (("reset_password", "email"),),
    "auth/password/reset": (("reset_password_from_key", None),),
    "auth/code/request": (("request_login_code", "email"),),
    "auth/email/verify/resend": (("confirm_email", None),),
    "auth/reauthenticate": (("reauthenticate", None),),
    "account/password/change": (("change_password", None),),
    "account/email": (("manage_email", None), ("confirm_email", "email")),
}
# When nothing refusing can be found (the count moved meanwhile): the longest window allauth
# uses by default is five minutes; a minute is the common one.
_FALLBACK_SECONDS = 60


def retry_after_seconds(
    request: HttpRequest, action: str, *, key: str | None = None, user: Any = None
) -> int:
    """Whole seconds until allauth's limits of ``action`` (per address, per ``key``, per
    ``user`` or the signed-in user) let one more request through; 0 if they would now."""
    from allauth.core.internal.ratelimit import get_cache_key, get_rates

    now = time.time()
    wait = 0.0
    for rate in get_rates(app="allauth.account", action=action):
        if rate.per == "key" and key is None:
            continue
        if rate.per == "user" and user is None and not request.user.is_authenticated:
            continue
        cache_key = get_cache_key(
            request, app="allauth.account", action=action, rate=rate, key=key, user=user
        )
        live = sorted(
            (hit for hit in cache.get(cache_key, []) if hit > now - rate.duration), reverse=True
        )
        if len(live) >= rate.amount:
            wait = max(wait, live[rate.amount - 1] + rate.duration - now)
    return math.ceil(wait) if wait > 0 else 0


def _endpoint(path: str) -> str:
    """``auth/login`` of ``/_allauth/app/v1/auth/login``."""
    parts = path.removeprefix(ALLAUTH_PREFIX).strip("/").split("/", 2)
    return parts[2] if len(parts) == 3 else ""


def _body_field(request: HttpRequest, name: str) -> str | None:
    try:
        data = json.loads(request.body or b"{}")
    except Exception:  # noqa: BLE001 - unread, unreadable or not JSON: no key
        return None
    value = data.get(name) if isinstance(data, dict) else None
    return value.lower() if isinstance(value, str) else None


def _wait_for(request: HttpRequest) -> int:
    limits = _LIMITS.get(_endpoint(request.path))
    if not limits:
        return _FALLBACK_SECONDS
    wait = 0
    for action, field in limits:
        key = _body_field(request, field) if field else None
        wait = max(wait, retry_after_seconds(request, action, key=key))
    return wait or _FALLBACK_SECONDS


def refresh_refusal(request: HttpRequest) -> HttpResponse | None:
    """429 (allauth's envelope, with ``Retry-After``) when this address has refreshed more
    often than the ``token_refresh`` rate allows; else ``None`` (and the refresh is counted)."""
    throttle = ClientScopedRateThrottle()
    throttle.scope = REFRESH_SCOPE
    rate = throttle.get_rate()
    if rate is None:
        return None
    limit, duration = throttle.parse_rate(rate)
    if limit is None or duration is None:
        return None
    address = request_address(request)
    decision = window_take(
        cache, f"throttle_{REFRESH_SCOPE}_{address}", limit, duration, time.time()
    )
    if decision.allowed:
        return None
    response = JsonResponse({"status": 429}, status=429)
    response["Retry-After"] = str(int(decision.retry_after))
    return response


class SignInLimitsMiddleware:
    """The refresh limit before the view; ``Retry-After`` on allauth's 429s after it. Paths
    outside ``/_allauth/`` pass straight through (async-capable: under ASGI the live
    endpoints keep no thread)."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response: Callable[[HttpRequest], Any]) -> None:
        self.get_response = get_response
        self._async = iscoroutinefunction(get_response)
        if self._async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self._async:
            return self._acall(request)
        if not request.path.startswith(ALLAUTH_PREFIX):
            return self.get_response(request)
        refusal = self._before(request)
        if refusal is not None:
            return refusal
        return self._after(request, self.get_response(request))

    async def _acall(self, request: HttpRequest) -> HttpResponse:
        if not request.path.startswith(ALLAUTH_PREFIX):
            response: HttpResponse = await self.get_response(request)
            return response
        refusal = await sync_to_async(self._before)(request)
        if refusal is not None:
            return refusal
        response = await self.get_response(request)
        return await sync_to_async(self._after)(request, response)

    @staticmethod
    def _before(request: HttpRequest) -> HttpResponse | None:
        if request.method == "POST" and request.path.rstrip("/") == REFRESH_PATH:
            return refresh_refusal(request)
        return None

    @staticmethod
    def _after(request: HttpRequest, response: HttpResponse) -> HttpResponse:
        if response.status_code == 429 and not response.has_header("Retry-After"):
            response["Retry-After"] = str(max(_wait_for(request), 1))
        return response
