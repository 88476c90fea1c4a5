"""Players: guest sign-up, and a player profile for every user made elsewhere."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from rest_framework.authtoken.models import Token

from games.models import Player


def player_create(*, display_name: str) -> tuple[Player, str]:
    """A guest player: a user without a password, a display name and an API token."""
    user_model = get_user_model()
    with transaction.atomic():
        # No password: create_user stores an unusable one.
        user = user_model.objects.create_user(username=f"guest-{secrets.token_hex(8)}")
        # The user's profile was made as the user was saved (``user_saved``): name it.
        player = player_for_user_ensure(user)
        player.display_name = display_name.strip()
        player.save(update_fields=["display_name"])
        token = Token.objects.create(user=user)
    return player, token.key


def player_for_user_ensure(user: Any) -> Player:
    """The user's player profile, made if missing (a user created by the admin or
    ``createsuperuser``). Called when a user is saved, never on a read."""
    player, _ = Player.objects.get_or_create(
        user=user, defaults={"display_name": user.get_username()[:40]}
    )
    return player


def user_saved(sender: Any, instance: Any, created: bool, raw: bool = False, **_: Any) -> None:
    """``post_save`` receiver for the user model (connected in ``GamesConfig.ready``): every
    new user gets a player profile, so no request has to make one."""
    if created and not raw:
        player_for_user_ensure(instance)
