"""Accounts in the web client, in headless Chromium against the in-process live server (its
e-mails land in Django's outbox, where the codes are read): sign-up by e-mail and password with
the verification code, sign-out and sign-in by password, a passkey registered on the account
page and used to sign in with no name typed (Chromium's virtual authenticator over the DevTools
protocol: CTAP2, internal transport, resident keys, user verification), a password reset by
code; and a guest who keeps the account (an e-mail verified and a password set through the app
endpoints with the device session its guest key opens) and then signs in by the browser flow
as the same player. The browser flow is cookies and CSRF: no key is kept in the page."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core import mail

from accounts.models import Player
from tests.web.conftest import axe_violations, describe_violations
from tests.web.test_client import expect, fits_the_phone, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "tilted-canasta-at-dawn-41"
CODE = re.compile(r"^\s*([A-Z0-9]{3,8}(?:-[A-Z0-9]{3,8})?)\s*$", re.MULTILINE)


@pytest.fixture(autouse=True)
def webauthn_on_http(settings: Any) -> None:
    """The live server is http://localhost (a secure context for the browser); the relying
    party accepts its origin as in development."""
    settings.MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = True


def last_code(address: str) -> str:
    sent = [m for m in mail.outbox if address in m.to]
    assert sent, [m.to for m in mail.outbox]
    found = CODE.search(str(sent[-1].body))
    assert found, sent[-1].body
    return found.group(1)


def virtual_authenticator(context: Any, page: Any) -> tuple[Any, str]:
    cdp = context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    added = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
            }
        },
    )
    return cdp, added["authenticatorId"]


def keys_in_page(page: Any) -> dict[str, Any]:
    return page.evaluate(
        "({token: localStorage.getItem('canasta.token'),"
        " browser: localStorage.getItem('canasta.browser')})"
    )


def sign_in_with_password(
    page: Any, base: str, email: str, password: str, second_factor: bool = False
) -> None:
    page.goto(base + "/#/account/signin")
    page.get_by_test_id("signin-email").fill(email)
    page.get_by_test_id("signin-password").fill(password)
    page.get_by_test_id("signin-submit").click()
    if second_factor:
        expect(page.get_by_test_id("auth-title")).to_have_text("Second step")
        page.get_by_test_id("second-factor-passkey").click()
    expect(page.get_by_test_id("create-form")).to_be_visible()


def test_sign_up_verify_sign_out_in_passkey_and_reset(
    live_server: Any, browser_context: Any, page: Any, js_errors: list[str], shots: Any
) -> None:
    base = live_server.url
    assert base.startswith("http://localhost"), base  # a secure context, the passkeys' RP id
    cdp, authenticator = virtual_authenticator(browser_context, page)

    # Sign up: e-mail, display name, password; the code from the e-mail.
    page.goto(base + "/")
    page.get_by_test_id("to-signup").click()
    expect(page.get_by_test_id("auth-title")).to_have_text("Create an account")
    page.get_by_test_id("signup-email").fill("ada@example.org")
    page.get_by_test_id("signup-name").fill("Ada")
    page.get_by_test_id("signup-password").fill(PASSWORD)
    page.get_by_test_id("signup-submit").click()
    expect(page.get_by_test_id("auth-title")).to_have_text("Verify your e-mail")
    expect(page.get_by_test_id("auth-code")).to_be_focused()
    assert not describe_violations(axe_violations(page))
    shots(page, "account-verify")
    page.get_by_test_id("auth-code").fill(last_code("ada@example.org"))
    page.get_by_test_id("code-submit").click()
    expect(page.get_by_test_id("create-form")).to_be_visible()
    expect(page.locator("h1.game-title")).to_have_text("Hello, Ada")
    assert keys_in_page(page) == {"token": None, "browser": "1"}
    ada = Player.objects.get(display_name="Ada")
    from allauth.account.models import EmailAddress

    assert EmailAddress.objects.get(user=ada.user).verified

    # The account page: the verified address, this browser among the sign-ins; a passkey.
    page.get_by_test_id("nav-account").click()
    expect(page.get_by_test_id("email-state")).to_have_text("verified, primary")
    expect(page.locator("[data-testid=signin][data-current=true]")).to_contain_text("this one")
    expect(page.get_by_test_id("no-passkeys")).to_be_visible()
    page.get_by_test_id("passkey-name").fill("Test key")
    page.get_by_test_id("passkey-add").click()
    # Signed in by the e-mail's code: adding a passkey asks for the password first.
    expect(page.get_by_test_id("reauth-password")).to_be_visible()
    page.get_by_test_id("reauth-password").fill(PASSWORD)
    page.get_by_test_id("reauth-submit").click()
    expect(page.get_by_test_id("passkey")).to_contain_text("Test key")
    held = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    assert [c["isResidentCredential"] for c in held] == [True]  # a discoverable credential
    assert fits_the_phone(page)
    assert not describe_violations(axe_violations(page))
    shots(page, "account", full_page=True)

    # Sign out; sign in by password; sign out from the lobby.
    page.get_by_test_id("sign-out").click()
    expect(page.get_by_test_id("auth-title")).to_have_text("Sign in")
    expect(page.get_by_test_id("auth-message")).to_have_text("You are signed out.")
    assert keys_in_page(page) == {"token": None, "browser": None}
    # With a passkey the account has two factors: the password, then the passkey.
    sign_in_with_password(page, base, "ada@example.org", PASSWORD, second_factor=True)
    page.get_by_test_id("home-sign-out").click()
    expect(page.locator("#display-name")).to_be_visible()

    # Sign in with the passkey: no e-mail typed.
    page.get_by_test_id("to-signin").click()
    page.get_by_test_id("signin-passkey").click()
    expect(page.get_by_test_id("create-form")).to_be_visible()
    expect(page.locator("h1.game-title")).to_have_text("Hello, Ada")
    page.get_by_test_id("home-sign-out").click()
    # Signed out before going on (else the sign-out's redraw may land on the reset form).
    expect(page.locator("#display-name")).to_be_visible()
    # A forgotten password, reset by code.
    page.goto(base + "/#/account/signin")
    page.get_by_test_id("to-reset").click()
    page.get_by_test_id("reset-email").fill("ada@example.org")
    page.get_by_test_id("reset-request").click()
    expect(page.get_by_test_id("auth-title")).to_have_text("Type the code and a new password")
    page.get_by_test_id("reset-code").fill(last_code("ada@example.org"))
    page.get_by_test_id("reset-password").fill(PASSWORD + "-new")
    page.get_by_test_id("reset-submit").click()
    expect(page.get_by_test_id("auth-message")).to_contain_text("Your password is changed")
    page.get_by_test_id("signin-password").fill(PASSWORD + "-new")
    page.get_by_test_id("signin-submit").click()
    page.get_by_test_id("second-factor-passkey").click()
    expect(page.get_by_test_id("create-form")).to_be_visible()
    assert js_errors == []


def test_a_guest_keeps_the_account_and_signs_in_by_the_browser_flow(
    live_server: Any, page: Any, js_errors: list[str]
) -> None:
    base = live_server.url
    sign_up(page, base, "Gus")
    gus = Player.objects.get(display_name="Gus")
    assert keys_in_page(page)["token"]

    page.get_by_test_id("nav-account").click()
    expect(page.get_by_test_id("keep-panel")).to_be_visible()
    page.get_by_test_id("keep-email").click()
    expect(page.get_by_test_id("email-add")).to_be_focused()
    page.get_by_test_id("email-add").fill("gus@example.org")
    page.get_by_test_id("email-add-submit").click()
    expect(page.get_by_test_id("email-code")).to_be_focused()
    page.get_by_test_id("email-code").fill(last_code("gus@example.org"))
    page.get_by_test_id("email-verify").click()
    expect(page.get_by_test_id("email-state")).to_have_text("verified, primary")
    expect(page.get_by_test_id("password-new")).to_be_focused()
    page.get_by_test_id("password-new").fill(PASSWORD)
    page.get_by_test_id("password-submit").click()
    expect(page.get_by_test_id("password-message")).to_contain_text("your account is kept")
    expect(page.get_by_test_id("keep-panel")).to_have_count(0)
    # The device session the guest key opened is listed among the sign-ins.
    expect(page.get_by_test_id("signin")).to_have_count(2)

    page.get_by_test_id("sign-out").click()
    expect(page.get_by_test_id("auth-title")).to_have_text("Sign in")
    sign_in_with_password(page, base, "gus@example.org", PASSWORD)
    expect(page.locator("h1.game-title")).to_have_text("Hello, Gus")
    assert keys_in_page(page) == {"token": None, "browser": "1"}
    assert page.evaluate("localStorage.getItem('canasta.playerId')") == str(gus.pk)
    assert js_errors == []
