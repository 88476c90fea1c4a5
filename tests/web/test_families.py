"""The variant families in the browser: the new-table form offers Modern American Canasta and
Samba with what they play (GET /rules/), and a whole round of each is played against three
bots, some moves with the keyboard alone: the family's controls are there (44 px tall on the
phone) and do not move when a card is selected, the table shows the family's melds (Samba's
meld ids, the threes area of Modern American Canasta, its turn card and dead ranks), and axe
finds nothing serious or critical on the family table."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.web.conftest import axe_violations, describe_violations
from tests.web.test_a11y import focused, tab_to
from tests.web.test_client import MY_TURN_OR_DONE, expect, fits_the_phone, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MAX_TURNS = 200
KEYBOARD_TURNS = 3
TOUCH_TARGET = 44

# After a draw: the round over, or the table read again (no longer busy) in the play phase or
# with another seat to play.
AFTER_DRAW = """() => {
  if (document.querySelector('[data-testid=round-summary]')) return true;
  const s = document.querySelector('[data-testid=status]');
  if (!s || s.getAttribute('aria-busy') !== 'false') return false;
  return /discard|end the round/i.test(s.textContent ?? '') || !s.classList.contains('mine');
}"""


def create_family_table(page: Any, base: str, preset: str, words: str) -> int:
    """Sign up, choose ``preset`` (its description says ``words``), three bots, start."""
    sign_up(page, base, "Ada")
    options = page.locator("#preset option")
    assert preset in [options.nth(i).get_attribute("value") for i in range(options.count())]
    page.select_option("#preset", preset)
    expect(page.get_by_test_id("preset-help")).to_contain_text(words)
    # The family fixes the draw; its target score may go past the classic 10000.
    assert page.locator("#opt-draw_count").count() == 0
    assert page.locator("#opt-family").count() == 0
    assert page.locator("#opt-target_score").get_attribute("max") == "20000"
    page.get_by_test_id("create-game").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def box(page: Any, testid: str) -> dict[str, float]:
    """Where the element is on the page (not the viewport, which scrolls), and its size."""
    found = page.get_by_test_id(testid).first.evaluate(
        """(el) => {
          const r = el.getBoundingClientRect();
          return { x: r.x + scrollX, y: r.y + scrollY, width: r.width, height: r.height };
        }"""
    )
    assert found is not None, testid
    return dict(found)


def check_controls(page: Any, testids: list[str]) -> None:
    """The family's controls are on the table, each at least 44 px tall (the phone's touch
    targets), and selecting a card moves none of them."""
    for testid in testids:
        expect(page.get_by_test_id(testid)).to_have_count(1)
        assert box(page, testid)["height"] >= TOUCH_TARGET, testid
    before = {t: box(page, t) for t in [*testids, "family-actions", "hand"]}
    page.get_by_test_id("hand-card").first.click()
    expect(page.get_by_test_id("hand-card").first).to_have_attribute("aria-pressed", "true")
    after = {t: box(page, t) for t in before}
    for testid, where in before.items():
        assert (where["x"], where["y"]) == (after[testid]["x"], after[testid]["y"]), testid
    page.get_by_test_id("hand-card").first.click()
    expect(page.get_by_test_id("hand-card").first).to_have_attribute("aria-pressed", "false")


def draw_with_keyboard(page: Any) -> None:
    """Tab from the hand to Draw and press Enter."""
    page.get_by_test_id("hand-card").first.focus()
    tab_to(page, "draw")
    page.keyboard.press("Enter")


def discard_with_keyboard(page: Any) -> bool:
    """Walk the hand with the arrow keys, select a card with Space until Discard is enabled,
    then Tab to it and press Enter."""
    cards = page.get_by_test_id("hand-card")
    count = cards.count()
    if not count:
        return False
    cards.first.focus()
    for _ in range(count):
        page.keyboard.press("Space")
        expect(page.locator("[data-testid=hand-card][aria-pressed=true]")).to_have_count(1)
        if page.get_by_test_id("discard").is_enabled():
            tab_to(page, "discard")
            page.keyboard.press("Enter")
            return True
        page.keyboard.press("Space")  # deselect, then on to the next card
        expect(page.locator("[data-testid=hand-card][aria-pressed=true]")).to_have_count(0)
        page.keyboard.press("ArrowRight")
    return False


def discard_by_touch(page: Any) -> bool:
    cards = page.get_by_test_id("hand-card")
    for i in range(cards.count()):
        cards.nth(i).click()
        if page.get_by_test_id("discard").is_enabled():
            page.get_by_test_id("discard").click()
            return True
        page.get_by_test_id("hand-card").nth(i).click()
    return False


# What a meld changes on the table: the hand's size, and the melds (a merge moves no hand card).
TABLE_SIGNATURE = (
    "() => document.querySelectorAll('[data-testid=hand-card]').length + '#' + "
    "Array.from(document.querySelectorAll('[data-testid^=meld-]'))"
    ".map((e) => e.getAttribute('data-testid') + ':' + e.textContent).join('|')"
)


def wait_turn_done(page: Any, table_before: str) -> None:
    """Wait for the answer to a meld: the round over, the table read again after it (the hand
    or the melds changed), or the meld refused (the message says why; the turn goes on to the
    discard). Bots play between turns on a shared machine: the wait is generous."""
    page.wait_for_function(
        "(before) => !!document.querySelector('[data-testid=round-summary]') || ("
        " document.querySelector('[data-testid=status]')?.getAttribute('aria-busy') === 'false'"
        " && (!document.querySelector('[data-testid=status]')?.classList.contains('mine')"
        f" || ({TABLE_SIGNATURE})() !== before"
        " || !!document.querySelector('[data-testid=message].error')))",
        arg=table_before,
        timeout=60_000,
    )


def play_round(page: Any, on_table: Any = None) -> dict[str, int]:
    """Play until the first round ends: draw (with the keyboard on the first turns), meld
    what the table suggests, discard; ``on_table(page)`` is called on each turn after the
    draw. Returns what was done."""
    done = {"turns": 0, "keyboard_draws": 0, "keyboard_discards": 0, "melds": 0}
    for _turn in range(MAX_TURNS):
        page.wait_for_function(MY_TURN_OR_DONE, timeout=90_000)
        summary = page.get_by_test_id("round-summary")
        if summary.count():
            text = summary.inner_text()
            assert "Round total" in text and "Score" in text, text
            done["summary"] = 1
            return done
        if page.get_by_test_id("answer-yes").count():
            page.get_by_test_id("answer-yes").click()
            continue
        done["turns"] += 1
        keyboard = done["turns"] <= KEYBOARD_TURNS
        if page.get_by_test_id("draw").is_enabled():
            if keyboard:
                draw_with_keyboard(page)
                done["keyboard_draws"] += 1
            else:
                page.get_by_test_id("draw").click()
            page.wait_for_function(AFTER_DRAW)
        if page.get_by_test_id("round-summary").count():
            continue
        if on_table:
            on_table(page)
        if page.get_by_test_id("suggest-meld").count():
            before = page.evaluate(TABLE_SIGNATURE)
            page.get_by_test_id("suggest-meld").first.click()
            wait_turn_done(page, before)
            done["melds"] += 1
        if page.get_by_test_id("round-summary").count():
            continue
        if page.get_by_test_id("end-round").count():
            page.get_by_test_id("end-round").click()
            continue
        status = page.get_by_test_id("status")
        if not status.evaluate("el => el.classList.contains('mine')"):
            continue
        if page.get_by_test_id("discard").count():
            if keyboard and discard_with_keyboard(page):
                done["keyboard_discards"] += 1
            else:
                discard_by_touch(page)
    raise AssertionError(f"the round did not end in {MAX_TURNS} turns: {done}")


def assert_no_blocking_violations(page: Any) -> None:
    violations = axe_violations(page)
    assert not violations, describe_violations(violations)


def seen_melds(page: Any) -> list[dict[str, str | None]]:
    return list(
        page.evaluate(
            """() => [...document.querySelectorAll('[data-testid^=meld-][data-kind]')].map((m) => ({
                 testid: m.dataset.testid, kind: m.dataset.kind, id: m.dataset.id ?? null,
                 name: m.querySelector('.sr-only')?.textContent ?? '' }))"""
        )
    )


def test_a_round_of_modern_american_canasta(
    live_server: Any, page: Any, shots: Any, js_errors: list[str]
) -> None:
    create_family_table(page, live_server.url, "mac", "Modern American Canasta")
    # No upcard: the pile starts empty; the turn card is not drawn yet.
    expect(page.get_by_test_id("hand-card")).to_have_count(13)
    expect(page.get_by_test_id("pile")).to_contain_text("empty")
    expect(page.get_by_test_id("turn-card")).to_have_text("Turn card not drawn")
    expect(page.get_by_test_id("dead-ranks")).to_be_visible()
    check_controls(page, ["draw-keep-three", "special-hand-name", "declare-special-hand"])
    assert fits_the_phone(page)
    assert_no_blocking_violations(page)
    shots(page, "mac-table")

    checked: dict[str, bool] = {}

    def on_table(page: Any) -> None:
        if not checked.get("axe") and seen_melds(page):
            assert_no_blocking_violations(page)
            shots(page, "mac-melds", full_page=True)
            checked["axe"] = True
        threes = page.locator("[data-testid^=threes-]")
        if threes.count() and not checked.get("threes"):
            expect(threes.first).to_contain_text("Threes")
            name = threes.first.locator(".sr-only").inner_text()
            assert re.match(r"Threes: \d+ (red|black) threes?: 3 of", name), name
            checked["threes"] = True

    done = play_round(page, on_table)
    assert done["keyboard_draws"] >= 1 and done["keyboard_discards"] >= 1, done
    melds = seen_melds(page)
    assert all(m["id"] is None for m in melds), melds  # mac melds are keyed by rank
    assert_no_blocking_violations(page)  # the round summary
    shots(page, "mac-round-summary")
    page.get_by_test_id("close-summary").click()
    assert checked.get("axe") or not melds, checked
    assert not js_errors, js_errors


def test_a_round_of_samba(live_server: Any, page: Any, shots: Any, js_errors: list[str]) -> None:
    create_family_table(page, live_server.url, "samba", "Samba")
    expect(page.get_by_test_id("hand-card")).to_have_count(15)
    check_controls(page, ["meld-onto", "meld-sequence", "merge-choice", "merge"])
    # The "Onto" choice lists where a meld may go: as the rules say, or a new meld.
    onto = page.get_by_test_id("meld-onto").locator("option")
    assert [onto.nth(i).inner_text() for i in range(2)] == ["as the rules say", "a new meld"]
    assert page.get_by_test_id("meld-wild").count() == 0  # no wild melds in Samba
    assert fits_the_phone(page)
    assert_no_blocking_violations(page)

    checked: dict[str, bool] = {}

    def on_table(page: Any) -> None:
        melds = seen_melds(page)
        if melds and not checked.get("ids"):
            # Every Samba meld has its id, and its test id says it (meld-<team>-A1).
            for m in melds:
                assert m["id"] and re.fullmatch(r"[AB]\d+", m["id"]), m
                assert str(m["testid"]).endswith(f"-{m['id']}"), m
            assert_no_blocking_violations(page)
            shots(page, "samba-melds", full_page=True)
            checked["ids"] = True
        sequences = [m for m in melds if m["kind"] == "sequence"]
        if sequences and not checked.get("sequence"):
            name = str(sequences[0]["name"])
            assert re.match(r"Sequence of (clubs|diamonds|hearts|spades)", name), sequences
            checked["sequence"] = True

    done = play_round(page, on_table)
    assert done["keyboard_draws"] >= 1 and done["keyboard_discards"] >= 1, done
    assert_no_blocking_violations(page)
    shots(page, "samba-round-summary")
    page.get_by_test_id("close-summary").click()
    assert checked.get("ids"), "no meld was made in the whole round"
    assert not js_errors, js_errors


def test_the_keyboard_reaches_the_family_controls(live_server: Any, page: Any) -> None:
    """From the hand, Tab reaches the Samba controls, and each names what it does."""
    create_family_table(page, live_server.url, "samba", "Samba")
    page.get_by_test_id("hand-card").first.focus()
    tab_to(page, "meld-onto")
    assert focused(page)["tag"] == "SELECT"
    label = page.evaluate("() => document.activeElement.labels[0]?.textContent")
    assert label and label.startswith("Onto"), label
