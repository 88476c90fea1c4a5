"""The players' error codes (see ``core.errors``, the one catalogue): refusals of ``accounts``'
own code, and of an app above it raising the same (``games``' admin renames players too). Each
is listed in the table beside the codes it was always listed with (``after=``)."""

from __future__ import annotations

from core.errors import ServiceError


class DisplayNameInvalid(ServiceError, code="invalid_request"):
    default_message = "A display name is 1 to 40 characters once spaces at either end are dropped."


class PlayerProfileMissing(
    ServiceError,
    code="player_profile_missing",
    status=403,
    title="Player profile missing",
    message="This account has no player profile: sign up as a player to play.",
    after="internal_error",  # the first of the service's codes
):
    pass


class PlayerNotFound(
    ServiceError,
    code="player_not_found",
    status=404,
    title="Player not found",
    message="There is no such player.",
    after="spectator_delay_invalid",
):
    pass


class RelationSelf(
    ServiceError,
    code="relation_self",
    status=400,
    title="Relation to yourself",
    message="You cannot block or favour yourself.",
    after="upgrade_required",
):
    pass
