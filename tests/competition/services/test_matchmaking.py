"""Quick play through the services: queues, the pairing run (driven with ``now``), the match's
table, refusals. The pairing rule itself (``groups_form``) is also checked as a pure function,
with Hypothesis for its invariants."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from accounts.models import Player, PlayerRelation, RelationKind
from accounts.services.players import player_create
from competition import errors, tasks
from competition.models import QueueEntry, Rating
from competition.selectors.matchmaking import queue_status_get, rating_points, rating_window
from competition.services.matchmaking import (
    MATCH_TABLE_CREATE_TASK,
    PairingResult,
    Waiting,
    groups_form,
    match_table_create,
    pairing_run,
    queue_join,
    queue_leave,
)
from games import errors as game_errors
from games.models import Game, GameStatus
from games.services.lobby import game_create, game_join
from games.services.table import game_concede
from tests.games.api.conftest import eager_bots  # noqa: F401  (autouse: tables are dealt in-process)

T0 = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def pairing_by_hand(settings: Any) -> None:
    """The tests run every pairing pass themselves, at the ``now`` they choose."""
    settings.MATCHMAKING_IN_PROCESS = False


@pytest.fixture
def people(db: None) -> Callable[..., list[Player]]:
    count = iter(range(10_000))

    def make(n: int, *, points: list[int] | None = None, fmt: str = "partnership") -> list[Player]:
        made = [player_create(display_name=f"P{next(count)}")[0] for _ in range(n)]
        for player, shown in zip(made, points or [], strict=False):
            mu = (shown - 1000) / 40  # rating_points(mu) == shown
            Rating.objects.create(player=player, format=fmt, mu=mu, sigma=1.0, display=mu - 3)
        return made

    return make


def pair(capture: Any, at: datetime, **kwargs: Any) -> PairingResult:
    """One pairing run at ``at``, its commit hooks run (the tables are dealt in-process)."""
    with capture(execute=True):
        return pairing_run(now=at, **kwargs)


def queue_all(players: list[Player], preset: str, at: datetime = T0, **kwargs: Any) -> None:
    for p in players:
        queue_join(player=p, preset=preset, now=at, **kwargs)


def entries_of(players: list[Player]) -> list[QueueEntry]:
    return list(QueueEntry.objects.filter(player__in=players).order_by("pk"))


def game_of(player: Player) -> Game:
    """The table ``player``'s match was dealt."""
    [entry] = entries_of([player])
    assert entry.game is not None, "no table dealt"
    return entry.game


# ============================================================================== matches
@pytest.mark.django_db
def test_four_close_rated_players_get_one_dealt_rated_table(
    people: Callable[..., list[Player]], django_capture_on_commit_callbacks: Any
) -> None:
    four = people(4, points=[1000, 1030, 1060, 1090])
    queue_all(four, "classic", rated=True)

    result = pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=3))

    assert len(result.matches) == 1 and result.paired == 4
    entries = entries_of(four)
    assert len({e.match for e in entries}) == 1 and entries[0].match is not None
    game = game_of(four[0])
    assert all(e.game_id == game.pk for e in entries)
    assert game.status == GameStatus.ACTIVE and game.rated and game.preset == "classic"
    seats = list(game.seats.order_by("index"))
    assert sorted(s.player_id for s in seats if s.player_id) == sorted(p.pk for p in four)
    assert not any(s.bot_level for s in seats)
    status = queue_status_get(four[0])
    assert (status.status, status.game_id, status.format) == ("matched", game.pk, "partnership")


@pytest.mark.django_db
def test_far_apart_ratings_wait_until_the_window_widens(
    people: Callable[..., list[Player]], django_capture_on_commit_callbacks: Any
) -> None:
    low, high = people(2, points=[1000, 1300], fmt="two_player")
    queue_all([low, high], "two_player", rated=True)
    assert rating_window(39) == 250 and rating_window(40) == 300

    early = pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=39))
    assert early.matches == [] and early.waiting == 2
    assert queue_status_get(low, now=T0 + timedelta(seconds=39)).rating_window == 250

    later = pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=40))
    assert [sorted(m.player_ids) for m in later.matches] == [sorted([low.pk, high.pk])]
    assert game_of(low).status == GameStatus.ACTIVE


@pytest.mark.django_db
def test_a_rated_match_takes_the_closest_ratings(
    people: Callable[..., list[Player]], django_capture_on_commit_callbacks: Any
) -> None:
    a, b, c = people(3, points=[1000, 1500, 1540], fmt="two_player")
    queue_all([a, b, c], "two_player", rated=True)

    result = pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=1))

    assert [sorted(m.player_ids) for m in result.matches] == [sorted([b.pk, c.pk])]
    assert queue_status_get(a).status == "waiting"


@pytest.mark.django_db
def test_rated_partners_are_drawn_at_random(
    people: Callable[..., list[Player]], django_capture_on_commit_callbacks: Any
) -> None:
    """The first to queue gets each of the three others as partner over a few seeds: partners
    are chance, whatever the order of joining."""
    partners_seen = set()
    for seed in range(12):
        four = people(4, points=[1000, 1000, 1000, 1000])
        queue_all(four, "classic", rated=True)
        result = pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=1), deal=False)
        [made] = result.matches
        game = match_table_create(made.match, rng=random.Random(seed))
        assert game is not None
        seat_of = {s.player_id: s.index for s in game.seats.all()}
        team_of_first = seat_of[four[0].pk] % 2
        [partner] = [n for n in (1, 2, 3) if seat_of[four[n].pk] % 2 == team_of_first]
        partners_seen.add(partner)
    assert partners_seen == {1, 2, 3}


@pytest.mark.django_db
def test_a_casual_player_gets_bots_of_their_level_after_their_wait(
    people: Callable[..., list[Player]], django_capture_on_commit_callbacks: Any
) -> None:
    patient, eager = people(2)
    queue_join(player=patient, preset="classic", now=T0)  # waits for people
    queue_join(player=eager, preset="classic", bots_after_seconds=30, bot_level="hard", now=T0)
    assert queue_status_get(eager, now=T0).bots_at == T0 + timedelta(seconds=30)

    assert pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=29)).matches == []
    result = pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=30))

    [made] = result.matches
    assert made.player_ids == (eager.pk,) and made.bots == 3
    game = game_of(eager)
    assert game.status == GameStatus.ACTIVE and not game.rated
    seats = list(game.seats.order_by("index"))
    assert [s.player_id for s in seats if s.player_id] == [eager.pk]
    assert [s.bot_level for s in seats if not s.player_id] == ["hard"] * 3
    assert queue_status_get(patient).status == "waiting"


@pytest.mark.django_db
def test_casual_players_sit_together_before_bots(
    people: Callable[..., list[Player]], django_capture_on_commit_callbacks: Any
) -> None:
    a, b = people(2, points=[1000, 1900], fmt="two_player")
    queue_all([a, b], "two_player", bots_after_seconds=10)

    result = pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=60))

    assert [(sorted(m.player_ids), m.bots) for m in result.matches] == [(sorted([a.pk, b.pk]), 0)]


@pytest.mark.django_db
def test_players_of_whom_one_blocked_the_other_are_not_paired(
    people: Callable[..., list[Player]], django_capture_on_commit_callbacks: Any
) -> None:
    a, b, c = people(3)
    PlayerRelation.objects.create(owner=a, other=b, kind=RelationKind.BLOCK)
    queue_join(player=a, preset="two_player", now=T0)
    queue_join(player=b, preset="two_player", now=T0 + timedelta(seconds=1))
    assert pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=5)).matches == []

    queue_join(player=c, preset="two_player", now=T0 + timedelta(seconds=6))
    [made] = pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=7)).matches
    assert c.pk in made.player_ids and {a.pk, b.pk} - set(made.player_ids)


# ============================================================================== refusals
@pytest.mark.django_db
def test_joining_twice_is_refused_and_changes_nothing(people: Callable[..., list[Player]]) -> None:
    [ada] = people(1)
    queue_join(player=ada, preset="hoyle", now=T0)
    before = entries_of([ada])

    with pytest.raises(errors.AlreadyQueued) as refused:
        queue_join(player=ada, preset="classic", rated=True)

    assert refused.value.code == "already_queued" and refused.value.status == 409
    after = entries_of([ada])
    assert [(e.pk, e.preset, e.rated, e.joined_at) for e in after] == [
        (e.pk, e.preset, e.rated, e.joined_at) for e in before
    ]


@pytest.mark.django_db
def test_a_player_at_a_table_is_refused(people: Callable[..., list[Player]]) -> None:
    [ada] = people(1)
    game_create(creator=ada, preset="two_player")

    with pytest.raises(errors.AtTable) as refused:
        queue_join(player=ada, preset="two_player")

    assert refused.value.code == "at_table"
    assert not QueueEntry.objects.filter(player=ada).exists()


@pytest.mark.django_db
def test_a_rated_queue_with_bots_is_refused(people: Callable[..., list[Player]]) -> None:
    [ada] = people(1)

    with pytest.raises(game_errors.RatedHumansOnly) as refused:
        queue_join(player=ada, preset="classic", rated=True, bots_after_seconds=30)

    assert (refused.value.code, refused.value.status) == ("rated_humans_only", 422)
    assert not QueueEntry.objects.exists()


@pytest.mark.django_db
def test_a_waiting_player_may_not_create_or_join_a_table(
    people: Callable[..., list[Player]],
) -> None:
    ada, bob = people(2)
    table = game_create(creator=bob, preset="two_player")
    queue_join(player=ada, preset="classic")

    with pytest.raises(errors.QueuedForMatch):
        game_create(creator=ada, preset="two_player")
    with pytest.raises(errors.QueuedForMatch):
        game_join(player=ada, game_id=table.pk)

    assert not table.seats.filter(player=ada).exists()
    assert Game.objects.filter(created_by=ada).count() == 0


@pytest.mark.django_db
def test_leaving(people: Callable[..., list[Player]]) -> None:
    [ada] = people(1)
    with pytest.raises(errors.NotQueued):
        queue_leave(player=ada)
    queue_join(player=ada, preset="classic")

    queue_leave(player=ada)

    assert not QueueEntry.objects.filter(player=ada).exists()
    with pytest.raises(errors.NotQueued):
        queue_status_get(ada)


@pytest.mark.django_db
def test_leaving_once_matched_is_refused_with_the_table(
    people: Callable[..., list[Player]], django_capture_on_commit_callbacks: Any
) -> None:
    ada, bob = people(2)
    queue_all([ada, bob], "two_player")
    [made] = pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=1), deal=False).matches

    with pytest.raises(errors.QueueMatched) as before_the_deal:
        queue_leave(player=ada)
    assert before_the_deal.value.extra == {"game_id": None}

    game = match_table_create(made.match)
    assert game is not None
    with pytest.raises(errors.QueueMatched) as after_the_deal:
        queue_leave(player=ada)
    assert after_the_deal.value.extra == {"game_id": game.pk}
    assert [e.match for e in entries_of([ada, bob])] == [made.match, made.match]


@pytest.mark.django_db
def test_queueing_again_while_the_match_is_played_or_after_it(
    people: Callable[..., list[Player]], django_capture_on_commit_callbacks: Any
) -> None:
    ada, bob = people(2)
    queue_all([ada, bob], "two_player")
    pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=1))
    [entry] = entries_of([ada])
    assert entry.game_id is not None

    with pytest.raises(errors.AlreadyQueued):
        queue_join(player=ada, preset="two_player")

    game_concede(game_id=entry.game_id, player=ada)
    with pytest.raises(errors.NotQueued):
        queue_status_get(ada)  # the finished match is history
    queue_join(player=ada, preset="three_player", now=T0 + timedelta(minutes=5))
    [again] = entries_of([ada])
    assert (again.pk, again.preset, again.match, again.game_id) == (
        entry.pk,
        "three_player",
        None,
        None,
    )
    assert queue_status_get(ada).status == "waiting"


# ============================================================================== the table
@pytest.mark.django_db
def test_dealing_a_match_twice_makes_one_table(
    people: Callable[..., list[Player]], django_capture_on_commit_callbacks: Any
) -> None:
    four = people(4)
    queue_all(four, "hoyle")
    [made] = pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=1), deal=False).matches
    games_before = Game.objects.count()

    first = match_table_create(made.match)
    second = match_table_create(str(made.match))

    assert first is not None and second is not None and first.pk == second.pk
    assert Game.objects.count() == games_before + 1


@pytest.mark.django_db
def test_a_matched_player_gone_puts_the_others_back_to_waiting(
    people: Callable[..., list[Player]], django_capture_on_commit_callbacks: Any
) -> None:
    ada, bob = people(2, fmt="two_player", points=[1000, 1000])
    queue_all([ada, bob], "two_player", rated=True)
    [made] = pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=1), deal=False).matches
    get_user_model().objects.filter(pk=bob.user_id).delete()  # the account is deleted

    assert match_table_create(made.match) is None

    [entry] = entries_of([ada])
    assert (entry.match, entry.matched_at, entry.game_id, entry.joined_at) == (None, None, None, T0)


@pytest.mark.django_db
def test_a_stalled_table_is_sent_again_by_a_later_run(
    people: Callable[..., list[Player]], django_capture_on_commit_callbacks: Any
) -> None:
    ada, bob = people(2)
    queue_all([ada, bob], "two_player")
    [made] = pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=1), deal=False).matches

    soon = pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=20))
    assert soon.resent == [] and entries_of([ada])[0].game_id is None
    late = pair(django_capture_on_commit_callbacks, T0 + timedelta(seconds=40))

    assert late.resent == [made.match]
    assert all(e.game_id is not None for e in entries_of([ada, bob]))


@pytest.mark.django_db
def test_the_beat_task_pairs_and_the_table_task_deals(
    people: Callable[..., list[Player]], settings: Any, django_capture_on_commit_callbacks: Any
) -> None:
    beat = settings.CELERY_BEAT_SCHEDULE["matchmaking-pair"]
    assert beat["task"] == tasks.matchmaking_pair.name
    assert beat["schedule"] == settings.MATCHMAKING_PAIR_SECONDS == 2
    assert tasks.match_table_create.name == MATCH_TABLE_CREATE_TASK
    ada, bob = people(2)
    queue_all([ada, bob], "three_player", at=timezone.now() - timedelta(seconds=5))
    cid = people(1)[0]
    queue_all([cid], "three_player", at=timezone.now())

    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.matchmaking_pair() == 3

    game = game_of(ada)
    assert tasks.match_table_create(str(entries_of([cid])[0].match)) == game.pk  # a redelivery
    assert {s.player_id for s in game.seats.all()} == {ada.pk, bob.pk, cid.pk}


# ============================================================================== the rule, pure
def _waiting(pk: int, points: int, joined: float = 0.0, bots_after: float | None = None) -> Waiting:
    return Waiting(
        pk=pk,
        player_id=pk,
        points=points,
        joined=joined,
        bots_at=None if bots_after is None else joined + bots_after,
        bot_level="medium",
    )


def test_rating_points_are_the_shown_scale() -> None:
    assert rating_points(0.0) == 1000 and rating_points(2.5) - rating_points(0.0) == 100
    assert [rating_window(s) for s in (0, 9.9, 10, 119, 120)] == [100, 100, 150, 650, None]


waiting_lists = st.lists(
    st.tuples(
        st.integers(700, 1500),  # points
        st.floats(0, 200),  # joined (seconds after the epoch of the test)
        st.one_of(st.none(), st.floats(10, 100)),  # bots after
    ),
    max_size=40,
)


@given(
    rows=waiting_lists,
    size=st.sampled_from([2, 3, 4]),
    rated=st.booleans(),
    now=st.floats(0, 400),
    blocks=st.sets(st.tuples(st.integers(0, 39), st.integers(0, 39)), max_size=10),
)
def test_groups_are_disjoint_and_follow_the_rules(
    rows: list[tuple[int, float, float | None]],
    size: int,
    rated: bool,
    now: float,
    blocks: set[tuple[int, int]],
) -> None:
    waiting = [
        _waiting(pk, points, joined, None if rated else bots_after)
        for pk, (points, joined, bots_after) in enumerate(rows)
    ]
    blocked = {frozenset(pair) for pair in blocks if pair[0] != pair[1]}

    groups = groups_form(waiting, size, rated, now, blocked)

    placed = [w.pk for g in groups for w in g]
    assert len(placed) == len(set(placed))  # nobody twice
    for group in groups:
        ids = {w.player_id for w in group}
        assert not any(pair <= ids for pair in blocked)
        assert 1 <= len(group) <= size
        if rated or len(group) == size:
            assert len(group) == size
        else:  # bots fill: only for players whose wait for bots is over
            assert all(w.bots_at is not None and w.bots_at <= now for w in group)
        if rated:
            points = sorted(w.points for w in group)
            window = rating_window(now - min(w.joined for w in group))
            assert window is None or points[-1] - points[0] <= window


@given(rows=waiting_lists, size=st.sampled_from([2, 3, 4]))
def test_casual_queues_leave_fewer_than_a_table_waiting(
    rows: list[tuple[int, float, float | None]], size: int
) -> None:
    waiting = [_waiting(pk, points, joined) for pk, (points, joined, _) in enumerate(rows)]

    groups = groups_form(waiting, size, False, 300.0)

    assert len(waiting) - sum(len(g) for g in groups) < size


@given(rows=waiting_lists, size=st.sampled_from([2, 3, 4]))
def test_after_two_minutes_a_rated_queue_leaves_fewer_than_a_table_waiting(
    rows: list[tuple[int, float, float | None]], size: int
) -> None:
    waiting = [_waiting(pk, points, joined) for pk, (points, joined, _) in enumerate(rows)]

    groups = groups_form(waiting, size, True, 200.0 + 120.0)

    assert len(waiting) - sum(len(g) for g in groups) < size
