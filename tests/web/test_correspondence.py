"""Correspondence play and notifications in the web client, in headless Chromium: a table
with a 3-day turn limit made with the form, "My games" listing it with "Your turn" and the time
left, a pause proposed, declined, proposed again, accepted and resumed between two browsers
(each sees the other's step, read from the game's ``pause`` after the live feed's facts), the
notification settings saved and read back, a webhook registered (its secret shown once) and
removed, and Web Push: the client asks for permission, registers its service worker, subscribes
with the server's VAPID key and registers the subscription; a push delivered to that service
worker (Chromium's DevTools protocol, ``ServiceWorker.deliverPushMessage``: a real push event)
is shown as a notification.

Headless Chromium has no push service to reach here (``pushManager.subscribe`` never settles
without the network), so the browser's ``PushManager`` is given a subscription the test made (a
real P-256 key and auth secret at an https endpoint); everything else is the real browser and
server: permission, the service worker, the VAPID key, the subscription POSTed from toJSON().
The worker's click handler (focus or open the game) is unit-tested (web/test/notifications)."""

from __future__ import annotations

import base64
import json
import os
import re
from typing import Any

import pytest

from accounts.models import Player
from games.models import Game
from notifications.models import GameMute, NotificationSettings, PushSubscription, WebhookEndpoint
from tests.web.test_client import expect, fits_the_phone, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

THREE_DAYS = 3 * 86400


def open_page(context: Any, errors: list[str]) -> Any:
    page = context.pages[0] if context.pages else context.new_page()
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return page


def correspondence_table(ada: Any, bea: Any, base: str) -> tuple[int, Any, Any]:
    """Ada makes a two-player table with a 3-day turn limit, Bea joins it by its code, Ada
    starts it. Returns the game id, and the page of the player to act and of the other."""
    sign_up(ada, base, "Ada")
    ada.select_option("#preset", "two_player")
    ada.select_option("#seat-1", "open")
    ada.select_option("#turn-seconds", str(THREE_DAYS))
    expect(ada.get_by_test_id("turn-seconds-help")).to_contain_text(
        "Correspondence: 3 days per turn"
    )
    ada.get_by_test_id("create-game").click()
    expect(ada.get_by_test_id("lobby")).to_be_visible()
    code = ada.get_by_test_id("join-code").inner_text()
    game_id = int(ada.url.rstrip("/").rsplit("/", 1)[1])
    assert Game.objects.get(pk=game_id).turn_seconds == THREE_DAYS

    sign_up(bea, base, "Bea")
    bea.fill("#join-code", code)
    bea.get_by_test_id("join-game").click()
    expect(bea.get_by_test_id("lobby")).to_be_visible()
    ada.get_by_test_id("start-game").click()
    expect(ada.get_by_test_id("table")).to_be_visible()
    expect(bea.get_by_test_id("table")).to_be_visible()

    game = Game.objects.get(pk=game_id)
    ada_seat = 0 if game.to_act == 0 else 1  # Ada sits at seat 0 (she made the table)
    return (game_id, ada, bea) if ada_seat == game.to_act else (game_id, bea, ada)


def test_my_games_and_a_pause_between_two_players(
    live_server: Any, new_context: Any, shots: Any
) -> None:
    errors: list[str] = []
    ada, bea = open_page(new_context(), errors), open_page(new_context(), errors)
    game_id, first, second = correspondence_table(ada, bea, live_server.url)
    first_name = "Ada" if first is ada else "Bea"
    second_name = "Bea" if first is ada else "Ada"

    expect(first.get_by_test_id("status")).to_contain_text("Your turn")
    expect(first.get_by_test_id("turn-limit")).to_have_text(
        re.compile(r"Correspondence: 3 days per turn")
    )
    expect(first.get_by_test_id("countdown")).to_have_text(re.compile(r"^2 days 23 h$"))

    # My games: the game waiting for the first player, with the deadline in words.
    first.get_by_role("link", name="Canasta: back to the lobby").click()
    first.get_by_test_id("nav-games").click()
    row = first.get_by_test_id("my-game")
    expect(row).to_have_count(1)
    expect(row.get_by_test_id("my-game-state")).to_have_text("Your turn")
    expect(row.get_by_test_id("my-game-left")).to_have_text(re.compile(r"2 days 23 h left"))
    expect(row).to_contain_text("two player · 3 days per turn")
    expect(first.get_by_test_id("my-games-summary")).to_have_text("1 game, 1 waiting for you.")
    shots(first, "my-games")
    assert fits_the_phone(first)
    second.goto(f"{live_server.url}/#/games")
    expect(second.get_by_test_id("my-game-state")).to_have_text(f"{first_name} to play")
    second.get_by_test_id(f"open-game-{game_id}").click()
    expect(second.get_by_test_id("table")).to_be_visible()
    first.get_by_test_id(f"open-game-{game_id}").click()
    expect(first.get_by_test_id("status")).to_contain_text("Your turn")

    # The second player proposes; the first (on their own turn) sees it and declines.
    second.get_by_test_id("pause-propose").click()
    expect(second.get_by_test_id("pause-state")).to_have_text(
        f"You propose to pause the game; waiting for {first_name}. "
    )
    expect(second.get_by_test_id("pause-withdraw")).to_be_visible()
    expect(first.get_by_test_id("pause-state")).to_contain_text(
        f"{second_name} proposes to pause the game; waiting for You."
    )
    expect(first.get_by_test_id("log")).to_contain_text(
        f"{second_name} proposed to pause the game."
    )
    first.get_by_test_id("pause-decline").click()
    expect(first.get_by_test_id("pause-state")).to_have_count(0)
    expect(second.get_by_test_id("pause-state")).to_have_count(0)
    expect(second.get_by_test_id("log")).to_contain_text(
        f"{first_name} declined to pause the game."
    )

    # The first proposes, the second agrees: paused for both, no move possible.
    first.get_by_test_id("pause-propose").click()
    expect(second.get_by_test_id("pause-accept")).to_be_visible()
    second.get_by_test_id("pause-accept").click()
    for page in (first, second):
        expect(page.get_by_test_id("pause-state")).to_contain_text(
            "The game is paused by agreement. The turn keeps 2 days 23 h"
        )
        expect(page.get_by_test_id("status")).to_contain_text("The game is paused")
        expect(page.get_by_test_id("resume")).to_be_visible()
    expect(first.get_by_test_id("draw")).to_be_disabled()
    expect(first.get_by_test_id("countdown")).to_have_count(0)
    game = Game.objects.get(pk=game_id)
    assert game.paused_at is not None and game.turn_deadline is None
    shots(first, "table-paused")

    first.goto(f"{live_server.url}/#/games")
    expect(first.get_by_test_id("my-game-state")).to_have_text("Paused")
    expect(first.get_by_test_id("my-game-left")).to_have_count(0)
    first.get_by_test_id(f"open-game-{game_id}").click()

    # The second resumes: the first's turn and its time are back.
    second.get_by_test_id("resume").click()
    expect(second.get_by_test_id("pause-state")).to_have_count(0)
    expect(first.get_by_test_id("status")).to_contain_text("Your turn")
    expect(first.get_by_test_id("countdown")).to_have_text(re.compile(r"^2 days 23 h$"))
    expect(first.get_by_test_id("log")).to_contain_text(f"{second_name} resumed the game")
    expect(first.get_by_test_id("draw")).to_be_enabled()
    assert Game.objects.get(pk=game_id).turn_deadline is not None

    # Muting this game's notifications, and unmuting them.
    player = Player.objects.get(display_name=first_name)
    first.get_by_test_id("mute").click()
    expect(first.get_by_test_id("mute")).to_have_attribute("aria-pressed", "true")
    assert GameMute.objects.filter(player=player, game_id=game_id).exists()
    first.get_by_test_id("mute").click()
    expect(first.get_by_test_id("mute")).to_have_attribute("aria-pressed", "false")
    assert not GameMute.objects.filter(player=player, game_id=game_id).exists()
    assert not errors, errors


def test_notification_settings_and_webhooks(
    live_server: Any, page: Any, shots: Any, js_errors: list[str]
) -> None:
    sign_up(page, live_server.url, "Ada")
    page.get_by_test_id("nav-notifications").click()
    expect(page.get_by_test_id("settings-form")).to_be_visible()
    shots(page, "notifications", full_page=True)
    page.select_option("#reminder-fraction", "0.5")
    page.fill("#notify-email", "ada@example.com")
    page.get_by_test_id("switch-email-chat").uncheck()
    page.get_by_test_id("switch-web_push-game_started").uncheck()
    page.get_by_test_id("save-settings").click()
    expect(page.get_by_test_id("settings-message")).to_have_text("Saved.")
    expect(page.get_by_test_id("announcer")).to_contain_text("Notification settings saved.")

    ada = Player.objects.get(display_name="Ada")
    settings_row = NotificationSettings.objects.get(player=ada)
    assert settings_row.reminder_fraction == 0.5
    assert settings_row.email == "ada@example.com"

    page.reload()
    expect(page.get_by_test_id("settings-form")).to_be_visible()
    expect(page.locator("#reminder-fraction")).to_have_value("0.5")
    expect(page.locator("#notify-email")).to_have_value("ada@example.com")
    expect(page.get_by_test_id("switch-email-chat")).not_to_be_checked()
    expect(page.get_by_test_id("switch-web_push-game_started")).not_to_be_checked()
    expect(page.get_by_test_id("switch-email-your_turn")).to_be_checked()

    # A webhook: its secret shown once, its (empty) delivery log, removed.
    page.fill("#webhook-url", "https://hooks.example.com/canasta")
    page.fill("#webhook-description", "my bot")
    page.get_by_test_id("webhook-add").click()
    secret = page.get_by_test_id("webhook-secret")
    expect(secret).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
    assert WebhookEndpoint.objects.get(player=ada).secret == secret.inner_text()
    expect(page.get_by_test_id("webhook-state")).to_have_text("on")
    page.get_by_test_id("webhook-log").click()
    expect(page.get_by_test_id("delivery-log")).to_contain_text("Nothing sent yet.")
    page.reload()
    expect(page.get_by_test_id("webhook")).to_have_count(1)
    expect(page.get_by_test_id("webhook-secret")).to_have_count(0)  # shown only once
    page.get_by_test_id("webhook-delete").click()
    expect(page.get_by_test_id("webhook")).to_have_count(0)
    assert not WebhookEndpoint.objects.filter(player=ada).exists()
    assert fits_the_phone(page)
    assert not js_errors, js_errors


# ----------------------------------------------------------------------------- Web Push
def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


@pytest.fixture
def vapid(settings: Any) -> str:
    """A VAPID key pair for the server (Web Push on); returns its public key."""
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    key = ec.generate_private_key(ec.SECP256R1())
    settings.WEBPUSH_VAPID_PRIVATE_KEY = _b64url(
        key.private_numbers().private_value.to_bytes(32, "big")
    )
    settings.WEBPUSH_VAPID_PUBLIC_KEY = ""
    return _b64url(key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint))


def browser_subscription() -> dict[str, Any]:
    """What a browser's PushSubscription.toJSON() gives: a real P-256 key and auth secret."""
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    point = (
        ec.generate_private_key(ec.SECP256R1())
        .public_key()
        .public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    )
    return {
        "endpoint": f"https://push.example.net/send/{_b64url(os.urandom(12))}",
        "expirationTime": None,
        "keys": {"p256dh": _b64url(point), "auth": _b64url(os.urandom(16))},
    }


# The browser's PushManager with the subscription above (kept in localStorage, as a browser
# keeps its own); it records the applicationServerKey it was asked to subscribe with.
PUSH_MANAGER = """
(() => {
  const subscription = %s;
  const stored = () => localStorage.getItem('test.push.subscribed');
  const make = (key) => ({
    endpoint: subscription.endpoint,
    options: { userVisibleOnly: true, applicationServerKey: key },
    toJSON: () => subscription,
    unsubscribe: async () => { localStorage.removeItem('test.push.subscribed'); return true; },
  });
  const keyOf = () => Uint8Array.from(JSON.parse(stored())).buffer;
  PushManager.prototype.subscribe = async function (options) {
    const bytes = Array.from(new Uint8Array(options.applicationServerKey));
    localStorage.setItem('test.push.subscribed', JSON.stringify(bytes));
    return make(keyOf());
  };
  PushManager.prototype.getSubscription = async function () {
    return stored() ? make(keyOf()) : null;
  };
})();
"""


def test_web_push_subscription_and_a_pushed_notification(
    live_server: Any, browser_context: Any, vapid: str, js_errors: list[str]
) -> None:
    subscription = browser_subscription()
    browser_context.add_init_script(PUSH_MANAGER % json.dumps(subscription))
    browser_context.grant_permissions(["notifications"], origin=live_server.url)
    page = browser_context.pages[0] if browser_context.pages else browser_context.new_page()
    page.on("pageerror", lambda exc: js_errors.append(str(exc)))
    sign_up(page, live_server.url, "Ada")
    page.get_by_test_id("nav-notifications").click()
    expect(page.get_by_test_id("push-state")).to_contain_text("Get your turn on this device")

    page.get_by_test_id("push-subscribe").click()
    expect(page.get_by_test_id("push-message")).to_have_text("Web Push is on in this browser.")
    expect(page.get_by_test_id("push-state")).to_have_text(
        "This browser receives your notifications."
    )
    expect(page.get_by_test_id("push-subscription")).to_contain_text("push.example.net")
    expect(page.get_by_test_id("push-subscription")).to_contain_text("(this browser)")
    stored = PushSubscription.objects.get(player__display_name="Ada")
    assert stored.endpoint == subscription["endpoint"]
    assert stored.p256dh == subscription["keys"]["p256dh"]
    assert stored.auth == subscription["keys"]["auth"]
    # Subscribed with the server's VAPID key.
    subscribed_with = page.evaluate("JSON.parse(localStorage.getItem('test.push.subscribed'))")
    assert _b64url(bytes(subscribed_with)) == vapid

    # The service worker the client registered (at the root: it also caches the app shell)
    # shows a push.
    scope = page.evaluate("async () => (await navigator.serviceWorker.getRegistration('/'))?.scope")
    assert scope == f"{live_server.url}/"
    cdp = browser_context.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated",
        lambda e: registrations.extend(e["registrations"]),
    )
    cdp.send("ServiceWorker.enable")
    for _ in range(50):
        if any(r["scopeURL"] == scope and not r["isDeleted"] for r in registrations):
            break
        page.wait_for_timeout(100)
    registration = next(r for r in registrations if r["scopeURL"] == scope and not r["isDeleted"])
    payload = {
        "id": "n-1",
        "kind": "your_turn",
        "created_at": "2026-11-23T00:00:00Z",
        "player_id": 1,
        "game_id": 42,
        "game_version": 7,
        "title": "Your turn",
        "text": "Your turn in game #42.",
        "url": "/#/game/42",
        "deadline": None,
    }
    # Delivered until shown (a push reaching the worker while it starts up may be dropped by
    # the browser; each push has the same tag, so one notification stays).
    shown: list[dict[str, Any]] = []
    for _ in range(10):
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {
                "origin": live_server.url,
                "registrationId": registration["registrationId"],
                "data": json.dumps(payload),
            },
        )
        for _ in range(10):
            shown = page.evaluate(
                """async () => {
                  const reg = await navigator.serviceWorker.getRegistration('/');
                  return (await reg.getNotifications()).map(
                    (n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }));
                }"""
            )
            if shown:
                break
            page.wait_for_timeout(100)
        if shown:
            break
    assert shown == [
        {
            "title": "Your turn",
            "body": "Your turn in game #42.",
            "tag": "canasta-42-your_turn",
            "data": {"url": f"{live_server.url}/#/game/42", "kind": "your_turn", "game_id": 42},
        }
    ]

    # Removed: from the server and from the browser.
    page.get_by_test_id("push-remove").click()
    expect(page.get_by_test_id("push-subscription")).to_have_count(0)
    assert not PushSubscription.objects.filter(player__display_name="Ada").exists()
    assert page.evaluate("localStorage.getItem('test.push.subscribed')") is None
    assert not js_errors, js_errors
