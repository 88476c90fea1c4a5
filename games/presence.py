"""Presence: when a seated player was last seen at a table (a live connection, a request).

Not game state: it lives in Django's cache (Redis in production, shared by every process; this
process's memory otherwise), never in the database, so a waiting client's GET writes nothing
there. An entry expires on its own a while after the presence window.
"""

from __future__ import annotations

import datetime as dt

from django.core.cache import cache

PRESENCE_WINDOW_SECONDS = 45  # a seat seen within this is "connected"
PRESENCE_WRITE_SECONDS = 5  # an entry is rewritten at most this often per player and game
KEY = "canasta:presence:{game}:{player}"


def presence_note(game_id: int, player_id: int, now: dt.datetime) -> None:
    """Record ``now`` as the player's last sighting at the game (at most every few seconds)."""
    key = KEY.format(game=game_id, player=player_id)
    last = cache.get(key)
    if last is not None and (now - last).total_seconds() < PRESENCE_WRITE_SECONDS:
        return
    cache.set(key, now, timeout=PRESENCE_WINDOW_SECONDS * 4)


def presence_seen(game_id: int, player_ids: list[int]) -> dict[int, dt.datetime]:
    """Each player's last sighting at the game (players not seen lately are left out)."""
    keys = {KEY.format(game=game_id, player=p): p for p in player_ids}
    found = cache.get_many(list(keys))
    return {keys[k]: v for k, v in found.items()}


def presence_note_many(game_id: int, player_ids: list[int], now: dt.datetime) -> None:
    """``presence_note`` for several players at once (one cache round trip): the live feed
    notes every seated player who follows the game."""
    if player_ids:
        keys = {KEY.format(game=game_id, player=p): now for p in player_ids}
        cache.set_many(keys, timeout=PRESENCE_WINDOW_SECONDS * 4)
