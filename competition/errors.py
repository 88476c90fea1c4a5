"""Quick play's error codes (see ``core.errors``, the one catalogue). The table lists them beside
the game's codes for rated tables (``after=``); ``games`` raises ``rated_humans_only`` and
``player_not_found`` too, so those are declared in ``games.errors``."""

from __future__ import annotations

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
