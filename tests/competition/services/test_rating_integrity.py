"""When a rated result counts (competition.services.ratings): a minimum of moves by each side, and
the same two players a limited number of times in a rolling window. A result that does not count
changes no rating, is recorded with its reason, and the player's history says so."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from accounts.models import Player
from competition.models import Rating, RatingChange, UnratedReason
from competition.selectors.rating_changes import game_rating_changes_get
from competition.selectors.ratings import leaderboard_page, rating_history_get
from games.engine import GameState
from games.engine.history import GAME_CONCEDED, RATINGS_CHANGED
from games.models import EventSource, Game, GameStatus
from games.services.actions import game_action_apply
from games.services.bots import bot_fallback_choose
from games.services.lobby import game_create, game_join, game_start
from games.services.table import game_concede
from tests.competition.services.test_ratings import (
    PRESET_OF,
    assert_replays,
    log_types,
    players,
    rated_game,
)

pytestmark = pytest.mark.django_db


def rated_between(*people: Player, is_public: bool = True) -> Game:
    """A started rated table of these people (person i at seat i)."""
    game = game_create(
        creator=people[0], preset=PRESET_OF[len(people)], seat=0, rated=True, is_public=is_public
    )
    for seat, person in enumerate(people[1:], start=1):
        game_join(player=person, game_id=game.pk, seat=seat, join_code=game.join_code)
    return game_start(game_id=game.pk, player=people[0])


def play_moves(game_id: int, per_seat: int, source: str = EventSource.PLAYER) -> None:
    """Every seat makes at least ``per_seat`` moves (the built-in bot's choice, sent as its
    player's)."""
    made: dict[int, int] = {}
    for _ in range(per_seat * 40):
        game = Game.objects.get(pk=game_id)
        state = GameState.from_dict(game.snapshot or {})
        if (
            game.status != GameStatus.ACTIVE
            or min(made.get(s, 0) for s in range(game.players)) >= per_seat
        ):
            return
        game_action_apply(
            game_id=game_id,
            seat=state.to_act,
            action=bot_fallback_choose(state),
            expected_version=game.version,
            source=source,
        )
        made[state.to_act] = made.get(state.to_act, 0) + 1
    raise AssertionError("the seats did not make their moves")


# ============================================================================== too few moves
@override_settings(RATED_MIN_MOVES_PER_SIDE=6)
def test_a_concession_at_the_start_rates_nothing_and_says_why() -> None:
    game, (farmer, second) = rated_game(2)
    assert game.version == 1
    game_concede(game_id=game.pk, player=second)
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED  # the game is over as before ...
    assert not Rating.objects.exists()  # ... but no rating moved or was made
    rows = RatingChange.objects.filter(game=game).order_by("seat")
    assert [(r.player_id, r.counted, r.unrated_reason) for r in rows] == [
        (farmer.pk, False, UnratedReason.TOO_FEW_MOVES),
        (second.pk, False, UnratedReason.TOO_FEW_MOVES),
    ]
    assert all(r.mu_before == r.mu_after and r.sigma_before == r.sigma_after for r in rows)
    assert log_types(game.pk)[-1] == GAME_CONCEDED  # no ratings_changed: nothing changed
    lines = game_rating_changes_get(game)
    assert lines is not None and [line["change"] for line in lines] == [0, 0]
    history = rating_history_get(
        player_id=farmer.pk, format="two_player", limit=20, offset=0, viewer=farmer
    )
    assert [
        (e["game_id"], e["counted"], e["unrated_reason"], e["change"]) for e in history["entries"]
    ] == [(game.pk, False, "too_few_moves", 0)]
    assert leaderboard_page(format="two_player", limit=10, offset=0)["entries"] == []
    assert_replays(game.pk)


@override_settings(RATED_MIN_MOVES_PER_SIDE=6)
def test_four_conceded_tables_leave_the_farmer_where_they_started() -> None:
    """Finding 9: four rated tables each conceded at once by one's own second account."""
    farmer, *seconds = players(5)
    for second in seconds:
        game = rated_between(farmer, second, is_public=False)
        game_concede(game_id=game.pk, player=second)
    assert not Rating.objects.filter(player=farmer).exists()
    assert RatingChange.objects.filter(player=farmer, counted=True).count() == 0
    assert RatingChange.objects.filter(player=farmer, counted=False).count() == 4


@override_settings(RATED_MIN_MOVES_PER_SIDE=3)
def test_a_concession_after_the_minimum_of_moves_is_rated() -> None:
    game, people = rated_game(2)
    play_moves(game.pk, 3)
    game_concede(game_id=game.pk, player=people[1])
    rows = RatingChange.objects.filter(game=game)
    assert rows.count() == 2 and all(r.counted and r.unrated_reason == "" for r in rows)
    assert Rating.objects.get(player=people[0], format="two_player").mu > 25.0
    assert Rating.objects.get(player=people[1], format="two_player").games == 1
    assert log_types(game.pk)[-2:] == [GAME_CONCEDED, RATINGS_CHANGED]
    assert_replays(game.pk)


@override_settings(RATED_MIN_MOVES_PER_SIDE=3)
def test_moves_the_timer_made_for_a_side_do_not_count_as_its_own() -> None:
    game, people = rated_game(2)
    play_moves(game.pk, 3, source=EventSource.TIMER)
    game_concede(game_id=game.pk, player=people[1])
    assert set(RatingChange.objects.filter(game=game).values_list("counted", "unrated_reason")) == {
        (False, UnratedReason.TOO_FEW_MOVES)
    }
    assert not Rating.objects.exists()


# ============================================================================== the same players
@override_settings(RATED_MIN_MOVES_PER_SIDE=0, RATED_SAME_PLAYERS_MAX=3)
def test_the_same_two_players_count_three_times_a_window() -> None:
    ada, bob = players(2)
    games = []
    for _ in range(5):
        game = rated_between(ada, bob)
        game_concede(game_id=game.pk, player=bob)
        games.append(game.pk)
    counted = [RatingChange.objects.get(game_id=pk, player=ada).counted for pk in games]
    assert counted == [True, True, True, False, False]
    assert RatingChange.objects.get(game_id=games[3], player=bob).unrated_reason == (
        UnratedReason.REPEATED_OPPONENTS
    )
    assert Rating.objects.get(player=ada, format="two_player").games == 3
    # Once the first result is older than the window, the next one counts again.
    RatingChange.objects.filter(game_id=games[0]).update(
        created_at=timezone.now() - timedelta(days=1, seconds=1)
    )
    game = rated_between(ada, bob)
    game_concede(game_id=game.pk, player=bob)
    assert RatingChange.objects.get(game=game, player=ada).counted
    assert Rating.objects.get(player=ada, format="two_player").games == 4


@override_settings(RATED_MIN_MOVES_PER_SIDE=0, RATED_SAME_PLAYERS_MAX=1)
def test_the_limit_is_per_pair_not_per_player() -> None:
    ada, bob, cy = players(3)
    for other in (bob, cy):
        game = rated_between(ada, other)
        game_concede(game_id=game.pk, player=other)
    assert RatingChange.objects.filter(player=ada, counted=True).count() == 2
