"""Scopes: what a credential may do. Every API view declares the scopes that let a request in
(``read_scopes`` for GET, HEAD and OPTIONS, ``write_scopes`` for the other methods; any one of
them suffices). A person's own sign-in (a device session, the browser session, a guest key)
holds every scope (``ALL``); a personal access token or a third-party app holds the scopes it
was given; a bot account's key holds ``BOT_ACCOUNT``."""

from __future__ import annotations

from collections.abc import Iterable

ALL = "*"

PROFILE_READ = "profile:read"
PROFILE_WRITE = "profile:write"
PLAY = "play"
BOT_PLAY = "bot:play"
CHALLENGE_WRITE = "challenge:write"
TOURNAMENT_WRITE = "tournament:write"
NOTIFICATIONS_WRITE = "notifications:write"
ACCOUNT_WRITE = "account:write"

# Every scope, with what it lets a program do (the schema's oauth2 scheme lists these).
SCOPES: dict[str, str] = {
    PROFILE_READ: "Read your profile, ratings, friends and the public lists.",
    PROFILE_WRITE: "Change your display name, favourites, blocks and friends.",
    PLAY: "Create, join and play games; chat, hints, reviews, quick play.",
    BOT_PLAY: "Play as a bot account: read and play the games it sits at.",
    CHALLENGE_WRITE: "Send, accept and decline challenges.",
    TOURNAMENT_WRITE: "Create and run tournaments.",
    NOTIFICATIONS_WRITE: "Change notification settings, webhooks and push subscriptions.",
    ACCOUNT_WRITE: "Manage sign-in: sessions, tokens, deletion and export (your own sign-in only).",
}

# What a personal access token or a third-party app may be given: never account management.
GRANTABLE: frozenset[str] = frozenset(SCOPES) - {ACCOUNT_WRITE}

# A bot account's key: it plays, and reads its profile; nothing else.
BOT_ACCOUNT: tuple[str, ...] = (BOT_PLAY, PROFILE_READ)

# What the API's views declare (any one suffices), by what they let a program do.
# Reading and playing the games one sits at: the game, its log and live feed, moves, seats,
# chat at the table, concede, rematch; a bot account also opens and starts casual tables.
GAME_PLAY: tuple[str, ...] = (PLAY, BOT_PLAY)
# A person's play beyond a bot account's: rated tables, quick play, hints, reviews, proposals
# to pause or to turn the timer off.
PERSON_PLAY: tuple[str, ...] = (PLAY,)
# Reading one's own profile, relations and games (what every player's program needs).
OWN_PROFILE_READ: tuple[str, ...] = (PROFILE_READ, PLAY, BOT_PLAY)
# Reading other players: profiles, ratings, leaderboards.
PROFILES_READ: tuple[str, ...] = (PROFILE_READ,)
# Changing one's profile: name, blocks, favourites.
PROFILE_CHANGE: tuple[str, ...] = (PROFILE_WRITE,)
# Notification settings, webhooks and push subscriptions.
NOTIFICATIONS_READ: tuple[str, ...] = (NOTIFICATIONS_WRITE, PROFILE_READ)
NOTIFICATIONS_CHANGE: tuple[str, ...] = (NOTIFICATIONS_WRITE,)


def scopes_grant(held: Iterable[str], wanted: Iterable[str]) -> bool:
    """Whether a credential holding ``held`` may do what needs any one of ``wanted``."""
    held_set = frozenset(held)
    return ALL in held_set or not held_set.isdisjoint(wanted)


def scopes_unknown(names: Iterable[str]) -> list[str]:
    """The names that are not scopes a token may be given, in the order given."""
    return [name for name in names if name not in GRANTABLE]
