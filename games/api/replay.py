"""Replay, export, import and fairness endpoints: thin views and their serializers.

The views parse and authorise; ``games.selectors.replay`` rebuilds states from the move log and
decides what the requester may see (their seat's view while the game runs, every hand once it is
over).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from core.problems import AUTH, BODY, problem_responses
from games.api.event_schemas import (
    EVENT_TYPES,
    ReplayEventField,
    event_type_field,
    source_field,
)
from games.api.serializers import (
    GameDetailSerializer,
    GameOptionOverridesSerializer,
    GameOptionsSerializer,
    TableViewSerializer,
)
from games.api.views import GAME_ID, player_of
from games.engine import PRESETS
from games.models import BotLevel, EventSource, Game, GameStatus
from games.selectors.games import game_detail_get, game_get_visible
from games.selectors.replay import (
    EXPORT_FORMAT,
    EXPORT_FORMAT_VERSION,
    game_export,
    game_fairness_get,
    game_replay_get,
    game_replay_steps,
)
from games.services.imports import game_import

Base = serializers.Serializer[Any]
_EVENT_TYPE_TEXT = "The event's type: " + ", ".join(f"`{t}`" for t in EVENT_TYPES) + "."


# ============================================================================== serializers
@extend_schema_field(OpenApiTypes.OBJECT)
class ReplayObjectField(serializers.JSONField):
    """A JSON object whose members depend on its kind (see the field's description)."""


# ``at``: an event number, or ``last`` (the default: the last event you may see).
REPLAY_AT_LAST = "last"
REPLAY_AT_SCHEMA = {
    "oneOf": [
        {"type": "integer", "minimum": 1},
        {"type": "string", "enum": [REPLAY_AT_LAST]},
    ]
}


class ReplayAtField(serializers.IntegerField):
    """An event number (1 or more), or ``last``: None, the last event."""

    def run_validation(self, data: Any = serializers.empty) -> int | None:
        if data == REPLAY_AT_LAST:
            return None
        value: int | None = super().run_validation(data)
        return value


class ReplayParamsSerializer(Base):
    """Query parameters of the replay (validation only)."""

    at = ReplayAtField(required=False, min_value=1)


# Each event type is a component of its own (`ReplayEvent`, a `oneOf` on `type`):
# games/api/event_schemas.py. Once the game is finished its effects show every private part.
ReplayEventSerializer = ReplayEventField  # the selector's dict passes through


class ReplayStateSerializer(Base):
    game = serializers.IntegerField(help_text="The game's id.")
    at = serializers.IntegerField(help_text="The event after which the table is shown.")
    version = serializers.IntegerField(help_text="The game's last event now.")
    status = serializers.ChoiceField(choices=GameStatus.choices, help_text="The game's status now.")
    viewer = serializers.IntegerField(allow_null=True, help_text="Your seat; null: spectator.")
    full_information = serializers.BooleanField(
        help_text="True once the game is finished: every hand at every step is shown."
    )
    event = ReplayEventSerializer(help_text="Event `at` itself.")
    state = TableViewSerializer(
        help_text="The table after event `at` as your seat saw it then (no legal actions)."
    )
    hands = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField()),
        allow_null=True,
        help_text="Every seat's hand after event `at`; null while the game is running.",
    )


class ReplayStepSerializer(Base):
    seq = serializers.IntegerField(help_text="The event's number: ask the replay with `at=seq`.")
    seat = serializers.IntegerField(
        allow_null=True, help_text="The acting seat; null: the table (a deal, the timer)."
    )
    type = event_type_field(help_text="The event's type.")
    source = source_field()  # type: ignore[assignment]
    text = serializers.CharField(help_text="What happened, in words, as you saw it.")


class ReplayStepListSerializer(Base):
    game = serializers.IntegerField(help_text="The game's id.")
    version = serializers.IntegerField(help_text="The last event you may see.")
    status = serializers.ChoiceField(choices=GameStatus.choices, help_text="The game's status.")
    viewer = serializers.IntegerField(allow_null=True, help_text="Your seat; null: spectator.")
    full_information = serializers.BooleanField(
        help_text="True once the game is finished: every step is told in full."
    )
    steps = ReplayStepSerializer(many=True, help_text="Every event, oldest first.")


# Bounds of an export document's members, as the import enforces them (the columns a game is
# stored in: games.models).
NAME_MAX_LENGTH = 32  # the format, a preset, an event type
RULES_VERSION_MAX_LENGTH = 16
SEED_MAX_LENGTH = 64
SHA256_HEX_LENGTH = 64
DISPLAY_NAME_MAX_LENGTH = 40
SEATS_MAX = 4
EVENTS_MAX = 20000
EFFECTS_MAX = 32  # an event causes a dozen at most (a draw, red threes, a round's end, a deal)


class ExportSeatSerializer(Base):
    index = serializers.IntegerField(help_text="The seat number, 0 to 3.")
    team = serializers.IntegerField(help_text="The seat's team.")
    kind = serializers.ChoiceField(
        choices=["player", "bot", "empty"],
        help_text="Who sat there: a player, a bot or nobody (an import gives every seat to a "
        "bot except the importer's `seat`).",
    )
    display_name = serializers.CharField(
        allow_null=True,
        required=False,
        max_length=DISPLAY_NAME_MAX_LENGTH,
        help_text="The player's name; null for a bot or an empty seat.",
    )
    bot_level = serializers.ChoiceField(
        choices=BotLevel.choices,
        allow_null=True,
        required=False,
        help_text="The bot's level; null for a player. On import, the level of that seat's bot "
        "(default: easy).",
    )
    bot_account = serializers.BooleanField(
        required=False,
        help_text="The player was a bot account (an outside program playing through the API). "
        "Ignored on import.",
    )


class ExportEventSerializer(Base):
    seq = serializers.IntegerField(required=False, help_text="1, 2, ... (counted if left out).")
    seat = serializers.IntegerField(allow_null=True, help_text="The acting seat.")
    type = serializers.CharField(
        required=False,
        max_length=NAME_MAX_LENGTH,
        help_text=_EVENT_TYPE_TEXT + " Default: the payload's `type`.",
    )
    source = serializers.ChoiceField(  # type: ignore[assignment]
        choices=EventSource.choices,
        required=False,
        help_text="Who made the move: a player, a bot, the turn timer or the system.",
    )
    payload = ReplayObjectField(help_text="The action (see Action); for `game_started`: the start.")
    effects = serializers.ListField(
        child=ReplayObjectField(),
        required=False,
        max_length=EFFECTS_MAX,
        help_text="Stored form `{kind, seat, public, private}`, `private` by seat number. On "
        "import, when present, they must equal what the engine produces (private parts left "
        "out are not compared).",
    )


class ExportFinalSerializer(Base):
    version = serializers.IntegerField(
        help_text="The last event of the document; on import, the number of its events."
    )
    status = serializers.ChoiceField(
        choices=GameStatus.choices, help_text="The game's status when it was exported."
    )
    scores = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        max_length=SEATS_MAX,
        help_text="Each team's cumulative score, by team; null before the deal.",
    )
    winner_team = serializers.IntegerField(
        allow_null=True, help_text="The winning team; null unless the game was won."
    )
    rounds = serializers.IntegerField(help_text="Rounds finished.")
    state_sha256 = serializers.CharField(
        allow_null=True,
        max_length=SHA256_HEX_LENGTH,
        help_text="SHA-256 of the final engine state (finished games); checked on import.",
    )


class GameExportSerializer(Base):
    """One game as a JSON document: configuration, rules version, seats, every event, and the
    seed once the game is finished. A finished game's document can be imported."""

    format = serializers.ChoiceField(
        choices=[EXPORT_FORMAT], help_text=f"Always `{EXPORT_FORMAT}`."
    )
    format_version = serializers.ChoiceField(
        choices=[EXPORT_FORMAT_VERSION],
        help_text=f"The document format's version: {EXPORT_FORMAT_VERSION}.",
    )
    exported_at = serializers.DateTimeField(
        required=False, help_text="When it was exported (an import keeps it as provenance)."
    )
    source_game = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="The exported game's id on its service (an import keeps it as provenance).",
    )
    preset = serializers.ChoiceField(
        choices=list(PRESETS), help_text="The preset the options start from."
    )
    options = GameOptionsSerializer(help_text="The complete rule options.")
    rules_version = serializers.CharField(
        max_length=RULES_VERSION_MAX_LENGTH, help_text="The rules the game was played under."
    )
    status = serializers.ChoiceField(
        choices=GameStatus.choices,
        required=False,
        help_text="The game's status when exported (ignored on import).",
    )
    version = serializers.IntegerField(
        required=False, help_text="The last event included (ignored on import)."
    )
    seed_commitment = serializers.CharField(
        required=False,
        max_length=SHA256_HEX_LENGTH,
        help_text="SHA-256 of the seed; on import, when present, it must match the seed.",
    )
    seed = serializers.CharField(
        allow_null=True,
        max_length=SEED_MAX_LENGTH,
        help_text="The game's seed: only once the game is finished.",
    )
    viewer = serializers.IntegerField(
        allow_null=True, required=False, help_text="The exporting seat (its private parts)."
    )
    redacted = serializers.BooleanField(
        required=False, help_text="True while the game runs: others' private parts are removed."
    )
    seats = serializers.ListField(
        child=ExportSeatSerializer(), max_length=SEATS_MAX, help_text="Every seat, in order."
    )
    events = serializers.ListField(
        child=ExportEventSerializer(),
        max_length=EVENTS_MAX,
        help_text="The move log, oldest first.",
    )
    final = ExportFinalSerializer(
        required=False, help_text="Where the log leaves the game; checked on import."
    )


class GameImportDocumentSerializer(GameExportSerializer):
    """An export document as the import reads it: a finished game's export, or one written by
    hand with a seed (a teaching position). The members an export adds for information are
    optional."""

    preset = serializers.ChoiceField(
        choices=list(PRESETS),
        required=False,
        help_text="The preset the options start from (default: `classic`).",
    )
    options = GameOptionOverridesSerializer(
        required=False,
        help_text="The preset's options to change; an export's complete options do too.",
    )
    seed = serializers.CharField(
        min_length=1,
        max_length=SEED_MAX_LENGTH,
        help_text="The game's seed: the deals are made from it (missing: 422 "
        "`import_seed_missing`).",
    )
    seats = serializers.ListField(
        child=ExportSeatSerializer(),
        required=False,
        max_length=SEATS_MAX,
        help_text="The seats, for their bots' levels (default: every bot easy).",
    )


class _BoundedObjectField(serializers.DictField):
    """A JSON object whose named members, when they are strings or lists, are at most so long;
    their types and values are the service's to judge."""

    def __init__(self, bounds: dict[str, int], **kwargs: Any) -> None:
        self.bounds = bounds
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        value: dict[str, Any] = super().to_internal_value(data)
        refused = {
            name: [
                f"Ensure this field has no more than {bound} "
                f"{'characters' if isinstance(value[name], str) else 'elements'}."
            ]
            for name, bound in self.bounds.items()
            if isinstance(value.get(name), str | list) and len(value[name]) > bound
        }
        if refused:
            raise serializers.ValidationError(refused)
        return value


class _DocumentShapeSerializer(Base):
    """The types and bounds of an import document's members (validation only; the service
    judges the values: format, rules version, seed, options, every event)."""

    format = serializers.CharField(max_length=NAME_MAX_LENGTH)
    format_version = serializers.IntegerField()
    preset = serializers.CharField(required=False, max_length=NAME_MAX_LENGTH)
    options = serializers.DictField(required=False)
    rules_version = serializers.CharField(max_length=RULES_VERSION_MAX_LENGTH)
    seed = serializers.CharField(required=False, allow_null=True, max_length=SEED_MAX_LENGTH)
    seed_commitment = serializers.CharField(
        required=False, allow_null=True, max_length=SHA256_HEX_LENGTH
    )
    seats = serializers.ListField(
        child=_BoundedObjectField({"display_name": DISPLAY_NAME_MAX_LENGTH}),
        required=False,
        max_length=SEATS_MAX,
    )
    events = serializers.ListField(
        child=_BoundedObjectField({"type": NAME_MAX_LENGTH, "effects": EFFECTS_MAX}),
        max_length=EVENTS_MAX,
    )
    final = _BoundedObjectField(
        {"scores": SEATS_MAX, "state_sha256": SHA256_HEX_LENGTH}, required=False, allow_null=True
    )
    # Kept as the new game's provenance.
    exported_at = serializers.DateTimeField(required=False, allow_null=True)
    source_game = serializers.IntegerField(required=False, allow_null=True)


@extend_schema_field(GameImportDocumentSerializer)
class ImportDocumentField(serializers.JSONField):
    """An export document, used as sent once its members' types are checked."""


class GameImportSerializer(Base):
    document = ImportDocumentField(
        help_text="A document from the export endpoint, or written for teaching with a seed."
    )
    seat = serializers.IntegerField(
        required=False,
        min_value=0,
        max_value=3,
        help_text="Sit at this seat of the new game (default: none; every seat is a bot).",
    )
    is_public = serializers.BooleanField(
        default=False, help_text="List the new game in the lobby (default: private)."
    )

    def validate_document(self, value: Any) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise serializers.ValidationError("must be an export document (a JSON object)")
        shape = _DocumentShapeSerializer(data=value)
        shape.is_valid(raise_exception=True)
        return value


class ImportResultSerializer(Base):
    game = GameDetailSerializer(help_text="The new game, as you see it.")
    events = serializers.IntegerField(help_text="Events replayed into the new game.")
    final_state_sha256 = serializers.CharField(help_text="SHA-256 of the replayed final state.")


class FairnessRoundSerializer(Base):
    round = serializers.IntegerField(help_text="The round, from 1.")
    dealer = serializers.IntegerField(help_text="The seat that dealt it.")
    upcards = serializers.ListField(
        child=serializers.CharField(help_text="A card: rank + suit (`QH`, `10S`) or `JK`."),
        help_text="The cards turned up to start the pile (more than one when wild cards or "
        "red threes came first).",
    )
    seed_commitment = serializers.CharField(
        help_text="SHA-256 of the round's seed, published when the round was dealt."
    )
    round_seed = serializers.CharField(
        allow_null=True, help_text="The round's seed (revealed at the end)."
    )
    ok = serializers.BooleanField(
        allow_null=True, help_text="The seed reproduces this deal (null until the end)."
    )
    problem = serializers.CharField(
        allow_null=True, help_text="What the seed does not reproduce; null when all is well."
    )


class FairnessSerializer(Base):
    """Provably fair dealing. Round n is shuffled by ``random.Random(round_seed).shuffle`` of
    the 108-card deck, where ``round_seed = sha256("canasta:{seed}:{n}")`` (hex); its hash was
    published at the deal. After the end, anyone can recompute every deal from ``seed``."""

    game = serializers.IntegerField(help_text="The game's id.")
    status = serializers.ChoiceField(choices=GameStatus.choices, help_text="The game's status now.")
    revealed = serializers.BooleanField(help_text="The game is finished and its seed revealed.")
    seed_commitment = serializers.CharField(help_text="SHA-256 of the game's seed.")
    seed = serializers.CharField(
        allow_null=True, help_text="The game's seed once it is finished; else null."
    )
    rounds = FairnessRoundSerializer(many=True, help_text="Every round dealt, in order.")
    verified = serializers.BooleanField(
        allow_null=True, help_text="Every deal checked against the seed (null until the end)."
    )
    problems = serializers.ListField(
        child=serializers.CharField(help_text="One round's problem."),
        help_text="What the check found wrong; empty when all is well.",
    )


# ============================================================================== problems
# The codes the replay operations may answer (documented by ``problem_responses``).
SEEN = (AUTH, "not_found")
REPLAY_PROBLEMS = (
    "replay_step_out_of_range",
    "invalid_request",
    SEEN,
    "game_not_active",
    "rules_version_unsupported",
)
EXPORT_PROBLEMS = (SEEN, "game_not_active", "rules_version_unsupported")
IMPORT_PROBLEMS = (
    "import_format_unsupported",
    BODY,
    "import_log_invalid",
    "invalid_option",
    "invalid_seat",
    AUTH,
    "import_event_rejected",
    "rules_version_unsupported",
    "import_seed_missing",
    "import_seed_mismatch",
    "import_event_mismatch",
    "import_final_state_mismatch",
    "bot_tables_limit",
    "throttled",
    "imports_busy",
)


# ============================================================================== examples
_TABLE = {
    "round": 1,
    "dealer": 3,
    "turn": 1,
    "to_act": 1,
    "phase": "draw",
    "stock_count": 58,
    "pile": {"size": 2, "top": "7H", "frozen": False, "blocked": False, "frozen_for_viewer": False},
    "hand_counts": [11, 11, 11, 11],
    "teams": [],
    "permission": "none",
    "must_end_without_discard": False,
    "winner_team": None,
    "viewer": 0,
    "hand": ["4C", "4D", "6S", "7S", "9D", "10H", "JC", "QH", "QS", "KD", "2C"],
    "legal_actions": [],
}
REPLAY_EXAMPLE = OpenApiExample(
    "Seat 0 during the game, after event 3",
    value={
        "game": 42,
        "at": 3,
        "version": 57,
        "status": "active",
        "viewer": 0,
        "full_information": False,
        "event": {
            "seq": 3,
            "seat": 0,
            "type": "discard",
            "source": "player",
            "payload": {"type": "discard", "card": "7H"},
            "effects": [{"kind": "card_discarded", "seat": 0, "card": "7H"}],
        },
        "state": _TABLE,
        "hands": None,
    },
    response_only=True,
)
STEPS_EXAMPLE = OpenApiExample(
    "A timeline",
    value={
        "game": 42,
        "version": 3,
        "status": "active",
        "viewer": 0,
        "full_information": False,
        "steps": [
            {
                "seq": 1,
                "seat": None,
                "type": "game_started",
                "source": "system",
                "text": "round 1 dealt by seat 3; upcards 7D; seat 0 starts; your hand 4C ...",
            },
            {
                "seq": 2,
                "seat": 0,
                "type": "draw",
                "source": "player",
                "text": "seat 0 drew 1 card(s) (7H)",
            },
            {
                "seq": 3,
                "seat": 0,
                "type": "discard",
                "source": "player",
                "text": "seat 0 discarded 7H",
            },
        ],
    },
    response_only=True,
)
_DOCUMENT = {
    "format": "canasta-game",
    "format_version": 1,
    "preset": "two_player",
    "options": {"players": 2, "draw_count": 2, "target_score": 2500},
    "rules_version": "1",
    "seed": "a teaching seed",
    "seats": [{"index": 0, "team": 0, "kind": "player"}, {"index": 1, "team": 1, "kind": "bot"}],
    "events": [
        {"seat": 0, "payload": {"type": "draw"}},
        {"seat": 0, "payload": {"type": "discard", "card": "7H"}},
    ],
}
IMPORT_EXAMPLE = OpenApiExample(
    "A hand-written teaching position",
    value={"document": _DOCUMENT, "seat": 0, "is_public": False},
    request_only=True,
)


# ============================================================================== views
def _game(request: Request, game_id: int) -> tuple[Game, Any]:
    player = player_of(request)
    return game_get_visible(game_id=game_id, player=player), player


class GameReplayApi(APIView):
    read_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_replay_retrieve",
        tags=["replay"],
        summary="The table after event N, rebuilt from the move log",
        description="Replays the log up to event `at` (default: the last) through the rules "
        "engine. While the game is running you see it as your seat saw it then (spectators "
        "see no hand; never more than you saw at the time). Once the game is finished anyone "
        "may see every hand at every step (`hands`, and every private part of the event).",
        parameters=[
            GAME_ID,
            OpenApiParameter(
                "at",
                REPLAY_AT_SCHEMA,
                description="Event number, 1 to the game's version, or `last` (the default).",
            ),
        ],
        responses={200: ReplayStateSerializer, **problem_responses(REPLAY_PROBLEMS)},
        examples=[REPLAY_EXAMPLE],
    )
    def get(self, request: Request, game_id: int) -> Response:
        params = ReplayParamsSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        game, player = _game(request, game_id)
        body = game_replay_get(game=game, player=player, at=params.validated_data.get("at"))
        return Response(ReplayStateSerializer(body).data)


class GameReplayStepsApi(APIView):
    read_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_replay_steps",
        tags=["replay"],
        summary="Every step of the game in one line each (a timeline)",
        description="Seq, acting seat, type and a short text of what happened, as you saw it "
        "(everything once the game is finished). Ask the replay with `at=seq` for the table.",
        parameters=[GAME_ID],
        responses={200: ReplayStepListSerializer, **problem_responses(SEEN)},
        examples=[STEPS_EXAMPLE],
    )
    def get(self, request: Request, game_id: int) -> Response:
        game, player = _game(request, game_id)
        body = game_replay_steps(game=game, player=player)
        return Response(ReplayStepListSerializer(body).data)


class GameExportApi(APIView):
    read_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_export",
        tags=["replay"],
        summary="The whole game as one JSON document",
        description="Format `canasta-game` version 1: preset, complete options, rules version, "
        "seats, every event (the action and its effects). While the game runs the document is "
        "redacted for you (others' private parts removed, no seed) and cannot be imported; once "
        "it is finished it holds the seed and everything, and imports to the same game.",
        parameters=[GAME_ID],
        responses={200: GameExportSerializer, **problem_responses(EXPORT_PROBLEMS)},
    )
    def get(self, request: Request, game_id: int) -> Response:
        game, player = _game(request, game_id)
        return Response(game_export(game=game, player=player))


class GameImportApi(APIView):
    # A bot account imports too (a casual table).
    read_scopes = scopes.GAME_PLAY
    write_scopes = scopes.GAME_PLAY
    throttle_scope = "import"

    @extend_schema(
        operation_id="games_import",
        tags=["replay"],
        summary="Create a game from an export document",
        description="Replays the document's events through the rules engine into a new game "
        '("load this position" for bug reports and teaching). The document needs its seed: '
        "a finished game's export, or one written with a seed. Refused with the first event "
        "that does not apply (`import_event_rejected`: its `seq` and the engine's code and "
        "message) or records other effects than the engine's (`import_event_mismatch`). The "
        "new game is finished if its log finishes it, else active where the log leaves it; "
        "you sit at `seat` if given, every other seat is a bot (the document's level, else "
        "easy), and bots play on when it is their turn. A game left unfinished counts towards "
        "your unfinished bot tables (409 `bot_tables_limit` past the cap). Imports are limited "
        "per player (429 `throttled`), and only a few replay at once in the service: one more "
        "is refused with 503 `imports_busy` and `Retry-After`, having imported nothing.",
        request=GameImportSerializer,
        responses={201: ImportResultSerializer, **problem_responses(IMPORT_PROBLEMS)},
        examples=[IMPORT_EXAMPLE],
    )
    def post(self, request: Request) -> Response:
        data = GameImportSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        player = player_of(request)
        v = data.validated_data
        result = game_import(
            creator=player, document=v["document"], seat=v.get("seat"), is_public=v["is_public"]
        )
        fresh = Game.objects.select_related("created_by").get(pk=result.game.pk)
        body = {
            "game": game_detail_get(game=fresh, player=player),
            "events": result.events,
            "final_state_sha256": result.final_state_sha256,
        }
        return Response(ImportResultSerializer(body).data, status=status.HTTP_201_CREATED)


class GameFairnessApi(APIView):
    read_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_fairness",
        tags=["replay"],
        summary="Provably fair dealing: commitments, and after the end the seed and the check",
        description="Each round's seed commitment (SHA-256 of the round's seed) as published "
        "when it was dealt. Once the game is finished: the game's seed, each round's seed and "
        "the check that they reproduce every dealt hand and upcard (`verified`). Checking it "
        "yourself: `python manage.py replay GAME_ID --fairness`, or recompute from the seed.",
        parameters=[GAME_ID],
        responses={200: FairnessSerializer, **problem_responses(EXPORT_PROBLEMS)},
    )
    def get(self, request: Request, game_id: int) -> Response:
        game, player = _game(request, game_id)
        body = game_fairness_get(game=game, player=player)
        return Response(FairnessSerializer(body).data)
