"""The review of a seat's play in the replay, hints at the table and bot accounts, end to end in
headless Chromium.

A two-player game against a bot account (``Player.is_bot``: the "bot" badge beside its name) is
played to its end through the services before the page opens it: seat 0 plays badly on purpose
(it never melds or takes the pile and throws its most valuable card away, jokers first), seat 1
plays the built-in bot's moves; once the first round has ended Ada concedes (a review covers the
finished rounds). The replay then asks for the review of seat 0 ("Review my play"): the answer is
held back as pending (the real server, whose reviewer runs in-process here, has it ready by
then), so the page shows it pending and polls the GET until it reads it ready; the mistakes
are marked, the next and previous mistake are a key press away, and a marked step says the
move chosen, the best one, the loss and the reason.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from accounts.models import Player
from accounts.services.players import player_create
from games.engine import GameState, action_to_dict, legal_actions
from games.models import Game, GameStatus
from games.services.actions import game_action_apply
from games.services.bots import bot_fallback_choose
from games.services.lobby import game_create, game_join, game_start
from games.services.table import game_concede
from tests.web.conftest import axe_violations, describe_violations
from tests.web.test_client import expect, fits_the_phone, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REVIEW_TIMEOUT_MS = 300_000  # the reviewer searches every decision: minutes on a busy machine


def card_value(card: str) -> int:
    if card == "JK":
        return 50
    rank = card[:-1]
    if rank in ("A", "2"):
        return 20
    if rank in ("K", "Q", "J", "10", "9", "8"):
        return 10
    return 5


def bad_move(state: GameState) -> dict[str, Any]:
    """Draw, never meld nor take the pile, throw the most valuable card away."""
    options = [action_to_dict(a) for a in legal_actions(state)]
    for wanted in ("draw", "answer_partner"):
        found = [a for a in options if a["type"] == wanted]
        if found:
            return found[0]
    discards = [a for a in options if a["type"] == "discard"]
    if discards:
        return max(discards, key=lambda a: card_value(a["card"]))
    return bot_fallback_choose(state)


def play_a_round(game_id: int, bad_seat: int, max_steps: int = 5000) -> None:
    """Play until the first round has ended (or the game)."""
    for _ in range(max_steps):
        game = Game.objects.get(pk=game_id)
        state = GameState.from_dict(game.snapshot or {})
        if game.status != GameStatus.ACTIVE or state.rounds:
            return
        seat = state.to_act
        action = bad_move(state) if seat == bad_seat else bot_fallback_choose(state)
        game_action_apply(game_id=game_id, seat=seat, action=action, expected_version=game.version)
    raise AssertionError("no round ended")


def finished_game_against_a_bot_account() -> tuple[int, Player, str]:
    """A finished two-player game of Ada (seat 0, badly) against Robo, a bot account."""
    ada, token = player_create(display_name="Ada")
    robo, _ = player_create(display_name="Robo")
    Player.objects.filter(pk=robo.pk).update(is_bot=True)
    robo.refresh_from_db()
    game = game_create(creator=ada, preset="two_player", seat=0, is_public=False)
    game_join(player=robo, game_id=game.pk, seat=1, join_code=game.join_code)
    game_start(game_id=game.pk, player=ada)
    play_a_round(game.pk, bad_seat=0)
    # One round is enough to review: Ada then concedes (a quick finish).
    if Game.objects.get(pk=game.pk).status == GameStatus.ACTIVE:
        game_concede(game_id=game.pk, player=ada)
    return game.pk, ada, token


def signed_in(context: Any, player: Player, token: str) -> None:
    items = {"canasta.token": token, "canasta.name": player.display_name}
    items["canasta.playerId"] = str(player.pk)
    context.add_init_script(
        "".join(
            f"localStorage.setItem({json.dumps(k)}, {json.dumps(v)});" for k, v in items.items()
        )
    )


def at_step(page: Any, step: int) -> None:
    expect(page.get_by_test_id("replay-step")).to_contain_text(re.compile(rf"^Step {step} /"))


def step_of(page: Any) -> int:
    text = page.get_by_test_id("replay-step").inner_text()
    match = re.search(r"Step (\d+) /", text)
    assert match, text
    return int(match.group(1))


def test_review_my_play_in_the_replay(
    live_server: Any, browser_context: Any, page: Any, shots: Any, js_errors: list[str]
) -> None:
    game_id, ada, token = finished_game_against_a_bot_account()
    signed_in(browser_context, ada, token)

    # The first answer says pending (202), whatever the in-process reviewer did meanwhile:
    # the page must follow it with GETs.
    def held_back(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        response = route.fetch(timeout=REVIEW_TIMEOUT_MS)
        body = response.json()
        body.update(status="pending", summary=None, decisions=[], finished_at=None)
        route.fulfill(status=202, json=body)

    page.route(f"**/api/v1/games/{game_id}/review/", held_back)
    gets: list[str] = []
    page.on(
        "request",
        lambda r: gets.append(r.url) if r.method == "GET" and "/review/?seat=" in r.url else None,
    )
    page.goto(f"{live_server.url}/#/replay/{game_id}")
    expect(page.get_by_test_id("replay")).to_be_visible()
    expect(page.get_by_test_id("replay-text")).to_contain_text("The game started")
    # The bot account wears its badge beside its name.
    expect(page.get_by_test_id("seat-1").get_by_test_id("bot-badge")).to_have_text("bot")

    button = page.get_by_test_id("review-request")
    expect(button).to_have_text("Review my play")
    button.focus()
    page.keyboard.press("Enter")
    status = page.get_by_test_id("review-status")
    expect(status).to_contain_text("Reviewing", timeout=REVIEW_TIMEOUT_MS)
    shots(page, "replay-review-pending")
    expect(status).to_contain_text("Review ready", timeout=30_000)
    assert any("seat=0" in url for url in gets), gets
    summary = page.get_by_test_id("review-summary")
    summarised = re.compile(r"\d+ decisions?: .*mistakes?, .*blunders?; .* lost in all")
    expect(summary).to_contain_text(summarised)

    # The mistakes and blunders are marked (on the timeline, and in a list that opens); the
    # next mistake is a key press away.
    page.get_by_test_id("review-marks-toggle").click()
    marks = page.get_by_test_id("review-mark")
    expect(marks.first).to_be_visible()
    count = marks.count()
    assert count >= 1
    severities = {marks.nth(i).get_attribute("data-severity") for i in range(count)}
    assert severities <= {"mistake", "blunder"}, severities
    steps = [int(marks.nth(i).get_attribute("data-step") or 0) for i in range(count)]
    assert steps == sorted(steps), steps
    first_at = steps[0]
    page.get_by_test_id("replay-first").click()
    expect(page.get_by_test_id("replay-step")).to_contain_text("Step 1 /")
    if first_at > 1:  # the first decision's position is step 1 when it is the first draw
        page.get_by_test_id("review-next").focus()
        page.keyboard.press("Enter")
    else:  # already there, so nothing was announced: step away and back, as a listener would
        page.get_by_test_id("replay-next").click()
        at_step(page, 2)
        page.get_by_test_id("replay-prev").click()
    at_step(page, first_at)
    assert step_of(page) == first_at
    decision = page.get_by_test_id("review-decision")
    expect(decision).to_be_visible()
    expect(decision).to_contain_text("chose")
    expect(decision).to_contain_text("Best:")
    loss = re.compile(r"(mistake|blunder), \d+ points? lost")
    expect(page.get_by_test_id("review-loss")).to_contain_text(loss)
    expect(page.get_by_test_id("replay-step-mark")).to_be_visible()
    expect(marks.first).to_have_attribute("aria-current", "step")
    expect(page.get_by_test_id("announcer")).to_contain_text("Marked:")
    shots(page, "replay-review")
    shots(page, "replay-review-full", full_page=True)
    assert fits_the_phone(page)
    violations = axe_violations(page)
    assert not violations, describe_violations(violations)

    # A mark of the list jumps there; the previous mistake goes back.
    if count >= 2:
        page.get_by_test_id("review-next").click()
        at_step(page, steps[1])
        page.get_by_test_id("review-prev").click()
        at_step(page, first_at)
        page.keyboard.press("n")  # the key for the next mistake
        at_step(page, steps[1])
        page.keyboard.press("p")
        at_step(page, first_at)
        marks.nth(count - 1).click()
        at_step(page, steps[-1])
        expect(page.get_by_test_id("review-next")).to_be_disabled()
    # Inaccuracies too, on request: never fewer marks.
    page.get_by_test_id("review-inaccuracies").check()
    assert page.get_by_test_id("review-mark").count() >= count

    # Read again: the review is there at once (GET), and the polling stopped with the page.
    page.reload()
    expect(page.get_by_test_id("review-summary")).to_be_visible()
    expect(page.get_by_test_id("review-request")).to_have_count(0)
    page.goto(f"{live_server.url}/#/")
    expect(page.get_by_test_id("create-form")).to_be_visible()
    before = len(gets)
    page.wait_for_timeout(2500)
    assert len(gets) == before, "the review is still polled after leaving the replay"
    assert not js_errors, js_errors


def test_hints_at_the_table(live_server: Any, page: Any, shots: Any, js_errors: list[str]) -> None:
    sign_up(page, live_server.url)
    hints = page.get_by_test_id("hints")
    expect(hints).to_be_enabled()
    # A rated table has no hints: the box is unchecked and disabled.
    hints.check()
    page.get_by_test_id("rated").check()
    expect(hints).to_be_disabled()
    expect(hints).not_to_be_checked()
    page.get_by_test_id("rated").uncheck()
    expect(hints).to_be_enabled()
    page.reload()  # the seats back to bots (rated left them open)
    hints.check()
    page.get_by_test_id("create-game").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(page.get_by_test_id("status")).to_contain_text("Your turn")
    expect(page.locator(".game-title")).to_contain_text("hints")

    page.get_by_test_id("hint-level").select_option("medium")
    page.get_by_test_id("hint").click()
    text = page.get_by_test_id("hint-text")
    expect(text).to_contain_text("Hint (medium):", timeout=60_000)
    expect(text).to_contain_text(re.compile(r"Draw from the stock|Take pile|Decline the pile"))
    # A new event (the draw) makes it stale: it is gone.
    page.get_by_test_id("draw").click()
    expect(page.get_by_test_id("status")).to_contain_text("discard")
    expect(text).to_have_text("")
    page.get_by_test_id("hint").click()
    expect(text).to_contain_text(
        re.compile(r"Hint \(medium\): (Discard|Meld|End|Ask partner)"), timeout=60_000
    )
    hinted = page.locator("[data-testid=hand-card].hinted")
    if "Discard" in text.inner_text():
        expect(hinted).to_have_count(1)
    shots(page, "table-hint", full_page=True)
    violations = axe_violations(page)
    assert not violations, describe_violations(violations)
    assert not js_errors, js_errors
