"""Token authentication: the user and their player in one query, then remembered.

A token never changes hands: once looked up, the (user, player) it stands for is kept in a small
per-process cache for ``AUTH_TOKEN_CACHE_SECONDS`` (default 30; 0 turns it off), so a player's
moves after the first pay no query for authentication. What that costs: a user deactivated or
a token deleted elsewhere (the admin site, another server) is refused only once the entry
expires; in this process the change is seen at once (the cache is cleared on those writes).
The cache holds ids, the display name, the sign-up time and the bot-account flag only; every
request gets model instances of its own.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from rest_framework import authentication, exceptions
from rest_framework.authtoken.models import Token
from rest_framework.request import Request

from accounts import errors
from accounts.models import Player

CACHE_MAX_ENTRIES = 10_000


@dataclass(frozen=True)
class _Holder:
    user_id: int
    player_id: int | None
    display_name: str
    joined: datetime | None  # the player's created_at
    is_bot: bool  # a bot account (fixed at sign-up)
    expires: float


class TokenCache:
    """Token key -> who holds it, for a bounded time; the oldest entries go first when full."""

    def __init__(self, max_entries: int = CACHE_MAX_ENTRIES) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[str, _Holder] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> _Holder | None:
        with self._lock:
            holder = self._entries.get(key)
            if holder is not None and holder.expires <= time.monotonic():
                del self._entries[key]
                return None
            return holder

    def put(self, key: str, user: Any, player: Player | None, seconds: int) -> None:
        holder = _Holder(
            user_id=user.pk,
            player_id=player.pk if player is not None else None,
            display_name=player.display_name if player is not None else "",
            joined=player.created_at if player is not None else None,
            is_bot=player.is_bot if player is not None else False,
            expires=time.monotonic() + seconds,
        )
        with self._lock:
            self._entries[key] = holder
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


token_cache = TokenCache()


@receiver(post_delete, sender=Token)
@receiver(post_save, sender=User)
@receiver(post_delete, sender=User)
@receiver(post_save, sender=Player)
def _forget_tokens(created: bool = False, **_: Any) -> None:
    """A token deleted, a user changed (deactivated, say) or a player renamed: look tokens up
    afresh. A new user or player (a sign-up) changes no token already known."""
    if not created:
        token_cache.clear()


def _instances(key: str, holder: _Holder) -> tuple[User, Token]:
    """Fresh, unshared model instances for a remembered holder (other fields load on use)."""
    db = "default"
    user = User.from_db(db, ["id", "is_active"], [holder.user_id, True])
    if holder.player_id is not None:
        player = Player.from_db(
            db,
            # The model's field order (``from_db`` reads the values in that order).
            ["id", "user_id", "display_name", "is_bot", "created_at"],
            [holder.player_id, holder.user_id, holder.display_name, holder.is_bot, holder.joined],
        )
        user.player = player  # the reverse one-to-one cache, as select_related leaves it
    token = Token.from_db(db, ["key", "user_id"], [key, holder.user_id])
    token.user = user
    return user, token


class TokenAuthentication(authentication.TokenAuthentication):
    """DRF's token authentication with the user and their ``Player`` joined to the token row,
    remembered per process for ``AUTH_TOKEN_CACHE_SECONDS``."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        seconds: int = getattr(settings, "AUTH_TOKEN_CACHE_SECONDS", 0)
        holder = token_cache.get(key) if seconds else None
        if holder is not None:
            return _instances(key, holder)
        # A token's first request (and the first after its entry expires): one query.
        token = Token.objects.select_related("user", "user__player").filter(key=key).first()
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        if seconds:
            token_cache.put(key, token.user, getattr(token.user, "player", None), seconds)
        return (token.user, token)


def player_of(request: Request) -> Player:
    """The requester's player profile (every user gets one when it is made: reads never write)."""
    player: Player | None = getattr(request.user, "player", None)
    if player is None:
        raise errors.PlayerProfileMissing()
    return player
