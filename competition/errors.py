"""Quick play's error codes (see ``core.errors``, the one catalogue). The table lists them beside
the game's codes for rated tables (``after=``); ``games`` raises ``rated_humans_only`` and
``player_not_found`` too, so those are declared in ``games.errors``."""

from __future__ import annotations

from django.utils.translation import gettext_noop

from core.errors import ServiceError


class BotAccountNotAllowed(
    ServiceError,
    code="bot_account_not_allowed",
    status=403,
    title="Not for bot accounts",
    message="Bot accounts play casual tables only: they cannot join a quick-play queue.",
    after="rated_no_hints",
):
    pass


class AlreadyQueued(
    ServiceError,
    code="already_queued",
    status=409,
    title="Already queued",
    message="You are already waiting in a quick-play queue; leave it first.",
    after="rated_custom_options",
):
    pass


class QueuedForMatch(
    ServiceError,
    code="queued_for_match",
    status=409,
    title="Waiting for a match",
    message="You are waiting in a quick-play queue; leave it before you sit at a table.",
    after="already_queued",
):
    pass


class AtTable(
    ServiceError,
    code="at_table",
    status=409,
    title="At a table",
    message="You have a seat at a table in the lobby or in play; leave or finish it before you "
    "queue.",
    after="queued_for_match",
):
    pass


class NotQueued(
    ServiceError,
    code="not_queued",
    status=404,
    title="Not queued",
    message="You are not waiting in a quick-play queue.",
    after="at_table",
):
    pass


class QueueMatched(
    ServiceError,
    code="queue_matched",
    status=409,
    title="Already matched",
    message="Your match is made: its table is waiting for you.",
    members=("game_id",),
    after="not_queued",
):
    def __init__(self, game_id: int | None) -> None:
        super().__init__(extra={"game_id": game_id})


# ------------------------------------------------------------------ tournaments
class TournamentNotFound(ServiceError, code="not_found"):
    default_message = "There is no such tournament."


class NotOrganiser(
    ServiceError,
    code="not_tournament_organiser",
    status=403,
    title="Not the organiser",
    message="Only the tournament's organiser may do this.",
    after="action_in_flight",
):
    pass


class TournamentSetupInvalid(
    ServiceError,
    code="tournament_setup_invalid",
    status=422,
    title="Invalid tournament",
    message="These settings do not make a tournament.",
    members=("setting",),
    after="not_tournament_organiser",
):
    def __init__(self, message: str, setting: str) -> None:
        super().__init__(message, extra={"setting": setting})


class TournamentWrongStatus(
    ServiceError,
    code="tournament_wrong_status",
    status=409,
    title="Not now",
    message="The tournament is not at a stage where this can be done.",
    members=("tournament_status",),
    after="tournament_setup_invalid",
):
    def __init__(self, message: str, tournament_status: str) -> None:
        super().__init__(message, extra={"tournament_status": tournament_status})


class EntryNotAllowed(
    ServiceError,
    code="entry_not_allowed",
    status=403,
    title="Entry not allowed",
    message="The tournament's entry rules do not admit you.",
    after="tournament_wrong_status",
):
    pass


class AlreadyRegistered(
    ServiceError,
    code="already_registered",
    status=409,
    title="Already registered",
    message="You (or your partner) already have an entry in this tournament.",
    after="entry_not_allowed",
):
    pass


class NotRegistered(
    ServiceError,
    code="not_registered",
    status=404,
    title="Not registered",
    message="There is no such active entry in this tournament.",
    after="already_registered",
):
    pass


class TournamentFull(
    ServiceError,
    code="tournament_full",
    status=409,
    title="Tournament full",
    message="The tournament has all the entries it takes.",
    after="not_registered",
):
    pass


class RoundInProgress(
    ServiceError,
    code="round_in_progress",
    status=409,
    title="Round in progress",
    message="The current round is not over yet (or its pairings wait to be published).",
    after="tournament_full",
):
    pass


class PairingInvalid(
    ServiceError,
    code="pairing_invalid",
    status=422,
    title="Invalid pairing",
    message="These pairings cannot be played.",
    after="round_in_progress",
):
    pass


class EntrantsTooFew(
    ServiceError,
    code="entrants_too_few",
    status=409,
    title="Too few entrants",
    message="The tournament needs more entrants to start.",
    after="pairing_invalid",
):
    pass


class TournamentBotsLimit(
    ServiceError,
    code="tournament_bots_limit",
    status=409,
    title="Too many bot entrants",
    message="Your unfinished tournaments already have as many bot entrants as allowed.",
    after="entrants_too_few",
):
    def __init__(self, limit: int) -> None:
        super().__init__(
            gettext_noop(
                "Your unfinished tournaments may have %(limit)s bot entrants in all; finish, "
                "cancel or shrink one before entering more bots."
            ),
            params={"limit": limit},
        )
