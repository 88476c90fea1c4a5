"""A post-game review computed: the seat's decisions of the finished rounds, searched again.

``review_next_compute()`` (the ``bots.game_review_compute`` task) claims the waiting review whose
turn it is (``bots.services.reviews.review_claim_next``: players served in turn) and computes it
with ``review_compute(review_id)``, which loads the game's move log
up to the event that ended the review's last round, replays it with the engine (not the
snapshot) and hands every decision of the seat to the pure reviewer
(``bots.policies.review.review_log``; for a game of a family beside classic
``bots.policies.family_review.family_review_log``): at each, the seat's observation is built
as a bot's is (its player view of the state before the move and the round's events as it saw
them), so the search never uses a card the seat could not see. Seeds come from the game, the
seat and the event's seq: a task delivered twice computes the same review, and the result is
written by a conditional update (pending to ready), so the second delivery changes nothing. A
review that is ready is not computed again.

Budget (``REVIEW_SETTINGS``, the reviewer's defaults): 40 determinised worlds per decision,
every candidate (at most five besides the chosen move) played in each, rollouts of at most 60
plies; decisions with a single legal move are skipped. ``python -m bench.review`` measures a
whole classic game: the aim is at most 60 s of one worker's CPU. A game of a family beside
classic is reviewed with ``FAMILY_REVIEW_SETTINGS`` (``bots.policies.family_review``: 12 worlds,
at most five candidates besides the medium choice and the chosen move, rollouts of at most 24
actions), a few seconds for a round.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from typing import Any

from bots.models import GameReview, ReviewStatus
from bots.policies.family_review import FamilyReviewSettings, family_review_log
from bots.policies.review import LogDecision, ReviewSettings, review_log
from bots.services.reviews import (
    game_review_failure_save,
    game_review_result_save,
    review_claim_next,
)
from core.errors import ServiceError
from games.engine import action_to_dict
from games.selectors.log import entries_of, game_options, rules_version_check

logger = logging.getLogger(__name__)

REVIEW_SETTINGS = ReviewSettings()  # 40 worlds, 5 candidates, 60 plies: bench/review.py
FAMILY_REVIEW_SETTINGS = FamilyReviewSettings()  # 12 worlds, 5 candidates, 24 plies


def decision_dict(decision: LogDecision) -> dict[str, Any]:
    """One reviewed decision as the review's result stores it (actions in their text form)."""
    review = decision.review
    return {
        "step": decision.step,
        "round": decision.round_no,
        "turn": decision.turn_no,
        "phase": decision.phase,
        "chosen": action_to_dict(review.chosen),
        "best": action_to_dict(review.best),
        "loss": round(review.loss),
        "severity": review.severity,
        "reason": review.reason,
        "candidates": [
            {"action": action_to_dict(c.action), "value": round(c.value, 1), "worlds": c.worlds}
            for c in review.candidates
        ],
    }


def review_summary(decisions: list[dict[str, Any]]) -> dict[str, int]:
    grades = Counter(d["severity"] for d in decisions)
    return {
        "decisions": len(decisions),
        "inaccuracies": grades["inaccuracy"],
        "mistakes": grades["mistake"],
        "blunders": grades["blunder"],
        "total_loss": sum(int(d["loss"]) for d in decisions),
    }


def review_result_build(
    review: GameReview,
    settings: ReviewSettings,
    family_settings: FamilyReviewSettings | None = None,
) -> dict[str, Any]:
    """The review's result: every reviewed decision of its seat and their summary."""
    game = review.game
    rules_version_check(game.rules_version)
    entries = entries_of(game, review.through_seq, effects=False)
    options = game_options(game)
    base = f"review:{game.pk}:{review.seat}"
    walk = (
        review_log(options, game.seed, entries, review.seat, review.through_round, base, settings)
        if options.family == "classic"
        else family_review_log(
            options,
            game.seed,
            entries,
            review.seat,
            review.through_round,
            base,
            family_settings or FAMILY_REVIEW_SETTINGS,
        )
    )
    decisions = [decision_dict(d) for d in walk]
    return {"summary": review_summary(decisions), "decisions": decisions}


def review_compute(
    review_id: int,
    settings: ReviewSettings | None = None,
    family_settings: FamilyReviewSettings | None = None,
) -> bool:
    """Compute and store the pending review ``review_id`` (with ``REVIEW_SETTINGS``, or
    ``FAMILY_REVIEW_SETTINGS`` for a game of a family beside classic, unless settings are
    given); True when this call wrote it."""
    settings = settings or REVIEW_SETTINGS
    family_settings = family_settings or FAMILY_REVIEW_SETTINGS
    review = GameReview.objects.select_related("game").filter(pk=review_id).first()
    if review is None or review.status != ReviewStatus.PENDING:
        return False  # gone, or already written (a redelivered task)
    family = (review.game.options or {}).get("family", "classic") != "classic"
    engine = family_settings.engine if family else settings.engine
    start = time.process_time()
    try:
        result = review_result_build(review, settings, family_settings)
    except ServiceError as exc:
        return game_review_failure_save(review_id, engine=engine, error=exc.code)
    except Exception as exc:  # a log the engine refuses, a time limit: record it, never retry
        # Only the exception's type: an engine message may name a card of a hand.
        logger.error(
            "review %s of game %s failed: %s", review_id, review.game_id, type(exc).__name__
        )
        return game_review_failure_save(review_id, engine=engine, error=type(exc).__name__)
    cpu = time.process_time() - start
    return game_review_result_save(review_id, engine=engine, result=result, cpu_seconds=cpu)


def review_next_compute(
    settings: ReviewSettings | None = None, family_settings: FamilyReviewSettings | None = None
) -> int | None:
    """Claim the waiting review whose turn it is and compute it; its id, or None when there
    was none to claim."""
    review_id = review_claim_next()
    if review_id is None:
        return None
    review_compute(review_id, settings, family_settings)
    return review_id
