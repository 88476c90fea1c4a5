"""THE error catalogue: every code the API can answer, declared once.

Each code is an ``ErrorSpec``: its HTTP status, a title (the same for every occurrence, as RFC
9457 asks), a default message, and the extension members its problem documents may carry
besides the standard ones (``current_version`` for ``stale_version``, ``errors`` for
``invalid_request``, ...; each member is declared once in ``MEMBERS``). The catalogue holds

- the framework's codes, answered by the central handler in ``core.exceptions`` (DRF's
  exceptions, Django's error views, the request limits of ``core.limits``);
- the service's codes, raised as the ``ServiceError`` subclasses below;
- the rules engine's codes, generated from ``games.engine.ERROR_CODES`` (400 ``invalid_action``
  and ``invalid_option``, 403 ``not_your_turn``, 422 every other refusal by the rules).

``ServiceError`` takes its code, status and title from the catalogue: a subclass names its
code (``class StaleVersion(ServiceError, code="stale_version")``) and a code that is not in the
catalogue is refused when the class is defined or the error is made, as is an extension member
the code does not declare. ``core.problems`` builds the OpenAPI problem responses
from the catalogue; ``markdown_table()`` (``python -m games.errors``) is README's error table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, ClassVar, Literal, TypeAlias

from games.engine import ERROR_CODES, EngineError, InvalidOptions

PROBLEM_TYPE_PREFIX = "urn:canasta:problem:"
# The members RFC 9457 defines (and ``code``): no extension member may replace them.
RESERVED_MEMBERS = frozenset({"type", "title", "status", "detail", "code", "instance"})


class UnknownErrorCode(ValueError):
    """A code that the catalogue does not declare."""


# ============================================================================== members
MemberType = Literal["integer", "string", "strings", "field_errors"]


@dataclass(frozen=True)
class Member:
    """An extension member of a problem document: its JSON type, meaning and an example."""

    name: str
    type: MemberType
    description: str
    example: Any
    nullable: bool = False


MEMBERS: dict[str, Member] = {
    m.name: m
    for m in (
        Member(
            "errors",
            "field_errors",
            "The refused values, one entry each: `{field, code, message}`, where `field` is the "
            "dotted path (`players.0.name`), null for the request as a whole.",
            [{"field": "display_name", "code": "blank", "message": "This field may not be blank."}],
        ),
        Member(
            "retry_after",
            "integer",
            "Seconds to wait before trying again.",
            12,
            nullable=True,
        ),
        Member("max_body_bytes", "integer", "The largest request body accepted, in bytes.", 65536),
        Member(
            "current_version",
            "integer",
            "The game's version now (the last event you may see).",
            12,
        ),
        Member("option", "string", "The option refused.", "target_score"),
        Member(
            "seq",
            "integer",
            "The number of the document's event at fault (null when it has none).",
            37,
            nullable=True,
        ),
        Member(
            "engine_code",
            "string",
            "The rules engine's code for the refusal (one of the engine codes).",
            "card_not_in_hand",
        ),
        Member("engine_message", "string", "The rules engine's message.", "You do not hold QH."),
        Member(
            "game_id",
            "integer",
            "The table the quick-play match seated you at (null while it is being dealt).",
            42,
            nullable=True,
        ),
        Member("rules_version", "string", "The rules version the game is pinned to.", "0"),
        Member(
            "supported_rules_versions",
            "strings",
            "The rules versions this engine plays.",
            ["1"],
        ),
    )
}


# ============================================================================== declarations
Kind = Literal["framework", "service", "engine"]
KINDS: tuple[Kind, ...] = ("framework", "service", "engine")


@dataclass(frozen=True)
class ErrorSpec:
    """One error code of the API, declared once."""

    code: str
    status: int
    title: str
    message: str
    members: tuple[str, ...] = ()
    kind: Kind = "service"

    def __post_init__(self) -> None:
        if not self.code.isidentifier() or self.code != self.code.lower():
            raise ValueError(f"error code {self.code!r} is not snake_case")
        if not 400 <= HTTPStatus(self.status) <= 599:
            raise ValueError(f"{self.code}: {self.status} is not an error status")
        for name in self.members:
            if name not in MEMBERS or name in RESERVED_MEMBERS:
                raise ValueError(f"{self.code}: extension member {name!r} is not declared")

    @property
    def type(self) -> str:
        """The problem type URI: ``urn:canasta:problem:<code>``."""
        return f"{PROBLEM_TYPE_PREFIX}{self.code}"


def _spec(
    code: str, status: int, title: str, message: str, *members: str, kind: Kind = "service"
) -> ErrorSpec:
    return ErrorSpec(code, status, title, message, members, kind)


def _framework(code: str, status: int, title: str, message: str, *members: str) -> ErrorSpec:
    return _spec(code, status, title, message, *members, kind="framework")


_FRAMEWORK = (
    _framework(
        "invalid_request", 400, "Invalid request", "The request failed validation.", "errors"
    ),
    _framework("malformed_body", 400, "Malformed body", "The body is not parseable JSON."),
    _framework(
        "body_too_large",
        413,
        "Body too large",
        "The request body is larger than the server accepts.",
        "max_body_bytes",
    ),
    _framework(
        "bad_request",
        400,
        "Bad request",
        "The request could not be understood (e.g. a disallowed Host header).",
    ),
    _framework(
        "not_authenticated",
        401,
        "Not authenticated",
        "No credentials: send `Authorization: Token <token>`.",
    ),
    _framework("authentication_failed", 401, "Authentication failed", "The token is wrong."),
    _framework(
        "permission_denied",
        403,
        "Permission denied",
        "You do not have permission to perform this action.",
    ),
    _framework(
        "not_found",
        404,
        "Not found",
        "No such resource: an unknown URL, or a game that does not exist or is private and you "
        "are not at its table.",
    ),
    _framework(
        "method_not_allowed",
        405,
        "Method not allowed",
        "The resource does not support the method (see the Allow header).",
    ),
    _framework("not_acceptable", 406, "Not acceptable", "No acceptable response media type."),
    _framework(
        "length_required",
        411,
        "Length required",
        "The body has no Content-Length and this server cannot read it without one.",
    ),
    _framework(
        "unsupported_media_type",
        415,
        "Unsupported media type",
        "The body's media type is not JSON.",
    ),
    _framework(
        "throttled",
        429,
        "Too many requests",
        "A rate limit was hit; wait as the Retry-After header says.",
        "retry_after",
    ),
    _framework(
        "database_unavailable",
        503,
        "Database unavailable",
        "The database failed the request (its connection was lost, or none was free in time), "
        "so it was rolled back. It is safe to send again after Retry-After seconds: a move "
        "sent with the same Idempotency-Key is applied at most once.",
        "retry_after",
    ),
    _framework(
        "internal_error",
        500,
        "Internal error",
        "The server failed to handle the request; details are in the server log only.",
    ),
)

_SERVICE = (
    # ---------------------------------------------------------------- players and tables
    _spec(
        "player_profile_missing",
        403,
        "Player profile missing",
        "This account has no player profile: sign up as a player to play.",
    ),
    _spec(
        "stale_version",
        409,
        "Stale version",
        "The game has moved on since this action was made; reload and try again.",
        "current_version",
    ),
    _spec(
        "game_not_active",
        409,
        "Game not active",
        "The game is not being played (it has not started or was abandoned).",
    ),
    _spec(
        "game_already_started",
        409,
        "Game already started",
        "The game has already started; seats and settings can no longer change.",
    ),
    _spec("game_full", 409, "Game full", "Every seat at this table is taken."),
    _spec("seat_taken", 409, "Seat taken", "That seat is already taken."),
    _spec(
        "seats_empty",
        409,
        "Seats empty",
        "Some seats are empty; fill them with bots or wait for players.",
    ),
    _spec("already_seated", 409, "Already seated", "You already occupy a seat at this table."),
    _spec("invalid_seat", 400, "Invalid seat", "There is no seat with that number at this table."),
    _spec("not_seated", 403, "Not seated", "You do not occupy a seat at this table."),
    _spec(
        "not_game_creator",
        403,
        "Not the game's creator",
        "Only the player who created the table may do this.",
    ),
    # Competitive play: rated tables and quick-play queues (competition.services.ratings, matchmaking).
    _spec(
        "rated_humans_only",
        422,
        "Humans only at rated tables",
        "A rated table seats people only: no bot seats, and it cannot be started with bots.",
    ),
    _spec(
        "rated_no_hints",
        422,
        "No hints at rated tables",
        "A rated table plays without hints: the hints option is for casual tables.",
    ),
    _spec(
        "bot_account_not_allowed",
        403,
        "Not for bot accounts",
        "Bot accounts play casual tables only: they cannot join a quick-play queue.",
    ),
    _spec(
        "hints_off",
        403,
        "Hints are off",
        "This table plays without hints (its creator may turn them on in the lobby).",
    ),
    _spec(
        "rated_custom_options",
        422,
        "Custom options at a rated table",
        "A rated table plays a standard preset as it is, without custom options.",
    ),
    _spec(
        "already_queued",
        409,
        "Already queued",
        "You are already waiting in a quick-play queue; leave it first.",
    ),
    _spec(
        "queued_for_match",
        409,
        "Waiting for a match",
        "You are waiting in a quick-play queue; leave it before you sit at a table.",
    ),
    _spec(
        "at_table",
        409,
        "At a table",
        "You have a seat at a table in the lobby or in play; leave or finish it before you queue.",
    ),
    _spec("not_queued", 404, "Not queued", "You are not waiting in a quick-play queue."),
    _spec(
        "queue_matched",
        409,
        "Already matched",
        "Your match is made: its table is waiting for you.",
        "game_id",
    ),
    _spec(
        "idempotency_key_reused",
        422,
        "Idempotency key reused",
        "This Idempotency-Key was already used with a different request.",
    ),
    # ---------------------------------------------------------------- at the table
    _spec(
        "table_talk_off",
        403,
        "Table talk off",
        "This is a 'no table talk' game: quick chat is off.",
    ),
    _spec(
        "chat_phrase_unknown",
        400,
        "Chat phrase unknown",
        "Quick chat takes a phrase id from the fixed list (GET .../chat/phrases/).",
    ),
    _spec(
        "chat_rate_limited",
        429,
        "Chat rate limited",
        "Too many chat messages: wait a moment.",
        "retry_after",
    ),
    _spec(
        "game_not_finished",
        409,
        "Game not finished",
        "A rematch can be asked for only once the game is over.",
    ),
    _spec(
        "player_blocked",
        403,
        "Player blocked",
        "A player at this table has blocked you: you cannot join it.",
    ),
    _spec(
        "spectator_delay_invalid",
        400,
        "Spectator delay invalid",
        "The spectator delay is 0 to 40 moves.",
    ),
    _spec("player_not_found", 404, "Player not found", "There is no such player."),
    _spec(
        "upgrade_required",
        426,
        "Upgrade required",
        "A WebSocket endpoint: open it with a WebSocket client (Upgrade: websocket).",
    ),
    _spec("relation_self", 400, "Relation to yourself", "You cannot block or favour yourself."),
    # ---------------------------------------------------------------- replay, export, import
    _spec(
        "rules_version_unsupported",
        422,
        "Rules version unsupported",
        "The game was played under rules this engine no longer plays; it is not replayed or "
        "continued under changed rules.",
        "rules_version",
        "supported_rules_versions",
    ),
    _spec(
        "replay_step_out_of_range",
        400,
        "Replay step out of range",
        "There is no event with that number in the game's log.",
        "current_version",
    ),
    # ---------------------------------------------------------------- post-game reviews
    _spec(
        "review_no_finished_round",
        409,
        "No finished round to review",
        "A review covers finished rounds only: this game has not finished a round yet.",
    ),
    _spec(
        "review_seat_not_allowed",
        403,
        "Not your seat to review",
        "While the game is running a player may review only their own seat (a review names "
        "the seat's cards); once it is finished, any seat.",
    ),
    _spec(
        "review_not_found",
        404,
        "Review not found",
        "Nobody has asked for a review of that seat yet: ask with POST .../review/.",
    ),
    _spec(
        "import_format_unsupported",
        400,
        "Import format unsupported",
        "The document is not a game export this server reads.",
    ),
    _spec(
        "import_log_invalid",
        400,
        "Import log invalid",
        "The document's event list is malformed (numbering, types).",
        "seq",
    ),
    _spec(
        "import_seed_missing",
        422,
        "Import seed missing",
        "The document has no seed: only a finished game's export (or a document written with "
        "a seed, for teaching) can be imported.",
    ),
    _spec(
        "import_seed_mismatch",
        422,
        "Import seed mismatch",
        "The document's seed is not the one its log committed to.",
    ),
    _spec(
        "import_event_rejected",
        422,
        "Import event rejected",
        "An event of the document does not apply.",
        "seq",
        "engine_code",
        "engine_message",
    ),
    _spec(
        "import_event_mismatch",
        422,
        "Import event mismatch",
        "An event of the document records other effects than the engine's.",
        "seq",
    ),
    _spec(
        "import_final_state_mismatch",
        422,
        "Import final state mismatch",
        "The log replays to another final state than the document records.",
    ),
    # ---------------------------------------------------------------- correspondence play
    _spec(
        "game_paused",
        409,
        "Game paused",
        "The game is paused by agreement: nobody may act until a seated player resumes it.",
    ),
    _spec("game_not_paused", 409, "Game not paused", "The game is not paused."),
    _spec(
        "pause_proposal_missing",
        409,
        "Pause proposal missing",
        "Nobody has proposed to pause the game.",
    ),
    # ---------------------------------------------------------------- turn timers
    _spec(
        "timer_option_invalid", 400, "Timer option invalid", "A turn timer option is out of range."
    ),
    _spec(
        "timer_not_running",
        409,
        "Timer not running",
        "The game has no turn timer (it was never set or is already off).",
    ),
    _spec(
        "timer_proposal_pending",
        409,
        "Timer proposal pending",
        "A proposal to turn the timer off is already waiting for answers.",
    ),
    _spec(
        "timer_proposal_missing",
        409,
        "Timer proposal missing",
        "Nobody has proposed to turn the timer off.",
    ),
    # ---------------------------------------------------------------- notifications
    _spec(
        "webhook_url_refused",
        400,
        "Webhook URL refused",
        "A webhook URL must be https (plain http only to a host the server allows), with a host "
        "and no credentials.",
    ),
    _spec(
        "webhook_limit_reached",
        409,
        "Webhook limit reached",
        "You have as many webhooks as a player may register: delete one first.",
    ),
    _spec(
        "web_push_unavailable",
        503,
        "Web Push unavailable",
        "Web Push is not configured on this server (no VAPID key): use a webhook or e-mail.",
    ),
    _spec(
        "push_endpoint_refused",
        400,
        "Push endpoint refused",
        "A push subscription's endpoint must be an https URL of a push service at a public "
        "address (plain http only to a host the server allows), with no credentials.",
    ),
    _spec(
        "push_subscription_limit_reached",
        409,
        "Push subscription limit reached",
        "You have as many push subscriptions as a player may keep: delete one first.",
    ),
)


def engine_error_status(code: str) -> int:
    """The status of an engine refusal: 400 unreadable, 403 not your turn, 422 the rules."""
    if code in ("invalid_option", "invalid_action"):
        return 400
    if code == "not_your_turn":
        return 403
    return 422


_ENGINE = tuple(
    _spec(
        code,
        engine_error_status(code),
        code.replace("_", " ").capitalize(),
        text,
        *(("option",) if code == "invalid_option" else ()),
        kind="engine",
    )
    for code, text in ERROR_CODES.items()
)


def _catalogue(*specs: ErrorSpec) -> dict[str, ErrorSpec]:
    out: dict[str, ErrorSpec] = {}
    for spec in specs:
        if spec.code in out:
            raise ValueError(f"error code {spec.code!r} is declared twice")
        out[spec.code] = spec
    return out


CATALOGUE: dict[str, ErrorSpec] = _catalogue(*_FRAMEWORK, *_SERVICE, *_ENGINE)
"""Every error code of the API, in table order: framework, service, engine."""

ENGINE_CODES: tuple[str, ...] = tuple(ERROR_CODES)


def spec_of(code: str) -> ErrorSpec:
    """The declaration of ``code``; ``UnknownErrorCode`` if the catalogue has none."""
    try:
        return CATALOGUE[code]
    except KeyError:
        raise UnknownErrorCode(f"{code!r} is not an error code of the catalogue") from None


def specs_of(kind: Kind) -> tuple[ErrorSpec, ...]:
    return tuple(spec for spec in CATALOGUE.values() if spec.kind == kind)


def members_check(spec: ErrorSpec, extra: Mapping[str, Any]) -> None:
    """Refuse extension members that would replace a standard member or that ``spec`` does
    not declare."""
    clash = RESERVED_MEMBERS.intersection(extra)
    if clash:
        raise ValueError(
            f"problem extension member(s) {sorted(clash)} would replace a standard one"
        )
    undeclared = set(extra).difference(spec.members)
    if undeclared:
        raise ValueError(
            f"{spec.code} declares no extension member(s) {sorted(undeclared)} "
            f"(declared: {list(spec.members)})"
        )


# ============================================================================== ServiceError
class ServiceError(Exception):
    """An expected failure of a service call, carried to the client as a problem document.

    Its code, status and title come from the catalogue. Subclasses name their code
    (``class GameFull(ServiceError, code="game_full")``, or a class attribute ``code = ...``);
    the base takes it at construction (``ServiceError("...", code="stale_version",
    extra={"current_version": 7})``). An unknown code, a status other than the catalogue's or
    an undeclared extension member in ``extra`` raises. ``default_message`` may give a class a
    message of its own instead of the catalogue's.
    """

    spec: ClassVar[ErrorSpec | None] = None
    code: str
    status: int
    title: str
    default_message: str | None = None

    def __init_subclass__(cls, code: str | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        declared = code if code is not None else cls.__dict__.get("code")
        if declared is None:
            return  # inherits its parent's code (or takes one at construction)
        spec = spec_of(declared)
        status = cls.__dict__.get("status")
        if status is not None and status != spec.status:
            raise ValueError(f"{cls.__name__}: {spec.code} is {spec.status}, not {status}")
        cls.spec = spec
        cls.code, cls.status, cls.title = spec.code, spec.status, spec.title

    def __init__(
        self,
        message: str | None = None,
        *,
        code: str | None = None,
        status: int | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        spec = type(self).spec
        if code is not None:
            if spec is not None and code != spec.code:
                raise ValueError(f"{type(self).__name__} is {spec.code}, not {code}")
            spec = spec_of(code)
        if spec is None:
            raise UnknownErrorCode(f"{type(self).__name__} needs a code from the catalogue")
        if status is not None and status != spec.status:
            raise ValueError(f"{spec.code} is {spec.status}, not {status}")
        self.extra: dict[str, Any] = dict(extra or {})
        members_check(spec, self.extra)
        self.code, self.status, self.title = spec.code, spec.status, spec.title
        self.message = message or self.default_message or spec.message
        super().__init__(self.message)

    def __str__(self) -> str:
        return f"[{self.code}] {self.message}"


# ------------------------------------------------------------------ players and tables
class UpgradeRequired(ServiceError, code="upgrade_required"):
    default_message = "This is the game's WebSocket: connect with a WebSocket client."


class GameNotFound(ServiceError, code="not_found"):
    default_message = "There is no such game (or it is private and you are not at its table)."


class StaleVersion(ServiceError, code="stale_version"):
    def __init__(self, current_version: int) -> None:
        super().__init__(
            f"The action was made against an older version; the game is at version "
            f"{current_version}.",
            extra={"current_version": current_version},
        )


class GameNotActive(ServiceError, code="game_not_active"):
    pass


class GameAlreadyStarted(ServiceError, code="game_already_started"):
    pass


class GameFull(ServiceError, code="game_full"):
    pass


class SeatTaken(ServiceError, code="seat_taken"):
    pass


class SeatsEmpty(ServiceError, code="seats_empty"):
    pass


class AlreadySeated(ServiceError, code="already_seated"):
    pass


class RatedHumansOnly(ServiceError, code="rated_humans_only"):
    pass


class RatedNoHints(ServiceError, code="rated_no_hints"):
    pass


class BotAccountNotAllowed(ServiceError, code="bot_account_not_allowed"):
    pass


class HintsOff(ServiceError, code="hints_off"):
    pass


class RatedCustomOptions(ServiceError, code="rated_custom_options"):
    pass


class AlreadyQueued(ServiceError, code="already_queued"):
    pass


class QueuedForMatch(ServiceError, code="queued_for_match"):
    pass


class AtTable(ServiceError, code="at_table"):
    pass


class NotQueued(ServiceError, code="not_queued"):
    pass


class QueueMatched(ServiceError, code="queue_matched"):
    def __init__(self, game_id: int | None) -> None:
        super().__init__(extra={"game_id": game_id})


class InvalidSeat(ServiceError, code="invalid_seat"):
    pass


class NotSeated(ServiceError, code="not_seated"):
    pass


class NotGameCreator(ServiceError, code="not_game_creator"):
    pass


class DisplayNameInvalid(ServiceError, code="invalid_request"):
    default_message = "A display name is 1 to 40 characters once spaces at either end are dropped."


class PlayerProfileMissing(ServiceError, code="player_profile_missing"):
    pass


class IdempotencyKeyReused(ServiceError, code="idempotency_key_reused"):
    pass


class GameOver(ServiceError, code="game_over"):
    default_message = "The game is over."


class IdempotencyKeyTooLong(ServiceError, code="invalid_request"):
    default_message = "The Idempotency-Key header is too long."

    def __init__(self, limit: int) -> None:
        super().__init__(f"The Idempotency-Key header may be at most {limit} characters.")


# ------------------------------------------------------------------ at the table
class TableTalkOff(ServiceError, code="table_talk_off"):
    pass


class ChatPhraseUnknown(ServiceError, code="chat_phrase_unknown"):
    pass


class ChatRateLimited(ServiceError, code="chat_rate_limited"):
    def __init__(self, retry_after: int) -> None:
        super().__init__(
            f"Too many chat messages; try again in {retry_after} s.",
            extra={"retry_after": retry_after},
        )


class GameNotFinished(ServiceError, code="game_not_finished"):
    pass


class PlayerBlocked(ServiceError, code="player_blocked"):
    pass


class SpectatorDelayInvalid(ServiceError, code="spectator_delay_invalid"):
    pass


class PlayerNotFound(ServiceError, code="player_not_found"):
    pass


class RelationSelf(ServiceError, code="relation_self"):
    pass


# ------------------------------------------------------------------ replay, export and import
class RulesVersionUnsupported(ServiceError, code="rules_version_unsupported"):
    def __init__(self, rules_version: str, supported: list[str]) -> None:
        super().__init__(
            f"The game is pinned to rules version {rules_version!r}; this engine plays "
            f"{', '.join(repr(v) for v in supported)}.",
            extra={"rules_version": rules_version, "supported_rules_versions": supported},
        )


class ReplayStepOutOfRange(ServiceError, code="replay_step_out_of_range"):
    def __init__(self, at: int, current_version: int) -> None:
        super().__init__(
            f"Step {at} is not in the log: choose 1 to {current_version}.",
            extra={"current_version": current_version},
        )


class ReviewNoFinishedRound(ServiceError, code="review_no_finished_round"):
    pass


class ReviewSeatNotAllowed(ServiceError, code="review_seat_not_allowed"):
    pass


class ReviewNotFound(ServiceError, code="review_not_found"):
    pass


class ImportFormatUnsupported(ServiceError, code="import_format_unsupported"):
    pass


class ImportLogInvalid(ServiceError, code="import_log_invalid"):
    def __init__(self, seq: int | None, message: str) -> None:
        super().__init__(message, extra={"seq": seq})


class ImportSeedMissing(ServiceError, code="import_seed_missing"):
    pass


class ImportSeedMismatch(ServiceError, code="import_seed_mismatch"):
    pass


class ImportEventRejected(ServiceError, code="import_event_rejected"):
    def __init__(self, seq: int, engine_code: str, engine_message: str) -> None:
        super().__init__(
            f"Event {seq} does not apply: {engine_message}",
            extra={"seq": seq, "engine_code": engine_code, "engine_message": engine_message},
        )


class ImportEventMismatch(ServiceError, code="import_event_mismatch"):
    def __init__(self, seq: int, message: str) -> None:
        super().__init__(f"Event {seq}: {message}", extra={"seq": seq})


class ImportFinalStateMismatch(ServiceError, code="import_final_state_mismatch"):
    pass


# ------------------------------------------------------------------ turn timers
class GamePaused(ServiceError, code="game_paused"):
    pass


class GameNotPaused(ServiceError, code="game_not_paused"):
    pass


class PauseProposalMissing(ServiceError, code="pause_proposal_missing"):
    pass


class TimerOptionInvalid(ServiceError, code="timer_option_invalid"):
    pass


class TimerNotRunning(ServiceError, code="timer_not_running"):
    pass


class TimerProposalPending(ServiceError, code="timer_proposal_pending"):
    pass


class TimerProposalMissing(ServiceError, code="timer_proposal_missing"):
    pass


# ------------------------------------------------------------------ notifications
class WebhookUrlRefused(ServiceError, code="webhook_url_refused"):
    pass


class WebhookLimitReached(ServiceError, code="webhook_limit_reached"):
    pass


class WebhookNotFound(ServiceError, code="not_found"):
    default_message = "You have no webhook with that id."


class WebPushUnavailable(ServiceError, code="web_push_unavailable"):
    pass


class PushEndpointRefused(ServiceError, code="push_endpoint_refused"):
    pass


class PushSubscriptionLimitReached(ServiceError, code="push_subscription_limit_reached"):
    pass


class PushSubscriptionNotFound(ServiceError, code="not_found"):
    default_message = "You have no push subscription with that id."


# ------------------------------------------------------------------ the rules engine
class EngineRefusal(ServiceError):
    """An engine refusal as a service error: the engine's code, with its catalogue status.

    ``invalid_option`` problems name the option in an ``option`` member.
    """

    def __init__(self, exc: EngineError) -> None:
        spec = spec_of(exc.code)
        if spec.kind != "engine":
            raise UnknownErrorCode(f"{exc.code!r} is not an engine code of the catalogue")
        extra = {"option": exc.option} if isinstance(exc, InvalidOptions) else {}
        super().__init__(exc.message, code=exc.code, extra=extra)
        self.engine_error = exc


def engine_error(exc: EngineError) -> ServiceError:
    """The one mapping of an engine refusal to a service error (and so to HTTP)."""
    return EngineRefusal(exc)


# ============================================================================== documentation
Codes: TypeAlias = "str | type[ServiceError] | Iterable[Codes]"
"""Codes as ``codes`` reads them: a code, a ``ServiceError`` subclass, or a group of them."""


def codes(*items: Codes) -> list[str]:
    """Codes named by strings, ``ServiceError`` subclasses or iterables of them, each checked
    against the catalogue, without repeats, in the order given."""
    out: list[str] = []
    for item in items:
        if isinstance(item, str):
            found = [spec_of(item).code]
        elif isinstance(item, type):
            if item.spec is None:
                raise UnknownErrorCode(f"{item.__name__} has no code of its own")
            found = [item.spec.code]
        else:
            found = codes(*item)
        out.extend(code for code in found if code not in out)
    return out


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(specs: Iterable[ErrorSpec] | None = None) -> str:
    """The error table (Markdown): code, status, title, meaning and extension members."""
    rows = [
        "| code | status | title | meaning | extension members |",
        "| --- | --- | --- | --- | --- |",
    ]
    for spec in CATALOGUE.values() if specs is None else specs:
        members = ", ".join(f"`{name}`" for name in spec.members)
        rows.append(
            f"| `{spec.code}` | {spec.status} | {_cell(spec.title)} | {_cell(spec.message)} "
            f"| {members} |"
        )
    return "\n".join(rows)


def main() -> None:
    print(markdown_table())


if __name__ == "__main__":
    main()
