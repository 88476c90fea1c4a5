"""Quick play keeps apart two players who just sat at a table together while someone else fits
(finding 9: two accounts of one person queueing together were paired with each other)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accounts.models import Player
from competition.services.matchmaking import Waiting, groups_form, pairing_run, queue_join
from games.services.lobby import game_create, game_join, game_start
from games.services.table import game_concede
from tests.competition.services.test_matchmaking import (
    T0,
    pairing_by_hand,  # noqa: F401  (autouse: the tests run the pairing passes)
    people,  # noqa: F401  (fixture)
    waiting_lists,
)


def _waiting(pk: int, points: int, joined: float = 0.0) -> Waiting:
    return Waiting(
        pk=pk, player_id=pk, points=points, joined=joined, bots_at=None, bot_level="medium"
    )


def ids(groups: list[list[Any]]) -> list[set[int]]:
    return [{w.player_id for w in g} for g in groups]


# ============================================================================== the rule
@pytest.mark.parametrize("rated", [True, False])
def test_two_who_just_played_meet_someone_else_when_someone_else_fits(rated: bool) -> None:
    a, b, c = _waiting(1, 1000), _waiting(2, 1001), _waiting(3, 1002)
    recent = {frozenset((1, 2))}
    assert ids(groups_form([a, b, c], 2, rated, 5.0, set(), recent)) == [{2, 3}]
    assert ids(groups_form([a, b, c], 2, rated, 5.0, set(), set())) == [{1, 2}]  # before
    # Alone in the queue, they still play (their rated results together are limited apart).
    assert ids(groups_form([a, b], 2, rated, 5.0, set(), recent)) == [{1, 2}]


def test_four_who_just_played_together_do_not_sit_together_again_while_others_wait() -> None:
    mine = [_waiting(pk, 1000 + pk) for pk in range(1, 5)]
    others = [_waiting(pk, 1000 + pk) for pk in range(5, 9)]
    recent = {frozenset((x, y)) for x in range(1, 5) for y in range(x + 1, 5)}
    groups = ids(groups_form(mine + others, 4, True, 5.0, set(), recent))
    assert len(groups) == 2 and {1, 2, 3, 4} not in groups
    assert ids(groups_form(mine + others, 4, True, 5.0, set(), set()))[0] == {1, 2, 3, 4}


@given(
    rows=waiting_lists,
    size=st.sampled_from([2, 3, 4]),
    recent=st.sets(st.tuples(st.integers(0, 39), st.integers(0, 39)), max_size=30),
)
def test_recent_pairs_never_leave_a_full_table_waiting_after_two_minutes(
    rows: list[tuple[int, float, float | None]], size: int, recent: set[tuple[int, int]]
) -> None:
    waiting = [_waiting(pk, points, joined) for pk, (points, joined, _) in enumerate(rows)]
    pairs = {frozenset(p) for p in recent if p[0] != p[1]}
    for rated in (True, False):
        groups = groups_form(waiting, size, rated, 320.0, set(), pairs)
        placed = [w.pk for g in groups for w in g]
        assert len(placed) == len(set(placed))
        assert len(waiting) - len(placed) < size


# ============================================================================== the pairing run
@pytest.mark.django_db
def test_the_pairing_run_keeps_recent_opponents_apart(
    people: Callable[..., list[Player]],  # noqa: F811
    django_capture_on_commit_callbacks: Any,
) -> None:
    farmer, second, stranger = people(3, fmt="two_player")
    table = game_create(creator=farmer, preset="two_player", rated=True)
    game_join(player=second, game_id=table.pk)
    game_start(game_id=table.pk, player=farmer)
    game_concede(game_id=table.pk, player=second)

    now = T0 + timedelta(seconds=3)
    for who in (farmer, second, stranger):
        queue_join(player=who, preset="two_player", rated=True, now=T0)
    with django_capture_on_commit_callbacks(execute=True):
        [made] = pairing_run(now=now).matches
    assert set(made.player_ids) != {farmer.pk, second.pk}
    assert stranger.pk in made.player_ids


@pytest.mark.django_db
def test_recent_opponents_alone_in_the_queue_still_play(
    people: Callable[..., list[Player]],  # noqa: F811
    django_capture_on_commit_callbacks: Any,
    settings: Any,
) -> None:
    ada, bob = people(2, fmt="two_player")
    table = game_create(creator=ada, preset="two_player")
    game_join(player=bob, game_id=table.pk)
    game_start(game_id=table.pk, player=ada)
    game_concede(game_id=table.pk, player=bob)
    for who in (ada, bob):
        queue_join(player=who, preset="two_player", now=T0)
    with django_capture_on_commit_callbacks(execute=True):
        [made] = pairing_run(now=T0 + timedelta(seconds=3)).matches
    assert set(made.player_ids) == {ada.pk, bob.pk}
