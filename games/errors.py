"""The game's error codes: the refusals of ``games``' own code and the rules engine's codes.

Each service error is declared once, on its ``ServiceError`` class (code, status, title, default
message, extension members), which registers it in the one catalogue (``core.errors``) when the
class is defined; a class whose code is declared elsewhere only names it (``GameNotFound`` is
the framework's ``not_found``). The rules engine's codes are registered from
``games.engine.ERROR_CODES`` (400 ``invalid_action`` and ``invalid_option``, 403
``not_your_turn``, 422 every other refusal by the rules) and reach the client through
``engine_error``. The apps above ``games`` declare their refusals in their own ``errors``
modules; an error raised by ``games`` and by an app above it lives here (``games`` imports no app
above it). The classes are in table order (see ``core.errors``).
"""

from __future__ import annotations

from django.utils.translation import gettext_noop

from core.errors import CATALOGUE, ErrorSpec, UnknownErrorCode
from core.errors import ServiceError as ServiceError  # the base of every error raised here
from core.errors import spec_of as spec_of
from games.engine import ERROR_CODES, EngineError, InvalidOptions

# ------------------------------------------------------------------ players and tables


class StaleVersion(
    ServiceError,
    code="stale_version",
    status=409,
    title="Stale version",
    message="The game has moved on since this action was made; reload and try again.",
    members=("current_version",),
):
    def __init__(self, current_version: int) -> None:
        super().__init__(
            gettext_noop(
                "The action was made against an older version; the game is at version "
                "%(current_version)s."
            ),
            params={"current_version": current_version},
            extra={"current_version": current_version},
        )


class GameNotActive(
    ServiceError,
    code="game_not_active",
    status=409,
    title="Game not active",
    message="The game is not being played (it has not started or was abandoned).",
):
    pass


class GameAlreadyStarted(
    ServiceError,
    code="game_already_started",
    status=409,
    title="Game already started",
    message="The game has already started; seats and settings can no longer change.",
):
    pass


class GameFull(
    ServiceError,
    code="game_full",
    status=409,
    title="Game full",
    message="Every seat at this table is taken.",
):
    pass


class SeatTaken(
    ServiceError,
    code="seat_taken",
    status=409,
    title="Seat taken",
    message="That seat is already taken.",
):
    pass


class SeatsEmpty(
    ServiceError,
    code="seats_empty",
    status=409,
    title="Seats empty",
    message="Some seats are empty; fill them with bots or wait for players.",
):
    pass


class AlreadySeated(
    ServiceError,
    code="already_seated",
    status=409,
    title="Already seated",
    message="You already occupy a seat at this table.",
):
    pass


class InvalidSeat(
    ServiceError,
    code="invalid_seat",
    status=400,
    title="Invalid seat",
    message="There is no seat with that number at this table.",
):
    pass


class NotSeated(
    ServiceError,
    code="not_seated",
    status=403,
    title="Not seated",
    message="You do not occupy a seat at this table.",
):
    pass


class NotGameCreator(
    ServiceError,
    code="not_game_creator",
    status=403,
    title="Not the game's creator",
    message="Only the player who created the table may do this.",
):
    pass


# Rated tables (the lobby here; quick play in competition.errors).
class RatedHumansOnly(
    ServiceError,
    code="rated_humans_only",
    status=422,
    title="Humans only at rated tables",
    message="A rated table seats people only: no bot seats, and it cannot be started with bots.",
):
    pass


class RatedNoHints(
    ServiceError,
    code="rated_no_hints",
    status=422,
    title="No hints at rated tables",
    message="A rated table plays without hints: the hints option is for casual tables.",
):
    pass


class RatedCustomOptions(
    ServiceError,
    code="rated_custom_options",
    status=422,
    title="Custom options at a rated table",
    message="A rated table plays a standard preset as it is, without custom options.",
):
    pass


class IdempotencyKeyReused(
    ServiceError,
    code="idempotency_key_reused",
    status=422,
    title="Idempotency key reused",
    message="This Idempotency-Key was already used with a different request.",
):
    pass


class IdempotencyKeyTooLong(ServiceError, code="invalid_request"):
    default_message = "The Idempotency-Key header is too long."

    def __init__(self, limit: int) -> None:
        super().__init__(
            gettext_noop("The Idempotency-Key header may be at most %(limit)s characters."),
            params={"limit": limit},
        )


class GameNotFound(ServiceError, code="not_found"):
    default_message = "There is no such game (or it is private and you are not at its table)."


# ------------------------------------------------------------------ at the table
class TableTalkOff(
    ServiceError,
    code="table_talk_off",
    status=403,
    title="Table talk off",
    message="This is a 'no table talk' game: quick chat is off.",
):
    pass


class ChatPhraseUnknown(
    ServiceError,
    code="chat_phrase_unknown",
    status=400,
    title="Chat phrase unknown",
    message="Quick chat takes a phrase id from the fixed list (GET .../chat/phrases/).",
):
    pass


class ChatRateLimited(
    ServiceError,
    code="chat_rate_limited",
    status=429,
    title="Chat rate limited",
    message="Too many chat messages: wait a moment.",
    members=("retry_after",),
):
    def __init__(self, retry_after: int) -> None:
        super().__init__(
            gettext_noop("Too many chat messages; try again in %(retry_after)s s."),
            params={"retry_after": retry_after},
            extra={"retry_after": retry_after},
        )


class GameNotFinished(
    ServiceError,
    code="game_not_finished",
    status=409,
    title="Game not finished",
    message="A rematch can be asked for only once the game is over.",
):
    pass


class PlayerBlocked(
    ServiceError,
    code="player_blocked",
    status=403,
    title="Player blocked",
    message="A player at this table has blocked you: you cannot join it.",
):
    pass


class SpectatorDelayInvalid(
    ServiceError,
    code="spectator_delay_invalid",
    status=400,
    title="Spectator delay invalid",
    message="The spectator delay is 0 to 40 moves.",
):
    pass


class UpgradeRequired(
    ServiceError,
    code="upgrade_required",
    status=426,
    title="Upgrade required",
    message="A WebSocket endpoint: open it with a WebSocket client (Upgrade: websocket).",
):
    default_message = "This is the game's WebSocket: connect with a WebSocket client."


# ------------------------------------------------------------------ replay, export and import
class RulesVersionUnsupported(
    ServiceError,
    code="rules_version_unsupported",
    status=422,
    title="Rules version unsupported",
    message="The game was played under rules this engine no longer plays; it is not replayed or "
    "continued under changed rules.",
    members=("rules_version", "supported_rules_versions"),
):
    def __init__(self, rules_version: str, supported: list[str]) -> None:
        super().__init__(
            gettext_noop(
                "The game is pinned to rules version %(rules_version)s; this engine plays "
                "%(supported)s."
            ),
            params={
                "rules_version": repr(rules_version),
                "supported": ", ".join(repr(v) for v in supported),
            },
            extra={"rules_version": rules_version, "supported_rules_versions": supported},
        )


class ReplayStepOutOfRange(
    ServiceError,
    code="replay_step_out_of_range",
    status=400,
    title="Replay step out of range",
    message="There is no event with that number in the game's log.",
    members=("current_version",),
):
    def __init__(self, at: int, current_version: int) -> None:
        super().__init__(
            gettext_noop("Step %(at)s is not in the log: choose 1 to %(current_version)s."),
            params={"at": at, "current_version": current_version},
            extra={"current_version": current_version},
        )


class ImportFormatUnsupported(
    ServiceError,
    code="import_format_unsupported",
    status=400,
    title="Import format unsupported",
    message="The document is not a game export this server reads.",
):
    pass


class ImportLogInvalid(
    ServiceError,
    code="import_log_invalid",
    status=400,
    title="Import log invalid",
    message="The document's event list is malformed (numbering, types).",
    members=("seq",),
):
    def __init__(self, seq: int | None, message: str) -> None:
        super().__init__(message, extra={"seq": seq})


class ImportSeedMissing(
    ServiceError,
    code="import_seed_missing",
    status=422,
    title="Import seed missing",
    message="The document has no seed: only a finished game's export (or a document written "
    "with a seed, for teaching) can be imported.",
):
    pass


class ImportSeedMismatch(
    ServiceError,
    code="import_seed_mismatch",
    status=422,
    title="Import seed mismatch",
    message="The document's seed is not the one its log committed to.",
):
    pass


class ImportEventRejected(
    ServiceError,
    code="import_event_rejected",
    status=422,
    title="Import event rejected",
    message="An event of the document does not apply.",
    members=("seq", "engine_code", "engine_message"),
):
    def __init__(self, seq: int, engine_code: str, engine_message: str) -> None:
        super().__init__(
            gettext_noop("Event %(seq)s does not apply: %(engine_message)s"),
            params={"seq": seq, "engine_message": engine_message},
            extra={"seq": seq, "engine_code": engine_code, "engine_message": engine_message},
        )


class ImportEventMismatch(
    ServiceError,
    code="import_event_mismatch",
    status=422,
    title="Import event mismatch",
    message="An event of the document records other effects than the engine's.",
    members=("seq",),
):
    def __init__(self, seq: int, message: str) -> None:
        super().__init__(
            gettext_noop("Event %(seq)s: %(message)s"),
            params={"seq": seq, "message": message},
            extra={"seq": seq},
        )


class ImportFinalStateMismatch(
    ServiceError,
    code="import_final_state_mismatch",
    status=422,
    title="Import final state mismatch",
    message="The log replays to another final state than the document records.",
):
    pass


# ------------------------------------------------------------------ correspondence play
class GamePaused(
    ServiceError,
    code="game_paused",
    status=409,
    title="Game paused",
    message="The game is paused by agreement: nobody may act until a seated player resumes it.",
):
    pass


class GameNotPaused(
    ServiceError,
    code="game_not_paused",
    status=409,
    title="Game not paused",
    message="The game is not paused.",
):
    pass


class PauseProposalMissing(
    ServiceError,
    code="pause_proposal_missing",
    status=409,
    title="Pause proposal missing",
    message="Nobody has proposed to pause the game.",
):
    pass


# ------------------------------------------------------------------ turn timers
class TimerOptionInvalid(
    ServiceError,
    code="timer_option_invalid",
    status=400,
    title="Timer option invalid",
    message="A turn timer option is out of range.",
):
    pass


class TimerNotRunning(
    ServiceError,
    code="timer_not_running",
    status=409,
    title="Timer not running",
    message="The game has no turn timer (it was never set or is already off).",
):
    pass


class TimerProposalPending(
    ServiceError,
    code="timer_proposal_pending",
    status=409,
    title="Timer proposal pending",
    message="A proposal to turn the timer off is already waiting for answers.",
):
    pass


class TimerProposalMissing(
    ServiceError,
    code="timer_proposal_missing",
    status=409,
    title="Timer proposal missing",
    message="Nobody has proposed to turn the timer off.",
):
    pass


class SeatNotStoodIn(
    ServiceError,
    code="seat_not_stood_in",
    status=409,
    title="Seat not stood in",
    message="No stand-in bot plays your seat and it has no run of timeouts: there is nothing "
    "to reclaim.",
):
    pass


# ------------------------------------------------------------------ quotas
class BotTablesLimit(
    ServiceError,
    code="bot_tables_limit",
    status=409,
    title="Too many bot tables",
    message="You already have as many unfinished tables with only bots as opponents as allowed; "
    "finish or concede one first.",
):
    def __init__(self, limit: int) -> None:
        super().__init__(
            gettext_noop(
                "You already have %(limit)s unfinished table(s) where only bots play with you "
                "(the most allowed at once); finish or concede one before starting another."
            ),
            params={"limit": limit},
        )


class ImportsBusy(
    ServiceError,
    code="imports_busy",
    status=503,
    title="Imports busy",
    message="As many imports as the service runs at once are being replayed; nothing was "
    "imported. Send it again after Retry-After seconds.",
    members=("retry_after",),
):
    def __init__(self, retry_after: int) -> None:
        super().__init__(
            gettext_noop(
                "Other imports are being replayed; nothing was imported. Send it again in "
                "%(retry_after)s s."
            ),
            params={"retry_after": retry_after},
            extra={"retry_after": retry_after},
        )


# ------------------------------------------------------------------ the rules engine
def engine_error_status(code: str) -> int:
    """The status of an engine refusal: 400 unreadable, 403 not your turn, 422 the rules."""
    if code in ("invalid_option", "invalid_action"):
        return 400
    if code == "not_your_turn":
        return 403
    return 422


ENGINE_CODES: tuple[str, ...] = tuple(ERROR_CODES)
for _code, _text in ERROR_CODES.items():  # no class: they are raised as EngineRefusal
    CATALOGUE.register(
        ErrorSpec(
            _code,
            engine_error_status(_code),
            _code.replace("_", " ").capitalize(),
            _text,
            ("option",) if _code == "invalid_option" else (),
            kind="engine",
        )
    )
del _code, _text


class GameOver(ServiceError, code="game_over"):
    default_message = "The game is over."


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


# ------------------------------------------------------------------ the live server's limits
class TooManyLiveConnections(
    ServiceError,
    code="too_many_live_connections",
    status=429,
    title="Too many live connections",
    message="You have as many live connections open (sockets, event streams, waiting "
    "long-polls) as one player may: close one first.",
    members=("retry_after",),
):
    def __init__(self, cap: int, retry_after: int) -> None:
        super().__init__(
            gettext_noop(
                "You have %(cap)s live connections open (sockets, event streams, waiting "
                "long-polls), as many as one player may: close one first."
            ),
            params={"cap": cap},
            extra={"retry_after": retry_after},
        )


class SocketRateLimited(
    ServiceError,
    code="socket_rate_limited",
    status=429,
    title="Socket rate limited",
    message="Too many messages on this socket: the message was dropped; slow down (a socket "
    "that goes on is closed with 4429).",
):
    pass


class ActionInFlight(
    ServiceError,
    code="action_in_flight",
    status=429,
    title="Action in flight",
    message="This socket's previous action has not been answered yet: send the next one after "
    "its action_result. Nothing was changed.",
):
    pass


class ProposalCooldown(
    ServiceError,
    code="proposal_cooldown",
    status=429,
    title="Proposal cooling down",
    message="Your last proposal of this kind (to pause the game, or to turn its timer off) was "
    "declined: you may propose it again after Retry-After seconds. Nothing was changed.",
    members=("retry_after",),
    after="pause_proposal_missing",
):
    def __init__(self, retry_after: int) -> None:
        super().__init__(
            gettext_noop(
                "Your last proposal of this kind was declined: you may propose it again in "
                "%(retry_after)s s. Nothing was changed."
            ),
            params={"retry_after": retry_after},
            extra={"retry_after": retry_after},
        )


# ------------------------------------------------------------------ challenges
class ChallengeSelf(
    ServiceError,
    code="challenge_self",
    status=400,
    title="Challenge to yourself",
    message="You cannot challenge yourself.",
    after="player_blocked",
):
    pass


class ChallengeBlocked(
    ServiceError,
    code="challenge_blocked",
    status=403,
    title="Challenge blocked",
    message="One of you has blocked the other: no challenge can pass between you.",
    after="challenge_self",
):
    pass


class ChallengeNotYours(
    ServiceError,
    code="challenge_not_yours",
    status=403,
    title="Not your challenge to answer",
    message="Only the invited player may accept or decline a challenge; only the challenger "
    "may cancel it.",
    after="challenge_blocked",
):
    pass


class ChallengeNotFound(
    ServiceError,
    code="challenge_not_found",
    status=404,
    title="Challenge not found",
    message="There is no such challenge sent by you or to you.",
    after="challenge_not_yours",
):
    pass


class ChallengeClosed(
    ServiceError,
    code="challenge_closed",
    status=409,
    title="Challenge closed",
    message="The challenge was already accepted, declined or cancelled.",
    after="challenge_not_found",
):
    pass


class ChallengeExpired(
    ServiceError,
    code="challenge_expired",
    status=409,
    title="Challenge expired",
    message="The challenge expired before it was accepted; the challenger may send a new one.",
    after="challenge_closed",
):
    pass


class ChallengeExists(
    ServiceError,
    code="challenge_exists",
    status=409,
    title="Challenge already open",
    message="You already have an open challenge to this player: wait for the answer or cancel "
    "it first.",
    after="challenge_expired",
):
    pass


class ChallengesLimit(
    ServiceError,
    code="challenges_limit",
    status=409,
    title="Too many open challenges",
    message="Too many open challenges: the challenger has as many out, or the invitee as many "
    "waiting, as allowed.",
    after="challenge_exists",
):
    pass
