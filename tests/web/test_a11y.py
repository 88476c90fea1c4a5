"""Accessibility of the web client: axe-core (vendored, injected into the page) finds no
serious or critical violation on the home page, the table during play, the round summary and
the replay; a turn is played with the keyboard alone; cards, piles, seats and melds are named
in words; the other players' moves are read out; the "How to play" panel is the rule book."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from games.models import Game
from tests.web.conftest import axe_violations, describe_violations
from tests.web.test_client import MY_TURN_OR_DONE, SEED, discard_any, expect, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RULE_BOOK = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
CARD_NAME = r"((Ace|King|Queen|Jack|10|[2-9]) of (clubs|diamonds|hearts|spades)|Joker)"


def assert_no_blocking_violations(page: Any) -> None:
    violations = axe_violations(page)
    assert not violations, describe_violations(violations)


def focused(page: Any) -> dict[str, Any]:
    """What has the keyboard focus: its test id, card, tag and outline."""
    return dict(
        page.evaluate(
            """() => {
              const el = document.activeElement;
              const style = getComputedStyle(el);
              return { testid: el.dataset.testid ?? null, card: el.dataset.card ?? null,
                       tag: el.tagName, outline: style.outlineStyle,
                       outlineWidth: parseFloat(style.outlineWidth) };
            }"""
        )
    )


def tab_to(page: Any, testid: str, limit: int = 80, back: bool = False) -> None:
    """Press Tab (Shift+Tab) until the element with ``testid`` has the focus."""
    for _ in range(limit):
        page.keyboard.press("Shift+Tab" if back else "Tab")
        if focused(page)["testid"] == testid:
            return
    raise AssertionError(f"{testid} is not reachable with {'Shift+' if back else ''}Tab")


def start_against_bots(
    page: Any, base: str, name: str = "Ada", seed: str | None = None, in_lobby: Any = None
) -> int:
    """A table of four (you and three bots), started; with ``seed``, dealt from it (and
    ``in_lobby(page)`` called while the table waits)."""
    sign_up(page, base, name)
    if seed:
        page.select_option("#seat-3", "open")
        page.get_by_test_id("create-game").click()
        expect(page.get_by_test_id("lobby")).to_be_visible()
        if in_lobby:
            in_lobby(page)
        game_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
        Game.objects.filter(pk=game_id).update(seed=seed)
        page.get_by_test_id("start-game").click()
    else:
        page.get_by_test_id("create-game").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(page.get_by_test_id("status")).to_contain_text("Your turn")
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


# ----------------------------------------------------------------------------- axe, per page
def test_home_page(live_server: Any, page: Any, js_errors: list[str]) -> None:
    page.goto(live_server.url + "/")
    expect(page.locator("#display-name")).to_be_visible()
    assert_no_blocking_violations(page)
    sign_up(page, live_server.url)
    assert_no_blocking_violations(page)
    page.get_by_test_id("help-button").click()
    expect(page.get_by_role("dialog", name="How to play")).to_be_visible()
    assert_no_blocking_violations(page)
    assert not js_errors, js_errors


def test_table_during_play(live_server: Any, page: Any, shots: Any, js_errors: list[str]) -> None:
    start_against_bots(page, live_server.url, seed=SEED, in_lobby=assert_no_blocking_violations)
    assert_no_blocking_violations(page)
    page.get_by_test_id("draw").click()
    expect(page.get_by_test_id("status")).to_contain_text("discard")
    page.get_by_test_id("hand-card").first.click()
    assert_no_blocking_violations(page)
    # With a meld on the table (this seed's first turn offers one), and cards selected to lay
    # off on it.
    page.get_by_test_id("clear").click()
    page.get_by_test_id("suggest-meld").first.click()
    expect(page.locator(".meld").first).to_be_visible()
    page.get_by_test_id("hand-card").first.click()
    assert_no_blocking_violations(page)
    shots(page, "table-seats", full_page=True)
    page.get_by_test_id("help-button").click()
    expect(page.get_by_role("dialog", name="How to play")).to_be_visible()
    assert_no_blocking_violations(page)
    shots(page, "how-to-play")
    assert not js_errors, js_errors


def play_until_a_round_ends(page: Any) -> None:
    for _turn in range(200):
        page.wait_for_function(MY_TURN_OR_DONE, timeout=60_000)
        if page.get_by_test_id("round-summary").count():
            return
        if page.get_by_test_id("answer-yes").count():  # the partner asks to go out
            page.get_by_test_id("answer-yes").click()
            continue
        if page.get_by_test_id("draw").is_enabled():
            page.get_by_test_id("draw").click()
            expect(page.get_by_test_id("status")).to_contain_text("discard")
        if page.get_by_test_id("end-round").count():
            page.get_by_test_id("end-round").click()
            continue
        discard_any(page)
    raise AssertionError("no round ended")


def test_round_summary(live_server: Any, page: Any, js_errors: list[str]) -> None:
    start_against_bots(page, live_server.url)
    play_until_a_round_ends(page)
    summary = page.get_by_role("dialog", name=re.compile(r"Round \d+ is over|Game over"))
    expect(summary).to_be_visible()
    assert page.evaluate("document.activeElement.closest('[role=dialog]') !== null")
    assert_no_blocking_violations(page)
    # Escape closes it and the keyboard is back on the table.
    page.keyboard.press("Escape")
    expect(summary).to_have_count(0)
    assert page.evaluate("document.getElementById('app').contains(document.activeElement)")
    assert not js_errors, js_errors


def test_replay(live_server: Any, page: Any, js_errors: list[str]) -> None:
    start_against_bots(page, live_server.url)
    page.get_by_test_id("draw").click()
    expect(page.get_by_test_id("status")).to_contain_text("discard")
    assert discard_any(page)
    page.wait_for_function(MY_TURN_OR_DONE, timeout=60_000)
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id("concede").click()
    expect(page.get_by_test_id("status")).to_contain_text("Game over")
    page.get_by_test_id("replay-button").click()
    expect(page.get_by_test_id("replay-text")).to_contain_text("The game started")
    assert_no_blocking_violations(page)
    # Stepping with the keyboard keeps the focus on the button pressed.
    page.get_by_test_id("replay-next").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("replay-step")).to_contain_text("Step 2 /")
    assert focused(page)["testid"] == "replay-next"
    expect(page.get_by_test_id("announcer")).to_contain_text("Step 2:")
    page.get_by_test_id("replay-last").click()
    expect(page.get_by_test_id("replay-step")).to_have_text(re.compile(r"Step (\d+) / \1$"))
    assert_no_blocking_violations(page)
    assert not js_errors, js_errors


def test_play_now_leaderboard_and_ratings(
    live_server: Any, page: Any, js_errors: list[str]
) -> None:
    from accounts.models import Player
    from competition.models import Rating

    sign_up(page, live_server.url, "Ada")
    ada = Player.objects.get(display_name="Ada")
    Rating.objects.create(
        player=ada, format="partnership", mu=27.0, sigma=4.0, display=15.0, games=4, wins=3
    )
    # Play now: the form (rated, then casual with the bots' choices) and the waiting view.
    page.get_by_test_id("nav-play").click()
    expect(page.get_by_test_id("queue-form")).to_be_visible()
    assert_no_blocking_violations(page)
    page.get_by_test_id("queue-casual").check()
    expect(page.get_by_test_id("queue-casual-options")).to_be_visible()
    assert_no_blocking_violations(page)
    page.get_by_test_id("queue-rated").check()
    page.get_by_test_id("queue-join").click()  # rated classic: nobody else comes
    expect(page.get_by_test_id("queue-waiting")).to_be_visible()
    expect(page.get_by_test_id("announcer")).to_contain_text("You are in the queue")
    assert_no_blocking_violations(page)
    # The lobby offers the way back to the queue.
    page.get_by_role("link", name="Canasta: back to the lobby").click()
    expect(page.get_by_test_id("queue-banner")).to_contain_text("in the quick-play queue")
    assert_no_blocking_violations(page)
    page.get_by_role("link", name="Back to the queue").click()
    expect(page.get_by_test_id("queue-waiting")).to_be_visible()
    tab_to(page, "leave-queue")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("queue-form")).to_be_visible()
    expect(page.get_by_test_id("announcer")).to_contain_text("You left the queue")
    # The leaderboard (your row marked) and your ratings.
    page.get_by_test_id("nav-leaderboard").click()
    expect(page.get_by_test_id("leaderboard-row")).not_to_have_count(0)
    assert_no_blocking_violations(page)
    page.get_by_test_id("nav-ratings").click()
    expect(page.get_by_test_id("ratings")).to_be_visible()
    assert_no_blocking_violations(page)
    assert not js_errors, js_errors


def test_correspondence_pause_my_games_and_notifications(
    live_server: Any, page: Any, js_errors: list[str]
) -> None:
    """A correspondence table (a day per turn) paused and resumed with the keyboard, the pause
    read out; "My games", the notification settings and a new webhook's secret."""
    sign_up(page, live_server.url, "Ada")
    page.select_option("#turn-seconds", "86400")
    page.get_by_test_id("create-game").click()  # three bots: dealt at once
    expect(page.get_by_test_id("status")).to_contain_text("Your turn")
    expect(page.get_by_test_id("countdown")).to_have_text(re.compile(r"^23 h 59 min$"))
    assert_no_blocking_violations(page)
    tab_to(page, "pause-propose")
    page.keyboard.press("Enter")  # alone with bots: paused at once
    expect(page.get_by_test_id("pause-state")).to_contain_text("The game is paused by agreement")
    expect(page.get_by_test_id("announcer")).to_contain_text("The game is paused.")
    assert_no_blocking_violations(page)
    tab_to(page, "resume")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("announcer")).to_contain_text("You resumed the game")
    expect(page.get_by_test_id("status")).to_contain_text("Your turn")

    page.get_by_role("link", name="Canasta: back to the lobby").click()
    tab_to(page, "nav-games")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("my-game-state")).to_have_text("Your turn")
    assert_no_blocking_violations(page)

    page.get_by_test_id("nav-notifications").click()
    expect(page.get_by_test_id("settings-form")).to_be_visible()
    expect(page.get_by_test_id("push-panel")).to_be_visible()
    assert_no_blocking_violations(page)
    page.fill("#webhook-url", "https://hooks.example.com/canasta")
    page.get_by_test_id("webhook-add").click()
    expect(page.get_by_test_id("webhook-secret")).to_be_focused()
    expect(page.get_by_test_id("announcer")).to_contain_text("Copy its secret now")
    page.get_by_test_id("webhook-log").click()
    expect(page.get_by_test_id("webhook-log")).to_have_attribute("aria-expanded", "true")
    assert_no_blocking_violations(page)
    assert not js_errors, js_errors


# ----------------------------------------------------------------------------- the keyboard
def test_a_turn_with_the_keyboard_alone(
    live_server: Any, page: Any, shots: Any, js_errors: list[str]
) -> None:
    page.goto(live_server.url + "/")
    expect(page.locator("#display-name")).to_be_focused()
    page.keyboard.type("Kim")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("create-form")).to_be_visible()
    tab_to(page, "create-game")
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("status")).to_contain_text("Your turn")
    hand = page.get_by_test_id("hand-card")
    expect(hand).to_have_count(11)

    # Draw: Tab to the stock and press Enter.
    tab_to(page, "stock")
    assert focused(page)["outline"] != "none" and focused(page)["outlineWidth"] >= 2
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("status")).to_contain_text("discard")
    expect(hand).to_have_count(12)
    # The stock is spent for this turn: the focus went on to the hand, and stays visible.
    now = focused(page)
    assert now["testid"] == "hand-card" and now["tag"] == "BUTTON", now
    assert now["outline"] != "none" and now["outlineWidth"] >= 2, now

    # Select a card with Space (the arrows move along the hand) until Discard takes it.
    discard = page.get_by_test_id("discard")
    chosen = None
    for _ in range(12):
        card = focused(page)["card"]
        page.keyboard.press("Space")
        selected = page.locator(f'[data-testid=hand-card][data-card="{card}"][aria-pressed=true]')
        expect(selected.first).to_be_focused()
        if discard.is_enabled():
            chosen = card
            break
        page.keyboard.press("Space")  # unselect it
        page.keyboard.press("ArrowRight")
    assert chosen, "no card could be discarded"
    shots(page, "keyboard-focus")
    tab_to(page, "discard")
    expect(discard).to_have_accessible_name(re.compile(rf"^Discard {CARD_NAME}$"))
    page.keyboard.press("Enter")

    # The three bots move; their moves and then your turn are read out.
    page.wait_for_function(MY_TURN_OR_DONE, timeout=60_000)
    expect(hand).to_have_count(11)
    announcer = page.get_by_test_id("announcer")
    expect(announcer).to_contain_text("You discarded")
    expect(announcer).to_contain_text(re.compile(r"Bot \d (drew|took)"))
    expect(announcer.locator("p").last).to_contain_text("Your turn")
    assert "♠" not in announcer.inner_text() and "♥" not in announcer.inner_text()
    # The next turn starts from the hand: Shift+Tab leads back to the stock.
    tab_to(page, "stock", back=True)
    assert not js_errors, js_errors


# ----------------------------------------------------------------------------- names in words
def test_cards_piles_seats_and_melds_are_named(
    live_server: Any, page: Any, js_errors: list[str]
) -> None:
    start_against_bots(page, live_server.url, seed=SEED)
    names = [page.get_by_test_id("hand-card").nth(i) for i in range(11)]
    for card in names:
        expect(card).to_have_accessible_name(re.compile(rf"^{CARD_NAME}$"))
        expect(card).to_have_attribute("aria-pressed", "false")
    expect(page.get_by_test_id("stock")).to_have_accessible_name(
        re.compile(r"^Draw from the stock: \d+ cards$")
    )
    expect(page.get_by_test_id("pile")).to_have_accessible_name(
        re.compile(rf"^Take the discard pile: 1 card, top card {CARD_NAME}")
    )
    expect(page.get_by_test_id("hand-count")).to_have_text("11 cards")

    # Seats around the table: you at the bottom, the next seat on your left, your partner
    # across, the last seat on your right; each says who it is and how many cards it holds.
    for seat, position in ((0, "bottom"), (1, "left"), (2, "top"), (3, "right")):
        expect(page.get_by_test_id(f"seat-{seat}")).to_have_class(re.compile(f"pos-{position}"))
    partner = page.get_by_test_id("seat-2")
    expect(partner).to_contain_text("Bot 3, your partner, bot, easy, 11 cards")
    expect(page.get_by_test_id("seat-1")).to_contain_text("your opponent")
    expect(page.get_by_test_id("seat-0")).to_contain_text("You, 11 cards, your turn")

    page.get_by_test_id("draw").click()
    expect(page.get_by_test_id("status")).to_contain_text("discard")
    selected = page.get_by_test_id("hand-card").first
    selected.click()
    expect(page.get_by_test_id("hand-card").first).to_have_attribute("aria-pressed", "true")
    page.get_by_test_id("clear").click()
    page.get_by_test_id("suggest-meld").first.click()
    meld = page.locator(".meld").first
    expect(meld).to_be_visible()
    expect(meld).to_contain_text(
        re.compile(rf"^\w+( cards)?, (natural canasta, |mixed canasta, )?\d+ cards: {CARD_NAME}")
    )
    # Selected cards make your melds buttons that lay them off.
    page.get_by_test_id("hand-card").first.click()
    lay_off = page.get_by_role("button", name=re.compile(r"^Lay the selected cards off on \w+"))
    expect(lay_off.first).to_be_visible()
    assert not js_errors, js_errors


# ----------------------------------------------------------------------------- how to play
def test_how_to_play_is_the_rule_book(live_server: Any, page: Any, js_errors: list[str]) -> None:
    sections = re.findall(r"^## (.+)$", RULE_BOOK.read_text(encoding="utf-8"), re.MULTILINE)
    assert sections, "docs/rules.md has no sections"
    start_against_bots(page, live_server.url)
    url = page.url
    page.get_by_test_id("help-button").focus()
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="How to play")
    expect(dialog).to_be_visible()
    expect(dialog.get_by_role("heading", name="How to play")).to_be_focused()
    for title in sections:
        expect(dialog.get_by_role("heading", name=title, exact=True)).to_have_count(1)
    # The table's own options, with their values.
    dialog.get_by_text("This table's rules").click()
    expect(dialog.get_by_test_id("help-options")).to_contain_text("Target score: 5000")
    # A link of the rule book moves within the panel, not the page's address.
    link = dialog.locator("a[data-anchor]").last
    target = link.get_attribute("data-anchor")
    link.click()
    expect(dialog.locator(f"#{target}")).to_be_focused()
    assert page.url == url
    # Tab stays in the panel; Escape closes it and gives the focus back.
    for _ in range(5):
        page.keyboard.press("Shift+Tab")
        assert page.evaluate("document.activeElement.closest('[role=dialog]') !== null")
    page.keyboard.press("Escape")
    expect(dialog).to_have_count(0)
    expect(page.get_by_test_id("help-button")).to_be_focused()
    assert not js_errors, js_errors
