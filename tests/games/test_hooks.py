"""games.hooks: the registry through which the apps above games hear of a game."""

from __future__ import annotations

from dataclasses import dataclass

from competition import subscriptions as competition_subscriptions
from games import hooks
from notifications import subscriptions as notifications_subscriptions


@dataclass(frozen=True)
class Pinged:
    n: int


def test_subscribers_are_called_in_order_once_each_and_their_answers_returned() -> None:
    calls: list[str] = []

    def first(event: Pinged) -> int:
        calls.append("first")
        return event.n

    def second(event: Pinged) -> None:
        calls.append("second")

    hooks.subscribe(Pinged, first)
    hooks.subscribe(Pinged, second)
    hooks.subscribe(Pinged, first)  # twice: still once
    try:
        assert hooks.publish(Pinged(7)) == [7, None]
        assert calls == ["first", "second"]
        assert hooks.answer(Pinged(3)) == 3  # the first answer that is not None
    finally:
        hooks.unsubscribe(Pinged, first)
        hooks.unsubscribe(Pinged, second)
    assert hooks.publish(Pinged(1)) == [] and hooks.answer(Pinged(1)) is None


def test_the_apps_subscribe_at_start_ratings_before_the_news() -> None:
    """A game's end is rated (competition) before it is told (notifications): the outbox row
    then carries the version after the ratings fact. INSTALLED_APPS gives the order."""
    ended = hooks.subscribers(hooks.GameEnded)
    assert ended.index(competition_subscriptions.game_ended) < ended.index(
        notifications_subscriptions.game_ended
    )
    for event_type in (
        hooks.GameStarted,
        hooks.MovePlayed,
        hooks.ChatSaid,
        hooks.TurnReminderDue,
        hooks.SeatWanted,
        hooks.RatingChangesWanted,
        hooks.ReminderFractionWanted,
    ):
        assert hooks.subscribers(event_type), event_type
