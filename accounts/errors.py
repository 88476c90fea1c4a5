"""The players' error codes (see ``core.errors``, the one catalogue): refusals of ``accounts``'
own code, and of an app above it raising the same (``games``' admin renames players too). Each
is listed in the table beside the codes it was always listed with (``after=``)."""

from __future__ import annotations

from django.utils.translation import gettext_noop

from core.errors import ServiceError


class DisplayNameInvalid(ServiceError, code="invalid_request"):
    default_message = "A display name is 1 to 40 characters once spaces at either end are dropped."


class LanguageInvalid(ServiceError, code="invalid_request"):
    default_message = "The language is one of en, es, pt-BR, it and de (or blank for none)."


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


# ------------------------------------------------------------------ friends
class FriendSelf(
    ServiceError,
    code="friend_self",
    status=400,
    title="Friend request to yourself",
    message="You cannot send a friend request to yourself.",
    after="relation_self",
):
    pass


class FriendRequestBlocked(
    ServiceError,
    code="friend_request_blocked",
    status=403,
    title="Friend request blocked",
    message="One of you has blocked the other: no friend request can pass between you.",
    after="friend_self",
):
    pass


class FriendRequestNotFound(
    ServiceError,
    code="friend_request_not_found",
    status=404,
    title="Friend request not found",
    message="There is no such pending friend request addressed to you (or sent by you).",
    after="friend_request_blocked",
):
    pass


class FriendNotFound(
    ServiceError,
    code="friend_not_found",
    status=404,
    title="Friend not found",
    message="This player is not your friend.",
    after="friend_request_not_found",
):
    pass


class FriendRequestExists(
    ServiceError,
    code="friend_request_exists",
    status=409,
    title="Friend request already sent",
    message="You have already sent this player a friend request; wait for their answer.",
    after="friend_not_found",
):
    pass


class AlreadyFriends(
    ServiceError,
    code="already_friends",
    status=409,
    title="Already friends",
    message="You are already friends with this player.",
    after="friend_request_exists",
):
    pass


class FriendRequestsLimit(
    ServiceError,
    code="friend_requests_limit",
    status=409,
    title="Too many friend requests",
    message="You have as many unanswered friend requests out as allowed; cancel one or wait "
    "for answers first.",
    after="already_friends",
):
    def __init__(self, limit: int) -> None:
        super().__init__(
            gettext_noop(
                "You have %(limit)s unanswered friend requests out, the most allowed at once; "
                "cancel one or wait for answers first."
            ),
            params={"limit": limit},
        )


class FriendsLimit(
    ServiceError,
    code="friends_limit",
    status=409,
    title="Too many friends",
    message="One of you has as many friends as a player may have.",
    after="friend_requests_limit",
):
    def __init__(self, limit: int) -> None:
        super().__init__(
            gettext_noop(
                "One of you already has %(limit)s friends, the most a player may have; remove "
                "one first."
            ),
            params={"limit": limit},
        )


class ScopeInsufficient(
    ServiceError,
    code="insufficient_scope",
    status=403,
    title="Insufficient scope",
    message="This token was not given the scope this request needs: `needed` lists the "
    "scopes, any one of which would do.",
    members=("needed",),
    after="player_profile_missing",
):
    pass


class SessionNotFound(
    ServiceError,
    code="session_not_found",
    status=404,
    title="Session not found",
    message="You have no such session.",
    after="player_not_found",
):
    pass


class TokenNotFound(
    ServiceError,
    code="token_not_found",
    status=404,
    title="Token not found",
    message="You have no such token.",
    after="session_not_found",
):
    pass


class TokenNameInvalid(ServiceError, code="invalid_request"):
    default_message = "A token's name is 1 to 80 characters."


class TokenLifetimeInvalid(ServiceError, code="invalid_request"):
    default_message = "A token lasts 1 to 366 days (or leave days out: until revoked)."


class ScopeInvalid(
    ServiceError,
    code="scope_invalid",
    status=400,
    title="Invalid scope",
    message="Give a token one or more of the scopes listed in the API documentation "
    "(account:write is never given to a token).",
    members=("unknown",),
    after="relation_self",
):
    pass


class TokensLimit(
    ServiceError,
    code="tokens_limit",
    status=409,
    title="Too many tokens",
    message="You have as many personal access tokens as an account may have: revoke one first.",
    after="scope_invalid",
):
    pass


class GuestKeyRequired(
    ServiceError,
    code="guest_key_required",
    status=403,
    title="Guest key required",
    message="Only a guest key (the key given at guest sign-up) can open a device session this way.",
    after="insufficient_scope",
):
    pass


class AccountDeletionUnconfirmed(
    ServiceError,
    code="account_deletion_unconfirmed",
    status=400,
    title="Account deletion not confirmed",
    message='Deleting an account cannot be undone: send {"confirm": "delete"} to confirm it.',
    after="relation_self",
):
    pass


class AccountPasswordInvalid(
    ServiceError,
    code="account_password_invalid",
    status=403,
    title="Password required",
    message="This account has a password: send it as `password` to delete the account.",
    after="account_deletion_unconfirmed",
):
    pass


# ------------------------------------------------------------------ third-party apps (OIDC)
class IdentityProviderUnavailable(
    ServiceError,
    code="identity_provider_unavailable",
    status=503,
    title="Identity provider unavailable",
    message="Sign-in for third-party apps is off on this server (it has no signing key).",
    after="guest_key_required",
):
    pass


class ConnectedAppNotFound(
    ServiceError,
    code="connected_app_not_found",
    status=404,
    title="Connected app not found",
    message="No app of that id holds access to your account.",
    after="token_not_found",
):
    pass
