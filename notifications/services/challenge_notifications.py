"""The notification a challenge causes: the invitee is told (kind ``challenge``) through the
channels they chose for it, in the transaction that issued it (``games.hooks.ChallengeIssued``).

A challenge belongs to no game yet: the notification has no game, and its payload names the
challenge, the challenger, the preset, whether it is rated and when it expires."""

from __future__ import annotations

from datetime import UTC

from django.utils.translation import gettext_noop

from games.models import Challenge
from notifications.models import NotificationKind
from notifications.services.notifications import lazy_text, notify


def challenge_notify(challenge: Challenge) -> None:
    """Tell the invitee of a new challenge (bots are told too: a bot account's program may
    answer through a webhook)."""
    name = challenge.challenger.display_name
    until = f"{challenge.expires_at.astimezone(UTC):%Y-%m-%d %H:%M}"
    text = (
        gettext_noop(
            "%(name)s challenges you to a rated game (%(preset)s). Accept it before %(until)s UTC."
        )
        if challenge.rated
        else gettext_noop(
            "%(name)s challenges you to a game (%(preset)s). Accept it before %(until)s UTC."
        )
    )
    notify(
        player_id=challenge.invitee_id,
        kind=NotificationKind.CHALLENGE,
        game=None,
        event_seq=None,
        payload={
            "title": lazy_text(gettext_noop("%(name)s challenges you"), name=name),
            "text": lazy_text(text, name=name, preset=challenge.preset, until=until),
            "challenge_id": challenge.pk,
            "challenger_id": challenge.challenger_id,
            "preset": challenge.preset,
            "rated": challenge.rated,
            "expires_at": challenge.expires_at,
        },
    )
