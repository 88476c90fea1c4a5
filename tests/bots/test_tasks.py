"""The bot-turn task: plays through the service, is idempotent, never applies a stale move."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from accounts.models import Player
from accounts.services.players import player_create
from bots import tasks
from bots.models import GameReview, ReviewStatus
from bots.services import turns as bot_services
from bots.services.reviews import game_review_request
from bots.services.turns import bot_observation_build
from bots.tasks import bot_turn_play
from canasta_service.celery import app as celery_app
from games.engine import GameState, card_text
from games.models import EventSource, Game, GameStatus
from games.selectors.games import game_replay_state
from games.services import bots as game_bots
from games.services.actions import game_action_apply
from games.services.lobby import BotSeatSpec, game_create, game_start
from games.services.moves import bot_action_apply
from tests.conftest import WorkerProcess

# Bots play after each commit (transaction.on_commit): the tests must really commit.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def eager_bots() -> Iterator[None]:
    saved = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    try:
        yield
    finally:
        celery_app.conf.task_always_eager = saved


@pytest.fixture
def no_scheduling(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    """Record scheduled bot turns instead of running them (the test drives the task)."""
    calls: list[tuple[int, int]] = []
    monkeypatch.setattr(game_bots, "bot_turn_schedule", lambda g, v: calls.append((g, v)))
    return calls


def _player(name: str) -> Player:
    return player_create(display_name=name)[0]


def _bot_table(creator: Player, levels: dict[int, str], **kw: Any) -> Game:
    game = game_create(
        creator=creator,
        preset=kw.pop("preset", "classic"),
        options=kw.pop("options", {"target_score": 1000}),
        bots=[BotSeatSpec(seat, level) for seat, level in levels.items()],
        **kw,
    )
    game_start(game_id=game.pk, player=creator)
    game.refresh_from_db()
    return game


def test_task_plays_once_and_a_duplicate_does_nothing(
    no_scheduling: list[tuple[int, int]],
) -> None:
    ada = _player("Ada")
    game = _bot_table(ada, {s: "medium" for s in range(4)}, spectate=True)
    assert no_scheduling == [(game.pk, 1)]
    assert game.to_act is not None
    version = game.version
    assert bot_turn_play(game.pk, version) is True
    game.refresh_from_db()
    assert game.version == version + 1
    event = game.events.get(seq=version + 1)
    assert event.source == EventSource.BOT
    # the same message delivered again, or a late one: nothing happens
    assert bot_turn_play(game.pk, version) is False
    assert bot_turn_play(game.pk, version - 1) is False
    game.refresh_from_db()
    assert game.version == version + 1


def test_task_does_nothing_for_a_human_turn_or_a_finished_game(
    no_scheduling: list[tuple[int, int]],
    replay_unverified: None,  # the game is set abandoned behind the log's back
) -> None:
    ada = _player("Ada")
    game = _bot_table(ada, {1: "easy", 2: "easy", 3: "easy"}, seat=0)
    assert game.to_act == 0  # the human (seat 0, left of the dealer) starts
    assert bot_turn_play(game.pk, game.version) is False
    assert bot_turn_play(game.pk + 999, 1) is False
    Game.objects.filter(pk=game.pk).update(status=GameStatus.ABANDONED)
    assert bot_turn_play(game.pk, game.version) is False
    game.refresh_from_db()
    assert game.version == 1


def test_stale_move_is_refused_after_thinking(
    monkeypatch: pytest.MonkeyPatch, no_scheduling: list[tuple[int, int]]
) -> None:
    """If the game moves while the bot thinks (no lock held), the bot's move is not applied."""
    ada = _player("Ada")
    game = _bot_table(ada, {s: "medium" for s in range(4)}, spectate=True)
    version = game.version
    real = bot_services.bot_decision_compute

    def slow(game_id: int, ver: int) -> Any:
        decision = real(game_id, ver)
        # meanwhile another delivery of the same turn wins the race
        assert bot_action_apply(game_id, ver) is not None
        return decision

    monkeypatch.setattr(bot_services, "bot_decision_compute", slow)
    assert bot_turn_play(game.pk, version) is False
    game.refresh_from_db()
    assert game.version == version + 1
    assert game.events.filter(seq__gt=1).count() == 1


def test_a_refused_bot_move_falls_back_to_a_legal_one(
    monkeypatch: pytest.MonkeyPatch, no_scheduling: list[tuple[int, int]]
) -> None:
    ada = _player("Ada")
    game = _bot_table(ada, {s: "medium" for s in range(4)}, spectate=True)
    seat = game.to_act
    assert seat is not None
    monkeypatch.setattr(
        bot_services,
        "bot_decision_compute",
        lambda g, v: (seat, {"type": "discard", "card": "JK"}),  # wrong phase: refused
    )
    assert bot_turn_play(game.pk, game.version) is True
    game.refresh_from_db()
    assert game.version == 2


def test_bot_observation_is_the_seat_view(no_scheduling: list[tuple[int, int]]) -> None:
    ada = _player("Ada")
    game = _bot_table(ada, {s: "medium" for s in range(4)}, spectate=True)
    for _ in range(30):
        game.refresh_from_db()
        seat = game.to_act
        assert seat is not None
        state = GameState.from_dict(game.snapshot or {})
        obs = bot_observation_build(game, seat)
        assert Counter(obs.hand) == Counter(state.hands[seat])
        assert obs.pile == state.pile
        for other in range(4):
            assert not Counter(obs.known[other]) - Counter(state.hands[other])
        assert obs.hand_counts == [len(h) for h in state.hands]
        assert bot_turn_play(game.pk, game.version) is True


def test_four_bots_play_a_whole_game_in_process(eager_bots: None) -> None:
    """Without a broker, bot turns run in-process after each commit until the game ends."""
    ada = _player("Ada")
    game = _bot_table(ada, {0: "medium", 1: "easy", 2: "medium", 3: "easy"}, spectate=True)
    assert game.status == GameStatus.FINISHED
    assert game.winner_team is not None
    assert set(game.events.filter(seq__gt=1).values_list("source", flat=True)) == {EventSource.BOT}
    assert game_replay_state(game) == GameState.from_dict(game.snapshot or {})


def test_human_plays_and_bots_answer_in_process(eager_bots: None) -> None:
    ada = _player("Ada")
    game = _bot_table(ada, {1: "medium", 2: "medium", 3: "medium"}, seat=0)
    assert game.to_act == 0
    game_action_apply(
        game_id=game.pk,
        seat=None,
        player=ada,
        action={"type": "draw"},
        expected_version=game.version,
    )
    game.refresh_from_db()
    state = GameState.from_dict(game.snapshot or {})
    card = sorted(state.hands[0])[0]
    game_action_apply(
        game_id=game.pk,
        seat=None,
        player=ada,
        action={"type": "discard", "card": card_text(card)},
        expected_version=game.version,
    )
    game.refresh_from_db()
    # the three bots have played their turns; the human is to act again (or the round ended)
    bot_moves = game.events.filter(source=EventSource.BOT).count()
    assert bot_moves >= 6
    assert game.to_act == 0 or game.status != GameStatus.ACTIVE


@pytest.mark.worker
def test_four_bots_play_a_whole_game_through_a_real_worker(
    celery_worker_process: WorkerProcess,
) -> None:
    assert not celery_app.conf.task_always_eager
    ada = _player("Ada")
    game = _bot_table(ada, {0: "medium", 1: "medium", 2: "easy", 3: "easy"}, spectate=True)
    deadline = time.monotonic() + 240
    while game.status != GameStatus.FINISHED:
        if time.monotonic() > deadline:
            pytest.fail(
                f"the bots did not finish (version {game.version}); worker log:\n"
                f"{celery_worker_process.log_text()[-4000:]}"
            )
        time.sleep(0.5)
        game.refresh_from_db()
    assert game.winner_team is not None
    assert set(game.events.filter(seq__gt=1).values_list("source", flat=True)) == {EventSource.BOT}
    assert "bots.bot_turn_play" in celery_worker_process.log_text()


@pytest.mark.worker
def test_a_review_is_computed_by_a_real_worker(celery_worker_process: WorkerProcess) -> None:
    """Asked for through the service, sent on commit to the broker, computed by the worker's
    ``bots.game_review_compute`` with the reviewer's full budget, and stored once."""
    assert not celery_app.conf.task_always_eager
    ada = _player("Ada")
    game = _bot_table(ada, {0: "medium", 1: "easy"}, preset="two_player", spectate=True)
    deadline = time.monotonic() + 240
    while game.status != GameStatus.FINISHED:
        assert time.monotonic() < deadline, celery_worker_process.log_text()[-4000:]
        time.sleep(0.5)
        game.refresh_from_db()
    review, created = game_review_request(game=game, player=ada, seat=1)
    assert created and review.status == ReviewStatus.PENDING
    while review.status == ReviewStatus.PENDING:
        assert time.monotonic() < deadline + 120, celery_worker_process.log_text()[-4000:]
        time.sleep(0.5)
        review.refresh_from_db()
    assert review.status == ReviewStatus.READY, review.error
    assert review.result is not None and review.result["decisions"]
    assert review.cpu_seconds is not None and review.cpu_seconds > 0
    # Asking again changes nothing: the same review, nothing sent.
    again, created = game_review_request(game=game, player=ada, seat=1)
    assert not created and again.pk == review.pk
    assert GameReview.objects.filter(game=game).count() == 1
    assert "bots.game_review_compute" in celery_worker_process.log_text()


def test_sweep_sends_stalled_bot_turns_again(
    monkeypatch: pytest.MonkeyPatch, no_scheduling: list[tuple[int, int]]
) -> None:
    ada = _player("Ada")
    bots_game = _bot_table(ada, {s: "medium" for s in range(4)}, spectate=True)
    human_game = _bot_table(ada, {1: "easy", 2: "easy", 3: "easy"}, seat=0)
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(tasks, "bot_turn_send", lambda g, v: sent.append((g, v)))
    # nothing is stalled yet under the configured threshold
    assert tasks.bot_turns_sweep() == 0
    assert sent == []
    # with no grace at all the bot game's turn is sent again; the human's game is left alone
    assert tasks.bot_turns_sweep(stall_seconds=0) == 1
    assert sent == [(bots_game.pk, bots_game.version)]
    assert human_game.to_act == 0
    # the resent turn is idempotent with the original: one move, then nothing
    assert bot_turn_play(bots_game.pk, bots_game.version) is True
    assert bot_turn_play(bots_game.pk, bots_game.version) is False


def test_a_paused_game_is_not_swept_and_its_bot_does_not_move(
    monkeypatch: pytest.MonkeyPatch, no_scheduling: list[tuple[int, int]]
) -> None:
    """A game paused by its players waits for them: the sweep sends no bot turn for it and a
    bot turn that arrives anyway computes nothing (the pause leaves the game as it was)."""
    ada = _player("Ada")
    paused = _bot_table(ada, {s: "medium" for s in range(4)}, spectate=True)
    Game.objects.filter(pk=paused.pk).update(paused_at=paused.started_at)
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(tasks, "bot_turn_send", lambda g, v: sent.append((g, v)))
    assert tasks.bot_turns_sweep(stall_seconds=0) == 0
    assert sent == []
    assert bot_services.bot_decision_compute(paused.pk, paused.version) is None
    Game.objects.filter(pk=paused.pk).update(paused_at=None)  # resumed: the bot is due again
    assert tasks.bot_turns_sweep(stall_seconds=0) == 1
    assert bot_services.bot_decision_compute(paused.pk, paused.version) is not None


def test_a_table_of_bots_only_plays_on_the_bulk_queue_and_one_with_a_player_does_not(
    no_scheduling: list[tuple[int, int]], settings: Any
) -> None:
    """Nobody waits for the bots of a table where only bots sit: their turns travel on the
    bulk queue, never in front of the turns of a table with a player (core.dispatch)."""
    from bots.services.turns import bot_turn_task
    from core import dispatch

    ada = _player("Ada")
    bots_only = _bot_table(ada, {s: "medium" for s in range(4)}, spectate=True)
    with_ada = _bot_table(ada, {1: "medium"}, preset="two_player", seat=0)
    assert dispatch.queue_of(bot_turn_task(bots_only.pk)) == settings.TASK_QUEUES["bulk"]
    assert dispatch.queue_of(bot_turn_task(with_ada.pk)) == settings.TASK_QUEUES["interactive"]
