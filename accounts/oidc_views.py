"""The OpenID Connect provider's endpoints as the service serves them: allauth's views
(``allauth.idp.oidc.views``), each behind a guard, and a few checks of the service's own.

- With no signing key (``canasta_service/oidc_key.py``) every endpoint answers 503
  ``identity_provider_unavailable``.
- The authorization endpoint accepts a ``redirect_uri`` only when it is, character for
  character, one the client was registered with (allauth would also take one with extra query
  parameters); a loopback ``http://127.0.0.1`` or ``http://[::1]`` URI may name any port, as
  native apps need (RFC 8252, 7.3). A refused URI is never redirected to.
- ``prompt=login``: a visitor who is not signed in signs in; a signed-in person is not asked
  to sign in again (the web client's session is the provider's), so the client gets
  ``error=login_required``, as OpenID Connect prescribes when the provider cannot re-ask.
- A visitor who is not signed in is sent (``LOGIN_URL``, ``identity_signin``) to the web
  client's sign-in page, ``HEADLESS_FRONTEND_URLS["account_login"]``, which brings them back.
- Token and device-code requests are rate-limited per client address
  (``IDP_OIDC_RATE_LIMITS``: ``token``, ``device_code``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from allauth.core.internal import httpkit, ratelimit
from allauth.idp.oidc import views as oidc_views
from allauth.idp.oidc.adapter import get_adapter
from allauth.idp.oidc.internal.clientkit import lookup_client
from allauth.idp.oidc.internal.oauthlib.server import get_server
from allauth.idp.oidc.internal.oauthlib.utils import extract_params, respond_html_error
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from oauthlib.oauth2.rfc6749 import errors as oauth_errors

from accounts.errors import IdentityProviderUnavailable
from core.problems import PROBLEM_CONTENT_TYPE, problem_body

View = Callable[..., HttpResponse]

LOOPBACK_HOSTS = ("127.0.0.1", "::1")


# ----------------------------------------------------------------------------- the guard
def provider_enabled() -> bool:
    """Whether the provider has a key to sign with (``IDP_OIDC_PRIVATE_KEY``)."""
    return bool(get_adapter().list_private_keys(did_activate=True, is_active=True))


def _unavailable(request: HttpRequest) -> JsonResponse:
    error = IdentityProviderUnavailable()
    body = problem_body(code=error.code, detail=error.message, instance=request.path)
    return JsonResponse(body, status=body["status"], content_type=PROBLEM_CONTENT_TYPE)


def guarded(view: View) -> View:
    """``view``, answering 503 ``identity_provider_unavailable`` while the provider is off."""

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not provider_enabled():
            return _unavailable(request)
        return view(request, *args, **kwargs)

    return wrapper


def _rate_limited(request: HttpRequest, action: str) -> JsonResponse | None:
    usage = ratelimit.consume(request, app="allauth.idp.oidc", action=action)
    if usage is not None:
        return None
    return JsonResponse(
        {"error": "temporarily_unavailable", "error_description": "Too many requests."},
        status=HTTPStatus.TOO_MANY_REQUESTS,
    )


# ----------------------------------------------------------------------------- redirect URIs
def redirect_uri_registered(uri: str, registered: list[str]) -> bool:
    """Whether ``uri`` is one of ``registered`` exactly; a loopback URI's port may differ."""
    if uri in registered:
        return True
    try:
        asked = urlsplit(uri)
        asked_port = asked.port
    except ValueError:
        return False
    if asked.scheme != "http" or asked.hostname not in LOOPBACK_HOSTS or asked_port is None:
        return False
    for allowed in registered:
        try:
            parts = urlsplit(allowed)
            parts.port  # noqa: B018  a malformed port raises
        except ValueError:
            continue
        if parts.scheme == "http" and parts.hostname == asked.hostname:
            same = (parts.username, parts.password, parts.path, parts.query, parts.fragment)
            if same == (asked.username, asked.password, asked.path, asked.query, asked.fragment):
                return True
    return False


def _redirect_uri_refused(request: HttpRequest) -> HttpResponse | None:
    """allauth's error page (400) when the request names a known client and a redirect URI
    that client was not registered with; ``None`` otherwise (allauth checks the rest)."""
    client_id = request.GET.get("client_id")
    redirect_uri = request.GET.get("redirect_uri")
    if not client_id or redirect_uri is None:
        return None
    client = lookup_client(client_id)
    if client is None or client.allow_uri_wildcards:
        return None
    if redirect_uri_registered(redirect_uri, client.get_redirect_uris()):
        return None
    response = respond_html_error(request, error=oauth_errors.MismatchingRedirectURIError())
    response.status_code = HTTPStatus.BAD_REQUEST
    return response


# ----------------------------------------------------------------------------- authorization
def _without_login_prompt(request: HttpRequest) -> str:
    params = []
    for name, value in parse_qsl(request.META.get("QUERY_STRING", ""), keep_blank_values=True):
        if name == "prompt":
            value = " ".join(p for p in value.split() if p != "login")
            if not value:
                continue
        params.append((name, value))
    query = urlencode(params)
    return f"{request.path}?{query}" if query else request.path


def _login_required_answer(request: HttpRequest) -> HttpResponse:
    """``error=login_required`` at the client's redirect URI (validated by allauth first)."""
    try:
        _scopes, info = get_server().validate_authorization_request(*extract_params(request))
    except oauth_errors.FatalClientError as exc:
        return respond_html_error(request, error=exc)
    except oauth_errors.OAuth2Error as exc:
        return oidc_views._ClientHttpResponseRedirect(exc.in_uri(exc.redirect_uri))
    params = {"error": oauth_errors.LoginRequired.error}
    if info.get("state"):
        params["state"] = info["state"]
    location = httpkit.add_query_params(info["redirect_uri"], params)
    return oidc_views._ClientHttpResponseRedirect(location)


@csrf_exempt  # as allauth's view (it checks the consent form's token itself)
def authorization(request: HttpRequest) -> HttpResponse:
    if request.method == "GET":
        refused = _redirect_uri_refused(request)
        if refused is not None:
            return refused
        prompts = request.GET.get("prompt", "").split()
        if "login" in prompts:
            if request.user.is_authenticated:
                return _login_required_answer(request)
            return _to_sign_in(_without_login_prompt(request))
    return oidc_views.authorization(request)


@csrf_exempt  # clients post here without a browser session
def token(request: HttpRequest) -> HttpResponse:
    return _rate_limited(request, "token") or oidc_views.token(request)


@csrf_exempt  # clients post here without a browser session
def device_code(request: HttpRequest) -> HttpResponse:
    return _rate_limited(request, "device_code") or oidc_views.device_code(request)


# ----------------------------------------------------------------------------- signing in
def _local_next(value: str | None) -> str:
    """``value`` if it is a path of the provider's pages (never another site), else ``""``."""
    if not value or not value.startswith("/identity/o/") or "\\" in value:
        return ""
    parts = urlsplit(value)
    if parts.scheme or parts.netloc:
        return ""
    return value


def _to_sign_in(next_path: str) -> HttpResponse:
    return HttpResponseRedirect(f"{reverse('identity_signin')}?{urlencode({'next': next_path})}")


def signin(request: HttpRequest) -> HttpResponse:
    """Where ``LOGIN_URL`` leads: the web client's sign-in page, told to come back to ``next``
    (a provider page) once the browser session is signed in."""
    next_path = _local_next(request.GET.get("next"))
    url = httpkit.get_frontend_url(request, "account_login", next=next_path)
    return HttpResponseRedirect(url or "/")
