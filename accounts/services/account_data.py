"""Deleting an account, and exporting a player's data.

Deletion is confirmed (``{"confirm": "delete"}``, and the password of an account that has one)
and takes effect at once, in one transaction under the player's row lock: every app above
``accounts`` ends the player's part in what it keeps through ``accounts.hooks.AccountDeleting``
(games in play are conceded, ratings leave the leaderboards, webhooks and push subscriptions
go), then ``accounts`` ends every credential and session and clears its own rows. The player row
stays, since finished games name it, with no personal data: the deleted player's name,
``deleted_at`` set. The user is inactive, renamed, without e-mail or usable password.

The export is one JSON document: ``accounts``' sections (profile, relations, friends) and each
subscriber's (``accounts.hooks.AccountExportWanted``).
"""

from __future__ import annotations

import secrets
from typing import Any

from django.apps import apps
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts import errors, hooks
from accounts.models import Player, PlayerRelation
from accounts.models.friends import FriendRequest, Friendship
from accounts.selectors.players import relations_get
from accounts.services.credentials import credentials_revoke_all

# What others see of a deleted player (every seat they held, every list that names them).
DELETED_PLAYER_NAME = "Deleted player"
# The confirmation a deletion request must carry.
DELETE_CONFIRMATION = "delete"
EXPORT_FORMAT = "canasta-account-export/1"


def account_delete_check(*, user: Any, confirm: Any, password: Any) -> None:
    """Refuse a deletion that is not confirmed (400 ``account_deletion_unconfirmed``) or, for
    an account with a usable password, that lacks it or has it wrong (403
    ``account_password_invalid``)."""
    if confirm != DELETE_CONFIRMATION:
        raise errors.AccountDeletionUnconfirmed()
    if user.has_usable_password() and (
        not isinstance(password, str) or not password or not user.check_password(password)
    ):
        raise errors.AccountPasswordInvalid()


def account_delete(*, player: Player, confirm: Any, password: Any = None) -> Player:
    """Delete ``player``'s account at once (see the module's text); the player row as it stays.
    Nothing changes when the request is refused."""
    user = player.user
    account_delete_check(user=user, confirm=confirm, password=password)
    with transaction.atomic():
        player = Player.objects.select_for_update().select_related("user").get(pk=player.pk)
        if player.deleted_at is not None:
            return player
        user = player.user
        player.display_name = DELETED_PLAYER_NAME
        player.save(update_fields=["display_name"])
        hooks.publish(hooks.AccountDeleting(player))
        _own_rows_delete(player, user)
        player.deleted_at = timezone.now()
        player.display_name = DELETED_PLAYER_NAME
        player.language = ""
        player.save(update_fields=["display_name", "deleted_at", "language"])
        user.username = f"deleted-{player.pk}-{secrets.token_hex(4)}"
        user.email = ""
        user.first_name = ""
        user.last_name = ""
        user.is_active = False
        user.is_staff = False
        user.is_superuser = False
        user.set_unusable_password()
        user.save()
    return player


def _installed_model(app_label: str, model: str) -> Any:
    """The model when its app is installed, else None."""
    try:
        return apps.get_model(app_label, model)
    except LookupError:
        return None


# Other apps' rows that belong to a user: allauth's e-mail addresses, MFA authenticators,
# browser sessions (ended by ``credentials_revoke_all``; any left are deleted) and social
# accounts, and DRF's API tokens of the accounts made before keys were credentials.
USER_ROWS = (
    ("authtoken", "Token"),
    ("account", "EmailAddress"),
    ("mfa", "Authenticator"),
    ("usersessions", "UserSession"),
    ("socialaccount", "SocialAccount"),
)


def _own_rows_delete(player: Player, user: Any) -> None:
    """Every credential and session ends; relations, friends and the user's rows go."""
    credentials_revoke_all(user)
    for app_label, name in USER_ROWS:
        model = _installed_model(app_label, name)
        if model is not None:
            model.objects.filter(user=user).delete()
    PlayerRelation.objects.filter(Q(owner=player) | Q(other=player)).delete()
    Friendship.objects.filter(Q(owner=player) | Q(friend=player)).delete()
    FriendRequest.objects.filter(Q(from_player=player) | Q(to_player=player)).delete()


def account_export(*, player: Player) -> dict[str, Any]:
    """``player``'s data as one JSON-ready document: the profile, relations and friends, then
    each app's sections (games played and their results, ratings and their history,
    notification settings). Reads only."""
    user = player.user
    emails: list[dict[str, Any]] = []
    email_model = _installed_model("account", "EmailAddress")
    if email_model is not None:
        emails = [
            {"email": e.email, "verified": e.verified, "primary": e.primary}
            for e in email_model.objects.filter(user=user).order_by("-primary", "email")
        ]
    authenticator_model = _installed_model("mfa", "Authenticator")
    authenticators: list[dict[str, Any]] = []
    if authenticator_model is not None:
        authenticators = [
            {"type": a.type, "created_at": a.created_at, "last_used_at": a.last_used_at}
            for a in authenticator_model.objects.filter(user=user).order_by("created_at")
        ]
    document: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "exported_at": timezone.now(),
        "profile": {
            "id": player.pk,
            "display_name": player.display_name,
            "is_bot": player.is_bot,
            "language": player.language,
            "created_at": player.created_at,
            "username": user.get_username(),
            "email": user.email,
            "has_password": user.has_usable_password(),
            "last_login": user.last_login,
            "emails": emails,
            "authenticators": authenticators,
        },
        "relations": relations_get(owner=player),
        "friends": _friends_of(player),
    }
    for answer in hooks.publish(hooks.AccountExportWanted(player)):
        if answer:
            document.update(answer)
    return document


def _friends_of(player: Player) -> dict[str, Any]:
    friends = Friendship.objects.filter(owner=player).select_related("friend")
    sent = FriendRequest.objects.filter(from_player=player).select_related("to_player")
    received = FriendRequest.objects.filter(to_player=player).select_related("from_player")
    return {
        "friends": [
            {"id": f.friend_id, "display_name": f.friend.display_name, "since": f.created_at}
            for f in friends
        ],
        "requests_sent": [
            {"id": r.to_player_id, "display_name": r.to_player.display_name, "at": r.created_at}
            for r in sent
        ],
        "requests_received": [
            {"id": r.from_player_id, "display_name": r.from_player.display_name, "at": r.created_at}
            for r in received
        ],
    }
