"""The game service's refusals: ``ServiceError`` subclasses with stable codes.

Services raise these (or let an engine refusal through ``engine_error``); the central handler in
``canasta_service.exceptions`` turns them into RFC 9457 problem documents. ``SERVICE_ERROR_CODES``
and the engine's ``ERROR_CODES`` together are the catalogue the OpenAPI schema documents.
"""

from __future__ import annotations

from typing import Any

from canasta_service.exceptions import ServiceError

__all__ = ["ServiceError"]  # re-exported: services raise and catch it from here
from games.engine import ERROR_CODES, EngineError, InvalidOptions


class GameNotFound(ServiceError):
    code = "not_found"
    status = 404
    default_message = "There is no such game (or it is private and you are not at its table)."


class StaleVersion(ServiceError):
    code = "stale_version"
    status = 409
    default_message = "The game has moved on since this action was made; reload and try again."

    def __init__(self, current_version: int) -> None:
        super().__init__(
            f"The action was made against an older version; the game is at version "
            f"{current_version}.",
            extra={"current_version": current_version},
        )


class GameNotActive(ServiceError):
    code = "game_not_active"
    status = 409
    default_message = "The game is not being played (it has not started or was abandoned)."


class GameAlreadyStarted(ServiceError):
    code = "game_already_started"
    status = 409
    default_message = "The game has already started; seats can no longer change."


class GameFull(ServiceError):
    code = "game_full"
    status = 409
    default_message = "Every seat at this table is taken."


class SeatTaken(ServiceError):
    code = "seat_taken"
    status = 409
    default_message = "That seat is already taken."


class SeatsEmpty(ServiceError):
    code = "seats_empty"
    status = 409
    default_message = "Some seats are empty; fill them with bots or wait for players."


class AlreadySeated(ServiceError):
    code = "already_seated"
    status = 409
    default_message = "You already occupy a seat at this table."


class InvalidSeat(ServiceError):
    code = "invalid_seat"
    status = 400
    default_message = "There is no seat with that number at this table."


class NotSeated(ServiceError):
    code = "not_seated"
    status = 403
    default_message = "You do not occupy a seat at this table."


class NotGameCreator(ServiceError):
    code = "not_game_creator"
    status = 403
    default_message = "Only the player who created the table may start it."


class JoinCodeInvalid(ServiceError):
    code = "join_code_invalid"
    status = 403
    default_message = "This table is private: a valid join code is needed to sit at it."


class PlayerProfileMissing(ServiceError):
    code = "player_profile_missing"
    status = 403
    default_message = "This account has no player profile: sign up as a player to play."


class IdempotencyKeyReused(ServiceError):
    code = "idempotency_key_reused"
    status = 422
    default_message = "This Idempotency-Key was already used with a different request."


class GameOver(ServiceError):
    code = "game_over"
    status = 422
    default_message = "The game is over."


class IdempotencyKeyTooLong(ServiceError):
    code = "invalid_request"
    status = 400
    default_message = "The Idempotency-Key header is too long."

    def __init__(self, limit: int) -> None:
        super().__init__(f"The Idempotency-Key header may be at most {limit} characters.")


# ------------------------------------------------------------------ at the table
class TableTalkOff(ServiceError):
    code = "table_talk_off"
    status = 403
    default_message = "This is a 'no table talk' game: quick chat is off."


class ChatPhraseUnknown(ServiceError):
    code = "chat_phrase_unknown"
    status = 400
    default_message = "Quick chat takes a phrase id from the fixed list (GET .../chat/phrases/)."


class ChatRateLimited(ServiceError):
    code = "chat_rate_limited"
    status = 429
    default_message = "Too many chat messages: wait a moment."

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            f"Too many chat messages; try again in {retry_after} s.",
            extra={"retry_after": retry_after},
        )


class GameNotFinished(ServiceError):
    code = "game_not_finished"
    status = 409
    default_message = "A rematch can be asked for only once the game is over."


class PlayerBlocked(ServiceError):
    code = "player_blocked"
    status = 403
    default_message = "A player at this table has blocked you: you cannot join it."


class SpectatorDelayInvalid(ServiceError):
    code = "spectator_delay_invalid"
    status = 400
    default_message = "The spectator delay is 0 to 40 moves."


class PlayerNotFound(ServiceError):
    code = "player_not_found"
    status = 404
    default_message = "There is no such player."


class RelationSelf(ServiceError):
    code = "relation_self"
    status = 400
    default_message = "You cannot block or favour yourself."


TABLE_ERRORS: tuple[type[ServiceError], ...] = (
    TableTalkOff,
    ChatPhraseUnknown,
    ChatRateLimited,
    GameNotFinished,
    PlayerBlocked,
    SpectatorDelayInvalid,
    PlayerNotFound,
    RelationSelf,
)
TABLE_ERROR_CODES: dict[str, tuple[int, str]] = {
    cls.code: (cls.status, cls.default_message) for cls in TABLE_ERRORS
}


# ------------------------------------------------------------------ replay, export and import
class RulesVersionUnsupported(ServiceError):
    code = "rules_version_unsupported"
    status = 422
    default_message = (
        "The game was played under rules this engine no longer plays; it is not replayed or "
        "continued under changed rules."
    )

    def __init__(self, rules_version: str, supported: list[str]) -> None:
        super().__init__(
            f"The game is pinned to rules version {rules_version!r}; this engine plays "
            f"{', '.join(repr(v) for v in supported)}.",
            extra={"rules_version": rules_version, "supported_rules_versions": supported},
        )


class ReplayStepOutOfRange(ServiceError):
    code = "replay_step_out_of_range"
    status = 400
    default_message = "There is no event with that number in the game's log."

    def __init__(self, at: int, current_version: int) -> None:
        super().__init__(
            f"Step {at} is not in the log: choose 1 to {current_version}.",
            extra={"current_version": current_version},
        )


class ImportFormatUnsupported(ServiceError):
    code = "import_format_unsupported"
    status = 400
    default_message = "The document is not a game export this server reads."


class ImportLogInvalid(ServiceError):
    code = "import_log_invalid"
    status = 400
    default_message = "The document's event list is malformed (numbering, types)."

    def __init__(self, seq: int | None, message: str) -> None:
        super().__init__(message, extra={"seq": seq})


class ImportSeedMissing(ServiceError):
    code = "import_seed_missing"
    status = 422
    default_message = (
        "The document has no seed: only a finished game's export (or a document written with "
        "a seed, for teaching) can be imported."
    )


class ImportSeedMismatch(ServiceError):
    code = "import_seed_mismatch"
    status = 422
    default_message = "The document's seed is not the one its log committed to."


class ImportEventRejected(ServiceError):
    code = "import_event_rejected"
    status = 422
    default_message = "An event of the document does not apply."

    def __init__(self, seq: int, engine_code: str, engine_message: str) -> None:
        super().__init__(
            f"Event {seq} does not apply: {engine_message}",
            extra={"seq": seq, "engine_code": engine_code, "engine_message": engine_message},
        )


class ImportEventMismatch(ServiceError):
    code = "import_event_mismatch"
    status = 422
    default_message = "An event of the document records other effects than the engine's."

    def __init__(self, seq: int, message: str) -> None:
        super().__init__(f"Event {seq}: {message}", extra={"seq": seq})


class ImportFinalStateMismatch(ServiceError):
    code = "import_final_state_mismatch"
    status = 422
    default_message = "The log replays to another final state than the document records."


REPLAY_ERRORS: tuple[type[ServiceError], ...] = (
    RulesVersionUnsupported,
    ReplayStepOutOfRange,
    ImportFormatUnsupported,
    ImportLogInvalid,
    ImportSeedMissing,
    ImportSeedMismatch,
    ImportEventRejected,
    ImportEventMismatch,
    ImportFinalStateMismatch,
)


# ------------------------------------------------------------------ turn timers
class TimerOptionInvalid(ServiceError):
    code = "timer_option_invalid"
    status = 400
    default_message = "A turn timer option is out of range."


class TimerNotRunning(ServiceError):
    code = "timer_not_running"
    status = 409
    default_message = "The game has no turn timer (it was never set or is already off)."


class TimerProposalPending(ServiceError):
    code = "timer_proposal_pending"
    status = 409
    default_message = "A proposal to turn the timer off is already waiting for answers."


class TimerProposalMissing(ServiceError):
    code = "timer_proposal_missing"
    status = 409
    default_message = "Nobody has proposed to turn the timer off."


TIMER_ERRORS: tuple[type[ServiceError], ...] = (
    TimerOptionInvalid,
    TimerNotRunning,
    TimerProposalPending,
    TimerProposalMissing,
)


def engine_error(exc: EngineError) -> ServiceError:
    """The one mapping of an engine refusal to HTTP: 400 unreadable, 403 not your turn, 422 rule.

    ``invalid_option`` problems name the option in an ``option`` member.
    """
    extra: dict[str, Any] = {}
    if isinstance(exc, InvalidOptions):
        extra["option"] = exc.option
    status = engine_error_status(exc.code)
    return ServiceError(exc.message, code=exc.code, status=status, extra=extra)


# Every service error code with its status and meaning (documented in the OpenAPI schema).
SERVICE_ERRORS: tuple[type[ServiceError], ...] = (
    StaleVersion,
    GameNotActive,
    GameAlreadyStarted,
    GameFull,
    SeatTaken,
    SeatsEmpty,
    AlreadySeated,
    InvalidSeat,
    NotSeated,
    NotGameCreator,
    JoinCodeInvalid,
    IdempotencyKeyReused,
    PlayerProfileMissing,
    *REPLAY_ERRORS,
    *TIMER_ERRORS,
    *TABLE_ERRORS,
    GameOver,
)
SERVICE_ERROR_CODES: dict[str, tuple[int, str]] = {
    cls.code: (cls.status, cls.default_message) for cls in SERVICE_ERRORS
}


def engine_error_status(code: str) -> int:
    if code in ("invalid_option", "invalid_action"):
        return 400
    if code == "not_your_turn":
        return 403
    return 422


ENGINE_ERROR_CODES: dict[str, tuple[int, str]] = {
    code: (engine_error_status(code), text) for code, text in ERROR_CODES.items()
}
