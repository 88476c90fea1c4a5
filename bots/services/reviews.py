"""Post-game reviews: asking for one, and the reviewer's writers.

``game_review_request`` checks who may ask (``bots.selectors.reviews``), finds the last
finished round and makes the review row for (game, seat, that round), or returns the one that
exists: asking again changes nothing until another round has finished. A new review (or a
failed one asked for again) is pending and sent to the registered ``BotPlayer``
(``review_schedule``, a Celery task of the bots app) once the transaction commits.

The reviewer writes its result with ``game_review_result_save``: a conditional update from
pending to ready, so a task delivered twice computes the same result and writes it once.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.models import Player
from bots import errors
from bots.models import GameReview, ReviewStatus
from bots.selectors.reviews import finished_rounds_get, review_seat_check
from core import dispatch
from games.models import Game
from games.services.bots import review_send

logger = logging.getLogger(__name__)

ERROR_MAX_LENGTH = 200


def game_review_request(*, game: Game, player: Player, seat: int) -> tuple[GameReview, bool]:
    """The review of ``seat`` in ``game`` through its last finished round, and whether it was
    made (or sent again after failing) by this request. ``game`` comes from
    ``review_game_get``; who may ask for ``seat`` is checked here (``review_seat_check``). 409
    ``review_no_finished_round`` when no round has finished."""
    review_seat_check(game=game, player=player, seat=seat)
    through_round, through_seq = finished_rounds_get(game)
    if through_round == 0:
        raise errors.ReviewNoFinishedRound()
    with transaction.atomic():
        review, created = GameReview.objects.get_or_create(
            game=game,
            seat=seat,
            through_round=through_round,
            defaults={"through_seq": through_seq, "requested_by": player},
        )
        if not created and review.status == ReviewStatus.FAILED:
            retried = GameReview.objects.filter(pk=review.pk, status=ReviewStatus.FAILED).update(
                status=ReviewStatus.PENDING, error="", finished_at=None
            )
            created = retried == 1
            review.refresh_from_db()
        if created:
            review_id = review.pk
            transaction.on_commit(lambda: _review_send(review_id))
    if created:
        review.refresh_from_db()  # an in-process reviewer (no broker) has run by now
    return review, created


def _review_send(review_id: int) -> None:
    """Send the review to the bots' worker; a review that could not be sent (the broker down)
    is marked failed, so that asking again sends it again."""
    try:
        review_send(review_id)
    except Exception:
        if dispatch.is_eager():
            raise
        logger.exception("could not send review %s", review_id)
        game_review_failure_save(review_id, engine="", error="not_sent")


def game_review_result_save(
    review_id: int, *, engine: str, result: dict[str, Any], cpu_seconds: float
) -> bool:
    """Store a pending review's result (ready); False when it is not pending (already written
    by an earlier delivery of the task, or gone)."""
    written = GameReview.objects.filter(pk=review_id, status=ReviewStatus.PENDING).update(
        status=ReviewStatus.READY,
        engine=engine[:64],
        result=result,
        cpu_seconds=round(cpu_seconds, 3),
        error="",
        finished_at=timezone.now(),
    )
    return written == 1


def game_review_failure_save(review_id: int, *, engine: str, error: str) -> bool:
    """Mark a pending review failed (asking again sends it once more)."""
    written = GameReview.objects.filter(pk=review_id, status=ReviewStatus.PENDING).update(
        status=ReviewStatus.FAILED,
        engine=engine[:64],
        error=error[:ERROR_MAX_LENGTH],
        finished_at=timezone.now(),
    )
    return written == 1
