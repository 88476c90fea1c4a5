"""Tournaments in the web client, end to end in headless Chromium: an organiser creates a Swiss
event with the form, opens entry, enters it and fills it with bot entrants, starts it; the
current round's pairings, "your next game" (a link to the table) and the standings appear; the
bots' table is played out in-process, so its result shows; when the organiser's own game ends
(conceded) the page, left open, polls its way to the next round without a reload; the log's
check says the standings agree. axe finds nothing serious on the list, the form, the event and
a duplicate event's boards page; the controls are 44 px tall and fit the phone."""

from __future__ import annotations

import re
from typing import Any

import pytest

from accounts.models import Player
from accounts.services.players import player_create
from competition.models import Tournament, TournamentEntry, TournamentInvite, TournamentTable
from games.models import Game, GameStatus
from games.services.table import game_concede
from tests.web.conftest import axe_violations, describe_violations
from tests.web.test_client import expect, fits_the_phone, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A start plays the bots' tables out inside its request (tasks run eagerly here): on a busy
# machine, and on PostgreSQL beside the 64-entrant simulations, that takes far longer than
# Playwright's 5 s default, so the steps after a start wait this long.
BOTS_PLAY = 90_000


def assert_accessible(page: Any) -> None:
    violations = axe_violations(page)
    assert not violations, describe_violations(violations)


def small_controls(page: Any) -> list[str]:
    """The tournament pages' visible buttons, inputs and selects under 44 px tall."""
    return list(
        page.evaluate(
            """() => [...document.querySelectorAll(
                  '.tournaments button, .tournaments a.button, '
                  + '.tournaments input:not([type=checkbox]), .tournaments select')]
                .filter((el) => el.offsetParent !== null)
                .filter((el) => el.getBoundingClientRect().height < 43.5)
                .map((el) => el.dataset.testid || el.id || el.textContent.trim())"""
        )
    )


def test_an_organiser_runs_a_swiss_event_with_bots(
    live_server: Any, page: Any, shots: Any, js_errors: list[str]
) -> None:
    sign_up(page, live_server.url, "Ada")
    page.get_by_test_id("nav-tournaments").click()
    expect(page.get_by_test_id("nav-tournaments")).to_have_attribute("aria-current", "page")
    expect(page.get_by_test_id("tournaments-empty")).to_be_visible()
    assert_accessible(page)

    # The organiser's form: only the format's own settings are shown.
    page.get_by_test_id("tournament-new").click()
    expect(page.get_by_test_id("tournament-create-form")).to_be_visible()
    expect(page.get_by_test_id("field-t-rounds")).to_be_visible()
    page.select_option("#t-format", "knockout")
    expect(page.get_by_test_id("field-t-rounds")).to_be_hidden()
    expect(page.get_by_test_id("field-t-games-per-match")).to_be_visible()
    page.select_option("#t-format", "swiss")
    expect(page.get_by_test_id("field-t-games-per-match")).to_be_hidden()
    assert_accessible(page)
    assert not small_controls(page), small_controls(page)
    assert fits_the_phone(page)

    page.fill("#t-name", "Autumn Swiss")
    page.select_option("#t-preset", "two_player")
    page.fill("#t-target", "1000")
    page.fill("#t-rounds", "2")
    page.select_option("#t-bot-level", "easy")
    shots(page, "tournament-form", full_page=True)
    page.get_by_test_id("tournament-create").click()

    expect(page.get_by_test_id("t-settings")).to_contain_text("Swiss")
    t = Tournament.objects.get(name="Autumn Swiss")
    assert page.url.endswith(f"#/tournament/{t.pk}")
    settings = (t.format, t.preset, t.rounds, t.options)
    assert settings == ("swiss", "two_player", 2, {"target_score": 1000})
    expect(page.get_by_test_id("t-settings")).to_contain_text("draft")

    # Entry: opened, the organiser enters, three easy bots fill the field.
    page.get_by_test_id("t-entry-open").click()
    expect(page.get_by_test_id("t-entry-close")).to_be_visible()
    page.get_by_test_id("t-register").click()
    expect(page.get_by_test_id("your-entry")).to_contain_text("You are entered as Ada")
    page.fill("#t-bots-count", "3")
    page.select_option("#t-bots-level", "easy")
    page.get_by_test_id("t-bots-add").click()
    expect(page.get_by_test_id("t-settings")).to_contain_text("4 entries")
    expect(page.get_by_test_id("standing-row")).to_have_count(4)
    assert TournamentEntry.objects.filter(tournament=t, bot_level="easy").count() == 3
    assert_accessible(page)
    assert not small_controls(page), small_controls(page)

    # The start: round 1 paired, the bots' table played out in-process, Ada's waits for her.
    page.get_by_test_id("t-start").click()
    expect(page.get_by_test_id("t-tables-panel")).to_contain_text(
        "Pairings, round 1", timeout=BOTS_PLAY
    )
    pairings = page.get_by_test_id("pairing")
    expect(pairings).to_have_count(2)
    expect(page.get_by_test_id("t-tables-panel")).to_contain_text("Ada vs")
    expect(pairings.filter(has_text="Ada").get_by_test_id("pairing-game")).to_have_text("Watch")
    played = page.locator("[data-testid=pairing][data-status=finished]")
    expect(played).to_have_count(1)
    expect(played).to_contain_text("wins")
    expect(played.get_by_test_id("pairing-game")).to_have_text("Replay")

    link = page.get_by_test_id("next-game-link")
    expect(link).to_be_visible()
    found = re.fullmatch(r"#/game/(\d+)", link.get_attribute("href") or "")
    assert found, link.get_attribute("href")
    game_id = int(found.group(1))
    ada_entry = TournamentEntry.objects.get(tournament=t, player__display_name="Ada")
    ada_table = next(
        row
        for row in TournamentTable.objects.filter(tournament=t, round=1)
        if any(ada_entry.pk in side for side in row.sides)
    )
    assert ada_table.game_id == game_id
    assert Game.objects.get(pk=game_id).status == GameStatus.ACTIVE

    # The standings: a bot has the round's point, the page shows it.
    points = page.get_by_test_id("standing-points")
    expect(points).to_have_count(4)
    expect(points.first).to_have_text("1")
    expect(page.get_by_test_id("verify-result")).to_contain_text("Verified")
    shots(page, "tournament-running", full_page=True)
    assert_accessible(page)
    assert not small_controls(page), small_controls(page)
    assert fits_the_phone(page)

    # Ada's game ends away from this page (conceded); the page, left open, reads the new
    # version and shows round 2 without a reload.
    game_concede(game_id=game_id, player=Player.objects.get(display_name="Ada"))
    tables = page.get_by_test_id("t-tables-panel")
    expect(tables).to_contain_text("Pairings, round 2", timeout=BOTS_PLAY)
    t.refresh_from_db()
    assert t.current_round == 2
    expect(page.get_by_test_id("t-settings")).to_contain_text("Round 2 of 2")

    # The next game's link opens the table.
    page.get_by_test_id("verify-again").click()
    expect(page.get_by_test_id("verify-result")).to_contain_text("Verified")
    page.get_by_test_id("next-game-link").click()
    expect(page.get_by_test_id("table")).to_be_visible()

    # The list: the event, under its filters.
    page.goto(live_server.url + "/#/tournaments")
    expect(page.get_by_test_id("tournament-row")).to_have_count(1)
    page.select_option("#t-filter-status", "finished")
    expect(page.get_by_test_id("tournaments-empty")).to_be_visible()
    page.select_option("#t-filter-status", "running")
    expect(page.get_by_test_id("tournament-row")).to_contain_text("Autumn Swiss")
    page.get_by_test_id("filter-mine").check()
    expect(page.get_by_test_id("tournament-row")).to_have_count(1)
    assert_accessible(page)
    assert not js_errors, js_errors


def test_a_duplicate_event_shows_its_boards(
    live_server: Any, page: Any, shots: Any, js_errors: list[str]
) -> None:
    sign_up(page, live_server.url, "Ada")
    page.goto(live_server.url + "/#/tournaments/new")
    page.fill("#t-name", "Duplicate night")
    page.select_option("#t-format", "duplicate")
    expect(page.get_by_test_id("field-t-boards")).to_be_visible()
    page.select_option("#t-preset", "two_player")
    page.fill("#t-target", "1000")
    page.fill("#t-rounds", "1")
    page.fill("#t-boards", "1")
    page.get_by_test_id("tournament-create").click()
    expect(page.get_by_test_id("deal-commitment")).to_be_visible()
    t = Tournament.objects.get(name="Duplicate night")
    assert t.format == "duplicate"

    page.get_by_test_id("t-entry-open").click()
    page.fill("#t-bots-count", "4")
    page.get_by_test_id("t-bots-add").click()
    expect(page.get_by_test_id("standing-row")).to_have_count(4)
    page.get_by_test_id("t-start").click()
    expect(page.get_by_test_id("organiser-message")).to_contain_text("started", timeout=BOTS_PLAY)
    # Bots only: every table is played in-process; the event ends and its deals are revealed.
    expect(page.get_by_test_id("t-settings")).to_contain_text("finished", timeout=BOTS_PLAY)
    expect(page.get_by_test_id("verify-result")).to_contain_text("Verified")

    shots(page, "tournament-duplicate", full_page=True)
    page.get_by_test_id("to-boards").click()
    expect(page.get_by_test_id("boards-page")).to_be_visible()
    rows = page.get_by_test_id("board-table")
    expect(rows.first).to_be_visible()
    count = rows.count()
    assert count >= 2
    expect(page.get_by_test_id("board-seed").first).to_be_visible()
    for i in range(count):
        expect(rows.nth(i).get_by_test_id("board-game")).to_have_attribute(
            "href", re.compile(r"#/replay/\d+")
        )
        expect(rows.nth(i).get_by_test_id("board-points")).to_contain_text("%")
    shots(page, "tournament-boards", full_page=True)
    assert_accessible(page)
    assert not small_controls(page), small_controls(page)
    assert fits_the_phone(page)

    rows.first.get_by_test_id("board-game").click()
    expect(page).to_have_url(re.compile(r"#/replay/\d+"))
    assert not js_errors, js_errors


def test_the_organiser_reviews_pairings_invites_disqualifies_and_cancels(
    live_server: Any, page: Any, js_errors: list[str]
) -> None:
    guest, _token = player_create(display_name="Bea")
    sign_up(page, live_server.url, "Ada")
    page.goto(live_server.url + "/#/tournaments/new")
    page.fill("#t-name", "Reviewed")
    page.select_option("#t-preset", "two_player")
    page.fill("#t-target", "1000")
    page.fill("#t-rounds", "3")
    page.get_by_test_id("t-pairing-review").check()
    page.get_by_test_id("t-invitation-only").check()
    page.get_by_test_id("tournament-create").click()
    expect(page.get_by_test_id("t-settings")).to_contain_text("invited players")
    t = Tournament.objects.get(name="Reviewed")
    assert t.pairing_review and t.invitation_only

    # An invitation-only event: players invited by id (a typo refused before any request).
    page.fill("#t-invite-ids", "x")
    page.get_by_test_id("t-invite-send").click()
    expect(page.get_by_test_id("organiser-message")).to_contain_text("whole numbers")
    page.fill("#t-invite-ids", str(guest.pk))
    page.get_by_test_id("t-invite-send").click()
    expect(page.get_by_test_id("organiser-message")).to_contain_text("1 player invited.")
    assert TournamentInvite.objects.filter(tournament=t, player=guest).exists()

    page.get_by_test_id("t-entry-open").click()
    page.fill("#t-bots-count", "4")
    page.get_by_test_id("t-bots-add").click()
    expect(page.get_by_test_id("standing-row")).to_have_count(4)

    # Started with pairing review: round 1 is proposed, then discarded. Paired again by hand
    # it is dealt at once (the bots play it out in-process); round 2 is proposed, published
    # and played; round 3 waits for review.
    page.get_by_test_id("t-start").click()
    tables = page.get_by_test_id("t-tables-panel")
    proposed = page.locator("[data-testid=pairing][data-status=proposed]")
    expect(tables).to_contain_text("Pairings, round 1")
    expect(proposed).to_have_count(2)
    assert_accessible(page)
    page.get_by_test_id("t-round-discard").click()
    expect(page.get_by_test_id("organiser-message")).to_contain_text("discarded")
    expect(page.get_by_test_id("pairing")).to_have_count(0)
    page.get_by_test_id("t-round-pair").click()
    expect(tables).to_contain_text("Pairings, round 2", timeout=BOTS_PLAY)
    expect(proposed).to_have_count(2)
    page.get_by_test_id("t-round-publish").click()
    expect(page.get_by_test_id("organiser-message")).to_contain_text("published", timeout=BOTS_PLAY)
    expect(tables).to_contain_text("Pairings, round 3", timeout=BOTS_PLAY)
    expect(proposed).to_have_count(2)
    # Two rounds of two games: four points shared out.
    points = page.get_by_test_id("standing-points")
    expect(points).to_have_count(4)
    assert sum(float(x) for x in points.all_inner_texts()) == 4.0

    # An entry disqualified; the event cancelled (asked twice).
    page.select_option("#t-remove-entry", index=0)
    removed = int(page.locator("#t-remove-entry").input_value())
    page.get_by_test_id("t-entry-disqualify").click()
    expect(page.get_by_test_id("organiser-message")).to_contain_text("disqualified")
    assert TournamentEntry.objects.get(pk=removed).status == "disqualified"
    expect(page.get_by_test_id("t-remove-entry").locator("option")).to_have_count(3)
    page.get_by_test_id("t-cancel").click()
    expect(page.get_by_test_id("t-cancel-confirm")).to_be_focused()
    page.get_by_test_id("t-cancel-keep").click()
    expect(page.get_by_test_id("t-cancel-confirm")).to_have_count(0)
    page.get_by_test_id("t-cancel").click()
    page.get_by_test_id("t-cancel-confirm").click()
    expect(page.get_by_test_id("t-settings")).to_contain_text("cancelled")
    t.refresh_from_db()
    assert t.status == "cancelled"
    assert_accessible(page)
    assert not js_errors, js_errors
