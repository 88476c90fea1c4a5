"""What happens to an account, published to the apps above ``accounts``: the registry through
which ``games``, ``competition`` and ``notifications`` take part in an account's deletion and
export without ``accounts`` importing them (as ``games.hooks`` does for a game).

Each event is a frozen dataclass. A subscriber registers for an event class at its app's start
(``AppConfig.ready``) and is called, in the order of registration (the order of
``INSTALLED_APPS``: ``games`` before ``competition`` before ``notifications``), by ``publish``,
which returns what each subscriber returned.

- ``AccountDeleting``: published inside the deletion's transaction, under the player's row lock,
  before ``accounts`` clears its own rows. Each app ends the player's part in what it keeps (a
  game in play is conceded, ratings leave the leaderboards, webhooks are deleted) in that
  transaction, so the deletion commits or rolls back whole.
- ``AccountExportWanted``: a query; each subscriber answers with its sections of the player's
  data (``{section name: JSON-ready data}``), or None.
"""

from __future__ import annotations

from dataclasses import dataclass

from accounts.models import Player
from core.hooks import publish, subscribe, subscribers, unsubscribe

__all__ = ["publish", "subscribe", "subscribers", "unsubscribe"]  # the registry (core.hooks)


@dataclass(frozen=True)
class AccountDeleting:
    """``player``'s account is being deleted (their row is locked; their display name is
    already the deleted player's name). Remove every personal row of the player's and end their
    part in anything in progress."""

    player: Player


@dataclass(frozen=True)
class AccountExportWanted:
    """A query: the subscriber's sections of ``player``'s data export, ``{name: data}``. Never
    another player's hidden cards."""

    player: Player
