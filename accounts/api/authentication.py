"""Authentication of API requests by key: ``Authorization: Bearer <key>`` (a device session's
access key, a personal access token, or an access token issued by the OpenID Connect provider
to a third-party app) or ``Authorization: Token <guest key>`` (the scheme guest keys always had).

Every request looks its key up afresh, by digest, in one query that joins the user and their
player (``accounts.services.credentials.credential_authenticate``). Nothing is remembered
between requests: a key revoked, a session ended or a user deactivated is refused at the next
request on every server process. ``request.auth`` is the ``Credential`` (or the provider's
token), whose scopes ``accounts.api.scopes.ScopesGranted`` checks.

Once a request is authenticated (by key or by the browser's session), its player's language
setting, if any, becomes the language of the answer: it wins over ``Accept-Language``
(``core.i18n``, docs/api.md "Languages")."""

from __future__ import annotations

from typing import Any

from django.utils import translation
from django.utils.translation import gettext_noop
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from accounts import errors
from accounts.models import Player
from accounts.services.credentials import SCHEMES, authorization_key, credential_authenticate
from core.i18n import language_code

__all__ = [
    "KeyAuthentication",
    "SessionAuthentication",
    "account_language_activate",
    "authorization_key",
    "player_of",
]


def account_language_activate(user: Any) -> None:
    """Answer in the language ``user``'s player chose, if they chose one (else the request's
    ``Accept-Language`` stays, as ``LocaleMiddleware`` activated it)."""
    player = getattr(user, "player", None)
    chosen = language_code(player.language) if player is not None and player.language else None
    if chosen is not None:
        translation.activate(chosen)


class KeyAuthentication(authentication.BaseAuthentication):
    """Bearer and Token keys (see the module)."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        header = authentication.get_authorization_header(request)
        if not header:
            return None
        try:
            text = header.decode("ascii")
        except UnicodeDecodeError as exc:
            raise exceptions.AuthenticationFailed(gettext_noop("The key is not valid.")) from exc
        parts = text.split()
        if not parts or parts[0].lower() not in SCHEMES:
            return None  # another scheme: not ours (DRF answers 401 if nothing else takes it)
        key = authorization_key(text)
        if key is None:
            raise exceptions.AuthenticationFailed(gettext_noop("Send one key after the scheme."))
        return self.authenticate_key(key, request)

    def authenticate_key(self, key: str, request: Request | None = None) -> tuple[Any, Any]:
        holder = credential_authenticate(key)
        if holder is not None:
            account_language_activate(holder.user)
            return holder.user, holder.credential
        provider = _provider_token(key, request)
        if provider is not None:
            account_language_activate(provider[0])
            return provider
        raise exceptions.AuthenticationFailed(
            gettext_noop("The key is not valid, or no longer is.")
        )

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="api"'


class SessionAuthentication(authentication.SessionAuthentication):
    """DRF's browser-session authentication (CSRF-checked), answering in the player's
    language setting like ``KeyAuthentication``."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        found: tuple[Any, Any] | None = super().authenticate(request)
        if found is not None:
            account_language_activate(found[0])
        return found


def _provider_token(key: str, request: Request | None) -> tuple[Any, Any] | None:
    """An access token of the OpenID Connect provider (a third-party app's), if ``key`` is one."""
    from allauth.idp.oidc.models import Token as ProviderToken

    token = (
        ProviderToken.objects.valid()
        .by_value(key)
        .filter(type=ProviderToken.Type.ACCESS_TOKEN)
        .select_related("user", "user__player")
        .first()
    )
    if token is None or token.user is None or not token.user.is_active:
        return None
    return token.user, token


def player_of(request: Request) -> Player:
    """The requester's player profile (every user gets one when it is made: reads never write)."""
    player: Player | None = getattr(request.user, "player", None)
    if player is None:
        raise errors.PlayerProfileMissing()
    return player
