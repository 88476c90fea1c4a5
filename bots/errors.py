"""The bots' error codes: hints and post-game reviews (see ``core.errors``, the one catalogue).
The table lists them beside the game's codes they belong with (``after=``)."""

from __future__ import annotations

from core.errors import ServiceError


class HintsOff(
    ServiceError,
    code="hints_off",
    status=403,
    title="Hints are off",
    message="This table plays without hints (its creator may turn them on in the lobby).",
    after="rated_no_hints",
):
    pass


class ReviewNoFinishedRound(
    ServiceError,
    code="review_no_finished_round",
    status=409,
    title="No finished round to review",
    message="A review covers finished rounds only: this game has not finished a round yet.",
    after="replay_step_out_of_range",
):
    pass


class ReviewSeatNotAllowed(
    ServiceError,
    code="review_seat_not_allowed",
    status=403,
    title="Not your seat to review",
    message="While the game is running a player may review only their own seat (a review names "
    "the seat's cards); once it is finished, any seat.",
    after="review_no_finished_round",
):
    pass


class ReviewNotFound(
    ServiceError,
    code="review_not_found",
    status=404,
    title="Review not found",
    message="Nobody has asked for a review of that seat yet: ask with POST .../review/.",
    after="review_seat_not_allowed",
):
    pass


class ReviewsPending(
    ServiceError,
    code="reviews_pending",
    status=429,
    title="Reviews waiting",
    message="Your earlier reviews are still waiting for the reviewer: ask for another once one "
    "of them is ready.",
    after="review_not_found",
):
    pass
