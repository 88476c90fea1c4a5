"""The post-game review: ask for the review of a seat, read it (thin views, their serializers).

A review replays the move log and, at each decision of the seat in the finished rounds, searches
from that seat's information at the time (never the hidden cards) how much the chosen move cost
against the best candidate. Who may ask and read: ``bots.selectors.reviews``.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts import scopes
from accounts.models import Player
from bots.models import ReviewStatus
from bots.selectors.reviews import game_review_get, review_game_get, review_seat_check, review_view
from bots.services.reviews import game_review_request
from core.problems import AUTH, BODY, problem_responses
from games.api.serializers import ActionSerializer
from games.api.views import GAME_ID, player_of
from games.models import Game

Base = serializers.Serializer[Any]

SEAT_MAX = 3
SEVERITIES = ("ok", "inaccuracy", "mistake", "blunder")
SEVERITY_TEXT = (
    "The loss graded after one standard error of the worlds' noise is taken off: `ok` (under "
    "10 points), `inaccuracy` (10 to 30), `mistake` (30 to 100), `blunder` (100 or more)."
)
REASON_TEXT = (
    "What the search can tell about the loss, when it can: `went out too soon`, `missed going "
    "out`, `passed up the pile`, `took the pile at a cost`, `melded too early`, `held back a "
    "meld`, `gave the pile away`, `discarded a card the opponents wanted`; null otherwise (and "
    "for an `ok` decision)."
)
ACCESS_TEXT = (
    "While the game is running only a seated player may review, their own seat only (403 "
    "`review_seat_not_allowed` for another seat); once it is finished every player seated at "
    "it may review any seat, and at a public table so may everyone (an abandoned game is "
    "reviewed as while it ran: its hands stay hidden, as in its replay). A private table is "
    "404 to anyone not seated at it."
)


# ============================================================================== serializers
class GameReviewRequestSerializer(Base):
    seat = serializers.IntegerField(
        min_value=0, max_value=SEAT_MAX, help_text="The seat to review (0 to 3)."
    )


class GameReviewParamsSerializer(Base):
    """Query parameters of the review (validation only)."""

    seat = serializers.IntegerField(min_value=0, max_value=SEAT_MAX)


class ReviewCandidateSerializer(Base):
    action = ActionSerializer(help_text="A move the seat could have made.")
    value = serializers.FloatField(
        help_text="Its mean value over the worlds searched: the seat's side's round score minus "
        "the best other side's, in points."
    )
    worlds = serializers.IntegerField(
        help_text="How many worlds it was played in (the weakest are dropped after a few)."
    )


class ReviewDecisionSerializer(Base):
    step = serializers.IntegerField(
        help_text="The seq of the move-log event that made the move: the replay at `step - 1` "
        "shows the position the seat decided in, at `step` the position after the move."
    )
    round = serializers.IntegerField(help_text="The round, from 1.")
    turn = serializers.IntegerField(help_text="The round's turn, from 1.")
    # Text, not an enum: a second enum of phases would rename the table view's `PhaseEnum`.
    phase = serializers.CharField(
        help_text="The decision's phase: `draw` (draw or take the pile), `play` (meld, ask the "
        "partner, discard) or `answer` (to the partner's request to go out)."
    )
    chosen = ActionSerializer(help_text="The move the seat made.")
    best = ActionSerializer(
        help_text="The best candidate found (the chosen move when no candidate did better)."
    )
    loss = serializers.IntegerField(
        min_value=0, help_text="Points the chosen move cost against the best, on average."
    )
    severity = serializers.ChoiceField(choices=list(SEVERITIES), help_text=SEVERITY_TEXT)
    reason = serializers.CharField(allow_null=True, help_text=REASON_TEXT)
    candidates = ReviewCandidateSerializer(
        many=True, help_text="Every candidate searched, best first."
    )


class ReviewSummarySerializer(Base):
    decisions = serializers.IntegerField(help_text="Decisions reviewed (more than one legal move).")
    inaccuracies = serializers.IntegerField(help_text="Decisions graded `inaccuracy`.")
    mistakes = serializers.IntegerField(help_text="Decisions graded `mistake`.")
    blunders = serializers.IntegerField(help_text="Decisions graded `blunder`.")
    total_loss = serializers.IntegerField(help_text="The sum of the decisions' losses, in points.")


class GameReviewSerializer(Base):
    game = serializers.IntegerField(help_text="The game's id.")
    seat = serializers.IntegerField(help_text="The seat reviewed.")
    status = serializers.ChoiceField(
        choices=ReviewStatus.choices,
        help_text="`pending` while the reviewer works, `ready` with the result, `failed` (ask "
        "again to retry).",
    )
    through_round = serializers.IntegerField(
        help_text="The review covers rounds 1 to this one (the last finished when it was asked)."
    )
    requested_at = serializers.DateTimeField(help_text="When the review was first asked for.")
    finished_at = serializers.DateTimeField(
        allow_null=True, help_text="When the reviewer finished; null while pending."
    )
    engine = serializers.CharField(help_text="The reviewer and its settings; empty while pending.")
    cpu_seconds = serializers.FloatField(
        allow_null=True, help_text="The reviewer's CPU time; null until ready."
    )
    summary = ReviewSummarySerializer(allow_null=True, help_text="Null until ready.")
    decisions = ReviewDecisionSerializer(
        many=True, help_text="The seat's decisions, in order; empty until ready."
    )


REVIEW_EXAMPLE = OpenApiExample(
    "A ready review",
    value={
        "game": 42,
        "seat": 0,
        "status": "ready",
        "through_round": 1,
        "requested_at": "2026-11-27T12:00:00Z",
        "finished_at": "2026-11-27T12:00:09Z",
        "engine": "review-1 worlds=40 candidates=5 plies=60",
        "cpu_seconds": 8.4,
        "summary": {
            "decisions": 1,
            "inaccuracies": 0,
            "mistakes": 1,
            "blunders": 0,
            "total_loss": 45,
        },
        "decisions": [
            {
                "step": 7,
                "round": 1,
                "turn": 4,
                "phase": "play",
                "chosen": {"type": "discard", "card": "KH"},
                "best": {"type": "discard", "card": "4C"},
                "loss": 45,
                "severity": "mistake",
                "reason": "gave the pile away",
                "candidates": [
                    {"action": {"type": "discard", "card": "4C"}, "value": 120.5, "worlds": 40},
                    {"action": {"type": "discard", "card": "KH"}, "value": 75.0, "worlds": 40},
                ],
            }
        ],
    },
    response_only=True,
)
REVIEW_PROBLEMS = (AUTH, "not_found", "not_seated", "review_seat_not_allowed", "invalid_seat")


# ============================================================================== views
def _review_game(request: Request, game_id: int, parser: type[Base]) -> tuple[Player, Game, int]:
    """The requester, the game and the seat a review request names (the body of a POST, the
    query of a GET), checked: the game first (404 to those who may not see it, whatever they
    sent), then the request, then who may review that seat (``review_seat_check``)."""
    player = player_of(request)
    game = review_game_get(game_id=game_id, player=player)
    data = parser(data=request.query_params if request.method == "GET" else request.data)
    data.is_valid(raise_exception=True)
    seat: int = data.validated_data["seat"]
    review_seat_check(game=game, player=player, seat=seat)
    return player, game, seat


class GameReviewApi(APIView):
    read_scopes = scopes.PERSON_PLAY
    write_scopes = scopes.PERSON_PLAY

    def get_throttles(self) -> list[BaseThrottle]:
        # Asking sends a search of many seconds to a worker; reading is cheap (clients poll).
        self.throttle_scope = "review" if self.request.method == "POST" else ""
        return super().get_throttles()

    @extend_schema(
        operation_id="games_review_create",
        tags=["replay"],
        summary="Ask for the review of a seat's play",
        description="The reviewer replays the move log and, at each decision of the seat in "
        "the finished rounds, searches from that seat's information at the time (never the "
        "hidden cards) how many points the chosen move cost against the best candidate. The "
        "request answers at once: 202 with the review while it is `pending` (made by this "
        "request, a failed one sent again, or one already waiting), 200 once it is `ready`; "
        "read it with `GET` until its `status` is `ready` (asking again changes nothing until "
        "another round has finished). 409 `review_no_finished_round` before the first round "
        "ends. Games of every rule family are reviewed (classic, Modern American Canasta, "
        "Samba, Bolivia). Reviews are computed players in turn: 429 `reviews_pending` while "
        "this player already has `REVIEWS_PENDING_PER_PLAYER_MAX` (3) reviews waiting. "
        + ACCESS_TEXT,
        parameters=[GAME_ID],
        request=GameReviewRequestSerializer,
        responses={
            200: GameReviewSerializer,
            202: GameReviewSerializer,
            **problem_responses(
                BODY,
                REVIEW_PROBLEMS,
                "review_no_finished_round",
                "reviews_pending",
                "throttled",
            ),
        },
        examples=[
            OpenApiExample("Review seat 0", value={"seat": 0}, request_only=True),
            REVIEW_EXAMPLE,
        ],
    )
    def post(self, request: Request, game_id: int) -> Response:
        player, game, seat = _review_game(request, game_id, GameReviewRequestSerializer)
        review, _ = game_review_request(game=game, player=player, seat=seat)
        pending = review.status == ReviewStatus.PENDING
        code = status.HTTP_202_ACCEPTED if pending else status.HTTP_200_OK
        return Response(GameReviewSerializer(review_view(review)).data, status=code)

    @extend_schema(
        operation_id="games_review_retrieve",
        tags=["replay"],
        summary="The latest review of a seat's play",
        description="The review of the seat covering the most rounds (pending, ready or "
        "failed); 404 `review_not_found` when nobody has asked for one. " + ACCESS_TEXT,
        parameters=[
            GAME_ID,
            OpenApiParameter("seat", int, required=True, description="The seat (0 to 3)."),
        ],
        responses={
            200: GameReviewSerializer,
            **problem_responses("invalid_request", REVIEW_PROBLEMS, "review_not_found"),
        },
        examples=[REVIEW_EXAMPLE],
    )
    def get(self, request: Request, game_id: int) -> Response:
        _, game, seat = _review_game(request, game_id, GameReviewParamsSerializer)
        review = game_review_get(game=game, seat=seat)
        return Response(GameReviewSerializer(review_view(review)).data)
