"""What notifications hears of a game (``games.hooks``) and of an account (``accounts.hooks``),
subscribed at app start: each call runs in the game's (or the deletion's) transaction, so an
outbox row commits with the fact it tells of."""

from __future__ import annotations

from typing import Any

from accounts import hooks as account_hooks
from games import hooks
from notifications.models import NotificationSettings
from notifications.selectors.account_export import player_notifications_export
from notifications.services import game_notifications as tell
from notifications.services.challenge_notifications import challenge_notify
from notifications.services.departures import player_notifications_forget


def game_started(event: hooks.GameStarted) -> None:
    tell.game_started_notify(event.game)


def move_played(event: hooks.MovePlayed) -> None:
    tell.move_notify(
        event.game, acted=event.acted, action_type=event.action_type, by_player=event.by_player
    )


def game_ended(event: hooks.GameEnded) -> None:
    tell.game_over_notify(event.game, ended=event.ended, skip=event.skip)


def chat_said(event: hooks.ChatSaid) -> None:
    tell.chat_notify(
        event.game,
        seat=event.seat,
        event_seq=event.event_seq,
        phrase=event.phrase,
        text=event.text,
        hidden_from=event.hidden_from,
    )


def turn_reminder_due(event: hooks.TurnReminderDue) -> bool:
    return tell.reminder_notify(event.game)


def reminder_fraction(event: hooks.ReminderFractionWanted) -> float | None:
    """The fraction of a correspondence turn after which the player chose to be reminded."""
    return (
        NotificationSettings.objects.filter(player_id=event.player_id)
        .values_list("reminder_fraction", flat=True)
        .first()
    )


def account_deleting(event: account_hooks.AccountDeleting) -> None:
    player_notifications_forget(event.player)


def account_export(event: account_hooks.AccountExportWanted) -> dict[str, Any]:
    return {"notifications": player_notifications_export(player=event.player)}


def challenge_issued(event: hooks.ChallengeIssued) -> None:
    challenge_notify(event.challenge)


def subscribe() -> None:
    hooks.subscribe(hooks.GameStarted, game_started)
    hooks.subscribe(hooks.MovePlayed, move_played)
    hooks.subscribe(hooks.GameEnded, game_ended)
    hooks.subscribe(hooks.ChatSaid, chat_said)
    hooks.subscribe(hooks.TurnReminderDue, turn_reminder_due)
    hooks.subscribe(hooks.ReminderFractionWanted, reminder_fraction)
    hooks.subscribe(hooks.ChallengeIssued, challenge_issued)
    account_hooks.subscribe(account_hooks.AccountDeleting, account_deleting)
    account_hooks.subscribe(account_hooks.AccountExportWanted, account_export)
