"""Players: guest sign-up, a player profile for every user made elsewhere, display names.

Renaming a player also rewrites the seating of every game they sit at, so it is a games
service (``games.services.players``)."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from accounts import errors
from accounts.models import Player
from accounts.services.credentials import guest_key_issue
from core.i18n import language_code, language_tag

DISPLAY_NAME_MAX = 40


def player_create(*, display_name: str, bot: bool = False) -> tuple[Player, str]:
    """A guest player: a user without a password, a display name and a guest key. ``bot``
    makes it a bot account (a program playing through the API: shown as a bot at every table,
    kept from rated tables and the quick-play queue); the flag is fixed at sign-up."""
    user_model = get_user_model()
    with transaction.atomic():
        # No password: create_user stores an unusable one.
        user = user_model.objects.create_user(username=f"guest-{secrets.token_hex(8)}")
        # The user's profile was made as the user was saved (``user_saved``): name it.
        player = player_for_user_ensure(user)
        player.display_name = display_name.strip()
        player.is_bot = bot
        # A new player: no request knows it yet, so no save signal (which makes the token
        # cache look every holder up again) is needed.
        Player.objects.filter(pk=player.pk).update(
            display_name=player.display_name, is_bot=player.is_bot
        )
        key = guest_key_issue(user, bot=bot)
    return player, key


def player_for_user_ensure(user: Any) -> Player:
    """The user's player profile, made if missing (a user created by the admin or
    ``createsuperuser``). Called when a user is saved, never on a read."""
    player, _ = Player.objects.get_or_create(
        user=user, defaults={"display_name": user.get_username()[:40]}
    )
    return player


def user_saved(sender: Any, instance: Any, created: bool, raw: bool = False, **_: Any) -> None:
    """``post_save`` receiver for the user model (connected in ``AccountsConfig.ready``): every
    new user gets a player profile, so no request has to make one."""
    if created and not raw:
        player_for_user_ensure(instance)


def display_name_clean(display_name: str) -> str:
    """``display_name`` without spaces at either end; ``DisplayNameInvalid`` unless it is then
    1 to ``DISPLAY_NAME_MAX`` characters long."""
    name = display_name.strip()
    if not 1 <= len(name) <= DISPLAY_NAME_MAX:
        raise errors.DisplayNameInvalid()
    return name


def player_rename_at_signup(user: Any, display_name: str) -> None:
    """Name a player made by an e-mail sign-up (no game knows it yet: nothing to rewrite)."""
    player = player_for_user_ensure(user)
    Player.objects.filter(pk=player.pk).update(display_name=display_name.strip()[:DISPLAY_NAME_MAX])


def player_language_set(player: Player, language: str) -> Player:
    """Set the language the service answers and notifies ``player`` in: a BCP 47 tag of
    ``settings.LANGUAGES`` (any case, ``pt_BR`` too), or blank for none (each request's
    ``Accept-Language``; English for notifications). ``LanguageInvalid`` for another. Saved
    with the model's signal, so remembered keys look the player up again."""
    tag = ""
    if language.strip():
        code = language_code(language)
        if code is None:
            raise errors.LanguageInvalid()
        tag = language_tag(code)
    if player.language != tag:
        player.language = tag
        player.save(update_fields=["language"])
    return player
