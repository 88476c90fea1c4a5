"""A player's profile over HTTP: their record at the tables (``games``) and their ratings.

It lives in competition because it shows both: ``games`` may not import competition, while
competition reads the games it rates.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from competition.api.ratings import PlayerRatingSerializer, RatedGameSerializer
from competition.selectors.profiles import player_profile_get
from competition.selectors.ratings import PROFILE_RATED_GAMES_MAX
from core.problems import AUTH, problem_responses
from games.api.table import PLAYER_ID
from games.api.views import player_of
from games.selectors.table import PROFILE_GAMES_MAX

Base = serializers.Serializer[Any]


class PlayerRecordSerializer(Base):
    """Counted over the finished games played on this service; imported games do not count."""

    played = serializers.IntegerField(
        help_text="Finished games played on this service; imported games do not count."
    )
    won = serializers.IntegerField(help_text="Of them, games their team won.")
    lost = serializers.IntegerField(help_text="Of them, games their team lost.")
    conceded = serializers.IntegerField(help_text="Games lost by conceding (among `lost`).")


class ProfileGameSerializer(Base):
    id = serializers.IntegerField(help_text="The game's id.")
    preset = serializers.CharField(help_text="The preset its options started from.")
    players = serializers.IntegerField(help_text="Its number of seats.")
    finished_at = serializers.DateTimeField(allow_null=True, help_text="When it ended.")
    seat = serializers.IntegerField(help_text="The player's seat.")
    team = serializers.IntegerField(help_text="The player's team.")
    winner_team = serializers.IntegerField(
        allow_null=True, help_text="The winning team; null if nobody won."
    )
    result = serializers.ChoiceField(
        choices=["won", "lost", "drawn"], help_text="The game's result for the player."
    )
    conceded = serializers.BooleanField(help_text="The player conceded it.")
    replay = serializers.CharField(help_text="The game's replay: GET this path.")


class ProfileRelationSerializer(Base):
    blocked = serializers.BooleanField(help_text="You blocked this player.")
    favourite = serializers.BooleanField(help_text="This player is among your favourites.")


class PlayerProfileSerializer(Base):
    id = serializers.IntegerField(help_text="The player's id.")
    display_name = serializers.CharField(help_text="The name other players see.")
    is_bot = serializers.BooleanField(
        help_text="A bot account: a program playing through the API (casual tables only)."
    )
    created_at = serializers.DateTimeField(help_text="When the player signed up.")
    record = PlayerRecordSerializer(help_text="Their record over finished games.")
    games = ProfileGameSerializer(
        many=True, help_text=f"The latest finished games that count (at most {PROFILE_GAMES_MAX})."
    )
    you = ProfileRelationSerializer(help_text="Whether you blocked or favour this player.")
    ratings = PlayerRatingSerializer(
        many=True,
        help_text="Their rating in every format (a format never played rated: the starting "
        "rating, provisional, no rank).",
    )
    rated_games = RatedGameSerializer(
        many=True,
        help_text=f"Their latest rated games, newest first (at most {PROFILE_RATED_GAMES_MAX}), "
        "with the rating changes.",
    )


class PlayerProfileApi(APIView):
    read_scopes = scopes.PROFILES_READ

    @extend_schema(
        operation_id="players_profile",
        tags=["players"],
        summary="A player's profile: record, finished games, ratings",
        description="Won / lost / conceded counts over the finished games played on this "
        "service (imported games do not count and are not listed), the latest of them with "
        "their replay links, whether you blocked or favour this player, their rating in every "
        "format (with the leaderboard rank) and their latest rated games with the rating changes.",
        parameters=[PLAYER_ID],
        responses={200: PlayerProfileSerializer, **problem_responses(AUTH, "player_not_found")},
    )
    def get(self, request: Request, player_id: int) -> Response:
        body = player_profile_get(player_id=player_id, viewer=player_of(request))
        return Response(PlayerProfileSerializer(body).data)
