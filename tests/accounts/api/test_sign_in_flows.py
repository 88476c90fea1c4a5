"""allauth's flows as the service configures them: sign-up with a display name and a code by
e-mail, a password reset by code, TOTP with recovery codes, and allauth's own schema served."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from accounts.models import Player

pytestmark = pytest.mark.django_db

A = "/_allauth/app/v1"
PASSWORD = "tilted-canasta-at-dawn-41"


def post(client: Client, path: str, body: dict[str, Any], **headers: Any) -> Any:
    return client.post(A + path, body, content_type="application/json", **headers)


def last_code() -> str:
    found = re.search(
        r"^([A-Z0-9]{4}-[A-Z0-9]{4}|[0-9]{6}|[A-Z0-9]{6,8})$", str(mail.outbox[-1].body), re.M
    )
    assert found, mail.outbox[-1].body
    return found.group(1)


def sign_up(client: Client, email: str, name: str = "") -> dict[str, Any]:
    body = {"email": email, "password": PASSWORD}
    if name:
        body["display_name"] = name
    pending = post(client, "/auth/signup", body)
    assert pending.status_code == 401, pending.content
    token = pending.json()["meta"]["session_token"]
    done = post(client, "/auth/email/verify", {"key": last_code()}, HTTP_X_SESSION_TOKEN=token)
    assert done.status_code == 200, done.content
    return dict(done.json()["meta"])


def test_sign_up_verifies_the_email_by_code_and_ends_in_a_device_session(client: Client) -> None:
    meta = sign_up(client, "ada@example.org", "Ada")
    assert meta["access_token"].startswith("cat_") and meta["refresh_token"].startswith("crt_")
    me = client.get("/api/v1/players/me/", HTTP_AUTHORIZATION=f"Bearer {meta['access_token']}")
    assert (me.status_code, me.json()["display_name"]) == (200, "Ada")


def test_without_a_display_name_the_player_is_named_after_the_email(client: Client) -> None:
    sign_up(client, "grace.h@example.org")
    assert Player.objects.get().display_name == "grace.h"


def test_a_bad_display_name_is_refused_at_sign_up(client: Client) -> None:
    response = post(
        client,
        "/auth/signup",
        {"email": "x@example.org", "password": PASSWORD, "display_name": "x" * 41},
    )
    assert response.status_code == 400
    assert not Player.objects.exists()


def test_a_password_is_reset_by_code(client: Client) -> None:
    sign_up(client, "ada@example.org")
    requested = post(client, "/auth/password/request", {"email": "ada@example.org"})
    assert requested.status_code == 401, requested.content  # a pending reset flow
    token = requested.json()["meta"]["session_token"]
    reset = post(
        client,
        "/auth/password/reset",
        {"key": last_code(), "password": PASSWORD + "!"},
        HTTP_X_SESSION_TOKEN=token,
    )
    assert reset.status_code in (200, 401), reset.content
    signed_in = post(
        Client(), "/auth/login", {"email": "ada@example.org", "password": PASSWORD + "!"}
    )
    assert signed_in.status_code == 200, signed_in.content


def test_totp_is_asked_at_sign_in_once_active_and_a_recovery_code_works_once(
    client: Client,
) -> None:
    from allauth.mfa.totp.internal.auth import (
        format_hotp_value,
        hotp_value,
        yield_hotp_counters_from_time,
    )

    meta = sign_up(client, "ada@example.org")
    bearer: dict[str, Any] = {"HTTP_AUTHORIZATION": f"Bearer {meta['access_token']}"}
    assert post(client, "/auth/reauthenticate", {"password": PASSWORD}, **bearer).status_code == 200
    secret = client.get(A + "/account/authenticators/totp", **bearer).json()["meta"]["secret"]
    # Six digits, zero-padded as an authenticator app shows them (one code in ten starts with 0).
    code = format_hotp_value(hotp_value(secret, next(yield_hotp_counters_from_time())))
    activated = post(client, "/account/authenticators/totp", {"code": code}, **bearer)
    assert activated.status_code == 200, activated.content
    codes = client.get(A + "/account/authenticators/recovery-codes", **bearer).json()["data"][
        "unused_codes"
    ]

    def sign_in_with(second: str) -> int:
        other = Client()
        pending = post(other, "/auth/login", {"email": "ada@example.org", "password": PASSWORD})
        assert pending.status_code == 401
        assert [f["id"] for f in pending.json()["data"]["flows"] if f.get("is_pending")] == [
            "mfa_authenticate"
        ]
        token = pending.json()["meta"]["session_token"]
        return int(
            post(
                other, "/auth/2fa/authenticate", {"code": second}, HTTP_X_SESSION_TOKEN=token
            ).status_code
        )

    assert sign_in_with("000000" if code != "000000" else "111111") == 400
    assert sign_in_with(codes[0]) == 200
    assert sign_in_with(codes[0]) == 400  # a recovery code is used once


def test_allauths_own_schema_is_served(client: Client) -> None:
    response = client.get("/_allauth/openapi.json")
    assert response.status_code == 200
    assert "/_allauth/{client}/v1/auth/login" in response.json()["paths"]


def _known(email: str) -> None:
    from allauth.account.models import EmailAddress
    from django.contrib.auth.models import User

    user = User.objects.create_user("known", email=email, password=PASSWORD)
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)


def _shape(response: Any) -> tuple[int, Any]:
    body = response.json()
    flows = sorted(f["id"] for f in body.get("data", {}).get("flows", []) if f.get("is_pending"))
    errors = sorted((e.get("code"), e.get("message")) for e in body.get("errors", []))
    return response.status_code, (flows, errors)


def test_no_answer_tells_whether_an_email_has_an_account() -> None:
    _known("known@example.org")
    for path, body in (
        ("/auth/signup", {"password": PASSWORD}),
        ("/auth/password/request", {}),
        ("/auth/login", {"password": PASSWORD + "-wrong"}),
    ):
        known = post(Client(), path, {**body, "email": "known@example.org"})
        unknown = post(Client(), path, {**body, "email": "nobody@example.org"})
        assert _shape(known) == _shape(unknown), (path, known.content, unknown.content)
