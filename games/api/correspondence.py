"""Correspondence play over HTTP: pausing a game by agreement (a vacation), resuming it, and
"my games", the list a player comes back to (their turn first, with each deadline).

Thin views: parse, authorise, call ``games.services.pause`` or a selector, render. Pausing
needs every seat with a player: one proposes (which counts as their acceptance), each other
accepts with the same request, or one declines. Every step is a fact of the move log, so the
live stream carries it; the game's detail shows the pause (``pause``) to every viewer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from accounts.models import Player
from core.problems import AUTH, problem_responses
from games.api.serializers import PauseViewSerializer
from games.api.views import GAME_ID, game_for_write, player_of
from games.models import BotLevel, Game, GameStatus
from games.selectors.games import game_get
from games.selectors.my_games import my_games_get
from games.selectors.pause import pause_view
from games.selectors.seating import seats_of
from games.services.pause import game_pause_decline, game_pause_propose, game_resume

PAUSE_TAGS = ["correspondence"]

Base = serializers.Serializer[Any]


# ============================================================================== pause
class PauseStatusSerializer(Base):
    game = serializers.IntegerField(help_text="The game's id.")
    version = serializers.IntegerField(
        help_text="The game's version now (each step of a pause is an event of its log)."
    )
    pause = PauseViewSerializer(help_text="Whether the game is paused, and a pending proposal.")


def _pause_status(game_id: int) -> Response:
    game = game_get(game_id)
    body = {"game": game.pk, "version": game.version, "pause": pause_view(game, seats_of(game))}
    return Response(PauseStatusSerializer(body).data)


def _pause_step(request: Request, game_id: int, service: Callable[..., Game]) -> Response:
    player: Player = player_of(request)
    game_for_write(game_id, player)  # visible (else 404), the timer's due work first
    service(game_id=game_id, player=player)
    return _pause_status(game_id)


# Every step: the requester must sit at a game being played.
_STEP = (AUTH, "not_seated", "not_found", "game_not_active", "throttled")


class PauseStepApi(APIView):
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.PERSON_PLAY
    # Each step is an event every seat and the turn timer act on: limited per player.
    throttle_scope = "proposals"


class GamePauseApi(PauseStepApi):
    @extend_schema(
        operation_id="games_pause",
        tags=PAUSE_TAGS,
        summary="Propose to pause the game, or accept the proposal",
        description="A seated player proposes to pause the game (a vacation); the same request "
        "by each other seat with a player accepts it (accepting twice changes nothing). With "
        "the last acceptance the game is paused (alone at a table with bots: at once): actions "
        "are refused with 409 `game_paused`, no deadline runs and no bot plays, and what was "
        "left of the turn is kept for the resume. Each step is an event of the move log "
        "(`pause_proposed`, `pause_accepted`, `game_paused`). 409 `game_paused` when it is "
        "paused already; 429 `proposal_cooldown` (with Retry-After) for a new proposal "
        "from a player whose last one was declined less than the cooldown ago.",
        parameters=[GAME_ID],
        request=None,
        responses={
            200: PauseStatusSerializer,
            **problem_responses(_STEP, "game_paused", "proposal_cooldown"),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        return _pause_step(request, game_id, game_pause_propose)


class GamePauseDeclineApi(PauseStepApi):
    @extend_schema(
        operation_id="games_pause_decline",
        tags=PAUSE_TAGS,
        summary="Decline the proposal to pause the game",
        description="Drops the pending proposal (a `pause_declined` event); the game goes on. "
        "409 `pause_proposal_missing` without a proposal.",
        parameters=[GAME_ID],
        request=None,
        responses={
            200: PauseStatusSerializer,
            **problem_responses(_STEP, "pause_proposal_missing"),
        },
    )
    def post(self, request: Request, game_id: int) -> Response:
        return _pause_step(request, game_id, game_pause_decline)


class GameResumeApi(PauseStepApi):
    @extend_schema(
        operation_id="games_resume",
        tags=PAUSE_TAGS,
        summary="Resume the paused game",
        description="Any seated player resumes it (a `game_resumed` event): the turn's deadline "
        "is now plus what was left of it when the game was paused, and play goes on. 409 "
        "`game_not_paused` when it is not paused.",
        parameters=[GAME_ID],
        request=None,
        responses={200: PauseStatusSerializer, **problem_responses(_STEP, "game_not_paused")},
    )
    def post(self, request: Request, game_id: int) -> Response:
        return _pause_step(request, game_id, game_resume)


# ============================================================================== my games
class MyGamePlayerSerializer(Base):
    seat = serializers.IntegerField(help_text="The seat.")
    player_id = serializers.IntegerField(
        allow_null=True, help_text="The player sitting there; null for a bot or an empty seat."
    )
    display_name = serializers.CharField(allow_null=True, help_text="Their name; null if none.")
    bot_level = serializers.ChoiceField(
        choices=BotLevel.choices, allow_null=True, help_text="A bot's level; null for a person."
    )
    bot_account = serializers.BooleanField(
        help_text="A bot account (a program playing through the API) sits there."
    )


class MyGameSerializer(Base):
    game_id = serializers.IntegerField(help_text="The game's id.")
    preset = serializers.CharField(help_text="The preset its options started from.")
    status = serializers.ChoiceField(
        choices=[GameStatus.LOBBY, GameStatus.ACTIVE],
        help_text="`lobby` (waiting for players) or `active` (being played).",
    )
    rated = serializers.BooleanField(help_text="Whether its result changes ratings.")
    seat = serializers.IntegerField(help_text="Your seat.")
    my_turn = serializers.BooleanField(
        help_text="Your seat is to act (in a game being played and not paused)."
    )
    to_act = serializers.IntegerField(allow_null=True, help_text="The seat to act; null if none.")
    turn_deadline = serializers.DateTimeField(
        allow_null=True, help_text="When the seat to act loses its turn; null: none running."
    )
    turn_seconds = serializers.IntegerField(
        allow_null=True, help_text="Seconds per turn; null: no turn timer."
    )
    paused = serializers.BooleanField(help_text="Paused by agreement (nobody may act).")
    players = MyGamePlayerSerializer(many=True, help_text="Every seat, in order.")
    version = serializers.IntegerField(help_text="The game's version (its last event).")
    updated_at = serializers.DateTimeField(help_text="When the game last changed.")


class MyGamesSerializer(Base):
    games = MyGameSerializer(
        many=True,
        help_text="Your turn first (the soonest deadline first), then the others by deadline "
        "(the soonest first, none last), the most recently changed first.",
    )
    server_time = serializers.DateTimeField(
        help_text="The server's time of this response (draw countdowns from it)."
    )


class MyGamesApi(APIView):
    read_scopes = scopes.OWN_PROFILE_READ

    @extend_schema(
        operation_id="players_me_games",
        tags=PAUSE_TAGS,
        summary="My games: where it is my turn, with each deadline",
        description="Every table in the lobby and every game being played where you have a "
        "seat: those where it is your turn first, each with its deadline, whether it is "
        "paused, and who sits where. Finished games are in the table list (`mine=true`).",
        responses={200: MyGamesSerializer, **problem_responses(AUTH)},
    )
    def get(self, request: Request) -> Response:
        player = player_of(request)
        body = {"games": my_games_get(player=player), "server_time": timezone.now()}
        return Response(MyGamesSerializer(body).data)
