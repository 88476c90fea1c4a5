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

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from accounts.models import Player


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


E = TypeVar("E")
Subscriber = Callable[[Any], Any]

_subscribers: dict[type, list[Subscriber]] = defaultdict(list)


def subscribe(event_type: type[E], subscriber: Callable[[E], Any]) -> None:
    """Call ``subscriber`` with every published ``event_type`` (once, however often a test
    or an app registers it)."""
    if subscriber not in _subscribers[event_type]:
        _subscribers[event_type].append(subscriber)


def subscribers(event_type: type) -> list[Subscriber]:
    """Who hears ``event_type``, in the order they are called."""
    return list(_subscribers.get(event_type, ()))


def unsubscribe(event_type: type[E], subscriber: Callable[[E], Any]) -> None:
    """Stop calling ``subscriber`` (tests)."""
    if subscriber in _subscribers.get(event_type, ()):
        _subscribers[event_type].remove(subscriber)


def publish(event: object) -> list[Any]:
    """Call the subscribers of ``event``'s class in order; what each returned."""
    return [subscriber(event) for subscriber in _subscribers.get(type(event), ())]
