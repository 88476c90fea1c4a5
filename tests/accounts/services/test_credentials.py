"""Keys and device sessions (accounts.services.credentials): stored as digests, rotated,
replays detected, revoked at once."""

from __future__ import annotations

import time
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from hypothesis import given, settings
from hypothesis import strategies as st

from accounts import errors, scopes
from accounts.models import Credential, CredentialKind, DeviceSession
from accounts.services import credentials, key_cache

pytestmark = pytest.mark.django_db


@pytest.fixture
def user() -> User:
    return User.objects.create_user("ann")


def test_no_key_is_stored_only_its_digest(user: User) -> None:
    guest = credentials.guest_key_issue(user)
    keys = credentials.device_session_open(user, device="phone")
    _, personal = credentials.personal_token_create(
        user, name="bot", scopes_given=[scopes.BOT_PLAY], days=None
    )
    stored = list(Credential.objects.values_list("digest", "prefix"))
    for key in (guest, keys.access_key, keys.refresh_key, personal):
        assert (credentials.key_digest(key), key[:8]) in stored
        assert all(key not in digest for digest, _ in stored)
    assert len(guest) == 40  # the DRF token format guest keys always had


def test_a_key_authenticates_its_user_until_it_expires(user: User) -> None:
    keys = credentials.device_session_open(user)
    holder = credentials.credential_authenticate(keys.access_key)
    assert holder is not None and holder.user == user
    Credential.objects.filter(kind=CredentialKind.ACCESS).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    key_cache.forget_all()  # a key's expiry is fixed when it is made; here it moved by hand
    assert credentials.credential_authenticate(keys.access_key) is None


def test_a_remembered_key_is_refused_once_it_expires(
    user: User, settings: pytest.FixtureRequest
) -> None:
    keys = credentials.device_session_open(user)
    Credential.objects.filter(kind=CredentialKind.ACCESS).update(
        expires_at=timezone.now() + timedelta(seconds=1)
    )
    assert credentials.credential_authenticate(keys.access_key) is not None
    time.sleep(1.1)
    assert credentials.credential_authenticate(keys.access_key) is None


def test_a_refresh_key_is_not_an_access_key(user: User) -> None:
    keys = credentials.device_session_open(user)
    assert credentials.credential_authenticate(keys.refresh_key) is None


def test_an_inactive_user_is_refused(user: User) -> None:
    key = credentials.guest_key_issue(user)
    User.objects.filter(pk=user.pk).update(is_active=False)
    assert credentials.credential_authenticate(key) is None


def test_a_refresh_rotates_both_keys(user: User) -> None:
    first = credentials.device_session_open(user)
    second = credentials.session_keys_refresh(first.refresh_key)
    assert second is not None and second.session.pk == first.session.pk
    assert {second.access_key, second.refresh_key}.isdisjoint({first.access_key, first.refresh_key})
    assert credentials.credential_authenticate(first.access_key) is None  # replaced
    assert credentials.credential_authenticate(second.access_key) is not None


def test_a_used_refresh_key_presented_again_ends_the_session(user: User) -> None:
    first = credentials.device_session_open(user)
    other = credentials.device_session_open(user)
    second = credentials.session_keys_refresh(first.refresh_key)
    assert second is not None
    assert credentials.session_keys_refresh(first.refresh_key) is None  # the replay
    assert not DeviceSession.objects.filter(pk=first.session.pk).exists()
    assert credentials.credential_authenticate(second.access_key) is None
    assert credentials.session_keys_refresh(second.refresh_key) is None
    # Another device of the same person is not touched.
    assert credentials.credential_authenticate(other.access_key) is not None


def test_an_expired_refresh_key_gives_nothing(user: User) -> None:
    first = credentials.device_session_open(user)
    Credential.objects.filter(kind=CredentialKind.REFRESH).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    assert credentials.session_keys_refresh(first.refresh_key) is None


def test_revoking_all_ends_every_key_and_session(user: User) -> None:
    guest = credentials.guest_key_issue(user)
    keys = credentials.device_session_open(user)
    _, personal = credentials.personal_token_create(
        user, name="script", scopes_given=[scopes.PROFILE_READ], days=30
    )
    someone = User.objects.create_user("bob")
    theirs = credentials.guest_key_issue(someone)
    credentials.credentials_revoke_all(user)
    for key in (guest, keys.access_key, personal):
        assert credentials.credential_authenticate(key) is None
    assert credentials.session_keys_refresh(keys.refresh_key) is None
    assert credentials.credential_authenticate(theirs) is not None


def test_ending_a_device_session_ends_its_django_session(user: User) -> None:
    from django.contrib.sessions.backends.db import SessionStore

    session_key = credentials.django_session_for(user)
    keys = credentials.device_session_open(user, session_key=session_key)
    assert SessionStore().exists(session_key)
    credentials.device_session_end(user, keys.session.pk)
    assert not SessionStore().exists(session_key)
    with pytest.raises(errors.SessionNotFound):
        credentials.device_session_end(user, keys.session.pk)


def test_a_bot_accounts_guest_key_holds_the_bot_scopes(user: User) -> None:
    key = credentials.guest_key_issue(user, bot=True)
    holder = credentials.credential_authenticate(key)
    assert holder is not None and tuple(holder.credential.scopes) == scopes.BOT_ACCOUNT


@pytest.mark.parametrize(
    ("name", "given", "days", "error"),
    [
        ("", [scopes.PLAY], None, errors.TokenNameInvalid),
        ("x" * 81, [scopes.PLAY], None, errors.TokenNameInvalid),
        ("t", [], None, errors.ScopeInvalid),
        ("t", [scopes.ACCOUNT_WRITE], None, errors.ScopeInvalid),
        ("t", ["admin"], None, errors.ScopeInvalid),
        ("t", [scopes.PLAY], 0, errors.TokenLifetimeInvalid),
        ("t", [scopes.PLAY], 367, errors.TokenLifetimeInvalid),
    ],
)
def test_a_personal_token_refused_makes_nothing(
    user: User, name: str, given: list[str], days: int | None, error: type[Exception]
) -> None:
    with pytest.raises(error):
        credentials.personal_token_create(user, name=name, scopes_given=given, days=days)
    assert not Credential.objects.exists()


def test_personal_tokens_are_bounded(user: User, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(credentials, "PERSONAL_TOKENS_MAX", 2)
    for n in range(2):
        credentials.personal_token_create(user, name=f"t{n}", scopes_given=[scopes.PLAY], days=None)
    with pytest.raises(errors.TokensLimit):
        credentials.personal_token_create(user, name="t3", scopes_given=[scopes.PLAY], days=None)


@settings(max_examples=40, deadline=None)
@given(key=st.text(max_size=300))
def test_no_made_up_key_authenticates(key: str) -> None:
    assert credentials.credential_authenticate(key) is None


def test_the_lookup_joins_the_player_and_records_use_rarely(
    user: User, settings: pytest.FixtureRequest
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    settings.AUTH_KEY_CACHE_SECONDS = 0  # type: ignore[attr-defined]  # the lookup itself
    key = credentials.guest_key_issue(user)
    with CaptureQueriesContext(connection) as first:
        holder = credentials.credential_authenticate(key)
    assert holder is not None
    assert holder.user.player.display_name == user.player.display_name  # no query more
    assert holder.credential.scopes == [scopes.ALL]
    assert len(first) == 2  # the lookup, and the first use recorded
    used = Credential.objects.get().last_used_at
    assert used is not None
    with CaptureQueriesContext(connection) as second:
        assert credentials.credential_authenticate(key) is not None
    assert len(second) == 1  # used a moment ago: nothing written
    assert Credential.objects.get().last_used_at == used
