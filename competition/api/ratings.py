"""Ratings over HTTP: the leaderboards (top N, around me) and a player's rating history. Thin
views: parse, call ``competition.selectors.ratings``, render. The profile's ratings and rated games
(``GET /players/{id}/profile/``) use this module's ``PlayerRatingSerializer`` and
``RatedGameSerializer``.

A format in a path is one of the rating formats: the route's converter (``RatingFormatConverter``,
registered in ``games.api.urls``) admits nothing else, so any other value is Django's 404, which
the central handler answers as ``not_found``. The URL keyword is ``rating_format``, not
``format``: DRF reads a ``format`` keyword as a format suffix (``.json``) for content
negotiation.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from competition.models import UnratedReason
from competition.selectors.ratings import (
    AROUND_SIZE_DEFAULT,
    AROUND_SIZE_MAX,
    BOARD_LIMIT_DEFAULT,
    BOARD_LIMIT_MAX,
    HISTORY_LIMIT_DEFAULT,
    HISTORY_LIMIT_MAX,
    OFFSET_MAX,
    PROVISIONAL_GAMES,
    RATING_FORMATS,
    leaderboard_around,
    leaderboard_page,
    rating_history_get,
)
from core.problems import AUTH, problem_responses
from games.api.views import player_of

Base = serializers.Serializer[Any]


class RatingFormatConverter:
    """A rating format in a path: only one of ``RATING_FORMATS``."""

    regex = "|".join(RATING_FORMATS)

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


# ============================================================================== serializers
FORMAT_HELP = (
    "The rating format: a classic game's by its seats, `partnership` (four players in two "
    "partnerships), `two_player`, `three_player`; each preset of the other rule families is a "
    "format of its own: `mac`, `mac_two_player`, `samba`, `bolivia`."
)
RATING_HELP = (
    "The shown rating: round(1000 + 40 (mu - 3 sigma)), the conservative estimate (a new "
    "player shows 1000)."
)
PROVISIONAL_HELP = f"Fewer than {PROVISIONAL_GAMES} rated games in this format."
GAME_ID_HELP = "The game's id; null for a private game you did not sit at (`private` is then true)."
PRIVATE_HELP = "The game was a private table."
COUNTED_HELP = (
    "The result counted. False: the rating did not change (`unrated_reason` says why); the "
    "game is not counted in `games`."
)
UNRATED_REASON_HELP = (
    "Why the result did not count: `too_few_moves` (a side made fewer moves than a rated "
    "result needs: a concession or abandonment at the start), `repeated_opponents` (two of "
    "its players already had as many counted results together as the rolling window allows). "
    "Null when it counted."
)


def _format_field() -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=list(RATING_FORMATS), help_text=FORMAT_HELP)


class LeaderboardEntrySerializer(Base):
    rank = serializers.IntegerField(
        help_text="The place on the board: by rating (mu - 3 sigma) high to low, ties by player "
        "id (ranks are distinct)."
    )
    player_id = serializers.IntegerField(help_text="The player's id.")
    display_name = serializers.CharField(help_text="The name other players see.")
    rating = serializers.IntegerField(help_text=RATING_HELP)
    mu = serializers.FloatField(help_text="The skill estimate (openskill; 25 at the start).")
    sigma = serializers.FloatField(help_text="Its uncertainty (25/3 at the start).")
    games = serializers.IntegerField(help_text="Rated games played in this format.")
    wins = serializers.IntegerField(help_text="Of them, games won.")
    provisional = serializers.BooleanField(help_text=PROVISIONAL_HELP)


class LeaderboardSerializer(Base):
    format = _format_field()
    total = serializers.IntegerField(help_text="Rated players in this format (the board's size).")
    entries = LeaderboardEntrySerializer(
        many=True, help_text="The board from `offset`, best first (provisional ratings too)."
    )


class LeaderboardAroundSerializer(Base):
    format = _format_field()
    total = serializers.IntegerField(help_text="Rated players in this format (the board's size).")
    me = LeaderboardEntrySerializer(
        allow_null=True, help_text="Your entry; null when you have no rating in this format."
    )
    entries = LeaderboardEntrySerializer(
        many=True,
        help_text="The board from `size` places above you to `size` below, best first, you "
        "included (fewer at the top or bottom); empty when you have no rating in this format.",
    )


class PlayerRatingSerializer(Base):
    """A player's rating in one format."""

    format = _format_field()
    rating = serializers.IntegerField(help_text=RATING_HELP)
    mu = serializers.FloatField(help_text="The skill estimate (openskill; 25 at the start).")
    sigma = serializers.FloatField(help_text="Its uncertainty (25/3 at the start).")
    games = serializers.IntegerField(help_text="Rated games played in this format.")
    wins = serializers.IntegerField(help_text="Of them, games won.")
    provisional = serializers.BooleanField(help_text=PROVISIONAL_HELP)
    rank = serializers.IntegerField(
        allow_null=True,
        help_text="The place on the format's leaderboard; null if never rated in this format.",
    )


class RatedGameSerializer(Base):
    """What one rated game did to the player's rating."""

    game_id = serializers.IntegerField(allow_null=True, help_text=GAME_ID_HELP)
    private = serializers.BooleanField(help_text=PRIVATE_HELP)
    format = _format_field()
    finished_at = serializers.DateTimeField(allow_null=True, help_text="When the game ended.")
    rank = serializers.IntegerField(
        help_text="The player's side's place in the game: 1 won (a tie shares it)."
    )
    rating_before = serializers.IntegerField(help_text="The shown rating before the game.")
    rating_after = serializers.IntegerField(help_text="The shown rating after it.")
    change = serializers.IntegerField(help_text="`rating_after - rating_before`.")
    counted = serializers.BooleanField(help_text=COUNTED_HELP)
    unrated_reason = serializers.ChoiceField(
        choices=list(UnratedReason.values), allow_null=True, help_text=UNRATED_REASON_HELP
    )


class RatingHistoryEntrySerializer(Base):
    game_id = serializers.IntegerField(allow_null=True, help_text=GAME_ID_HELP)
    private = serializers.BooleanField(help_text=PRIVATE_HELP)
    finished_at = serializers.DateTimeField(allow_null=True, help_text="When the game ended.")
    created_at = serializers.DateTimeField(help_text="When the rating changed.")
    seat = serializers.IntegerField(help_text="The player's seat in the game.")
    team = serializers.IntegerField(help_text="The player's team in the game.")
    rank = serializers.IntegerField(
        help_text="The player's side's place in the game: 1 won (a tie shares it)."
    )
    rating_before = serializers.IntegerField(help_text="The shown rating before the game.")
    rating_after = serializers.IntegerField(help_text="The shown rating after it.")
    change = serializers.IntegerField(help_text="`rating_after - rating_before`.")
    mu_after = serializers.FloatField(help_text="The skill estimate after the game.")
    sigma_after = serializers.FloatField(help_text="Its uncertainty after the game.")
    counted = serializers.BooleanField(help_text=COUNTED_HELP)
    unrated_reason = serializers.ChoiceField(
        choices=list(UnratedReason.values), allow_null=True, help_text=UNRATED_REASON_HELP
    )


class RatingHistorySerializer(Base):
    player_id = serializers.IntegerField(help_text="The player's id.")
    format = _format_field()
    total = serializers.IntegerField(help_text="Rated games of the player in this format.")
    entries = RatingHistoryEntrySerializer(
        many=True, help_text="Rated games from `offset`, newest first."
    )


class LeaderboardParamsSerializer(Base):
    limit = serializers.IntegerField(
        required=False, default=BOARD_LIMIT_DEFAULT, min_value=1, max_value=BOARD_LIMIT_MAX
    )
    offset = serializers.IntegerField(required=False, default=0, min_value=0, max_value=OFFSET_MAX)


class LeaderboardAroundParamsSerializer(Base):
    size = serializers.IntegerField(
        required=False, default=AROUND_SIZE_DEFAULT, min_value=1, max_value=AROUND_SIZE_MAX
    )


class RatingHistoryParamsSerializer(Base):
    limit = serializers.IntegerField(
        required=False, default=HISTORY_LIMIT_DEFAULT, min_value=1, max_value=HISTORY_LIMIT_MAX
    )
    offset = serializers.IntegerField(required=False, default=0, min_value=0, max_value=OFFSET_MAX)


# ============================================================================== views
RATING_FORMAT = OpenApiParameter(
    "rating_format",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    enum=list(RATING_FORMATS),
    description="The rating format (any other value: 404 `not_found`).",
)
PLAYER_ID = OpenApiParameter(
    "player_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="Player id"
)


def _bounded(name: str, low: int, high: int, default: int, text: str) -> OpenApiParameter:
    """A query parameter with its bounds and default in the schema."""
    schema = {"type": "integer", "minimum": low, "maximum": high, "default": default}
    return OpenApiParameter(name, schema, OpenApiParameter.QUERY, description=text)


OFFSET = _bounded("offset", 0, OFFSET_MAX, 0, "Skip this many entries (0 = from the first).")


def _params(serializer: type[Base], request: Request) -> dict[str, Any]:
    params = serializer(data=request.query_params)
    params.is_valid(raise_exception=True)
    return dict(params.validated_data)


class LeaderboardApi(APIView):
    read_scopes = scopes.PROFILES_READ

    @extend_schema(
        operation_id="leaderboards_retrieve",
        tags=["ratings"],
        summary="A format's leaderboard (top N, by pages)",
        description="Rated players of the format, best first: by the conservative rating "
        "(mu - 3 sigma) high to low, ties by player id. `limit` entries from `offset`, with "
        "their ranks, and the board's size. Provisional ratings (fewer than "
        f"{PROVISIONAL_GAMES} rated games) are listed too, flagged.",
        parameters=[
            RATING_FORMAT,
            _bounded(
                "limit", 1, BOARD_LIMIT_MAX, BOARD_LIMIT_DEFAULT, "At most this many entries."
            ),
            OFFSET,
        ],
        responses={
            200: LeaderboardSerializer,
            **problem_responses("invalid_request", AUTH, "not_found"),
        },
    )
    def get(self, request: Request, rating_format: str) -> Response:
        v = _params(LeaderboardParamsSerializer, request)
        body = leaderboard_page(format=rating_format, limit=v["limit"], offset=v["offset"])
        return Response(LeaderboardSerializer(body).data)


class LeaderboardAroundApi(APIView):
    read_scopes = scopes.PROFILES_READ

    @extend_schema(
        operation_id="leaderboards_around_me",
        tags=["ratings"],
        summary="The leaderboard around you",
        description="Your entry (`me`) and the entries from `size` places above you to `size` "
        "below, in the board's order (fewer near the top or the bottom). With no rating in "
        "the format you are on no board: `me` is null and `entries` empty.",
        parameters=[
            RATING_FORMAT,
            _bounded(
                "size", 1, AROUND_SIZE_MAX, AROUND_SIZE_DEFAULT, "Entries on each side of yours."
            ),
        ],
        responses={
            200: LeaderboardAroundSerializer,
            **problem_responses("invalid_request", AUTH, "not_found"),
        },
    )
    def get(self, request: Request, rating_format: str) -> Response:
        v = _params(LeaderboardAroundParamsSerializer, request)
        body = leaderboard_around(format=rating_format, player=player_of(request), size=v["size"])
        return Response(LeaderboardAroundSerializer(body).data)


class RatingHistoryApi(APIView):
    read_scopes = scopes.PROFILES_READ

    @extend_schema(
        operation_id="players_rating_history",
        tags=["ratings"],
        summary="A player's rating history in a format",
        description="Every rated game of the player in the format, newest first, with the "
        "shown rating before and after it (and mu and sigma after): `limit` entries from "
        "`offset`, and how many there are. A result that did not count (`counted` false) "
        "shows the rating unchanged and why. A private game's id is shown only to its "
        "players: to anyone else `game_id` is null.",
        parameters=[
            PLAYER_ID,
            RATING_FORMAT,
            _bounded(
                "limit", 1, HISTORY_LIMIT_MAX, HISTORY_LIMIT_DEFAULT, "At most this many entries."
            ),
            OFFSET,
        ],
        responses={
            200: RatingHistorySerializer,
            **problem_responses("invalid_request", AUTH, "player_not_found", "not_found"),
        },
    )
    def get(self, request: Request, player_id: int, rating_format: str) -> Response:
        v = _params(RatingHistoryParamsSerializer, request)
        body = rating_history_get(
            player_id=player_id,
            format=rating_format,
            limit=v["limit"],
            offset=v["offset"],
            viewer=player_of(request),
        )
        return Response(RatingHistorySerializer(body).data)
