"""Rate limits of sign-in, sign-up, reset, token refresh and the account's key endpoints
(accounts/ratelimits.py, the THROTTLE_RATES scopes of accounts/api/credentials.py): each
refusal is a 429 with Retry-After, and nothing changes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core import mail
from django.test import Client

from accounts.models import Credential, CredentialKind, DeviceSession, Player

pytestmark = pytest.mark.django_db

A = "/_allauth/app/v1"
PASSWORD = "tilted-canasta-at-dawn-41"


def post(client: Client, path: str, body: Any, key: str = "", scheme: str = "Bearer") -> Any:
    extra: dict[str, Any] = {"HTTP_AUTHORIZATION": f"{scheme} {key}"} if key else {}
    return client.post(path, body, content_type="application/json", **extra)


def retry_after(response: Any, most: int) -> int:
    """The 429's Retry-After, within ``most`` seconds (allauth's windows are fixed lists of
    hits; the API's sliding windows may ask for up to two periods)."""
    assert response.status_code == 429, response.content
    seconds = int(response.headers["Retry-After"])
    assert 1 <= seconds <= most, seconds
    return seconds


def guest(client: Client, name: str = "Ann") -> dict[str, Any]:
    response = post(client, "/api/v1/players/", {"display_name": name})
    assert response.status_code == 201, response.content
    return dict(response.json())


def device(client: Client, guest_key: str) -> dict[str, Any]:
    response = post(client, "/api/v1/account/sessions/", {"device": "phone"}, guest_key, "Token")
    assert response.status_code == 201, response.content
    return dict(response.json())


def user_with_password(email: str) -> Any:
    from allauth.account.models import EmailAddress

    user = get_user_model().objects.create_user(username=email, email=email, password=PASSWORD)
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    Player.objects.get_or_create(user=user, defaults={"display_name": email.split("@")[0]})
    return user


def test_failed_sign_ins_for_one_email_are_refused_with_429_and_retry_after() -> None:
    user_with_password("ada@example.org")
    client = Client()
    for _ in range(5):  # login_failed: 5 per e-mail in 5 minutes
        failed = post(client, A + "/auth/login", {"email": "ada@example.org", "password": "x" * 9})
        assert failed.status_code == 400, failed.content
    refused = post(client, A + "/auth/login", {"email": "ada@example.org", "password": "y" * 9})
    assert refused.json() == {"status": 429}
    retry_after(refused, 300)
    # The right password is refused too while the limit holds: no device session is opened.
    right = post(Client(), A + "/auth/login", {"email": "ADA@example.org", "password": PASSWORD})
    retry_after(right, 300)
    assert not DeviceSession.objects.exists()


def test_an_unknown_email_meets_the_same_limit() -> None:
    client = Client()
    answers = [
        post(client, A + "/auth/login", {"email": "nobody@example.org", "password": "x" * 9})
        for _ in range(6)
    ]
    assert [a.status_code for a in answers] == [400] * 5 + [429]
    retry_after(answers[-1], 300)


def test_sign_ins_per_address_are_refused_with_retry_after(settings: Any) -> None:
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "login": "3/m/ip"}
    answers = [
        post(Client(), A + "/auth/login", {"email": f"p{i}@example.org", "password": "x" * 9})
        for i in range(4)
    ]
    assert [a.status_code for a in answers] == [400, 400, 400, 429]
    retry_after(answers[-1], 60)
    # Another address is not refused.
    other = Client(REMOTE_ADDR="192.0.2.7")
    assert (
        post(other, A + "/auth/login", {"email": "p@example.org", "password": "x" * 9}).status_code
        == 400
    )


def test_sign_ups_per_address_are_refused_with_retry_after(settings: Any) -> None:
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "signup": "2/m/ip"}
    for i in range(2):
        made = post(
            Client(), A + "/auth/signup", {"email": f"s{i}@example.org", "password": PASSWORD}
        )
        assert made.status_code == 401, made.content  # an e-mail to verify
    users = get_user_model().objects.count()
    refused = post(Client(), A + "/auth/signup", {"email": "s9@example.org", "password": PASSWORD})
    retry_after(refused, 60)
    assert get_user_model().objects.count() == users


def test_password_resets_per_email_are_refused_with_retry_after() -> None:
    user_with_password("ada@example.org")
    for _ in range(5):  # reset_password: 5 per e-mail a minute
        asked = post(Client(), A + "/auth/password/request", {"email": "ada@example.org"})
        assert asked.status_code == 401, asked.content  # a pending reset
    sent = len(mail.outbox)
    refused = post(Client(), A + "/auth/password/request", {"email": "Ada@example.org"})
    retry_after(refused, 60)
    assert len(mail.outbox) == sent


def test_refreshes_per_address_are_refused_with_retry_after(
    rates: Callable[..., None],
) -> None:
    rates(token_refresh="2/minute")
    client = Client()
    keys = device(client, guest(client)["token"])
    refresh = keys["refresh_token"]
    for _ in range(2):
        done = post(client, A + "/tokens/refresh", {"refresh_token": refresh})
        assert done.status_code == 200, done.content
        refresh = done.json()["data"]["refresh_token"]
    refused = post(client, A + "/tokens/refresh", {"refresh_token": refresh})
    assert refused.json() == {"status": 429}
    retry_after(refused, 2 * 60)
    # Nothing changed: the refresh key is still live, and works from another address.
    other = Client(REMOTE_ADDR="192.0.2.8")
    assert post(other, A + "/tokens/refresh", {"refresh_token": refresh}).status_code == 200


def test_personal_tokens_per_account_are_refused_with_retry_after(
    rates: Callable[..., None],
) -> None:
    rates(token_create="2/hour")
    client = Client()
    access = device(client, guest(client)["token"])["access_token"]
    body = {"name": "bot", "scopes": ["bot:play"]}
    for _ in range(2):
        assert post(client, "/api/v1/account/tokens/", body, access).status_code == 201
    refused = post(client, "/api/v1/account/tokens/", body, access)
    assert refused.json()["code"] == "throttled"
    retry_after(refused, 2 * 3600)
    assert Credential.objects.filter(kind=CredentialKind.PERSONAL).count() == 2
    # Reading the list is not counted.
    listed = client.get("/api/v1/account/tokens/", HTTP_AUTHORIZATION=f"Bearer {access}")
    assert listed.status_code == 200 and len(listed.json()) == 2


def test_device_sessions_from_a_guest_key_are_refused_with_retry_after(
    rates: Callable[..., None],
) -> None:
    rates(session_create="1/hour")
    client = Client()
    key = guest(client)["token"]
    device(client, key)
    refused = post(client, "/api/v1/account/sessions/", {}, key, "Token")
    assert refused.json()["code"] == "throttled"
    retry_after(refused, 2 * 3600)
    assert DeviceSession.objects.count() == 1
    # Another guest (another account, the same address) is not refused.
    device(client, guest(client, "Bob")["token"])


def test_guest_sign_ups_per_address_are_refused_with_retry_after(
    rates: Callable[..., None],
) -> None:
    rates(signup="2/hour")
    client = Client()
    guest(client, "A1")
    guest(client, "A2")
    refused = post(client, "/api/v1/players/", {"display_name": "A3"})
    assert refused.json()["code"] == "throttled"
    retry_after(refused, 2 * 3600)
    assert Player.objects.count() == 2


def test_a_code_mailed_again_too_soon_is_refused_until_its_window_ends() -> None:
    body = {"email": "cid@example.org", "password": PASSWORD}
    assert post(Client(), A + "/auth/signup", body).status_code == 401
    again = post(Client(REMOTE_ADDR="192.0.2.9"), A + "/auth/signup", body)
    # confirm_email: one code per address in three minutes; Retry-After counts to its end.
    assert retry_after(again, 180) > 170


class CountingHasher(MD5PasswordHasher):
    """Counts passwords hashed (a stand-in for Argon2, whose cost is the timing at stake)."""

    hashed = 0

    def encode(self, password: str, salt: str) -> str:
        type(self).hashed += 1
        return super().encode(password, salt)


def test_a_sign_up_with_a_known_email_hashes_a_password_as_a_new_one_does(settings: Any) -> None:
    settings.PASSWORD_HASHERS = [f"{__name__}.CountingHasher"]
    user_with_password("ada@example.org")
    CountingHasher.hashed = 0
    new = post(Client(), A + "/auth/signup", {"email": "new@example.org", "password": PASSWORD})
    for_new, CountingHasher.hashed = CountingHasher.hashed, 0
    known = post(Client(), A + "/auth/signup", {"email": "ada@example.org", "password": PASSWORD})
    assert (new.status_code, known.status_code) == (401, 401)
    assert CountingHasher.hashed == for_new >= 1
