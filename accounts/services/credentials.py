"""Keys and device sessions: issue, look up, rotate, revoke.

A key is ``<kind prefix>_<43 characters of URL-safe base64>`` (256 random bits). Only its
SHA-256 digest is stored (``Credential.digest``), so a copy of the database signs no one in.
Guest keys stay 40 hexadecimal characters, as DRF tokens were, so clients that stored one keep
working (their digests were carried over by the accounts migration 0002).

A device session holds one access key (``ACCESS_KEY_SECONDS``) and one live refresh key
(``REFRESH_KEY_SECONDS``). A refresh gives a new pair and marks the refresh key used; a used
refresh key presented again is a replay (a stolen key, or a client that lost a race) and ends
the whole session, as the OAuth 2.0 Security BCP asks (refresh token reuse detection)."""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from importlib import import_module
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts import errors, scopes
from accounts.models import Credential, CredentialKind, DeviceSession
from accounts.services import key_cache
from accounts.services.key_lookup import key_instances, key_row

ACCESS_KEY_SECONDS = 15 * 60
REFRESH_KEY_SECONDS = 60 * 24 * 3600
PERSONAL_TOKENS_MAX = 50  # per user
# A key's ``last_used_at`` (and its session's ``last_seen_at``) is written at most this often.
TOUCH_SECONDS = 300
# A client's name for its device, sent at sign-in (shown in the list of sessions).
DEVICE_HEADER = "X-Device-Name"

_PREFIXES = {
    CredentialKind.ACCESS: "cat",
    CredentialKind.REFRESH: "crt",
    CredentialKind.PERSONAL: "cpt",
}


# The Authorization schemes keys are sent with (``Token``: guest keys, as they always were).
SCHEMES = ("bearer", "token")
# Set on a request by allauth's token strategy when a device session's access key made it.
DEVICE_SESSION_ATTRIBUTE = "canasta_device_session_id"


def authorization_key(header: str) -> str | None:
    """The key of an ``Authorization`` header value of either scheme, else ``None``."""
    parts = header.split()
    if len(parts) != 2 or parts[0].lower() not in SCHEMES:
        return None
    return parts[1]


def device_session_of(request: Any) -> int | None:
    """The device session whose access key authenticated this allauth request, if any."""
    return getattr(request, DEVICE_SESSION_ATTRIBUTE, None)


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


def _new_key(kind: str) -> str:
    if kind == CredentialKind.GUEST:
        return secrets.token_hex(20)
    return f"{_PREFIXES[CredentialKind(kind)]}_{secrets.token_urlsafe(32)}"


def _issue(
    user: Any,
    kind: str,
    *,
    scopes_held: Iterable[str] = (scopes.ALL,),
    session: DeviceSession | None = None,
    seconds: int | None = None,
    name: str = "",
) -> tuple[Credential, str]:
    key = _new_key(kind)
    credential = Credential.objects.create(
        user=user,
        kind=kind,
        digest=key_digest(key),
        prefix=key[:8],
        name=name,
        scopes=list(scopes_held),
        session=session,
        expires_at=timezone.now() + timedelta(seconds=seconds) if seconds else None,
    )
    return credential, key


def guest_key_issue(user: Any, *, bot: bool = False) -> str:
    """A guest's key (made at sign-up): every scope, or a bot account's scopes."""
    _, key = _issue(
        user, CredentialKind.GUEST, scopes_held=scopes.BOT_ACCOUNT if bot else (scopes.ALL,)
    )
    return key


# ----------------------------------------------------------------------------- authentication


@dataclass(frozen=True)
class KeyHolder:
    credential: Credential
    user: Any


def credential_authenticate(key: str) -> KeyHolder | None:
    """Who ``key`` stands for, in one statement (the user and their player joined:
    ``accounts.services.key_lookup``), or ``None``:
    no such key, a refresh key, an expired key, or an inactive user."""
    if not key or len(key) > 200:
        return None
    digest = key_digest(key)
    now = timezone.now()
    remembered = key_cache.recall(digest)
    if remembered is not None:
        row = remembered.row
        if row.expires_at is not None and row.expires_at <= now:
            return None
    else:
        seen = key_cache.generation()
        row = key_row(digest)
        if row is None:
            return None
    if not row.is_active:
        return None
    credential = key_instances(row)
    used = row.last_used_at
    if used is None or (now - used).total_seconds() > TOUCH_SECONDS:
        _touch(credential, now)
        row = dataclasses.replace(row, last_used_at=now)
        if remembered is not None:
            remembered.row = row
    if remembered is None:
        key_cache.remember(digest, row, seen)
    return KeyHolder(credential=credential, user=credential.user)


def _touch(credential: Credential, now: Any) -> None:
    """Record use (rarely: at most once per ``TOUCH_SECONDS`` per key)."""
    Credential.objects.filter(pk=credential.pk).update(last_used_at=now)
    credential.last_used_at = now
    if credential.session_id is not None:
        DeviceSession.objects.filter(pk=credential.session_id).update(last_seen_at=now)


# ----------------------------------------------------------------------------- device sessions


@dataclass(frozen=True)
class SessionKeys:
    session: DeviceSession
    access_key: str
    refresh_key: str
    expires_in: int = ACCESS_KEY_SECONDS


def _session_pair(session: DeviceSession) -> SessionKeys:
    _, access = _issue(
        session.user, CredentialKind.ACCESS, session=session, seconds=ACCESS_KEY_SECONDS
    )
    _, refresh = _issue(
        session.user, CredentialKind.REFRESH, session=session, seconds=REFRESH_KEY_SECONDS
    )
    return SessionKeys(session=session, access_key=access, refresh_key=refresh)


def device_session_open(
    user: Any,
    *,
    device: str = "",
    user_agent: str = "",
    ip: str | None = None,
    session_key: str = "",
) -> SessionKeys:
    """A signed-in device: a session with its first access and refresh keys."""
    with transaction.atomic():
        session = DeviceSession.objects.create(
            user=user,
            device=device[:80],
            user_agent=user_agent[:300],
            ip=ip,
            session_key=session_key,
        )
        return _session_pair(session)


def device_session_rekey(session_id: int, session_key: str) -> None:
    """The sign-in's Django session got a new key (allauth cycles it on a password change)."""
    DeviceSession.objects.filter(pk=session_id).exclude(session_key=session_key).update(
        session_key=session_key
    )


def device_sessions_end_others(user: Any, *, keep: int | None) -> int:
    """End every device session of ``user`` but ``keep`` (after a password change)."""
    ended = 0
    for session in DeviceSession.objects.filter(user=user).exclude(pk=keep or 0):
        _session_end(session)
        ended += 1
    return ended


def session_keys_refresh(refresh_key: str) -> SessionKeys | None:
    """A new access and refresh key for a live refresh key; ``None`` for anything else. A
    refresh key used before ends its session (every key of it stops working at once)."""
    digest = key_digest(refresh_key)
    with transaction.atomic():
        credential = (
            Credential.objects.select_for_update(of=("self",))
            .select_related("session", "session__user")
            .filter(digest=digest, kind=CredentialKind.REFRESH)
            .first()
        )
        if credential is None or credential.session is None:
            return None
        session = credential.session
        now = timezone.now()
        if credential.used_at is not None:
            _session_end(session)
            return None
        if (credential.expires_at and credential.expires_at <= now) or not session.user.is_active:
            return None
        Credential.objects.filter(pk=credential.pk).update(used_at=now)
        # The session's access key is replaced: one live access key per device.
        Credential.objects.filter(session=session, kind=CredentialKind.ACCESS).delete()
        DeviceSession.objects.filter(pk=session.pk).update(last_seen_at=now)
        return _session_pair(session)


def _django_session_end(session_key: str) -> None:
    if session_key:
        engine = import_module(settings.SESSION_ENGINE)
        engine.SessionStore().delete(session_key)


def _session_end(session: DeviceSession) -> None:
    _django_session_end(session.session_key)
    session.delete()  # its keys go with it (CASCADE)


def device_session_end(user: Any, session_id: int) -> None:
    """End one of ``user``'s device sessions: its keys stop working at the next request."""
    with transaction.atomic():
        session = DeviceSession.objects.filter(user=user, pk=session_id).first()
        if session is None:
            raise errors.SessionNotFound()
        _session_end(session)


def credentials_revoke_all(user: Any) -> int:
    """Sign out everywhere: every device session, every key (guest, personal), every token a
    third-party app holds and every browser session of ``user`` ends. Returns how many keys
    and sessions ended."""
    from allauth.idp.oidc.models import Token as ProviderToken
    from allauth.usersessions.models import UserSession

    with transaction.atomic():
        ended = 0
        for session in DeviceSession.objects.filter(user=user):
            _session_end(session)
            ended += 1
        ended += Credential.objects.filter(user=user).delete()[0]
        ended += ProviderToken.objects.filter(user=user).delete()[0]
        for browser in UserSession.objects.filter(user=user):
            browser.end()
            ended += 1
    return ended


# ----------------------------------------------------------------------------- personal tokens


def personal_token_create(
    user: Any, *, name: str, scopes_given: list[str], days: int | None
) -> tuple[Credential, str]:
    """A personal access token with ``scopes_given`` (shown once)."""
    name = name.strip()
    if not 1 <= len(name) <= 80:
        raise errors.TokenNameInvalid()
    unknown = scopes.scopes_unknown(scopes_given)
    if unknown or not scopes_given:
        raise errors.ScopeInvalid(extra={"unknown": unknown})
    if days is not None and not 1 <= days <= 366:
        raise errors.TokenLifetimeInvalid()
    with transaction.atomic():
        count = Credential.objects.filter(user=user, kind=CredentialKind.PERSONAL).count()
        if count >= PERSONAL_TOKENS_MAX:
            raise errors.TokensLimit()
        return _issue(
            user,
            CredentialKind.PERSONAL,
            scopes_held=sorted(set(scopes_given)),
            name=name,
            seconds=days * 86400 if days else None,
        )


def personal_token_revoke(user: Any, token_id: int) -> None:
    deleted, _ = Credential.objects.filter(
        user=user, pk=token_id, kind=CredentialKind.PERSONAL
    ).delete()
    if not deleted:
        raise errors.TokenNotFound()


def guest_key_revoke(user: Any, key_id: int) -> None:
    deleted, _ = Credential.objects.filter(user=user, pk=key_id, kind=CredentialKind.GUEST).delete()
    if not deleted:
        raise errors.SessionNotFound()


def django_session_for(user: Any) -> str:
    """A new Django session signed in as ``user`` (allauth's endpoints take it, through the
    device session's access key, as an app client's session): its key."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    engine = import_module(settings.SESSION_ENGINE)
    store = engine.SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    return str(store.session_key)


# ----------------------------------------------------------------------------- revocations
def key_deleted(sender: Any, instance: Credential, **_: Any) -> None:
    """``post_delete`` of a key (revoked, its session ended, its user deleted): no process
    may go on using what it remembers of it (``accounts.services.key_cache``)."""
    key_cache.revoked(f"d:{instance.digest}")


def user_changed(sender: Any, instance: Any, created: bool = False, **_: Any) -> None:
    """A user saved (deactivated, say) or deleted: what every process remembers of its keys
    is dropped (a new user has none)."""
    if not created:
        key_cache.revoked(f"u:{instance.pk}")


def player_changed(sender: Any, instance: Any, created: bool = False, **_: Any) -> None:
    """A player renamed: the name remembered with their keys is dropped."""
    if not created:
        key_cache.revoked(f"u:{instance.user_id}")
