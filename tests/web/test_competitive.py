"""Competitive play in the web client, end to end in headless Chromium: the leaderboard of a
format (rated players, your own row, "around you", a player's ratings), "Play now" (a casual
queue filled with bots after the wait chosen; two players queueing rated against each other),
leaving the queue, a rated table from the new-table form, and a rated game's rating changes at
its end. The pairing run (a Celery beat task in production) is called by the test."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from games.models import Game, Player, QueueEntry, Rating
from games.selectors.ratings import rating_shown
from games.services.players import player_create
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


def pair_now() -> None:
    """One run of the pairing task (the beat runs it every 2 s in production)."""
    from games.services.matchmaking import queue_pair

    queue_pair()


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
