"""Third-party apps through the OpenID Connect provider (allauth.idp.oidc, accounts/oidc_*.py).

Everything goes through Django's test client as a browser and an app would: the person signs
in through the headless browser API (/_allauth/browser/v1/auth/login), the app is registered
with ``manage.py oidc_client_create``, and the tokens it gets call the service's API.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import re
import secrets
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from allauth.account.models import EmailAddress
from allauth.idp.oidc.models import Client as OIDCClient
from allauth.idp.oidc.models import Token
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from canasta_service.oidc_key import generate_pem

AUTHORIZE = "/identity/o/authorize"
TOKEN = "/identity/o/api/token"
REVOKE = "/identity/o/api/revoke"
DEVICE_CODE = "/identity/o/api/device/code"
DEVICE_PAGE = "/identity/o/device"
REDIRECT = "https://scores.example.com/callback"
PASSWORD = "a long passphrase 4 tests"

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def signing_key() -> str:
    return generate_pem()


@pytest.fixture(autouse=True)
def provider_on(settings: Any, signing_key: str) -> None:
    settings.IDP_OIDC_PRIVATE_KEY = signing_key


# ----------------------------------------------------------------------------- helpers
def person(email: str = "ada@example.com") -> Any:
    user = get_user_model().objects.create_user(
        username=f"user-{secrets.token_hex(4)}", email=email, password=PASSWORD
    )
    EmailAddress.objects.create(user=user, email=email, verified=True, primary=True)
    return user


def browser_signed_in(email: str = "ada@example.com") -> Client:
    """A browser signed in as the web client signs in (the headless browser API)."""
    browser = Client()
    response = browser.post(
        "/_allauth/browser/v1/auth/login",
        {"email": email, "password": PASSWORD},
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    return browser


def register(*args: str) -> dict[str, str]:
    out = io.StringIO()
    call_command("oidc_client_create", *args, stdout=out)
    fields = {}
    for line in out.getvalue().splitlines():
        name, _, value = line.partition(": ")
        fields[name] = value
    return fields


def public_app(*extra: str, scopes: str = "openid profile:read play") -> str:
    return register(
        "--name", "Scorekeeper", "--redirect-uri", REDIRECT, "--scopes", scopes, "--public", *extra
    )["client_id"]


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def authorize_query(client_id: str, challenge: str | None, **extra: str) -> str:
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": REDIRECT,
        "scope": "openid profile:read play",
        "state": "st4te",
        **extra,
    }
    if challenge is not None:
        params.update(code_challenge=challenge, code_challenge_method="S256")
    return f"{AUTHORIZE}?{urlencode(params)}"


def consent(browser: Client, url: str, granted: list[str]) -> dict[str, list[str]]:
    """Open the consent page, grant ``granted``; the redirect's query parameters."""
    page = browser.get(url)
    assert page.status_code == 200, page.content
    text = page.content.decode()
    signed = re.search(r'name="request" value="([^"]+)"', text)
    assert signed, text
    answer = browser.post(
        AUTHORIZE,
        {"request": html.unescape(signed.group(1)), "scopes": granted, "action": "grant"},
    )
    assert answer.status_code == 302, answer.content
    location = answer["Location"]
    assert location.startswith(REDIRECT + "?"), location
    return parse_qs(urlsplit(location).query)


def code_for(browser: Client, client_id: str, granted: list[str]) -> tuple[str, str]:
    verifier, challenge = pkce()
    query = consent(browser, authorize_query(client_id, challenge), granted)
    assert query["state"] == ["st4te"]
    return query["code"][0], verifier


def exchange(client_id: str, code: str, verifier: str | None, **extra: str) -> Any:
    data = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT,
        "client_id": client_id,
        **extra,
    }
    if verifier is not None:
        data["code_verifier"] = verifier
    return form(Client(), TOKEN, data)


def form(client: Client, path: str, data: dict[str, str]) -> Any:
    """A POST as OAuth clients send it (application/x-www-form-urlencoded)."""
    return client.post(path, urlencode(data), content_type="application/x-www-form-urlencoded")


def api(token: str) -> Client:
    return Client(headers={"Authorization": f"Bearer {token}"})


# ----------------------------------------------------------------------------- the code flow
def test_authorization_code_with_pkce_gives_the_consented_scopes_and_calls_the_api() -> None:
    person()
    browser = browser_signed_in()
    client_id = public_app()
    # The person consents to reading their profile, not to playing.
    code, verifier = code_for(browser, client_id, ["openid", "profile:read"])
    answer = exchange(client_id, code, verifier)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert set(body["scope"].split()) == {"openid", "profile:read"}
    assert body["id_token"] and body["refresh_token"]
    stored = Token.objects.get(type=Token.Type.ACCESS_TOKEN)
    assert set(stored.get_scopes()) == {"openid", "profile:read"}
    # Stored as a digest, never as the token itself.
    assert stored.hash == hashlib.sha256(body["access_token"].encode()).hexdigest()
    assert not Token.objects.filter(hash=body["access_token"]).exists()

    me = api(body["access_token"]).get("/api/v1/players/me/")
    assert me.status_code == 200, me.content
    table = api(body["access_token"]).post(
        "/api/v1/games/", {"preset": "two_player"}, content_type="application/json"
    )
    assert table.status_code == 403, table.content
    assert table.json()["code"] == "insufficient_scope"
    # A code is good once.
    again = exchange(client_id, code, verifier)
    assert again.status_code == 400
    assert again.json()["error"] == "invalid_grant"


def test_the_consent_page_names_the_scopes_and_signed_out_visitors_go_to_the_web_client() -> None:
    person()
    client_id = public_app()
    _verifier, challenge = pkce()
    url = authorize_query(client_id, challenge)
    visitor = Client()
    first = visitor.get(url)
    assert first.status_code == 302
    assert first["Location"].startswith("/identity/signin?next=")
    second = visitor.get(first["Location"])
    assert second.status_code == 302
    location = second["Location"]
    assert location.startswith("http://testserver/#/account/signin?next=")
    back = parse_qs(urlsplit(location.split("#", 1)[1]).query)["next"][0]
    assert back == url
    # Signed in (same browser), the way back leads to the consent page.
    visitor.post(
        "/_allauth/browser/v1/auth/login",
        {"email": "ada@example.com", "password": PASSWORD},
        content_type="application/json",
    )
    page = visitor.get(back)
    assert page.status_code == 200
    text = page.content.decode()
    assert "Scorekeeper" in text
    assert "Create, join and play games" in text  # the play scope's description


def test_sign_in_page_never_sends_a_visitor_elsewhere() -> None:
    for next_url in ("https://evil.example/", "//evil.example/x", "/api/v1/players/me/"):
        answer = Client().get("/identity/signin", {"next": next_url})
        assert answer["Location"] == "http://testserver/#/account/signin?next="


@pytest.mark.parametrize(
    "redirect_uri",
    [
        "https://scores.example.com/call",  # a prefix
        "https://scores.example.com/callback/more",  # a longer path
        "https://scores.example.com:8443/callback",  # another port
        "https://scores.example.com/callback?next=/elsewhere",  # extra query parameters
        "http://scores.example.com/callback",  # another scheme
        "https://scores.example.com.evil.example/callback",  # another host
    ],
)
def test_a_redirect_uri_not_registered_exactly_is_refused(redirect_uri: str) -> None:
    person()
    browser = browser_signed_in()
    client_id = public_app()
    _verifier, challenge = pkce()
    answer = browser.get(authorize_query(client_id, challenge, redirect_uri=redirect_uri))
    assert answer.status_code == 400
    assert "Location" not in answer
    assert not Token.objects.exists()


def test_loopback_redirect_uris_may_name_any_port() -> None:
    from accounts.oidc_views import redirect_uri_registered

    registered = ["http://127.0.0.1/cb", "https://app.example/cb"]
    assert redirect_uri_registered("http://127.0.0.1:53121/cb", registered)
    assert redirect_uri_registered("https://app.example/cb", registered)
    assert not redirect_uri_registered("http://127.0.0.1:53121/cb/x", registered)
    assert not redirect_uri_registered("http://127.0.0.1:53121/cb?x=1", registered)
    assert not redirect_uri_registered("https://app.example:444/cb", registered)
    assert not redirect_uri_registered("http://localhost:5000/cb", registered)


def test_a_public_client_needs_pkce() -> None:
    person()
    browser = browser_signed_in()
    client_id = public_app()
    # No code challenge: the authorization request is refused (back to the app, with an error).
    answer = browser.get(authorize_query(client_id, None))
    assert answer.status_code == 302
    assert parse_qs(urlsplit(answer["Location"]).query)["error"] == ["invalid_request"]
    # A challenge, but no verifier at the token endpoint: refused, and no token is issued.
    code, _verifier = code_for(browser, client_id, ["openid", "profile:read"])
    missing = exchange(client_id, code, None)
    assert missing.status_code == 400
    assert missing.json()["error"] == "invalid_request"
    wrong = exchange(client_id, code, pkce()[0])
    assert wrong.status_code == 400
    assert not Token.objects.filter(type=Token.Type.ACCESS_TOKEN).exists()


def test_refresh_rotates_and_the_old_refresh_token_is_refused() -> None:
    person()
    browser = browser_signed_in()
    client_id = public_app()
    code, verifier = code_for(browser, client_id, ["profile:read"])
    first = exchange(client_id, code, verifier).json()
    refreshed = form(
        Client(),
        TOKEN,
        {
            "grant_type": "refresh_token",
            "refresh_token": first["refresh_token"],
            "client_id": client_id,
        },
    )
    assert refreshed.status_code == 200, refreshed.content
    second = refreshed.json()
    assert second["refresh_token"] != first["refresh_token"]
    assert second["scope"] == "profile:read"
    assert api(second["access_token"]).get("/api/v1/players/me/").status_code == 200
    replay = form(
        Client(),
        TOKEN,
        {
            "grant_type": "refresh_token",
            "refresh_token": first["refresh_token"],
            "client_id": client_id,
        },
    )
    assert replay.status_code == 400
    assert replay.json()["error"] == "invalid_grant"


def test_a_revoked_token_is_refused_by_the_api() -> None:
    person()
    browser = browser_signed_in()
    client_id = public_app()
    code, verifier = code_for(browser, client_id, ["profile:read"])
    tokens = exchange(client_id, code, verifier).json()
    assert api(tokens["access_token"]).get("/api/v1/players/me/").status_code == 200
    revoked = form(
        Client(),
        REVOKE,
        {
            "token": tokens["access_token"],
            "token_type_hint": "access_token",
            "client_id": client_id,
        },
    )
    assert revoked.status_code == 200, revoked.content
    answer = api(tokens["access_token"]).get("/api/v1/players/me/")
    assert answer.status_code == 401
    # Revoking the refresh token also ends the access tokens of its grant.
    code, verifier = code_for(browser, client_id, ["profile:read"])
    tokens = exchange(client_id, code, verifier).json()
    form(Client(), REVOKE, {"token": tokens["refresh_token"], "client_id": client_id})
    assert api(tokens["access_token"]).get("/api/v1/players/me/").status_code == 401


def test_prompt_login_for_a_signed_in_person_answers_login_required() -> None:
    person()
    browser = browser_signed_in()
    client_id = public_app()
    _verifier, challenge = pkce()
    answer = browser.get(authorize_query(client_id, challenge, prompt="login"))
    assert answer.status_code == 302
    query = parse_qs(urlsplit(answer["Location"]).query)
    assert answer["Location"].startswith(REDIRECT)
    assert query["error"] == ["login_required"] and query["state"] == ["st4te"]
    # Signed out, the person signs in (and is brought back without the prompt).
    signed_out = Client().get(authorize_query(client_id, challenge, prompt="login"))
    assert signed_out.status_code == 302
    back = parse_qs(urlsplit(signed_out["Location"]).query)["next"][0]
    assert back.startswith(AUTHORIZE) and "prompt" not in back


# ----------------------------------------------------------------------------- the device grant
def test_device_grant_gives_a_token_once_the_person_approves(settings: Any) -> None:
    settings.IDP_OIDC_DEVICE_CODE_INTERVAL = 0  # poll as fast as the test likes
    person()
    client_id = register(
        "--name", "Table bot", "--scopes", "bot:play profile:read", "--public", "--device"
    )["client_id"]
    app = Client()
    # Only scopes the client was registered with.
    refused = form(app, DEVICE_CODE, {"client_id": client_id, "scope": "bot:play play"})
    assert refused.status_code == 400
    assert refused.json()["error"] == "invalid_scope"
    started = form(app, DEVICE_CODE, {"client_id": client_id, "scope": "bot:play"})
    assert started.status_code == 200, started.content
    device = started.json()
    assert device["verification_uri"] == f"http://testserver{DEVICE_PAGE}"
    poll = {
        "grant_type": "urn:ietf:params:oauth:grant-type:device_code",
        "device_code": device["device_code"],
        "client_id": client_id,
    }
    pending = form(app, TOKEN, poll)
    assert pending.status_code == 400
    assert pending.json()["error"] == "authorization_pending"

    # A visitor who is not signed in is sent to sign in first.
    assert Client().get(DEVICE_PAGE)["Location"].startswith("/identity/signin?next=")
    browser = browser_signed_in()
    page = browser.get(DEVICE_PAGE, {"code": device["user_code"]})
    assert page.status_code == 200
    assert "Table bot" in page.content.decode()
    approved = browser.post(
        f"{DEVICE_PAGE}?{urlencode({'code': device['user_code']})}", {"action": "confirm"}
    )
    assert approved.status_code == 200

    granted = form(app, TOKEN, poll)
    assert granted.status_code == 200, granted.content
    body = granted.json()
    assert body["scope"] == "bot:play"
    assert api(body["access_token"]).get("/api/v1/players/me/").status_code == 200
    # The device code is spent.
    assert form(app, TOKEN, poll).status_code == 400


# ----------------------------------------------------------------------------- registration
def test_registering_a_confidential_client_prints_its_secret_once() -> None:
    fields = register(
        "--name", "Scores site", "--redirect-uri", REDIRECT, "--scopes", "openid,profile:read"
    )
    client = OIDCClient.objects.get(id=fields["client_id"])
    assert client.type == OIDCClient.Type.CONFIDENTIAL
    assert client.get_scopes() == ["openid", "profile:read"]
    assert client.get_redirect_uris() == [REDIRECT]
    assert client.secret != fields["client_secret"] and client.check_secret(fields["client_secret"])
    assert "urn:ietf:params:oauth:grant-type:device_code" not in client.get_grant_types()


@pytest.mark.parametrize(
    "args",
    [
        ["--scopes", "account:write"],  # never grantable
        ["--scopes", "*"],
        ["--scopes", "profile:read", "--device"],  # a device flow needs a public client
        ["--scopes", "profile:read", "--redirect-uri", "http://scores.example.com/cb"],
        ["--scopes", "profile:read", "--redirect-uri", "https://scores.example.com/cb#x"],
        ["--scopes", "profile:read", "--redirect-uri", "https://*.example.com/cb"],
    ],
)
def test_registration_refuses_what_a_client_may_not_have(args: list[str]) -> None:
    if "--redirect-uri" not in args and "--device" not in args:
        args = [*args, "--redirect-uri", REDIRECT]
    with pytest.raises(CommandError):
        register("--name", "Bad", *args)
    assert not OIDCClient.objects.exists()


def test_discovery_lists_the_service_scopes() -> None:
    config = Client().get("/.well-known/openid-configuration").json()
    assert {"openid", "profile:read", "play", "bot:play"} <= set(config["scopes_supported"])
    assert "account:write" not in config["scopes_supported"]
    assert config["code_challenge_methods_supported"] == ["S256"]


def test_without_a_signing_key_the_provider_is_off(settings: Any) -> None:
    settings.IDP_OIDC_PRIVATE_KEY = ""
    for path in ("/.well-known/openid-configuration", AUTHORIZE, DEVICE_PAGE):
        answer = Client().get(path)
        assert answer.status_code == 503
        assert answer.json()["code"] == "identity_provider_unavailable"
    assert form(Client(), TOKEN, {}).status_code == 503


def test_signing_out_everywhere_ends_the_apps_tokens_too() -> None:
    from django.contrib.auth.models import User

    from accounts.services.credentials import credentials_revoke_all

    person()
    browser = browser_signed_in()
    client_id = public_app()
    code, verifier = code_for(browser, client_id, ["profile:read"])
    tokens = exchange(client_id, code, verifier).json()
    assert api(tokens["access_token"]).get("/api/v1/players/me/").status_code == 200
    credentials_revoke_all(User.objects.get())
    assert api(tokens["access_token"]).get("/api/v1/players/me/").status_code == 401
    refreshed = form(
        Client(),
        TOKEN,
        {
            "grant_type": "refresh_token",
            "refresh_token": tokens["refresh_token"],
            "client_id": client_id,
        },
    )
    assert refreshed.status_code == 400


def test_the_connected_apps_are_listed_and_one_is_disconnected() -> None:
    from accounts.services.credentials import guest_key_issue

    ada = person()
    key = guest_key_issue(ada)
    browser = browser_signed_in()
    client_id = public_app()
    code, verifier = code_for(browser, client_id, ["profile:read"])
    tokens = exchange(client_id, code, verifier).json()
    listed = api(key).get("/api/v1/account/apps/", HTTP_AUTHORIZATION=f"Token {key}").json()
    assert [(app["client_id"], app["scopes"]) for app in listed] == [(client_id, ["profile:read"])]
    # An app's own token cannot see or disconnect apps (account:write).
    refused = api(tokens["access_token"]).get("/api/v1/account/apps/")
    assert (refused.status_code, refused.json()["code"]) == (403, "insufficient_scope")
    gone = Client().delete(f"/api/v1/account/apps/{client_id}/", HTTP_AUTHORIZATION=f"Token {key}")
    assert gone.status_code == 204
    assert api(tokens["access_token"]).get("/api/v1/players/me/").status_code == 401
    again = Client().delete(f"/api/v1/account/apps/{client_id}/", HTTP_AUTHORIZATION=f"Token {key}")
    assert (again.status_code, again.json()["code"]) == (404, "connected_app_not_found")
