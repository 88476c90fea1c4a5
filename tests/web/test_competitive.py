"""Competitive play in the web client, end to end in headless Chromium: the leaderboard of a
format (rated players, your own row, "around you", a player's ratings), "Play now" (a casual
queue filled with bots after the wait chosen; two players queueing rated against each other),
leaving the queue, a rated table from the new-table form, and a rated game's rating changes at
its end. The pairing runs in the live server's process (as without a broker; a Celery beat task
in production) when a player queues and reads the queue's status."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import Player
from accounts.services.players import player_create
from competition.models import QueueEntry, Rating
from competition.selectors.ratings import rating_shown
from games.models import Game
from tests.web.test_client import expect, fits_the_phone, sign_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def rated_player(name: str, format: str, mu: float, sigma: float, games: int) -> Player:
    player, _token = player_create(display_name=name)
    Rating.objects.create(
        player=player,
        format=format,
        mu=mu,
        sigma=sigma,
        display=mu - 3 * sigma,
        games=games,
        wins=games // 2,
    )
    return player


def open_page(context: Any) -> Any:
    return context.pages[0] if context.pages else context.new_page()


def game_id_of(page: Any) -> int:
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


# ----------------------------------------------------------------------------- leaderboard
def test_the_leaderboard_lists_rated_players(
    live_server: Any, page: Any, shots: Any, js_errors: list[str]
) -> None:
    rated_player("Cleo", "two_player", 32.0, 2.0, 30)  # 1000 + 40 * 26 = 2040
    rated_player("Dan", "two_player", 27.0, 3.0, 12)
    rated_player("Eve", "two_player", 24.0, 6.0, 3)  # provisional
    rated_player("Finn", "partnership", 30.0, 2.5, 20)
    sign_up(page, live_server.url, "Ada")
    ada = Player.objects.get(display_name="Ada")
    Rating.objects.create(
        player=ada, format="two_player", mu=26.0, sigma=3.0, display=17.0, games=11, wins=6
    )

    page.get_by_test_id("nav-leaderboard").click()
    expect(page.get_by_test_id("format-partnership")).to_have_attribute("aria-current", "page")
    rows = page.get_by_test_id("leaderboard").get_by_test_id("leaderboard-row")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Finn")
    expect(page.get_by_test_id("around-me")).to_contain_text("no rating in this format")

    page.get_by_test_id("format-two_player").click()
    expect(page.get_by_test_id("format-two_player")).to_have_attribute("aria-current", "page")
    rows = page.get_by_test_id("leaderboard").get_by_test_id("leaderboard-row")
    expect(rows).to_have_count(4)
    names = [rows.nth(i).locator("th").inner_text() for i in range(4)]
    assert [n.replace(" (you)", "") for n in names] == ["Cleo", "Dan", "Ada", "Eve"], names
    expect(rows.nth(0)).to_contain_text(str(rating_shown(32.0, 2.0)))
    expect(rows.nth(3)).to_contain_text("?")  # Eve is provisional
    expect(rows.nth(2)).to_have_attribute("aria-current", "true")  # your own row
    expect(page.get_by_test_id("leaderboard-count")).to_contain_text("Players 1–4 of 4")
    expect(page.get_by_test_id("around-me-text")).to_have_text(
        f"You are 3rd of 4, rated {rating_shown(26.0, 3.0)}."
    )
    expect(page.get_by_test_id("around-me-table").get_by_test_id("leaderboard-row")).to_have_count(
        4
    )
    shots(page, "leaderboard", full_page=True)
    assert fits_the_phone(page)

    # A player's profile: the rating per format, with the rank.
    rows.nth(0).get_by_role("link", name="Cleo").click()
    expect(page.get_by_test_id("profile")).to_contain_text("Cleo")
    expect(page.get_by_test_id("rating-two_player")).to_contain_text(str(rating_shown(32.0, 2.0)))
    expect(page.get_by_test_id("rating-two_player")).to_contain_text("1st")
    expect(page.get_by_test_id("rating-partnership")).to_contain_text("—")  # never rated there

    # Your own: "My ratings".
    page.get_by_test_id("nav-ratings").click()
    expect(page.get_by_test_id("profile")).to_contain_text("Ada (you)")
    expect(page.get_by_test_id("rating-two_player")).to_contain_text("3rd")
    assert not js_errors, js_errors


# ----------------------------------------------------------------------------- play now
@pytest.fixture
def pairing_in_process(settings: Any) -> None:
    """Pairing runs in the web process when a player queues and reads the status (as without
    a broker; in production the beat task runs it every 2 s)."""
    settings.MATCHMAKING_IN_PROCESS = True


def queue_for(page: Any, preset: str, rated: bool, bots_after: str = "", level: str = "") -> None:
    page.get_by_test_id("nav-play").click()
    expect(page.get_by_test_id("queue-form")).to_be_visible()
    page.select_option("#queue-preset", preset)
    page.get_by_test_id("queue-rated" if rated else "queue-casual").check()
    if not rated:
        expect(page.get_by_test_id("queue-casual-options")).to_be_visible()
        page.select_option("#queue-bots-after", bots_after)
        if level:
            page.select_option("#queue-bot-level", level)
    else:
        expect(page.get_by_test_id("queue-casual-options")).to_be_hidden()
    page.get_by_test_id("queue-join").click()


def test_play_now_casual_fills_with_bots(
    live_server: Any, page: Any, shots: Any, js_errors: list[str], pairing_in_process: None
) -> None:
    sign_up(page, live_server.url, "Ada")
    # Queue, then leave again.
    queue_for(page, "classic", rated=True)
    expect(page.get_by_test_id("queue-waiting")).to_be_visible()
    expect(page.get_by_test_id("queue-window")).to_contain_text("within 100 points")
    page.get_by_test_id("leave-queue").click()
    expect(page.get_by_test_id("message")).to_have_text("You left the queue.")
    expect(page.get_by_test_id("queue-form")).to_be_visible()
    assert not QueueEntry.objects.exists()
    page.get_by_test_id("queue-casual").check()
    shots(page, "play-now")

    # Casual two-player, bots after the shortest wait allowed (10 s): nobody else comes.
    queue_for(page, "two_player", rated=False, bots_after="10", level="easy")
    expect(page.get_by_test_id("queue-waiting")).to_be_visible()
    expect(page.get_by_test_id("queue-title")).to_have_text(
        "Looking for players: Casual two player, 2 players"
    )
    expect(page.get_by_test_id("queue-bots")).to_contain_text("Bots fill the empty seats")
    expect(page.get_by_test_id("queue-waited")).not_to_have_text("0:00", timeout=5000)
    shots(page, "play-now-waiting")
    assert fits_the_phone(page)
    # Matched with a bot and dealt: the table opens by itself.
    page.wait_for_url("**/#/game/*", timeout=40_000)
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(page.get_by_test_id("hand-card")).not_to_have_count(0)
    game = Game.objects.get(pk=game_id_of(page))
    assert not game.rated
    assert game.seats.filter(bot_level="easy").count() == 1
    assert not js_errors, js_errors


def test_two_players_queue_rated_and_meet(
    live_server: Any, page: Any, new_context: Any, js_errors: list[str], pairing_in_process: None
) -> None:
    sign_up(page, live_server.url, "Ada")
    queue_for(page, "two_player", rated=True)
    expect(page.get_by_test_id("queue-waiting")).to_be_visible()
    expect(page.get_by_test_id("queue-bots")).to_have_text("Rated games are people only.")

    other = open_page(new_context())
    sign_up(other, live_server.url, "Bob")
    queue_for(other, "two_player", rated=True)
    other.wait_for_url("**/#/game/*", timeout=30_000)
    page.wait_for_url("**/#/game/*", timeout=30_000)
    assert game_id_of(page) == game_id_of(other)
    game = Game.objects.get(pk=game_id_of(page))
    assert game.rated and game.status == "active"
    for p in (page, other):
        expect(p.get_by_test_id("table")).to_be_visible()
        expect(p.locator(".game-title")).to_contain_text("rated")
    assert not js_errors, js_errors


# ----------------------------------------------------------------------------- rated tables
def test_a_rated_table_shows_the_rating_changes(
    live_server: Any, page: Any, new_context: Any, shots: Any, js_errors: list[str], settings: Any
) -> None:
    settings.RATED_MIN_MOVES_PER_SIDE = 0  # the concession at the start counts here
    sign_up(page, live_server.url, "Ada")
    page.select_option("#preset", "two_player")
    page.get_by_test_id("rated").check()
    expect(page.get_by_test_id("rated-help")).to_contain_text("people only")
    expect(page.get_by_test_id("seat-choice-1")).to_be_disabled()
    expect(page.get_by_test_id("seat-choice-1")).to_have_value("open")
    page.get_by_test_id("create-game").click()
    expect(page.get_by_test_id("lobby")).to_contain_text("rated")
    expect(page.locator("#fill-bots")).to_have_count(0)  # a rated table is people only
    code = page.get_by_test_id("join-code").inner_text()
    game_id = game_id_of(page)
    assert Game.objects.get(pk=game_id).rated

    bob = open_page(new_context())
    sign_up(bob, live_server.url, "Bob")
    bob.fill("#join-code", code)
    bob.get_by_test_id("join-game").click()
    expect(page.get_by_test_id("lobby")).to_contain_text("Bob")
    page.get_by_test_id("start-game").click()
    expect(page.get_by_test_id("table")).to_be_visible()
    expect(bob.get_by_test_id("table")).to_be_visible()

    # Bob concedes: the game is over, rated, and both see what it did to their ratings.
    bob.once("dialog", lambda dialog: dialog.accept())
    bob.get_by_test_id("concede").click()
    expect(bob.get_by_test_id("status")).to_contain_text("Game over")
    changes = page.get_by_test_id("rating-changes")
    expect(changes).to_contain_text("Rating changes", timeout=30_000)
    expect(changes).to_contain_text("You: 1000 → ")
    expect(changes).to_contain_text("(+")
    expect(changes).to_contain_text("Bob: 1000 → ")
    expect(bob.get_by_test_id("rating-changes")).to_contain_text("(−")
    # The move log's ratings_changed entry: in "What happened", and read out.
    expect(page.get_by_test_id("log")).to_contain_text("Ratings changed: You 1000 → ")
    expect(page.get_by_test_id("announcer")).to_contain_text("Ratings changed:")
    shots(page, "rated-game-over", full_page=True)

    # Ada's ratings list the game.
    page.goto(live_server.url + "/#/player/me")
    expect(page.get_by_test_id("rated-games")).to_contain_text(f"#{game_id}")
    expect(page.get_by_test_id("rating-two_player")).to_contain_text("1st")
    shots(page, "my-ratings", full_page=True)
    assert not js_errors, js_errors
