"""What the service does when allauth's flows change a person's sign-in."""

from __future__ import annotations

from typing import Any

from accounts.services.credentials import device_session_of, device_sessions_end_others


def password_changed_elsewhere(
    sender: Any, request: Any = None, user: Any = None, **_: Any
) -> None:
    """``password_changed`` / ``password_set`` / ``password_reset``: every other device session
    of the user ends (the request's own, if a device session made it, stays)."""
    if user is None:
        return
    keep = device_session_of(request) if request is not None else None
    device_sessions_end_others(user, keep=keep)
