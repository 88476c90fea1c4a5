"""Post-game reviews through the services: asked for, computed by the bots' task (in-process
without a broker), idempotent, of the seat's own decisions only, naming only cards the seat could
see, and refused where the rules of access say so."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import Player
from accounts.services.players import player_create
from bots import errors as bot_errors
from bots.models import GameReview, ReviewStatus
from bots.policies.review import ReviewSettings
from bots.selectors.reviews import finished_rounds_get, review_game_get, review_seat_check
from bots.services import review_compute as bot_reviews
from bots.services.reviews import game_review_request
from bots.tasks import game_review_compute
from canasta_service.celery import app as celery_app
from games import errors
from games.engine import GameState, parse_card
from games.engine.view import player_view
from games.models import Game, GameEvent, GameStatus
from games.selectors.log import game_state_at
from games.services.actions import game_action_apply
from games.services.bots import bot_fallback_choose, bot_player_get, bot_player_register
from games.services.lobby import BotSeatSpec, game_create, game_start
from tests.games.api.conftest import eager_bots  # noqa: F401 (autouse: no broker)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def eager_and_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reviewer with a small budget (``eager_bots``: bots and it run in-process)."""
    monkeypatch.setattr(
        bot_reviews, "REVIEW_SETTINGS", ReviewSettings(worlds=6, max_plies=30, halving_at=(3,))
    )


def _player(name: str) -> Player:
    return player_create(display_name=name)[0]


def table_after_a_round(ada: Player, is_public: bool = True) -> Game:
    """Ada at seat 0 against three medium bots, playing until the first round has ended."""
    game = game_create(
        creator=ada,
        preset="classic",
        options={"target_score": 5000},
        is_public=is_public,
        seat=0,
        bots=[BotSeatSpec(seat=i, level="medium") for i in (1, 2, 3)],
    )
    game_start(game_id=game.pk, player=ada)
    for _ in range(400):
        game.refresh_from_db()
        if finished_rounds_get(game)[0] >= 1 or game.status != GameStatus.ACTIVE:
            break
        assert game.to_act == 0 and game.snapshot
        action = bot_fallback_choose(GameState.from_dict(game.snapshot))
        game_action_apply(
            game_id=game.pk, seat=0, action=action, expected_version=game.version, player=ada
        )
    game.refresh_from_db()
    # The bots between Ada's turns may finish the next round too (a deal one of them goes
    # out on at once): the reviews need a finished round and a game still going.
    assert game.status == GameStatus.ACTIVE and finished_rounds_get(game)[0] >= 1
    return game


def action_cards(action: dict[str, Any]) -> Counter[int]:
    cards = [action["card"]] if "card" in action else []
    cards += action.get("cards", [])
    for group in action.get("melds", []):
        cards += group["cards"]
    return Counter(parse_card(c) for c in cards)


def test_a_players_own_review_mid_game() -> None:
    ada = _player("Ada")
    game = table_after_a_round(ada)
    review_seat_check(game=review_game_get(game_id=game.pk, player=ada), player=ada, seat=0)

    review, created = game_review_request(game=game, player=ada, seat=0)
    assert created and review.status == ReviewStatus.READY, review.error
    assert review.through_round == 1
    assert review.engine.startswith("review-1 worlds=6")
    assert review.cpu_seconds is not None and review.cpu_seconds >= 0
    result = review.result
    assert result is not None
    decisions = result["decisions"]
    assert decisions and result["summary"]["decisions"] == len(decisions)
    assert result["summary"]["total_loss"] == sum(d["loss"] for d in decisions)
    events = {e.seq: e for e in GameEvent.objects.filter(game=game, seq__lte=review.through_seq)}
    for d in decisions:
        event = events[d["step"]]
        assert event.seat == 0  # the seat's own decisions only
        assert event.type == d["chosen"]["type"] and event.payload["type"] == d["chosen"]["type"]
        assert d["round"] == 1 and d["loss"] >= 0
        assert d["chosen"] in [c["action"] for c in d["candidates"]]
        # No card the seat could not see: every card named is in its hand before the move.
        before, _ = game_state_at(game, d["step"] - 1)
        hand = Counter(parse_card(c) for c in player_view(before, 0)["hand"])
        for named in [d["chosen"], d["best"], *(c["action"] for c in d["candidates"])]:
            assert not action_cards(named) - hand, (d["step"], named)

    # Asking again returns the same review; a redelivered task changes nothing.
    again, created = game_review_request(game=game, player=ada, seat=0)
    assert not created and again.pk == review.pk
    assert game_review_compute(review.pk) is False
    stored = GameReview.objects.get(pk=review.pk)
    assert stored.result == review.result and stored.finished_at == review.finished_at
    assert GameReview.objects.filter(game=game, seat=0).count() == 1


def test_a_pending_review_delivered_twice_is_written_once() -> None:
    ada = _player("Ada")
    game = table_after_a_round(ada)
    review = GameReview.objects.create(game=game, seat=0, through_round=1, through_seq=2)
    review.through_seq = finished_rounds_get(game)[1]
    review.save()
    assert game_review_compute(review.pk) is True
    first = GameReview.objects.get(pk=review.pk)
    assert first.status == ReviewStatus.READY
    assert game_review_compute(review.pk) is False
    second = GameReview.objects.get(pk=review.pk)
    assert (second.result, second.finished_at, second.cpu_seconds) == (
        first.result,
        first.finished_at,
        first.cpu_seconds,
    )
    # The same seeds: computed again from scratch, the same decisions.
    GameReview.objects.filter(pk=review.pk).update(
        status=ReviewStatus.PENDING, result=None, started_at=None
    )
    assert game_review_compute(review.pk) is True
    assert GameReview.objects.get(pk=review.pk).result == first.result


def test_mid_game_only_the_own_seat_and_only_seated_players() -> None:
    ada, eve = _player("Ada"), _player("Eve")
    game = table_after_a_round(ada)
    with pytest.raises(bot_errors.ReviewSeatNotAllowed):
        review_seat_check(game=game, player=ada, seat=1)
    with pytest.raises(errors.NotSeated):
        review_seat_check(game=game, player=eve, seat=0)
    with pytest.raises(errors.InvalidSeat):
        review_seat_check(game=game, player=ada, seat=4)
    assert not GameReview.objects.filter(game=game).exists()


def test_no_review_before_a_round_has_finished() -> None:
    ada = _player("Ada")
    game = game_create(
        creator=ada, preset="classic", seat=0, bots=[BotSeatSpec(seat=i) for i in (1, 2, 3)]
    )
    game_start(game_id=game.pk, player=ada)
    game.refresh_from_db()
    with pytest.raises(bot_errors.ReviewNoFinishedRound):
        game_review_request(game=game, player=ada, seat=0)
    assert not GameReview.objects.filter(game=game).exists()


@pytest.mark.usefixtures("replay_unverified")
def test_a_failed_review_is_sent_again_when_asked() -> None:
    ada = _player("Ada")
    game = table_after_a_round(ada)
    Game.objects.filter(pk=game.pk).update(rules_version="0-unknown")
    game.refresh_from_db()
    review, created = game_review_request(game=game, player=ada, seat=0)
    assert created and review.status == ReviewStatus.FAILED
    assert review.error == "rules_version_unsupported"
    review, created = game_review_request(game=game, player=ada, seat=0)
    assert created and review.status == ReviewStatus.FAILED  # sent again, failed again
    assert GameReview.objects.filter(game=game).count() == 1


def test_after_the_game_any_seat_by_anyone_at_a_public_table() -> None:
    ada, eve = _player("Ada"), _player("Eve")
    game = game_create(
        creator=ada,
        preset="classic",
        options={"target_score": 1000},
        spectate=True,
        bots=[BotSeatSpec(seat=i, level="medium") for i in range(4)],
    )
    game_start(game_id=game.pk, player=ada)
    game.refresh_from_db()
    assert game.status == GameStatus.FINISHED
    rounds, _ = finished_rounds_get(game)
    review_seat_check(game=review_game_get(game_id=game.pk, player=eve), player=eve, seat=2)
    review, created = game_review_request(game=game, player=eve, seat=2)
    assert created and review.status == ReviewStatus.READY and review.through_round == rounds
    assert review.result is not None
    assert {d["round"] for d in review.result["decisions"]} == set(range(1, rounds + 1))
    seats = set(
        GameEvent.objects.filter(
            game=game, seq__in=[d["step"] for d in review.result["decisions"]]
        ).values_list("seat", flat=True)
    )
    assert seats == {2}


def test_a_review_the_broker_did_not_take_is_failed_and_sent_again_when_asked() -> None:
    ada = _player("Ada")
    game = table_after_a_round(ada)
    real = bot_player_get()
    assert real is not None

    class BrokerDown:
        def turn_schedule(self, game_id: int, version: int) -> None:
            raise AssertionError("not used")

        def action_choose(self, *args: Any) -> dict[str, Any]:
            raise AssertionError("not used")

        def discard_choose(self, *args: Any) -> None:
            raise AssertionError("not used")

        def review_schedule(self, review_id: int) -> None:
            raise ConnectionError("the broker is down")

    saved = celery_app.conf.task_always_eager
    bot_player_register(BrokerDown())
    celery_app.conf.task_always_eager = False
    try:
        review, created = game_review_request(game=game, player=ada, seat=0)
    finally:
        celery_app.conf.task_always_eager = saved
        bot_player_register(real)
    assert created and review.status == ReviewStatus.FAILED and review.error == "not_sent"
    review, created = game_review_request(game=game, player=ada, seat=0)
    assert created and review.status == ReviewStatus.READY
    assert GameReview.objects.filter(game=game).count() == 1


def test_a_player_with_the_most_reviews_waiting_is_refused_and_nothing_is_made(
    settings: Any,
) -> None:
    ada = _player("Ada")
    game = table_after_a_round(ada)
    for seat in range(settings.REVIEWS_PENDING_PER_PLAYER_MAX):  # with the reviewer
        GameReview.objects.create(
            game=game,
            seat=seat,
            through_round=9,
            through_seq=1,
            requested_by=ada,
            started_at=timezone.now(),
        )
    before = list(GameReview.objects.values_list("pk", "status", "started_at"))
    with pytest.raises(bot_errors.ReviewsPending) as refused:
        game_review_request(game=game, player=ada, seat=0)
    assert refused.value.code == "reviews_pending" and refused.value.status == 429
    assert list(GameReview.objects.values_list("pk", "status", "started_at")) == before
    # Another player is not held back by Ada's backlog.
    bob = _player("Bob")
    bob_review, created = game_review_request(game=table_after_a_round(bob), player=bob, seat=0)
    assert created and bob_review.status == ReviewStatus.READY
