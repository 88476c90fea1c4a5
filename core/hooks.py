"""The registry behind the apps' hooks (``accounts.hooks``, ``games.hooks``): an app publishes
an event (a frozen dataclass) and the apps above it, which it must not import, subscribe to the
event's class when they start. One registry serves every app: events are told apart by class.

Subscribers are called in the order they registered (the order of ``INSTALLED_APPS``);
``publish`` returns what each returned, ``answer`` the first answer that is not None (for
events that are queries)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any, TypeVar

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


def answer(event: object) -> Any:
    """The first answer to a query that is not None (None when nobody answers)."""
    for value in publish(event):
        if value is not None:
            return value
    return None
