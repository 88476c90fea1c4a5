"""A person's sign-ins, as one list: device sessions (apps and programs), guest keys, and
browser sessions (allauth's ``UserSession``); each can be ended on its own."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from allauth.usersessions.models import UserSession
from django.db import transaction

from accounts import errors
from accounts.models import Credential, CredentialKind, DeviceSession
from accounts.services import credentials


@dataclass(frozen=True)
class SignIn:
    id: str  # "<kind>-<row id>"
    kind: str  # device, guest, browser
    device: str
    user_agent: str
    ip: str | None
    created_at: datetime
    last_seen_at: datetime | None
    current: bool


def sign_ins_list(user: Any, *, auth: Any, browser_session_key: str | None) -> list[SignIn]:
    current_device = auth.session_id if isinstance(auth, Credential) else None
    current_key = auth.pk if isinstance(auth, Credential) else None
    devices = list(DeviceSession.objects.filter(user=user))
    rows: list[SignIn] = [
        SignIn(
            id=f"device-{s.pk}",
            kind="device",
            device=s.device,
            user_agent=s.user_agent,
            ip=s.ip,
            created_at=s.created_at,
            last_seen_at=s.last_seen_at,
            current=s.pk == current_device,
        )
        for s in devices
    ]
    rows += [
        SignIn(
            id=f"guest-{c.pk}",
            kind="guest",
            device="",
            user_agent="",
            ip=None,
            created_at=c.created_at,
            last_seen_at=c.last_used_at,
            current=c.pk == current_key,
        )
        for c in Credential.objects.filter(user=user, kind=CredentialKind.GUEST)
    ]
    device_keys = {s.session_key for s in devices if s.session_key}
    rows += [
        SignIn(
            id=f"browser-{b.pk}",
            kind="browser",
            device="",
            user_agent=b.user_agent,
            ip=b.ip,
            created_at=b.created_at,
            last_seen_at=b.last_seen_at,
            current=bool(browser_session_key) and b.session_key == browser_session_key,
        )
        for b in UserSession.objects.purge_and_list(user)
        if b.session_key not in device_keys  # an app's sign-in flow: listed as its device
    ]
    rows.sort(key=lambda r: r.last_seen_at or r.created_at, reverse=True)
    return rows


def sign_in_end(user: Any, sign_in_id: str) -> None:
    """End one sign-in (``SessionNotFound`` if the user has none of that id)."""
    kind, _, number = sign_in_id.partition("-")
    if not number.isdigit() or len(number) > 18:
        raise errors.SessionNotFound()
    pk = int(number)
    if kind == "device":
        credentials.device_session_end(user, pk)
    elif kind == "guest":
        credentials.guest_key_revoke(user, pk)
    elif kind == "browser":
        with transaction.atomic():
            browser = UserSession.objects.filter(user=user, pk=pk).first()
            if browser is None:
                raise errors.SessionNotFound()
            browser.end()
    else:
        raise errors.SessionNotFound()
