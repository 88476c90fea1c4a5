"""The "I'm back" button of the web client, in headless Chromium: a player whose turns ran
out finds a stand-in bot playing their seat. Opening the table shows a banner saying so (a
polite status, which does not take the focus) with a 44 px "I'm back!" button; tapping it takes
the seat back (``POST .../seat/reclaim/``): the banner goes, the server's seat has no stand-in,
and the move log says the player reclaimed it. A reclaim the server refuses shows the server's
message.

The table is set up with the services: a two-player timed table with ``timeout_limit`` 1, whose
first timeout of the browser's player hands their seat to its stand-in while the other player
is to act (so that no bot move changes the table meanwhile). ``SEAT_RECLAIM_GRACE_SECONDS`` 0:
opening the page is not coming back within the grace, so only the button gives the seat back.
"""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import Player
from accounts.services.players import player_create
from games.engine.history import SEAT_RETURNED
from games.models import EventSource, Game, GameEvent, Seat
from games.services.deadlines import TimerOptions
from games.services.lobby import game_create, game_join, game_start
from games.services.reclaim import seat_reclaim
from games.services.timers import turn_timer_expire_apply
from tests.games.services.timers.conftest import after_deadline, play_turn
from tests.web.conftest import axe_violations, describe_violations
from tests.web.test_client import expect, fits_the_phone, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def no_reclaim_by_reconnecting(settings: Any) -> None:
    settings.SEAT_RECLAIM_GRACE_SECONDS = 0


def stood_in_table(page: Any, base: str) -> tuple[int, Player]:
    """The browser's player (Ada, seat 0) and Bob at a timed two-player table; Ada's seat
    handed to its stand-in bot after one timeout, Bob to act. Returns the game id and Ada."""
    sign_up(page, base, "Ada")
    ada = Player.objects.get(pk=int(page.evaluate("localStorage.getItem('canasta.playerId')")))
    # Off the home page (its polls) while the table is set up: SQLite's shared test database
    # refuses a write beside a read.
    page.goto(f"{base}/static/client/icons/icon-192.png")
    bob = player_create(display_name="Bob")[0]
    game = game_create(
        creator=ada,
        preset="two_player",
        options={"target_score": 1000},
        timer=TimerOptions(turn_seconds=30, timeout_limit=1),
    )
    game_join(player=bob, game_id=game.pk)
    game = game_start(game_id=game.pk, player=ada)
    if game.to_act != 0:
        play_turn(game.pk, 1)
        game.refresh_from_db()
    assert game.to_act == 0
    assert turn_timer_expire_apply(game.pk, now=after_deadline(game)).applied
    seat = Seat.objects.get(game_id=game.pk, index=0)
    assert seat.player_id == ada.pk and seat.stand_in
    assert Game.objects.get(pk=game.pk).to_act == 1
    return game.pk, ada


def assert_axe_clean(page: Any) -> None:
    violations = axe_violations(page)
    assert not violations, describe_violations(violations)


def test_im_back_takes_the_seat_back_from_the_stand_in(
    live_server: Any, page: Any, shots: Any, js_errors: list[str]
) -> None:
    game_id, ada = stood_in_table(page, live_server.url)
    page.goto(f"{live_server.url}/#/game/{game_id}")
    expect(page.get_by_test_id("table")).to_be_visible()

    banner = page.get_by_test_id("stand-in-banner")
    expect(banner).to_be_visible()
    expect(banner).to_have_attribute("role", "status")
    expect(banner).to_contain_text("A bot is playing for you.")
    # At the top of the table, above the status line.
    assert (
        page.evaluate(
            "document.querySelector('[data-testid=table]').firstElementChild.dataset.testid"
        )
        == "stand-in-banner"
    )
    back = page.get_by_role("button", name="I'm back!")
    expect(back).to_be_enabled()
    box = back.bounding_box()
    assert box is not None and box["height"] >= 44 and box["width"] >= 44
    # The banner does not take the focus.
    assert not page.evaluate("!!document.activeElement?.closest('[data-testid=stand-in-banner]')")
    assert_axe_clean(page)
    assert fits_the_phone(page)
    shots(page, "table-stand-in")

    back.click()
    expect(banner).to_have_count(0)
    expect(page.get_by_test_id("message")).to_contain_text(
        "Welcome back: your seat is yours again."
    )
    seat = Seat.objects.get(game_id=game_id, index=0)
    assert seat.player_id == ada.pk and not seat.stand_in and seat.timeouts == 0
    [returned] = GameEvent.objects.filter(game_id=game_id, type=SEAT_RETURNED)
    assert (returned.seat, returned.source, returned.payload) == (
        0,
        EventSource.PLAYER,
        {"reason": "reclaimed"},
    )
    expect(page.get_by_test_id("hand-card").first).to_be_visible()
    assert_axe_clean(page)
    assert not js_errors, js_errors


def test_a_refused_reclaim_shows_the_servers_message(
    live_server: Any, page: Any, js_errors: list[str]
) -> None:
    game_id, ada = stood_in_table(page, live_server.url)
    page.goto(f"{live_server.url}/#/game/{game_id}")
    expect(page.get_by_test_id("stand-in-banner")).to_be_visible()

    # The seat is taken back elsewhere (another device) just before this tap reaches the server.
    def taken_back_first(route: Any) -> None:
        seat_reclaim(game_id=game_id, player_id=ada.pk)
        route.continue_()

    page.route("**/seat/reclaim/", taken_back_first)
    page.get_by_test_id("reclaim").click()
    message = page.get_by_test_id("message")
    expect(message).to_contain_text("there is nothing to reclaim")
    expect(message).to_contain_text("seat_not_stood_in")
    # The table is read again: the seat is the player's, no banner.
    expect(page.get_by_test_id("stand-in-banner")).to_have_count(0)
    assert not Seat.objects.get(game_id=game_id, index=0).stand_in
    assert GameEvent.objects.filter(game_id=game_id, type=SEAT_RETURNED).count() == 1
    assert not js_errors, js_errors
