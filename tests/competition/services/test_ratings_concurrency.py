"""A rated game's end racing with itself on real PostgreSQL (threads, each with its own
connection): whatever ends the game (its final move sent twice, a concession, a redelivered
timer expiry, the sweep), the ratings change exactly once; and two games ending at once with
players in common both count, one after the other (rows locked in player order: no deadlock, no
lost update)."""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest

from accounts.models import Player
from competition.models import Rating, RatingChange
from games import errors, tasks
from games.engine import GameState, action_from_dict, apply
from games.engine.history import RATINGS_CHANGED
from games.models import Game, GameEvent, GameStatus
from games.services.actions import game_action_apply
from games.services.bots import bot_fallback_choose
from games.services.deadlines import TimerOptions
from games.services.lobby import game_create, game_join, game_start
from games.services.table import game_concede
from tests.competition.services.test_ratings import players, prior, rated_game
from tests.games.api.test_race import race
from tests.games.services.timers.conftest import assert_log_consistent, overdue

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("every_result_counts"),  # tests/competition/conftest.py
]


def counted_once(game_id: int, people: list[Player], format: str) -> None:
    """The game's result was applied once: one change per player, one log fact, one game
    counted in every player's rating."""
    assert RatingChange.objects.filter(game_id=game_id).count() == len(people)
    assert GameEvent.objects.filter(game_id=game_id, type=RATINGS_CHANGED).count() == 1
    for person in people:
        assert Rating.objects.get(player=person, format=format).games == 1
    assert_log_consistent(game_id)


def after_move(snapshot: dict[str, Any], seat: int, action: dict[str, Any]) -> GameState:
    state = GameState.from_dict(snapshot)
    apply(state, action_from_dict(action, seat), [])
    return state


def test_the_final_move_sent_twice_and_a_concession_at_once_count_the_result_once() -> None:
    game, people = rated_game(2, target_score=1000)
    for _ in range(20000):  # play up to the move that ends the game
        game.refresh_from_db()
        state = GameState.from_dict(game.snapshot or {})
        action = bot_fallback_choose(state)
        ended = after_move(game.snapshot or {}, state.to_act, action)
        if ended.game_over:
            break
        game_action_apply(
            game_id=game.pk, seat=state.to_act, action=action, expected_version=game.version
        )
    else:
        raise AssertionError("the game did not come to its last move")
    final = partial(
        game_action_apply,
        game_id=game.pk,
        seat=state.to_act,
        action=action,
        expected_version=game.version,
    )
    mover = state.to_act
    other = people[1 - mover]  # concedes while the final move is sent, twice
    results = race([final, final, partial(game_concede, game_id=game.pk, player=other)])
    refused = [r for r in results if isinstance(r, BaseException)]
    assert len(refused) == 2, results  # one of the three ended the game
    assert all(isinstance(r, errors.GameOver | errors.StaleVersion) for r in refused), results
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED
    counted_once(game.pk, people, "two_player")
    # The winner: the mover if the other conceded first, else the move's final scores'.
    conceded = GameEvent.objects.filter(game=game, type="game_conceded").exists()
    winner = mover if conceded else ended.winner
    assert winner is not None and game.winner_team == winner
    won = Rating.objects.get(player=people[winner], format="two_player")
    lost = Rating.objects.get(player=people[1 - winner], format="two_player")
    assert (won.wins, lost.wins) == (1, 0) and won.mu > lost.mu


def test_a_redelivered_expiry_the_sweep_and_concessions_racing_count_the_result_once() -> None:
    game, people = rated_game(2, timer=TimerOptions(turn_seconds=30, timeout_limit=1))
    overdue(game.pk)
    game.refresh_from_db()
    expire = partial(tasks.turn_timer_expire, game.pk, game.version)
    results = race(
        [
            expire,  # the ETA task
            expire,  # ... redelivered
            tasks.turn_timers_sweep,
            partial(game_concede, game_id=game.pk, player=people[0]),
            partial(game_concede, game_id=game.pk, player=people[1]),
            partial(game_concede, game_id=game.pk, player=people[1]),  # a retried request
        ]
    )
    failures = [r for r in results if isinstance(r, BaseException)]
    assert all(isinstance(r, errors.GameOver | errors.GameNotActive) for r in failures), results
    endings = [r for r in results[:3] if r is True or r == 1] + [
        r for r in results[3:] if isinstance(r, Game)
    ]
    assert len(endings) == 1, results
    game.refresh_from_db()
    assert game.status in (GameStatus.FINISHED, GameStatus.ABANDONED)
    counted_once(game.pk, people, "two_player")


@pytest.mark.parametrize("rated_before", [False, True], ids=["new players", "rated players"])
def test_two_games_ending_at_once_with_the_same_players_both_count(rated_before: bool) -> None:
    """The same two players at two tables, seated in opposite orders, whose games end at the
    same moment: both results count, the second from the first's ratings (new players: their
    rows are created once; rated players: their rows are locked, not read twice)."""
    ada, bob = players(2)
    if rated_before:
        for person in (ada, bob):
            prior(person, "two_player", 25.0, 4.0)
    games = []
    for first, second in ((ada, bob), (bob, ada)):
        game = game_create(creator=first, preset="two_player", seat=0, rated=True)
        game_join(player=second, game_id=game.pk)
        game_start(game_id=game.pk, player=first)
        games.append(game.pk)
    results = race(
        [
            partial(game_concede, game_id=games[0], player=bob),  # Ada wins the first
            partial(game_concede, game_id=games[1], player=bob),  # Bob loses the second too
        ]
    )
    assert all(isinstance(r, Game) for r in results), results
    for person in (ada, bob):
        row = Rating.objects.get(player=person, format="two_player")
        changes = list(RatingChange.objects.filter(player=person).order_by("id"))
        assert row.games == (14 if rated_before else 2) and len(changes) == 2
        # Applied one after the other: the later change starts where the earlier one ended.
        assert (changes[1].mu_before, changes[1].sigma_before) == (
            changes[0].mu_after,
            changes[0].sigma_after,
        )
        assert (row.mu, row.sigma) == (changes[1].mu_after, changes[1].sigma_after)
    assert Rating.objects.get(player=ada, format="two_player").wins == (8 if rated_before else 2)
