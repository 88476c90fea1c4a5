"""How django-allauth fits the service: its account and MFA adapters, and the token strategy of
its headless API for app clients (a device session with access and refresh keys).

allauth runs every sign-up and sign-in flow (e-mail and password, codes by e-mail, passkeys,
TOTP); what a flow ends with, for an app client, is ours: ``DeviceTokenStrategy`` opens a
``DeviceSession`` and answers with its access key, refresh key and lifetime, and renews them
at ``/_allauth/app/v1/tokens/refresh`` (``accounts.services.credentials``)."""

from __future__ import annotations

import base64
import hashlib
import secrets
from typing import Any

from allauth.account.adapter import DefaultAccountAdapter
from allauth.headless.tokens.strategies.sessions import SessionTokenStrategy
from allauth.mfa.adapter import DefaultMFAAdapter
from cryptography.fernet import Fernet
from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from accounts.models import Credential, CredentialKind
from accounts.services import credentials
from accounts.services.credentials import (
    DEVICE_HEADER,
    DEVICE_SESSION_ATTRIBUTE,
    authorization_key,
)
from core.proxies import request_address


class AccountAdapter(DefaultAccountAdapter):
    """Sign-in by e-mail; a guest (no password, no authenticator) adds a password or a passkey
    without re-authenticating, since it has nothing to re-authenticate with."""

    def get_client_ip(self, request: HttpRequest) -> str:
        return request_address(request)

    def is_reauthentication_required(self, *, app: str, **kwargs: Any) -> bool:
        user = getattr(self.request, "user", None)
        if user is not None and user.is_authenticated and not user.has_usable_password():
            from allauth.mfa.models import Authenticator

            if not Authenticator.objects.filter(user=user).exists():
                return False
        return bool(super().is_reauthentication_required(app=app, **kwargs))

    def pre_authenticate(self, request: HttpRequest, **credentials: Any) -> None:
        """Too many failed sign-ins (per address, per e-mail) answer 429 with ``Retry-After``
        (allauth's own answer is a 400 without it): ``accounts.ratelimits``."""
        try:
            super().pre_authenticate(request, **credentials)
        except ValidationError as exc:
            if getattr(exc, "code", None) != "too_many_login_attempts":
                raise
            from allauth.core.exceptions import ImmediateHttpResponse
            from allauth.headless.base.response import RateLimitResponse

            from accounts.ratelimits import retry_after_seconds

            response = RateLimitResponse(request)
            wait = retry_after_seconds(
                request,
                "login_failed",
                key=self._get_login_attempts_cache_key(request, **credentials),
            )
            response["Retry-After"] = str(max(wait, 1))
            raise ImmediateHttpResponse(response) from exc

    def send_account_already_exists_mail(self, email: str) -> None:
        """A sign-up with an e-mail that has an account makes no account, so it would skip the
        password hash a new account pays for (Argon2: most of the answer's time) and answer
        measurably sooner. It hashes one too, so the answer's timing tells nothing."""
        from django.contrib.auth.hashers import make_password

        make_password(secrets.token_urlsafe(16))
        super().send_account_already_exists_mail(email)

    def populate_username(self, request: HttpRequest, user: Any) -> None:
        # People sign in by e-mail; the username is an internal, unique handle.
        if not user.username:
            user.username = f"user-{secrets.token_hex(8)}"


def _fernet() -> Fernet:
    key = hashlib.sha256(f"mfa-secrets:{settings.SECRET_KEY}".encode()).digest()
    return Fernet(base64.urlsafe_b64encode(key))


class MFAAdapter(DefaultMFAAdapter):
    """TOTP secrets are stored encrypted (Fernet, a key derived from SECRET_KEY)."""

    def encrypt(self, text: str) -> str:
        return _fernet().encrypt(text.encode()).decode()

    def decrypt(self, encrypted_text: str) -> str:
        return _fernet().decrypt(encrypted_text.encode()).decode()


def user_display(user: Any) -> str:
    """How allauth names a user (its e-mails, its API's ``display``): the display name."""
    player = getattr(user, "player", None)
    return player.display_name if player is not None else str(user.get_username())


class DeviceTokenStrategy(SessionTokenStrategy):
    """allauth's app client, ending in a device session: after sign-in the response's
    ``meta`` carries ``access_token``, ``refresh_token`` and ``expires_in``. An access key also
    stands for the sign-in's session at allauth's own endpoints (as ``X-Session-Token`` does),
    so an app needs only its access key after signing in."""

    def get_session_token(self, request: HttpRequest) -> str | None:
        token = request.headers.get("x-session-token")
        if token:
            return token
        key = authorization_key(request.headers.get("authorization", ""))
        if key is None:
            return None
        credential = (
            Credential.objects.select_related("session")
            .filter(digest=credentials.key_digest(key), kind=CredentialKind.ACCESS)
            .first()
        )
        if credential is None or credential.session is None or not credential.session.session_key:
            return None
        # A flow may give the sign-in a new Django session (a password change does): the
        # device session follows it (``create_session_token``).
        setattr(request, DEVICE_SESSION_ATTRIBUTE, credential.session_id)
        return credential.session.session_key

    def create_session_token(self, request: HttpRequest) -> str:
        key = super().create_session_token(request)
        device_session = getattr(request, DEVICE_SESSION_ATTRIBUTE, None)
        if device_session is not None:
            credentials.device_session_rekey(device_session, key)
        return key

    def create_access_token_payload(self, request: HttpRequest) -> dict[str, Any] | None:
        user = request.user
        if not user.is_authenticated:
            return None
        if not request.session.session_key:
            request.session.save()
        keys = credentials.device_session_open(
            user,
            device=request.headers.get(DEVICE_HEADER, ""),
            user_agent=request.headers.get("user-agent", ""),
            ip=request_address(request),
            session_key=request.session.session_key or "",
        )
        return {
            "access_token": keys.access_key,
            "refresh_token": keys.refresh_key,
            "expires_in": keys.expires_in,
        }

    def refresh_token(self, refresh_token: str) -> tuple[str, str] | None:
        keys = credentials.session_keys_refresh(refresh_token)
        if keys is None:
            return None
        return keys.access_key, keys.refresh_key
