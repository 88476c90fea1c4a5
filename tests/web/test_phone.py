"""The client on a phone, installed: a whole hand played with taps (touch events, not mouse
clicks) at 360×740 and 390×844, the hand docked at the bottom of the screen and inside the
viewport at every turn (at the top of the page and at its end), every control at least 44×44
CSS px, nothing moved by selecting a card, axe clean; the web app manifest and Chromium's own
installability check (DevTools ``Page.getInstallabilityErrors``, ``Page.getAppManifest``); and
the app opening offline from the service worker's shell with the connection banner, which goes
once the network is back."""

from __future__ import annotations

import struct
from typing import Any

import pytest

from tests.web.conftest import axe_violations, describe_violations
from tests.web.test_client import MY_TURN_OR_DONE, expect, fits_the_phone

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONES = [{"width": 360, "height": 740}, {"width": 390, "height": 844}]
TOUCH_TARGET = 44
MAX_TURNS = 150

# Every visible control of the page and its size (sr-only text and hidden elements left out).
CONTROLS = """() => [...document.querySelectorAll(
    'button, [role=button], a[href], input:not([type=hidden]), select, textarea')]
  .filter((el) => el.checkVisibility() && !el.closest('.sr-only'))
  .map((el) => {
    const r = el.getBoundingClientRect();
    return { what: el.outerHTML.slice(0, 90), width: r.width, height: r.height };
  })"""

# Where every element of the screen is on the page (scroll included), in document order; the
# card at ``skip`` (its own rise is the selection) and what is inside it left out.
LAYOUT = """(skip) => {
  const card = document.querySelectorAll('[data-testid=hand-card]')[skip];
  return [...document.querySelectorAll('#app *')]
    .filter((el) => !(card && card.contains(el)))
    .map((el) => {
      const r = el.getBoundingClientRect();
      return [el.tagName, el.dataset.testid ?? '', Math.round(r.x + scrollX),
              Math.round(r.y + scrollY), Math.round(r.width), Math.round(r.height)];
    });
}"""

SW_ACTIVE = """async () => {
  const reg = await navigator.serviceWorker.getRegistration('/');
  return !!reg && !!reg.active && reg.active.state === 'activated';
}"""


def tap_sign_up(page: Any, base: str, name: str = "Ada") -> None:
    page.goto(base + "/")
    page.fill("#display-name", name)
    page.get_by_test_id("sign-up").tap()
    expect(page.get_by_test_id("create-form")).to_be_visible()


def hand_in_view(page: Any, size: dict[str, int], scroll: bool = True) -> None:
    """The hand is on the screen, whether the page is at its top or scrolled to its end (or
    where it is, ``scroll=False``)."""
    for where in ("0", "document.documentElement.scrollHeight") if scroll else ("",):
        if where:
            page.evaluate(f"window.scrollTo(0, {where})")
            page.wait_for_timeout(50)
        hand = page.get_by_test_id("hand").bounding_box()
        assert hand is not None
        assert hand["x"] >= 0 and hand["x"] + hand["width"] <= size["width"] + 0.5, (where, hand)
        assert hand["y"] >= 0 and hand["y"] + hand["height"] <= size["height"] + 0.5, (where, hand)
    if scroll:
        page.evaluate("window.scrollTo(0, 0)")


def small_controls(page: Any) -> list[dict[str, Any]]:
    return [
        c
        for c in page.evaluate(CONTROLS)
        if c["width"] < TOUCH_TARGET - 0.5 or c["height"] < TOUCH_TARGET - 0.5
    ]


def selecting_moves_nothing(page: Any) -> None:
    """Tap a card: it rises, nothing else on the screen moves; tap it again."""
    before = page.evaluate(LAYOUT, 0)
    page.get_by_test_id("hand-card").first.tap()
    expect(page.get_by_test_id("hand-card").first).to_have_attribute("aria-pressed", "true")
    after = page.evaluate(LAYOUT, 0)
    assert len(before) == len(after)
    moved = [(b, a) for b, a in zip(before, after, strict=True) if b != a]
    assert not moved, moved[:5]
    assert not small_controls(page), small_controls(page)
    page.get_by_test_id("hand-card").first.tap()
    expect(page.get_by_test_id("hand-card").first).to_have_attribute("aria-pressed", "false")


def tap_discard(page: Any) -> bool:
    """Tap cards one by one until Discard is enabled, then tap it."""
    cards = page.get_by_test_id("hand-card")
    for i in range(cards.count()):
        cards.nth(i).tap()
        if page.get_by_test_id("discard").is_enabled():
            page.get_by_test_id("discard").tap()
            return True
        page.get_by_test_id("hand-card").nth(i).tap()
    return False


@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s['width']}x{s['height']}")
def test_a_hand_played_with_taps(
    live_server: Any, page: Any, shots: Any, js_errors: list[str], size: dict[str, int]
) -> None:
    page.set_viewport_size(size)
    tap_sign_up(page, live_server.url)
    page.get_by_test_id("create-game").tap()
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(page.get_by_test_id("status")).to_contain_text("Your turn")
    assert fits_the_phone(page)
    # Touch, not the mouse: the page sees touch events before each click.
    page.evaluate(
        """() => { window.__touches = 0;
          addEventListener('touchstart', () => { window.__touches++; }, true); }"""
    )

    name = f"phone-{size['width']}x{size['height']}"
    turns = melds = 0
    for _turn in range(MAX_TURNS):
        page.wait_for_function(MY_TURN_OR_DONE, timeout=60_000)
        if page.get_by_test_id("round-summary").count():
            break
        if "over" in page.get_by_test_id("status").inner_text().lower():
            break
        hand_in_view(page, size)
        if page.get_by_test_id("answer-yes").count():
            page.get_by_test_id("answer-yes").tap()
            continue
        if turns == 0:
            small = small_controls(page)
            assert not small, small
            selecting_moves_nothing(page)
            violations = axe_violations(page)
            assert not violations, describe_violations(violations)
            shots(page, f"{name}-table")
        if page.get_by_test_id("draw").is_enabled():
            page.get_by_test_id("draw").tap()
            expect(page.get_by_test_id("status")).to_contain_text("discard")
        if page.get_by_test_id("suggest-meld").count():
            before = page.get_by_test_id("hand-card").count()
            page.get_by_test_id("suggest-meld").first.tap()
            page.wait_for_function(
                f"() => document.querySelectorAll('[data-testid=hand-card]').length < {before}"
                " || !!document.querySelector('[data-testid=round-summary]')"
            )
            melds += 1
            if page.get_by_test_id("round-summary").count():
                break
            if melds == 1:
                hand_in_view(page, size)
                page.get_by_test_id("hand-card").first.tap()  # a selection and a meld in view
                page.evaluate("document.querySelector('.area-us').scrollIntoView()")
                hand_in_view(page, size, scroll=False)
                shots(page, f"{name}-meld")
                page.get_by_test_id("hand-card").first.tap()
                assert not small_controls(page), small_controls(page)
        if page.get_by_test_id("end-round").count():
            page.get_by_test_id("end-round").tap()
            continue
        if page.get_by_test_id("discard").count() and tap_discard(page):
            turns += 1
    else:
        pytest.fail("the hand did not end")

    summary = page.get_by_test_id("round-summary")
    expect(summary).to_be_visible()
    assert "Round total" in summary.inner_text()
    assert turns >= 3, turns
    assert page.evaluate("window.__touches") > turns * 2
    violations = axe_violations(page)
    assert not violations, describe_violations(violations)
    assert not small_controls(page), small_controls(page)
    shots(page, f"{name}-round-summary")
    assert not js_errors, js_errors


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_app_is_installable(live_server: Any, browser_context: Any, page: Any) -> None:
    page.goto(live_server.url + "/")
    page.wait_for_function(SW_ACTIVE, timeout=20_000)
    cdp = browser_context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"] == f"{live_server.url}/manifest.webmanifest"
    assert manifest["errors"] == []
    if "parsed" in manifest:  # newer Chromium: the manifest as it understood it
        assert manifest["parsed"]["scope"] == f"{live_server.url}/"
    assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []

    # The manifest as served, and its icons: 192 and 512 for "any", a maskable 512.
    response = page.request.get(live_server.url + "/manifest.webmanifest")
    assert response.headers["content-type"] == "application/manifest+json"
    data = response.json()
    assert (data["start_url"], data["scope"], data["display"]) == ("/", "/", "standalone")
    assert data["name"] and data["short_name"] and data["theme_color"] and data["background_color"]
    icons = {(i["sizes"], i["purpose"]): i["src"] for i in data["icons"]}
    assert set(icons) == {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")}
    for (sizes, _purpose), src in icons.items():
        icon = page.request.get(live_server.url + src)
        assert icon.headers["content-type"] == "image/png"
        assert "x".join(map(str, png_size(icon.body()))) == sizes


def test_it_opens_offline_and_says_so(
    live_server: Any, browser_context: Any, page: Any, shots: Any, js_errors: list[str]
) -> None:
    page.set_viewport_size(PHONES[0])
    tap_sign_up(page, live_server.url)
    page.wait_for_function(SW_ACTIVE, timeout=20_000)
    # Once more under the worker's control: the shell and the public rules go through it.
    page.reload()
    expect(page.get_by_test_id("create-form")).to_be_visible()
    assert page.evaluate("!!navigator.serviceWorker.controller")
    banner = page.get_by_test_id("connection")
    expect(banner).to_be_hidden()

    cdp = browser_context.new_cdp_session(page)
    cdp.send("Network.enable")
    offline = {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    cdp.send("Network.emulateNetworkConditions", offline)
    page.reload()
    # The shell from the worker's cache: the page, its script and styles; the rules too.
    expect(page.get_by_test_id("create-form")).to_be_visible()
    expect(banner).to_be_visible()
    expect(banner).to_have_attribute("role", "status")
    expect(banner).to_contain_text("offline")
    # Nothing of a player's games was kept: the lists need the network.
    assert page.get_by_text("Your games").count() == 0
    shots(page, "phone-offline")
    violations = axe_violations(page)
    assert not violations, describe_violations(violations)

    cdp.send("Network.emulateNetworkConditions", {**offline, "offline": False})
    expect(banner).to_be_hidden(timeout=15_000)
    # Back online, the screen is drawn again with what failed (the game lists).
    expect(page.get_by_text("Your games")).to_be_visible()
    assert not js_errors, js_errors


def test_the_table_says_when_it_is_offline(
    server_url: str, browser_context: Any, page: Any, js_errors: list[str]
) -> None:
    """At a table the banner shows while the network is gone and goes once the table is
    followed again (over the socket again on the ASGI server); the table plays on."""
    page.set_viewport_size(PHONES[1])
    tap_sign_up(page, server_url)
    page.get_by_test_id("create-game").tap()
    expect(page.get_by_test_id("status")).to_contain_text("Your turn")
    page.wait_for_function("document.getElementById('app').dataset.live !== 'connecting'")
    transport = page.evaluate("document.getElementById('app').dataset.live")
    banner = page.get_by_test_id("connection")
    expect(banner).to_be_hidden()

    cdp = browser_context.new_cdp_session(page)
    cdp.send("Network.enable")
    offline = {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    cdp.send("Network.emulateNetworkConditions", offline)
    expect(banner).to_be_visible()
    expect(banner).to_contain_text("offline")
    hand_in_view(page, PHONES[1])
    page.wait_for_timeout(2500)  # polls (or the socket) fail meanwhile
    cdp.send("Network.emulateNetworkConditions", {**offline, "offline": False})
    expect(banner).to_be_hidden(timeout=40_000)
    if transport == "socket":
        expect(page.locator("#app")).to_have_attribute("data-live", "socket", timeout=40_000)
    page.get_by_test_id("draw").tap()
    expect(page.get_by_test_id("status")).to_contain_text("discard")
    assert not js_errors, js_errors


def test_the_api_is_never_cached(live_server: Any, page: Any) -> None:
    """A game's state holds the viewer's hand: after play, the worker's caches hold the shell
    and the public answers only."""
    tap_sign_up(page, live_server.url)
    page.wait_for_function(SW_ACTIVE, timeout=20_000)
    page.reload()
    page.get_by_test_id("create-game").tap()
    expect(page.get_by_test_id("hand-card").first).to_be_visible()
    cached = page.evaluate(
        """async () => {
          const urls = [];
          for (const name of await caches.keys()) {
            const cache = await caches.open(name);
            for (const r of await cache.keys()) urls.push(new URL(r.url).pathname);
          }
          return urls;
        }"""
    )
    assert "/" in cached and "/manifest.webmanifest" in cached
    assert "/static/client/app.js" in cached
    api = [u for u in cached if u.startswith("/api/")]
    assert set(api) <= {"/api/v1/rules/", "/api/v1/i18n/catalog/"}, api
