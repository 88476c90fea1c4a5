"""The game socket in the OpenAPI document: its messages as typed components
(``LiveServerMessage``, ``LiveClientMessage``, each a ``oneOf`` discriminated by ``type``) and
the path itself, which answers a plain HTTP request with 426 ``upgrade_required``."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, PolymorphicProxySerializer, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import scopes
from core.problems import GameProblemSerializer, problem_responses
from games import errors
from games.api.event_schemas import DiscriminatedUnion, EnumRefField, GameEventField, camel
from games.api.serializers import (
    ActionCreateSerializer,
    ActionMinimalResultSerializer,
    ActionResultSerializer,
)
from games.api.table import TableEventSerializer
from games.api.views import GAME_ID

Base = serializers.Serializer


_RESUMED = "True when it resumes after the cursor you gave."
_REQUEST_ID = "Your id for the message, echoed in the answer."
_TABLE_VERSION = "The game version when it happened."
_TABLE_SEQ = "Its number among the table events (apart from moves)."
_TABLE_EVENT = "The table event, as in `GET .../table/events/`."
_TO_ACT = (
    "The seat to act after it, so that a client need not fetch the game to know whose turn it "
    "is: given on the game's latest event when it was sent, and on an earlier one followed by "
    "an action (whose seat it is); null otherwise (nobody is to act, or it is not known "
    "there: a later event says it). Your own legal actions come with your action's answer "
    "and `GET /games/{id}/`, never here (these events are shared by every client of a seat "
    "or of the spectators)."
)


def _type(name: str) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=[name], help_text=f"`{name}`")


class SyncMessageSerializer(Base):
    """First message once authenticated: the game's version now (a spectator of a
    delayed game: the version it may see) and where the socket resumes."""

    type = _type("sync")
    version = serializers.IntegerField(help_text="The game's version now.")
    cursor = serializers.CharField(help_text="`<move seq>-<table seq>` the socket resumes after.")
    resumed = serializers.BooleanField(help_text=_RESUMED)


class GameEventMessageSerializer(Base):
    """A move-log entry, redacted for you (as in `GET .../events/`)."""

    type = _type("game_event")
    id = serializers.CharField(help_text="The cursor after it: resume from here.")
    version = serializers.IntegerField(help_text="The game version after it (= `event.seq`).")
    to_act = serializers.IntegerField(allow_null=True, help_text=_TO_ACT)
    event = GameEventField(help_text="The event, as in `GET .../events/`.")


class TableEventMessageSerializer(Base):
    """Chat, a concession, rematch news, a settings change (muted seats' chat left out)."""

    type = _type("table_event")
    id = serializers.CharField(help_text="The cursor after it: resume from here.")
    version = serializers.IntegerField(help_text=_TABLE_VERSION)
    table_seq = serializers.IntegerField(help_text=_TABLE_SEQ)
    event = TableEventSerializer(help_text=_TABLE_EVENT)


class EndMessageSerializer(Base):
    """The game is over and everything was sent; the server closes the socket (1000)."""

    type = _type("end")
    version = serializers.IntegerField(help_text="The game's last version.")
    cursor = serializers.CharField(help_text="The cursor after everything sent.")


class HeartbeatMessageSerializer(Base):
    """Sent every 15 s while nothing else was."""

    type = _type("heartbeat")
    at = serializers.DateTimeField(help_text="Server time.")


def _outcome(name: str) -> EnumRefField:
    return EnumRefField(f"{camel(name)}OutcomeEnum", [name], help_text=f"`{name}`")


class LiveActionAppliedSerializer(ActionResultSerializer):
    """Applied (201): the full answer of `POST .../actions/`."""

    outcome = _outcome("applied")


class LiveActionMinimalSerializer(ActionMinimalResultSerializer):
    """Applied (201), asked with `"return": "minimal"`: the answer of `POST .../actions/` with
    `Prefer: return=minimal`."""

    outcome = _outcome("minimal")


class LiveActionProblemSerializer(GameProblemSerializer):  # type: ignore[misc, valid-type]
    """Refused: the problem document `POST .../actions/` would have answered."""

    outcome = _outcome("problem")


LIVE_ACTION_ANSWER = DiscriminatedUnion(
    description="The answer's body, by `outcome`: `applied` (the full answer), `minimal` (the "
    'answer to `"return": "minimal"`), `problem` (refused: a problem document).',
    component_name="LiveActionAnswer",
    serializers={
        "applied": LiveActionAppliedSerializer,
        "minimal": LiveActionMinimalSerializer,
        "problem": LiveActionProblemSerializer,
    },
    resource_type_field_name="outcome",
    help_text="The action's result (`outcome` `applied` or `minimal`, status 201) or the "
    "problem document (`outcome` `problem`).",
)


class ActionResultMessageSerializer(Base):
    """The answer to an `action`: what `POST .../actions/` would have answered."""

    type = _type("action_result")
    request_id = serializers.CharField(allow_null=True, help_text="Your `request_id`, echoed.")
    status = serializers.IntegerField(help_text="201, or the problem's HTTP status.")
    replayed = serializers.BooleanField(
        help_text="The first answer to this `idempotency_key`, sent again (nothing applied)."
    )
    body = LIVE_ACTION_ANSWER


class PongMessageSerializer(Base):
    type = _type("pong")
    request_id = serializers.CharField(allow_null=True, help_text="Your `request_id`, echoed.")


class ErrorMessageSerializer(Base):
    """A message the server could not read; nothing was changed."""

    type = _type("error")
    problem = GameProblemSerializer(help_text="Why (`code`: e.g. `invalid_request`).")


class AuthMessageSerializer(Base):
    """First message of a socket without header or cookie credentials (browsers)."""

    type = _type("auth")
    token = serializers.CharField(max_length=200, help_text="Your API token.")


class ActionMessageSerializer(ActionCreateSerializer):
    """Play an action, with the rules of `POST .../actions/`."""

    type = _type("action")
    request_id = serializers.CharField(required=False, max_length=100, help_text=_REQUEST_ID)
    idempotency_key = serializers.CharField(
        required=False,
        max_length=255,
        help_text="As the `Idempotency-Key` header: the same key and body answer the first "
        "result again.",
    )


# ``return`` is a Python keyword: the field is declared by name.
ActionMessageSerializer._declared_fields["return"] = serializers.ChoiceField(
    choices=["full", "minimal"],
    required=False,
    help_text="`minimal`: answer as `Prefer: return=minimal` does (the version, the seat to "
    "act, your legal actions and the events applied, without the game); `full` (the "
    "default): the whole game.",
)


class PingMessageSerializer(Base):
    type = _type("ping")
    request_id = serializers.CharField(required=False, max_length=100, help_text=_REQUEST_ID)


SERVER_MESSAGES = PolymorphicProxySerializer(
    component_name="LiveServerMessage",
    serializers={
        "sync": SyncMessageSerializer,
        "game_event": GameEventMessageSerializer,
        "table_event": TableEventMessageSerializer,
        "end": EndMessageSerializer,
        "heartbeat": HeartbeatMessageSerializer,
        "action_result": ActionResultMessageSerializer,
        "pong": PongMessageSerializer,
        "error": ErrorMessageSerializer,
    },
    resource_type_field_name="type",
)
CLIENT_MESSAGES = PolymorphicProxySerializer(
    component_name="LiveClientMessage",
    serializers={
        "auth": AuthMessageSerializer,
        "action": ActionMessageSerializer,
        "ping": PingMessageSerializer,
    },
    resource_type_field_name="type",
)


# ============================================================================== the stream
# The frames of `GET .../stream/` (Server-Sent Events): `event:` names the frame, `data:` holds
# the socket message of that type without `type` and `id` (JSON), `id:` the cursor.
def _frame(name: str) -> EnumRefField:
    return EnumRefField(f"{camel(name)}FrameEventEnum", [name], help_text=f"`{name}`")


_DATA = "The frame's `data:` line (one JSON object)."
_ID = "The frame's `id:` line: the cursor after it (`<move seq>-<table seq>`); resume from here."


class SyncFrameDataSerializer(Base):
    version = serializers.IntegerField(help_text="The game's version now.")
    cursor = serializers.CharField(help_text="`<move seq>-<table seq>` the stream resumes after.")
    resumed = serializers.BooleanField(help_text=_RESUMED)


class SyncFrameSerializer(Base):
    """First, without `id`: the game's version now (a spectator of a delayed game: the
    version it may see) and where the stream resumes."""

    event = _frame("sync")
    data = SyncFrameDataSerializer(help_text=_DATA)  # type: ignore[assignment]


class GameEventFrameDataSerializer(Base):
    version = serializers.IntegerField(help_text="The game version after it (= `event.seq`).")
    to_act = serializers.IntegerField(allow_null=True, help_text=_TO_ACT)
    event = GameEventField(help_text="The event, as in `GET .../events/`.")


class GameEventFrameSerializer(Base):
    """A move-log entry, redacted for you (as in `GET .../events/`)."""

    id = serializers.CharField(help_text=_ID)
    event = _frame("game_event")
    data = GameEventFrameDataSerializer(help_text=_DATA)  # type: ignore[assignment]


class TableEventFrameDataSerializer(Base):
    version = serializers.IntegerField(help_text=_TABLE_VERSION)
    table_seq = serializers.IntegerField(help_text=_TABLE_SEQ)
    event = TableEventSerializer(help_text=_TABLE_EVENT)


class TableEventFrameSerializer(Base):
    """Chat, a concession, rematch news, a settings change (muted seats' chat left out)."""

    id = serializers.CharField(help_text=_ID)
    event = _frame("table_event")
    data = TableEventFrameDataSerializer(help_text=_DATA)  # type: ignore[assignment]


class EndFrameDataSerializer(Base):
    version = serializers.IntegerField(help_text="The game's last version.")
    cursor = serializers.CharField(help_text="The cursor after everything sent.")


class EndFrameSerializer(Base):
    """The game is over and everything was sent; the server closes the stream."""

    event = _frame("end")
    data = EndFrameDataSerializer(help_text=_DATA)  # type: ignore[assignment]


STREAM_FRAMES = DiscriminatedUnion(
    description="One frame of the event stream, by its `event:` line; `data:` is the socket's "
    "message of that type without `type` and `id`. The stream opens with a `retry:` line and "
    "has comment lines (`: keep-alive`) while idle; neither is a frame.",
    component_name="LiveStreamFrame",
    serializers={
        "sync": SyncFrameSerializer,
        "game_event": GameEventFrameSerializer,
        "table_event": TableEventFrameSerializer,
        "end": EndFrameSerializer,
    },
    resource_type_field_name="event",
)
STREAM_PATH = "/api/v1/games/{game_id}/stream/"
STREAM_MEDIA_TYPE = "text/event-stream"
# What games/api/live.py declares for the stream's body (its frames as untyped text).
UNTYPED_FRAME = "EventStreamFrame"

SOCKET_TEXT = (
    "The game's WebSocket (`wss://…/api/v1/games/{id}/socket/?cursor=<move seq>-<table seq>`): "
    "the events of the stream pushed as JSON messages (`LiveServerMessage`, one `oneOf` on "
    "`type`), and your actions sent back on it (`LiveClientMessageRequest`) with the version and "
    "idempotency rules of `POST .../actions/`. Authenticate with the `Authorization` header, "
    "the session cookie, or a first `auth` message. Close codes: 4400 bad cursor, 4401 not "
    "authenticated, 4404 no such game; 1000 after `end`. A plain HTTP request (no upgrade) is "
    "answered 426 `upgrade_required`. The whole protocol: docs/live.md."
)


class GameSocketApi(APIView):
    """The socket's path over plain HTTP: 426, and the socket's documentation."""

    read_scopes = scopes.GAME_PLAY

    @extend_schema(
        operation_id="games_socket",
        tags=["live"],
        summary="Live WebSocket: the game's events pushed, actions sent back",
        description=SOCKET_TEXT,
        parameters=[GAME_ID],
        responses={
            101: OpenApiResponse(
                SERVER_MESSAGES,
                description="Switching protocols; then messages `LiveServerMessage` from the "
                "server, `LiveClientMessageRequest` from you.",
            ),
            **problem_responses("upgrade_required"),
        },
    )
    def get(self, request: Request, game_id: int) -> Response:
        raise errors.UpgradeRequired()


def client_messages_hook(result: Any, generator: Any, request: Any, public: Any) -> Any:
    """drf-spectacular post-processing: add ``LiveClientMessage`` (and the messages it names)
    to the components. No operation takes it as a body (a socket is not a request), so the
    generator would leave it out; the socket's operation points to it."""
    from drf_spectacular.openapi import AutoSchema

    auto = AutoSchema()
    auto.registry = generator.registry
    auto.method = "POST"
    auto.path = "/api/v1/games/{game_id}/socket/"
    auto.view = GameSocketApi()
    auto.view.request = request
    auto.resolve_serializer(CLIENT_MESSAGES, "request")
    frames = _stream_content(result)
    if frames is not None:
        auto.method, auto.path = "GET", STREAM_PATH
        frames["schema"] = auto.resolve_serializer(STREAM_FRAMES, "response").ref
    built = generator.registry.build({})
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in built.get("schemas", {}).items():
        schemas.setdefault(name, schema)
    others = [result.get("paths"), *(v for k, v in schemas.items() if k != UNTYPED_FRAME)]
    if frames is not None and not _refers_to(others, UNTYPED_FRAME):
        schemas.pop(UNTYPED_FRAME, None)  # nothing refers to it any more
    result["components"]["schemas"] = dict(sorted(schemas.items()))
    operation = result["paths"]["/api/v1/games/{game_id}/socket/"]["get"]
    operation["x-client-messages"] = {"$ref": "#/components/schemas/LiveClientMessageRequest"}
    return result


def _stream_content(result: Any) -> dict[str, Any] | None:
    """The stream's 200 `text/event-stream` content when its schema is the untyped frame
    (then it becomes ``LiveStreamFrame``: each frame's `data` typed by its `event`)."""
    operation = result.get("paths", {}).get(STREAM_PATH, {}).get("get", {})
    content = operation.get("responses", {}).get("200", {}).get("content", {})
    frames = content.get(STREAM_MEDIA_TYPE)
    untyped = {"$ref": f"#/components/schemas/{UNTYPED_FRAME}"}
    return frames if isinstance(frames, dict) and frames.get("schema") == untyped else None


def _refers_to(node: Any, name: str) -> bool:
    if isinstance(node, dict):
        if node.get("$ref") == f"#/components/schemas/{name}":
            return True
        return any(_refers_to(v, name) for v in node.values())
    if isinstance(node, list):
        return any(_refers_to(v, name) for v in node)
    return False
