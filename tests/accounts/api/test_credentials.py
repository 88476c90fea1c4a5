"""Sign-ins and tokens over HTTP (accounts/api/credentials.py) and the allauth flows they meet:
the list of sessions, ending one, a device session from a guest key, personal tokens, a new
password signing the other devices out, a guest adding a passkey without re-authenticating."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail
from django.test import Client

from accounts.models import Credential, DeviceSession

pytestmark = pytest.mark.django_db

PASSWORD = "tilted-canasta-at-dawn-41"


def call(
    client: Client, method: str, path: str, body: Any = None, key: str = "", scheme: str = "Bearer"
) -> Any:
    extra: dict[str, Any] = {"HTTP_AUTHORIZATION": f"{scheme} {key}"} if key else {}
    return getattr(client, method)(path, body, content_type="application/json", **extra)


def guest(client: Client, name: str = "Ann") -> dict[str, Any]:
    response = call(client, "post", "/api/v1/players/", {"display_name": name})
    assert response.status_code == 201
    return dict(response.json())


def device(client: Client, guest_key: str, name: str = "phone") -> dict[str, Any]:
    response = call(
        client, "post", "/api/v1/account/sessions/", {"device": name}, guest_key, "Token"
    )
    assert response.status_code == 201, response.content
    return dict(response.json())


def upgrade(client: Client, access: str, email: str) -> None:
    assert (
        call(client, "post", "/_allauth/app/v1/account/email", {"email": email}, access).status_code
        == 200
    )
    code = re.search(r"^([A-Z0-9]{4}-[A-Z0-9]{4})$", str(mail.outbox[-1].body), re.MULTILINE)
    assert code
    assert (
        call(
            client, "post", "/_allauth/app/v1/auth/email/verify", {"key": code.group(1)}, access
        ).status_code
        == 200
    )
    response = call(
        client,
        "post",
        "/_allauth/app/v1/account/password/change",
        {"new_password": PASSWORD},
        access,
    )
    assert response.status_code == 200, response.content


def sign_in(client: Client, email: str) -> dict[str, Any]:
    response = call(
        client, "post", "/_allauth/app/v1/auth/login", {"email": email, "password": PASSWORD}
    )
    assert response.status_code == 200, response.content
    return dict(response.json()["meta"])


def test_a_guest_upgraded_in_place_signs_in_as_the_same_player(client: Client) -> None:
    ann = guest(client)
    keys = device(client, ann["token"])
    upgrade(client, keys["access_token"], "ann@example.org")
    meta = sign_in(Client(), "ann@example.org")
    me = call(client, "get", "/api/v1/players/me/", key=meta["access_token"]).json()
    assert (me["id"], me["display_name"]) == (ann["id"], "Ann")
    # The guest key still works, and so does the device that changed the password.
    assert (
        call(client, "get", "/api/v1/players/me/", key=ann["token"], scheme="Token").status_code
        == 200
    )
    assert call(client, "get", "/api/v1/players/me/", key=keys["access_token"]).status_code == 200


def test_a_new_password_signs_the_other_devices_out(client: Client) -> None:
    ann = guest(client)
    keys = device(client, ann["token"])
    upgrade(client, keys["access_token"], "ann@example.org")
    other = sign_in(Client(), "ann@example.org")
    response = call(
        client,
        "post",
        "/_allauth/app/v1/account/password/change",
        {"current_password": PASSWORD, "new_password": PASSWORD + "-new"},
        keys["access_token"],
    )
    assert response.status_code == 200, response.content
    assert call(client, "get", "/api/v1/players/me/", key=other["access_token"]).status_code == 401
    assert call(client, "get", "/api/v1/players/me/", key=keys["access_token"]).status_code == 200
    # The device that changed it follows its sign-in's new Django session at allauth too.
    session = call(client, "get", "/_allauth/app/v1/auth/session", key=keys["access_token"])
    assert session.status_code == 200, session.content


def test_the_sessions_list_names_each_sign_in_and_ends_one(client: Client) -> None:
    ann = guest(client)
    first = device(client, ann["token"], "phone")
    second = device(client, ann["token"], "tablet")
    listed = call(client, "get", "/api/v1/account/sessions/", key=first["access_token"]).json()
    by_id = {row["id"]: row for row in listed}
    assert by_id[first["session_id"]]["current"] is True
    assert by_id[first["session_id"]]["device"] == "phone"
    assert by_id[second["session_id"]]["current"] is False
    assert [row["kind"] for row in listed].count("guest") == 1
    response = call(
        client,
        "delete",
        f"/api/v1/account/sessions/{second['session_id']}/",
        key=first["access_token"],
    )
    assert response.status_code == 204
    assert call(client, "get", "/api/v1/players/me/", key=second["access_token"]).status_code == 401
    assert call(client, "get", "/api/v1/players/me/", key=first["access_token"]).status_code == 200
    again = call(
        client,
        "delete",
        f"/api/v1/account/sessions/{second['session_id']}/",
        key=first["access_token"],
    )
    assert (again.status_code, again.json()["code"]) == (404, "session_not_found")


def test_someone_elses_session_cannot_be_ended(client: Client) -> None:
    ann, bob = guest(client, "Ann"), guest(client, "Bob")
    anns = device(client, ann["token"])
    response = call(
        client,
        "delete",
        f"/api/v1/account/sessions/{anns['session_id']}/",
        key=bob["token"],
        scheme="Token",
    )
    assert (response.status_code, response.json()["code"]) == (404, "session_not_found")
    assert call(client, "get", "/api/v1/players/me/", key=anns["access_token"]).status_code == 200


def test_only_a_guest_key_opens_a_device_session_this_way(client: Client) -> None:
    ann = guest(client)
    keys = device(client, ann["token"])
    before = DeviceSession.objects.count()
    response = call(client, "post", "/api/v1/account/sessions/", {}, keys["access_token"])
    assert (response.status_code, response.json()["code"]) == (403, "guest_key_required")
    assert DeviceSession.objects.count() == before


def test_a_personal_token_is_shown_once_listed_without_it_and_revoked(client: Client) -> None:
    ann = guest(client)
    made = call(
        client,
        "post",
        "/api/v1/account/tokens/",
        {"name": "my bot", "scopes": ["bot:play"], "days": 30},
        ann["token"],
        "Token",
    )
    assert made.status_code == 201, made.content
    token = made.json()
    assert token["token"].startswith("cpt_") and token["scopes"] == ["bot:play"]
    listed = call(client, "get", "/api/v1/account/tokens/", key=ann["token"], scheme="Token").json()
    assert [row["id"] for row in listed] == [token["id"]] and "token" not in listed[0]
    # A token cannot manage tokens (account:write is never given).
    refused = call(client, "get", "/api/v1/account/tokens/", key=token["token"])
    assert (refused.status_code, refused.json()["code"]) == (403, "insufficient_scope")
    assert (
        call(
            client,
            "delete",
            f"/api/v1/account/tokens/{token['id']}/",
            key=ann["token"],
            scheme="Token",
        ).status_code
        == 204
    )
    assert call(client, "get", "/api/v1/players/me/", key=token["token"]).status_code == 401


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"name": "t", "scopes": ["account:write"]}, "scope_invalid"),
        ({"name": "t", "scopes": ["root"]}, "scope_invalid"),
        ({"name": "t", "scopes": []}, "invalid_request"),
        ({"name": "", "scopes": ["play"]}, "invalid_request"),
        ({"name": "t", "scopes": ["play"], "days": 0}, "invalid_request"),
    ],
)
def test_a_bad_token_request_is_refused_and_makes_nothing(
    client: Client, body: dict[str, Any], code: str
) -> None:
    ann = guest(client)
    response = call(client, "post", "/api/v1/account/tokens/", body, ann["token"], "Token")
    assert (response.status_code, response.json()["code"]) == (400, code)
    assert not Credential.objects.filter(kind="personal").exists()


def test_a_guest_adds_a_passkey_without_re_authenticating(client: Client) -> None:
    ann = guest(client)
    keys = device(client, ann["token"])
    response = call(
        client,
        "get",
        "/_allauth/app/v1/account/authenticators/webauthn?passwordless",
        key=keys["access_token"],
    )
    assert response.status_code == 200, response.content
    options = response.json()["data"]["creation_options"]["publicKey"]
    assert options["authenticatorSelection"]["residentKey"] == "required"  # a passkey


def test_someone_with_a_password_re_authenticates_before_adding_a_passkey(client: Client) -> None:
    ann = guest(client)
    keys = device(client, ann["token"])
    upgrade(client, keys["access_token"], "ann@example.org")
    # The upgraded device never signed in with the password: it must re-authenticate.
    response = call(
        client, "get", "/_allauth/app/v1/account/authenticators/webauthn", key=keys["access_token"]
    )
    assert response.status_code == 401
    assert any(f["id"] == "reauthenticate" for f in response.json()["data"]["flows"])
