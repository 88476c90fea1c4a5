"""Leaderboards, around-me, a player's ratings and rated games (competition.selectors.ratings), on
Rating and RatingChange rows built directly."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts import errors
from accounts.models import Player
from accounts.services.players import player_create
from competition.models import Rating, RatingChange, RatingFormat
from competition.selectors.ratings import (
    DEFAULT_MU,
    DEFAULT_SIGMA,
    PROVISIONAL_GAMES,
    leaderboard_around,
    leaderboard_page,
    player_rated_games,
    player_ratings_get,
    rating_history_get,
    rating_rank,
    rating_shown,
)
from games.models import Game
from games.services.lobby import game_create

# The rating update itself: every result counts (see every_result_counts).
pytestmark = pytest.mark.usefixtures("every_result_counts")

TWO = RatingFormat.TWO_PLAYER
FOUR = RatingFormat.PARTNERSHIP
THREE = RatingFormat.THREE_PLAYER


def players(n: int) -> list[Player]:
    return [player_create(display_name=f"P{i}")[0] for i in range(n)]


def rate(
    player: Player, display: float, format: str = TWO, *, sigma: float = 2.0, games: int = 20
) -> Rating:
    """A rating whose display (mu - 3 sigma) is ``display``."""
    return Rating.objects.create(
        player=player,
        format=format,
        mu=display + 3 * sigma,
        sigma=sigma,
        display=display,
        games=games,
        wins=games // 2,
    )


def ids(body: dict[str, Any]) -> list[int]:
    return [e["player_id"] for e in body["entries"]]


def ranks(body: dict[str, Any]) -> list[int]:
    return [e["rank"] for e in body["entries"]]


# ============================================================================== the board
@pytest.mark.django_db
def test_board_is_by_display_high_to_low_in_pages_with_the_format_size() -> None:
    a, b, c, d, e = players(5)
    for p, display in [(a, 3.0), (b, 10.0), (c, -1.0), (d, 7.5), (e, 0.0)]:
        rate(p, display)
    rate(c, 50.0, FOUR)  # another format's rating changes nothing here

    top = leaderboard_page(format=TWO, limit=3, offset=0)
    assert top["format"] == TWO and top["total"] == 5
    assert ids(top) == [b.pk, d.pk, a.pk]
    assert ranks(top) == [1, 2, 3]
    rest = leaderboard_page(format=TWO, limit=3, offset=3)
    assert ids(rest) == [e.pk, c.pk] and ranks(rest) == [4, 5]
    assert leaderboard_page(format=TWO, limit=3, offset=5)["entries"] == []

    four = leaderboard_page(format=FOUR, limit=20, offset=0)
    assert four["total"] == 1 and ids(four) == [c.pk]
    assert leaderboard_page(format=THREE, limit=20, offset=0) == {
        "format": THREE,
        "total": 0,
        "entries": [],
    }


@pytest.mark.django_db
def test_an_entry_shows_the_rating_its_numbers_and_the_provisional_flag() -> None:
    veteran, novice = players(2)
    rate(veteran, 4.0, sigma=1.5, games=PROVISIONAL_GAMES)
    rate(novice, 1.0, sigma=3.0, games=PROVISIONAL_GAMES - 1)
    entries = leaderboard_page(format=TWO, limit=20, offset=0)["entries"]
    assert entries[0] == {
        "rank": 1,
        "player_id": veteran.pk,
        "display_name": "P0",
        "rating": rating_shown(4.0 + 4.5, 1.5),
        "mu": 8.5,
        "sigma": 1.5,
        "games": PROVISIONAL_GAMES,
        "wins": PROVISIONAL_GAMES // 2,
        "provisional": False,
    }
    assert entries[0]["rating"] == 1160  # 1000 + 40 * 4
    assert entries[1]["player_id"] == novice.pk
    assert entries[1]["provisional"] is True
    assert entries[1]["rating"] == 1040


@pytest.mark.django_db
def test_ties_go_by_player_id_and_ranks_stay_distinct() -> None:
    first, second, third, fourth = players(4)
    rate(fourth, 5.0)
    rate(second, 5.0)
    rate(third, 5.0)
    rate(first, 2.0)
    board = leaderboard_page(format=TWO, limit=20, offset=0)
    assert ids(board) == [second.pk, third.pk, fourth.pk, first.pk]
    assert ranks(board) == [1, 2, 3, 4]
    # A page cut through the tie continues it.
    assert ids(leaderboard_page(format=TWO, limit=2, offset=1)) == [third.pk, fourth.pk]
    for entry in board["entries"]:
        row = Rating.objects.get(player_id=entry["player_id"], format=TWO)
        assert (
            rating_rank(format=TWO, display=row.display, player_id=row.player_id) == entry["rank"]
        )


@pytest.mark.django_db
def test_a_page_is_three_queries_whatever_its_size(django_assert_num_queries: Any) -> None:
    for i, p in enumerate(players(30)):
        rate(p, float(i))
    with django_assert_num_queries(3):
        board = leaderboard_page(format=TWO, limit=25, offset=3)
    assert len(board["entries"]) == 25


# ============================================================================== around me
@pytest.mark.django_db
def test_around_me_in_the_middle_of_the_board() -> None:
    ps = players(9)
    for i, p in enumerate(ps):
        rate(p, float(100 - i))  # ps[0] is first
    me = ps[4]
    body = leaderboard_around(format=TWO, player=me, size=2)
    assert body["total"] == 9
    assert body["me"]["player_id"] == me.pk and body["me"]["rank"] == 5
    assert ids(body) == [p.pk for p in ps[2:7]]
    assert ranks(body) == [3, 4, 5, 6, 7]


@pytest.mark.django_db
def test_around_me_at_the_top_and_at_the_bottom() -> None:
    ps = players(6)
    for i, p in enumerate(ps):
        rate(p, float(10 - i))
    top = leaderboard_around(format=TWO, player=ps[0], size=3)
    assert top["me"]["rank"] == 1
    assert ids(top) == [p.pk for p in ps[:4]] and ranks(top) == [1, 2, 3, 4]
    bottom = leaderboard_around(format=TWO, player=ps[5], size=3)
    assert bottom["me"]["rank"] == 6
    assert ids(bottom) == [p.pk for p in ps[2:]] and ranks(bottom) == [3, 4, 5, 6]
    everyone = leaderboard_around(format=TWO, player=ps[2], size=50)
    assert ids(everyone) == [p.pk for p in ps] and ranks(everyone) == [1, 2, 3, 4, 5, 6]


@pytest.mark.django_db
def test_around_me_inside_a_tie() -> None:
    a, b, c, d = players(4)
    for p in (a, b, c, d):
        rate(p, 1.0)
    body = leaderboard_around(format=TWO, player=c, size=1)
    assert body["me"]["rank"] == 3
    assert ids(body) == [b.pk, c.pk, d.pk] and ranks(body) == [2, 3, 4]


@pytest.mark.django_db
def test_an_unrated_viewer_is_on_no_board() -> None:
    rated, unrated = players(2)
    rate(rated, 1.0)
    rate(unrated, 1.0, FOUR)  # rated in another format only
    assert leaderboard_around(format=TWO, player=unrated, size=5) == {
        "format": TWO,
        "total": 1,
        "me": None,
        "entries": [],
    }


@pytest.mark.django_db
def test_around_me_is_five_queries(django_assert_num_queries: Any) -> None:
    ps = players(40)
    for i, p in enumerate(ps):
        rate(p, float(i))
    with django_assert_num_queries(5):
        body = leaderboard_around(format=TWO, player=ps[20], size=10)
    assert len(body["entries"]) == 21


# ============================================================================== a player's
@pytest.mark.django_db
def test_a_player_has_a_rating_in_every_format_defaults_where_unrated(
    django_assert_num_queries: Any,
) -> None:
    me, better, worse = players(3)
    rate(better, 9.0)
    rate(me, 4.0, games=3)
    rate(worse, 1.0)
    rate(better, -2.0, THREE)
    rate(me, 6.0, THREE, games=12)
    with django_assert_num_queries(2):
        mine = player_ratings_get(player=me)
    by_format = {r["format"]: r for r in mine}
    assert [r["format"] for r in mine] == [
        "partnership",
        "two_player",
        "three_player",
        "mac",
        "mac_two_player",
        "samba",
        "bolivia",
    ]
    assert by_format["samba"]["rank"] is None and by_format["samba"]["games"] == 0
    assert by_format["partnership"] == {
        "format": "partnership",
        "rating": 1000,
        "mu": DEFAULT_MU,
        "sigma": DEFAULT_SIGMA,
        "games": 0,
        "wins": 0,
        "provisional": True,
        "rank": None,
    }
    assert by_format["two_player"]["rank"] == 2
    assert by_format["two_player"]["provisional"] is True
    assert by_format["two_player"]["rating"] == 1160
    assert by_format["three_player"]["rank"] == 1
    assert by_format["three_player"]["provisional"] is False
    assert by_format["three_player"]["games"] == 12


@pytest.mark.django_db
def test_a_player_with_no_rating_shows_the_starting_rating_everywhere(
    django_assert_num_queries: Any,
) -> None:
    (newcomer,) = players(1)
    with django_assert_num_queries(1):
        mine = player_ratings_get(player=newcomer)
    assert {(r["rating"], r["games"], r["provisional"], r["rank"]) for r in mine} == {
        (1000, 0, True, None)
    }


def _change(game: Game, player: Player, before: float, after: float, **kw: Any) -> RatingChange:
    sigma_before, sigma_after = 3.0, 2.5
    return RatingChange.objects.create(
        game=game,
        player=player,
        format=kw.get("format", TWO),
        seat=kw.get("seat", 0),
        team=kw.get("team", 0),
        rank=kw.get("rank", 1),
        mu_before=before + 3 * sigma_before,
        sigma_before=sigma_before,
        mu_after=after + 3 * sigma_after,
        sigma_after=sigma_after,
        display_before=before,
        display_after=after,
    )


@pytest.mark.django_db
def test_rated_games_newest_first_with_their_changes() -> None:
    me, other = players(2)
    old = game_create(creator=me, preset="two_player")
    new = game_create(creator=me, preset="classic")
    ended = timezone.now() - timedelta(hours=1)
    Game.objects.filter(pk=old.pk).update(finished_at=ended)
    _change(old, me, 0.0, 1.5, rank=1)
    _change(old, other, 0.0, -1.0, rank=2, seat=1, team=1)
    _change(new, me, 1.5, 1.0, rank=2, format=FOUR, seat=2)

    games = player_rated_games(player=me)
    assert games == [
        {
            "game_id": new.pk,
            "format": FOUR,
            "finished_at": None,
            "rank": 2,
            "rating_before": 1060,
            "rating_after": 1040,
            "change": -20,
            "private": False,
            "counted": True,
            "unrated_reason": None,
        },
        {
            "game_id": old.pk,
            "format": TWO,
            "finished_at": ended,
            "rank": 1,
            "rating_before": 1000,
            "rating_after": 1060,
            "change": 60,
            "private": False,
            "counted": True,
            "unrated_reason": None,
        },
    ]
    assert player_rated_games(player=me, limit=1)[0]["game_id"] == new.pk


@pytest.mark.django_db
def test_rating_history_per_format_in_pages() -> None:
    me, other = players(2)
    made = [game_create(creator=me, preset="two_player") for _ in range(5)]
    for i, g in enumerate(made):
        _change(g, me, float(i), float(i + 1))
    _change(game_create(creator=me, preset="classic"), me, 0.0, 2.0, format=FOUR)

    first = rating_history_get(player_id=me.pk, format=TWO, limit=2, offset=0)
    assert first["player_id"] == me.pk and first["format"] == TWO and first["total"] == 5
    assert [e["game_id"] for e in first["entries"]] == [made[4].pk, made[3].pk]
    entry = first["entries"][0]
    assert (entry["rating_before"], entry["rating_after"], entry["change"]) == (1160, 1200, 40)
    assert entry["mu_after"] == 5.0 + 7.5 and entry["sigma_after"] == 2.5
    assert entry["seat"] == 0 and entry["team"] == 0 and entry["rank"] == 1
    last = rating_history_get(player_id=me.pk, format=TWO, limit=2, offset=4)
    assert [e["game_id"] for e in last["entries"]] == [made[0].pk]
    assert rating_history_get(player_id=me.pk, format=FOUR, limit=20, offset=0)["total"] == 1
    assert rating_history_get(player_id=other.pk, format=TWO, limit=20, offset=0) == {
        "player_id": other.pk,
        "format": TWO,
        "total": 0,
        "entries": [],
    }
    with pytest.raises(errors.PlayerNotFound):
        rating_history_get(player_id=other.pk + 1000, format=TWO, limit=20, offset=0)


# ============================================================================== invariants
@pytest.fixture
def pool(db: None) -> list[Player]:
    return players(12)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    data=st.data(),
    # Few distinct displays, so ties are common.
    displays=st.lists(st.sampled_from([-3.0, -0.5, 0.0, 0.25, 2.0, 7.0]), min_size=1, max_size=12),
    limit=st.integers(1, 5),
    size=st.integers(1, 4),
)
def test_the_board_order_and_ranks_for_any_ratings(
    pool: list[Player], data: st.DataObject, displays: list[float], limit: int, size: int
) -> None:
    """For any ratings: the board, read in pages, is every rating of the format once, by
    display high to low then player id; ranks run 1..n and agree with ``rating_rank``,
    a player's profile rank and the around-me window cut from the whole board."""
    with transaction.atomic():
        rated = pool[: len(displays)]
        for p, display in zip(rated, displays, strict=True):
            rate(p, display)
        rate(pool[-1], 99.0, FOUR)  # another format's rating is on another board
        expected = sorted(
            zip(displays, [p.pk for p in rated], strict=True), key=lambda t: (-t[0], t[1])
        )

        entries: list[dict[str, Any]] = []
        offset = 0
        while True:
            page = leaderboard_page(format=TWO, limit=limit, offset=offset)
            assert page["total"] == len(displays)
            if not page["entries"]:
                break
            entries.extend(page["entries"])
            offset += limit
        # (sigma 2: mu - 3 sigma gives the display back exactly for these values)
        assert [(e["mu"] - 3 * e["sigma"], e["player_id"]) for e in entries] == expected
        assert [e["rank"] for e in entries] == list(range(1, len(displays) + 1))
        shown = [e["rating"] for e in entries]
        assert shown == sorted(shown, reverse=True)

        viewer = data.draw(st.sampled_from(rated))
        position = next(i for i, e in enumerate(entries) if e["player_id"] == viewer.pk)
        row = Rating.objects.get(player=viewer, format=TWO)
        assert rating_rank(format=TWO, display=row.display, player_id=viewer.pk) == position + 1
        profile = {r["format"]: r for r in player_ratings_get(player=viewer)}
        assert profile[TWO]["rank"] == position + 1
        around = leaderboard_around(format=TWO, player=viewer, size=size)
        assert around["me"] == entries[position]
        assert around["entries"] == entries[max(0, position - size) : position + size + 1]
        transaction.set_rollback(True)
