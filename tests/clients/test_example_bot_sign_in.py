"""How the example bot (examples/bot/canasta_bot.py) signs in: a personal access token from
``CANASTA_TOKEN`` (sent as Bearer), or ``--device-login``, the device authorization grant run
against the service's OpenID Connect provider (here in-process: the bot's HTTP requests go to
Django's test client, and the person approves the code through their browser session while
the bot polls)."""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import httpx
import pytest
from django.test import Client

from canasta_service.oidc_key import generate_pem
from tests.accounts.test_oidc import DEVICE_PAGE, TOKEN, browser_signed_in, person, register
from tests.clients.conftest import ROOT

pytestmark = [pytest.mark.python_client, pytest.mark.django_db]

BOT = ROOT / "examples" / "bot" / "canasta_bot.py"


@pytest.fixture
def bot(client_package: ModuleType, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("canasta_bot_under_test", BOT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(module.time, "sleep", lambda seconds: None)
    yield module


def test_a_personal_access_token_is_sent_as_bearer(
    bot: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, Any] = {}
    monkeypatch.setenv("CANASTA_TOKEN", "cnt_secret")
    monkeypatch.setattr(
        bot, "play_one_game", lambda server, token, prefix, *rest: seen.update(key=(token, prefix))
    )
    bot.main(["--server", "http://testserver", "--code", "ABCD2345"])
    assert seen["key"] == ("cnt_secret", "Bearer")


def test_without_any_way_in_the_bot_says_what_it_needs(
    bot: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("CANASTA_TOKEN", raising=False)
    with pytest.raises(SystemExit):
        bot.main(["--server", "http://testserver", "--code", "ABCD2345"])
    assert "CANASTA_TOKEN, --device-login" in capsys.readouterr().err


def test_device_login_gets_a_bot_play_token(
    bot: ModuleType, monkeypatch: pytest.MonkeyPatch, settings: Any, capsys: Any
) -> None:
    settings.IDP_OIDC_PRIVATE_KEY = generate_pem()
    settings.IDP_OIDC_DEVICE_CODE_INTERVAL = 0  # the test polls at once (sleep is a no-op)
    person()
    client_id = register("--name", "My bot", "--scopes", "bot:play", "--public", "--device")[
        "client_id"
    ]
    app = Client()
    shown: dict[str, str] = {}
    polls: list[str] = []

    def handle(request: httpx.Request) -> httpx.Response:
        path = request.url.raw_path.decode()
        answer = app.generic(
            request.method,
            path,
            request.content,
            content_type=request.headers.get("content-type", ""),
        )
        if path.endswith("/device/code") and answer.status_code == 200:
            shown["user_code"] = answer.json()["user_code"]
        if path == TOKEN:
            polls.append(answer.json().get("error", "token"))
            if answer.status_code == 400 and len(polls) == 1:
                # While the bot waits, the person approves the code in their browser.
                browser = browser_signed_in()
                url = f"{DEVICE_PAGE}?code={shown['user_code']}"
                assert browser.post(url, {"action": "confirm"}).status_code == 200
        return httpx.Response(
            answer.status_code,
            content=answer.content,
            headers={"content-type": answer["Content-Type"]},
        )

    real_client = httpx.Client
    monkeypatch.setattr(
        bot.httpx,
        "Client",
        lambda **kwargs: real_client(transport=httpx.MockTransport(handle), **kwargs),
    )
    token = bot.device_login("http://testserver", client_id)
    assert polls == ["authorization_pending", "token"]
    out = capsys.readouterr().out
    assert f"enter the code {shown['user_code']}" in out and DEVICE_PAGE in out
    me = Client(headers={"Authorization": f"Bearer {token}"}).get("/api/v1/players/me/")
    assert me.status_code == 200, me.content
