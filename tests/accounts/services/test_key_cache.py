"""accounts.services.key_cache: a key remembered per process only while Redis tells every
process of revocations, and forgotten everywhere the moment it is revoked."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import redis
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Credential
from accounts.services import credentials, key_cache

pytestmark = pytest.mark.django_db


@pytest.fixture
def redis_url(settings: pytest.FixtureRequest) -> Iterator[str]:
    url = settings.REDIS_URL  # type: ignore[attr-defined]
    if not url:  # CI's SQLite run has none; its PostgreSQL + Redis run has
        pytest.skip("needs REDIS_URL=redis://... (revocations cross processes through it)")
    settings.AUTH_KEY_CACHE_SECONDS = 60  # type: ignore[attr-defined]
    yield url


def lookups(key: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert credentials.credential_authenticate(key) is not None
    return sum(
        "accounts_credential" in q["sql"] and "SELECT" in q["sql"] for q in ctx.captured_queries
    )


def test_a_key_is_looked_up_once_then_remembered(redis_url: str) -> None:
    key = credentials.guest_key_issue(User.objects.create_user("ann"))
    assert lookups(key) == 1
    assert lookups(key) == 0


def test_without_redis_nothing_is_remembered(settings: pytest.FixtureRequest) -> None:
    settings.REDIS_URL = None  # type: ignore[attr-defined]
    settings.AUTH_KEY_CACHE_SECONDS = 60  # type: ignore[attr-defined]
    key = credentials.guest_key_issue(User.objects.create_user("ann"))
    assert lookups(key) == 1
    assert lookups(key) == 1


@pytest.mark.parametrize("how", ["revoke all", "end session", "deactivate", "delete user"])
def test_a_revoked_key_is_refused_at_the_next_request(redis_url: str, how: str) -> None:
    user = User.objects.create_user("ann")
    keys = credentials.device_session_open(user)
    guest = credentials.guest_key_issue(user)
    for key in (keys.access_key, guest):
        lookups(key)
        assert lookups(key) == 0  # remembered
    if how == "revoke all":
        credentials.credentials_revoke_all(user)
    elif how == "end session":
        credentials.device_session_end(user, keys.session.pk)
    elif how == "deactivate":
        user.is_active = False
        user.save()
    else:
        user.delete()
    assert credentials.credential_authenticate(keys.access_key) is None
    if how != "end session":
        assert credentials.credential_authenticate(guest) is None


def test_a_revocation_published_by_another_process_is_applied(redis_url: str) -> None:
    key = credentials.guest_key_issue(User.objects.create_user("ann"))
    lookups(key)
    assert lookups(key) == 0
    digest = credentials.key_digest(key)
    # Another process deleted the key: its row is gone and it published the revocation.
    Credential.objects.filter(digest=digest).update(digest="0" * 64)
    redis.Redis.from_url(redis_url).publish(key_cache.CHANNEL, f"d:{digest}")
    deadline = time.monotonic() + 5
    while key_cache.recall(digest) is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert credentials.credential_authenticate(key) is None


def test_a_lookup_that_overlapped_a_revocation_is_not_remembered(redis_url: str) -> None:
    key = credentials.guest_key_issue(User.objects.create_user("ann"))
    assert key_cache.enabled()
    seen = key_cache.generation()
    row = object()
    key_cache.revoked("u:0")  # anything forgotten meanwhile
    key_cache.remember(credentials.key_digest(key), row, seen)
    assert key_cache.recall(credentials.key_digest(key)) is None


def test_a_renamed_player_is_not_remembered_by_the_old_name(redis_url: str) -> None:
    user = User.objects.create_user("ann")
    key = credentials.guest_key_issue(user)
    lookups(key)
    user.player.display_name = "Anna"
    user.player.save()
    holder = credentials.credential_authenticate(key)
    assert holder is not None and holder.user.player.display_name == "Anna"
