"""accounts.middleware: a browser session's last request, written at most every TOUCH_SECONDS."""

from __future__ import annotations

from datetime import timedelta

import pytest
from allauth.usersessions.models import UserSession
from asgiref.sync import iscoroutinefunction
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from accounts import middleware

pytestmark = pytest.mark.django_db


def test_a_browser_sessions_last_request_is_recorded_rarely(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(middleware, "_touched", type(middleware._touched)())
    user = User.objects.create_user("ann")
    client = Client()
    client.force_login(user)
    key = client.session.session_key
    old = timezone.now() - timedelta(hours=1)
    UserSession.objects.create(
        user=user, session_key=key, ip="127.0.0.1", user_agent="t", last_seen_at=old
    )
    assert client.get("/api/v1/players/me/").status_code == 200
    seen = UserSession.objects.get(session_key=key).last_seen_at
    assert seen > old
    UserSession.objects.filter(session_key=key).update(last_seen_at=old)
    assert client.get("/api/v1/players/me/").status_code == 200  # within TOUCH_SECONDS: no write
    assert UserSession.objects.get(session_key=key).last_seen_at == old


def test_the_middleware_stays_async_under_asgi() -> None:
    async def endpoint(request: object) -> object:
        return request

    assert iscoroutinefunction(middleware.browser_session_activity(endpoint))
