"""The reviewer serves players in turn: each requester's oldest waiting review first, a
requester with a review being computed waits for it, a lapsed claim is taken again, and a
player may have only a few reviews waiting (429 ``reviews_pending``, nothing made)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from accounts.models import Player
from accounts.services.players import player_create
from bots.models import GameReview, ReviewStatus
from bots.services.reviews import review_claim_next, reviews_unclaimed
from games.services.lobby import BotSeatSpec, game_create

pytestmark = pytest.mark.django_db


def _player(name: str) -> Player:
    return player_create(display_name=name)[0]


def _waiting(player: Player, count: int, minutes_ago: int) -> list[GameReview]:
    """``count`` waiting reviews asked for by ``player``, ``minutes_ago`` minutes ago (one
    minute apart, oldest first)."""
    game = game_create(
        creator=player,
        preset="classic",
        options={},
        is_public=True,
        seat=0,
        bots=[BotSeatSpec(seat=i, level="medium") for i in (1, 2, 3)],
    )
    reviews = []
    for i in range(count):
        review = GameReview.objects.create(
            game=game, seat=0, through_round=i + 1, through_seq=1, requested_by=player
        )
        GameReview.objects.filter(pk=review.pk).update(
            created_at=timezone.now() - timedelta(minutes=minutes_ago - i)
        )
        reviews.append(review)
    return reviews


def _done(review_id: int) -> None:
    GameReview.objects.filter(pk=review_id).update(status=ReviewStatus.READY)


def test_a_backlog_waits_behind_itself_only() -> None:
    ada, bob, cy = _player("Ada"), _player("Bob"), _player("Cy")
    a1, a2, a3 = _waiting(ada, 3, minutes_ago=30)  # Ada asked first, three times
    (b1,) = _waiting(bob, 1, minutes_ago=10)
    (c1,) = _waiting(cy, 1, minutes_ago=5)

    order: list[int] = []
    while (claimed := review_claim_next()) is not None or reviews_unclaimed():
        if claimed is None:  # every waiting review's requester is busy: one finishes
            _done(order[-1])
            continue
        order.append(claimed)
        _done(claimed)
    assert order == [a1.pk, b1.pk, c1.pk, a2.pk, a3.pk]


def test_a_requester_with_a_review_being_computed_waits_for_it() -> None:
    ada, bob = _player("Ada"), _player("Bob")
    a1, a2 = _waiting(ada, 2, minutes_ago=30)
    (b1,) = _waiting(bob, 1, minutes_ago=10)

    assert review_claim_next() == a1.pk
    assert review_claim_next() == b1.pk  # Ada's second waits while her first is computed
    assert review_claim_next() is None
    assert reviews_unclaimed()
    _done(a1.pk)
    assert review_claim_next() == a2.pk
    assert not reviews_unclaimed()


def test_a_lapsed_claim_is_taken_again(settings: Any) -> None:
    ada = _player("Ada")
    (a1,) = _waiting(ada, 1, minutes_ago=30)
    assert review_claim_next() == a1.pk
    assert review_claim_next() is None  # claimed: nobody else computes it meanwhile
    later = timezone.now() + timedelta(seconds=settings.REVIEW_LEASE_SECONDS + 1)
    assert review_claim_next(now=later) == a1.pk  # its worker died: taken again
