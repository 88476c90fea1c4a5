"""Post-game reviews: asking for one, and the reviewer's writers.

``game_review_request`` checks who may ask (``bots.selectors.reviews``), finds the last
finished round and makes the review row for (game, seat, that round), or returns the one that
exists: asking again changes nothing until another round has finished. A new review (or a
failed one asked for again) is pending and sent to the registered ``BotPlayer``
(``review_schedule``, a Celery task of the bots app) once the transaction commits.

The reviewer writes its result with ``game_review_result_save``: a conditional update from
pending to ready, so a task delivered twice computes the same result and writes it once.

**Fair turns.** A review costs many seconds of CPU on the bulk workers, so the reviewer serves
players in turn rather than in the order the requests came: a player has at most
``REVIEWS_PENDING_PER_PLAYER_MAX`` reviews waiting (more is refused, 429 ``reviews_pending``),
each task computes the waiting review that ``review_claim_next`` picks (the requester served
least lately first; a requester with a review being computed waits for it), and a review is
claimed (``started_at``) before it is computed, so no two workers compute it at once. One
player's backlog thus waits behind itself only: another player's review waits for at most one
review of each other requester.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Q
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
    ``review_no_finished_round`` when no round has finished (a game of any rule family)."""
    review_seat_check(game=game, player=player, seat=seat)
    through_round, through_seq = finished_rounds_get(game)
    if through_round == 0:
        raise errors.ReviewNoFinishedRound()
    with transaction.atomic():
        # This player's requests one at a time (the row lock), so the cap below counts right.
        list(Player.objects.select_for_update().filter(pk=player.pk).values_list("pk"))
        existing = GameReview.objects.filter(game=game, seat=seat, through_round=through_round)
        if not existing.exclude(status=ReviewStatus.FAILED).exists():
            _pending_cap_check(player)
        review, created = GameReview.objects.get_or_create(
            game=game,
            seat=seat,
            through_round=through_round,
            defaults={"through_seq": through_seq, "requested_by": player},
        )
        if not created and review.status == ReviewStatus.FAILED:
            retried = GameReview.objects.filter(pk=review.pk, status=ReviewStatus.FAILED).update(
                status=ReviewStatus.PENDING,
                error="",
                finished_at=None,
                started_at=None,
                requested_by=player,
                created_at=timezone.now(),  # waits its turn from now, as a new request
            )
            created = retried == 1
            review.refresh_from_db()
        if created:
            review_id = review.pk
            transaction.on_commit(lambda: _review_send(review_id))
    if created:
        review.refresh_from_db()  # a reviewer run inside this request has finished by now
    return review, created


def _pending_cap_check(player: Player) -> None:
    """429 ``reviews_pending`` when ``player`` already has the most reviews waiting."""
    waiting = GameReview.objects.filter(requested_by=player, status=ReviewStatus.PENDING).count()
    if waiting >= settings.REVIEWS_PENDING_PER_PLAYER_MAX:
        raise errors.ReviewsPending()


def _lease_start(now: datetime) -> datetime:
    """Claims made before this have lapsed (their worker died): the review may be taken again."""
    return now - timedelta(seconds=settings.REVIEW_LEASE_SECONDS)


def review_claim_next(now: datetime | None = None) -> int | None:
    """Claim the waiting review whose turn it is and return its id; None when no review waits
    or every waiting one belongs to a requester whose earlier review is being computed.

    The turn: each requester's waiting reviews ranked oldest first, after the reviews computed
    for that requester in the last ``REVIEW_FAIR_WINDOW_SECONDS``; the lowest rank goes first,
    the oldest request among equal ranks. A claim is a conditional update (it wins once, on
    SQLite and PostgreSQL alike); a claim older than ``REVIEW_LEASE_SECONDS`` has lapsed.
    """
    now = now or timezone.now()
    lease_start = _lease_start(now)
    pending = GameReview.objects.filter(status=ReviewStatus.PENDING)
    free = Q(started_at__isnull=True) | Q(started_at__lte=lease_start)
    busy = set(pending.filter(started_at__gt=lease_start).values_list("requested_by_id", flat=True))
    waiting = list(
        pending.filter(free)
        .order_by("created_at", "pk")
        .values_list("pk", "requested_by_id")[: settings.REVIEW_CLAIM_WINDOW]
    )
    served = dict(
        GameReview.objects.filter(
            started_at__gte=now - timedelta(seconds=settings.REVIEW_FAIR_WINDOW_SECONDS),
            requested_by__isnull=False,
        )
        .exclude(status=ReviewStatus.PENDING)
        .values_list("requested_by_id")
        .annotate(n=Count("pk"))
        .values_list("requested_by_id", "n")
    )
    ranks: dict[object, int] = {}
    turns: list[tuple[int, int, int]] = []
    for index, (review_id, requester) in enumerate(waiting):
        if requester is not None and requester in busy:
            continue
        key: object = requester if requester is not None else ("review", review_id)
        ranks[key] = ranks.get(key, served.get(requester, 0)) + 1
        turns.append((ranks[key], index, review_id))
    for _rank, _index, review_id in sorted(turns):
        if pending.filter(free, pk=review_id).update(started_at=now) == 1:
            return review_id
    return None


def reviews_unclaimed(now: datetime | None = None) -> bool:
    """Whether a review waits that no reviewer has claimed (or whose claim has lapsed)."""
    lease_start = _lease_start(now or timezone.now())
    return (
        GameReview.objects.filter(status=ReviewStatus.PENDING)
        .filter(Q(started_at__isnull=True) | Q(started_at__lte=lease_start))
        .exists()
    )


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
