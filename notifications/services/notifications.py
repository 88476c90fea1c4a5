"""Notifications: the outbox, a player's preferences and mutes, and their webhook endpoints.

``notify`` is called INSIDE the transaction of the event that causes it (a move, a timeout, a
chat message, the reminder sweep): the ``Notification`` row and one ``Delivery`` per enabled
endpoint commit or roll back with the event, so a rolled-back move notifies nobody and a
committed one is never forgotten. The deliveries are sent after the commit, by a worker
(``notifications.services.delivery``): never inside the request.

Exactly once per event: the outbox's unique (player, kind, game, event_seq) turns a second
``notify`` for the same event into nothing, and each delivery's idempotency key is the same on
every attempt.

The texts (title, text) are written in the recipient's language (``recipient_language``: their
account setting, else English) when the notification is stored, so every channel and every
retry carries the same words: the defaults here and the callers' texts are English msgids of the
``django`` catalogue, rendered under ``translation.override`` (callers pass ``lazy_text``).
"""

from __future__ import annotations

import contextlib
import secrets
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone, translation
from django.utils.functional import Promise, lazy
from django.utils.translation import gettext, gettext_noop

from accounts.models import Player
from core import tracing
from core.i18n import language_code
from games.models import Game
from notifications import errors
from notifications.models import (
    Channel,
    Delivery,
    DeliveryStatus,
    GameMute,
    Notification,
    NotificationKind,
    NotificationPreference,
    NotificationSettings,
    WebhookEndpoint,
)
from notifications.services import outbox_sql
from notifications.services.addresses import address_is_public
from notifications.services.delivery import deliveries_send

# ============================================================================== payloads
# The body every channel carries is the stored payload plus the delivery's ``id`` (its
# idempotency key) and ``created_at``. Callers give the text fields (or take the defaults) and
# the public facts of their kind; nothing else is accepted, so no card can slip in by a key.
TEXT_FIELDS = ("title", "text", "url")
KIND_FACTS: dict[str, tuple[str, ...]] = {
    NotificationKind.YOUR_TURN: ("deadline",),
    NotificationKind.GAME_STARTED: (),
    NotificationKind.GO_OUT_ASKED: (),
    NotificationKind.CHAT: ("phrase",),
    NotificationKind.REMINDER: ("deadline",),
    NotificationKind.GAME_OVER: ("winner_team",),
    NotificationKind.CHALLENGE: (
        "challenge_id",
        "challenger_id",
        "preset",
        "rated",
        "expires_at",
    ),
}

# (title, text) msgids; the text's placeholders are the game's id and the kind's facts.
DEFAULT_TEXTS: dict[str, tuple[str, str]] = {
    NotificationKind.YOUR_TURN: (
        gettext_noop("Your turn"),
        gettext_noop("It is your turn in game #%(game)s."),
    ),
    NotificationKind.GAME_STARTED: (
        gettext_noop("Game started"),
        gettext_noop("Game #%(game)s has started."),
    ),
    NotificationKind.GO_OUT_ASKED: (
        gettext_noop("Your partner asks to go out"),
        gettext_noop("Your partner asks whether they may go out in game #%(game)s."),
    ),
    NotificationKind.CHAT: (gettext_noop("Table chat"), gettext_noop("Game #%(game)s: %(phrase)s")),
    NotificationKind.REMINDER: (
        gettext_noop("Your turn: the deadline is near"),
        gettext_noop("Your turn in game #%(game)s ends at %(deadline)s."),
    ),
    NotificationKind.GAME_OVER: (
        gettext_noop("Game over"),
        gettext_noop("Game #%(game)s is over."),
    ),
    NotificationKind.CHALLENGE: (
        gettext_noop("New challenge"),
        gettext_noop("You are challenged to a game (%(preset)s)."),
    ),
}


def _render(template: str, params: dict[str, Any]) -> str:
    """``template`` (an English msgid) in the active language, its placeholders filled; a
    value that is itself a lazy text is rendered in the same language."""
    return gettext(template) % {name: str(value) for name, value in params.items()}


_lazy_render = lazy(_render, str)


def lazy_text(template: str, **params: Any) -> Promise:
    """A notification text to be rendered in the recipient's language when it is stored:
    ``template`` is an English msgid with named placeholders (``"Game #%(game)s started"``)."""
    result: Any = _lazy_render(template, params)
    assert isinstance(result, Promise)
    return result


def recipient_language(player_id: int) -> str:
    """The language ``player_id`` is notified in: their account setting, else English."""
    chosen = Player.objects.filter(pk=player_id).values_list("language", flat=True).first()
    code = language_code(chosen) if chosen else None
    return code or "en"


def game_link(game_id: int | None) -> str:
    """Where the web client shows the game (absolute when ``PUBLIC_URL`` is set)."""
    base = str(getattr(settings, "PUBLIC_URL", "") or "").rstrip("/")
    return f"{base}/#/game/{game_id}" if game_id is not None else f"{base}/"


def payload_check(kind: str, given: dict[str, Any]) -> None:
    """ValueError for an unknown kind, or a key the kind does not carry (a caller's bug)."""
    if kind not in KIND_FACTS:
        raise ValueError(f"unknown notification kind {kind!r}")
    allowed = (*TEXT_FIELDS, *KIND_FACTS[kind])
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise ValueError(f"a {kind} notification carries only {allowed}, not {unknown}")


def payload_build(
    *,
    player_id: int,
    kind: str,
    game: Game | None,
    event_seq: int | None,
    given: dict[str, Any],
    language: str | None = None,
) -> dict[str, Any]:
    """The stored payload: the common fields, the text fields (the caller's or the defaults,
    in ``language``, else the active one) and the kind's public facts. Raises ValueError for an
    unknown kind or key (a caller's bug).
    """
    payload_check(kind, given)
    facts: dict[str, Any] = {}
    for name in KIND_FACTS[kind]:
        value = given.get(name)
        facts[name] = value.isoformat() if isinstance(value, datetime) else value
    game_id = game.pk if game is not None else None
    title, text = DEFAULT_TEXTS[kind]
    words = {"game": game_id, **{k: ("?" if v is None else v) for k, v in facts.items()}}
    with translation.override(language or translation.get_language()):
        return {
            "kind": kind,
            "player_id": player_id,
            "game_id": game_id,
            "game_version": game.version if game is not None else None,
            "title": str(given.get("title") or gettext(title)),
            "text": str(given.get("text") or _render(text, words)),
            "url": str(given.get("url") or game_link(game_id)),
            **facts,
        }


# ============================================================================== the outbox
def enabled_endpoints(player_id: int, kind: str) -> list[tuple[str, int]]:
    """(channel, endpoint id) of every endpoint ``player_id`` receives ``kind`` on: enabled
    webhooks and push subscriptions, the e-mail address (endpoint 0), less the channels the
    player switched off for ``kind``."""
    return outbox_sql.endpoints_read(player_id, kind, None).found


def notify(
    *,
    player_id: int,
    kind: str,
    game: Game | None,
    event_seq: int | None,
    payload: dict[str, Any],
) -> Notification | None:
    """Tell ``player_id`` about an event: call it INSIDE the event's transaction.

    Nothing happens when the game is muted by the player, when no endpoint of the player is on
    for ``kind``, or when this (player, kind, game, event_seq) was notified before. Otherwise
    writes the Notification and one pending Delivery per endpoint, and once the transaction
    commits sends each delivery to a worker. ``payload`` holds the optional ``title``, ``text``
    and ``url`` and the kind's public facts (``KIND_FACTS``: ``deadline`` for your_turn and
    reminder, ``winner_team`` for game_over, ``phrase`` for chat); never a card.
    Returns the new notification, or None. On a move's path: one statement when there is
    nothing to send; when there is, the language lookup, three and a task per endpoint
    (``outbox_sql``).
    """
    payload_check(kind, payload)
    game_id = game.pk if game is not None else None
    endpoints = outbox_sql.endpoints_read(player_id, kind, game_id)
    if endpoints.muted or not endpoints.found:
        return None
    stored = payload_build(
        player_id=player_id,
        kind=kind,
        game=game,
        event_seq=event_seq,
        given=payload,
        language=recipient_language(player_id),
    )
    now = timezone.now()
    notification = outbox_sql.notification_insert(
        player_id=player_id,
        kind=kind,
        game_id=game_id,
        event_seq=event_seq,
        payload=stored,
        now=now,
    )
    if notification is None:
        return None  # notified before: exactly once per event
    ids = outbox_sql.deliveries_insert(notification.pk, endpoints.found, now)
    tracing.on_commit("notifications.deliveries_send", lambda: deliveries_send(ids))
    return notification


# ============================================================================== preferences
def preferences_set(
    player_id: int,
    *,
    reminder_fraction: float | None = None,
    email: str | None = None,
    switches: dict[str, dict[str, bool]] | None = None,
) -> None:
    """Change what is given: the reminder fraction, the e-mail address (blank: no e-mail), and
    per channel and kind whether it is on (``{"webhook": {"chat": False}}``)."""
    with transaction.atomic():
        if reminder_fraction is not None or email is not None:
            row, _ = NotificationSettings.objects.select_for_update().get_or_create(
                player_id=player_id
            )
            if reminder_fraction is not None:
                row.reminder_fraction = reminder_fraction
            if email is not None:
                row.email = email
            row.save()
        for channel, kinds in (switches or {}).items():
            for kind, enabled in kinds.items():
                NotificationPreference.objects.update_or_create(
                    player_id=player_id, channel=channel, kind=kind, defaults={"enabled": enabled}
                )


def game_mute_set(player_id: int, game_id: int, *, muted: bool) -> None:
    """Mute (or unmute) a game's notifications for the player; repeating it changes nothing."""
    if muted:
        GameMute.objects.get_or_create(player_id=player_id, game_id=game_id)
    else:
        GameMute.objects.filter(player_id=player_id, game_id=game_id).delete()


# ============================================================================== webhooks
def webhook_url_check(url: str) -> None:
    """HTTPS only, to a public address; plain http, or a private or loopback address, only to a
    host in ``WEBHOOK_ALLOW_HTTP_HOSTS`` (tests, local development). A host name is resolved
    (and its address checked) when a delivery is sent. Raises ``WebhookUrlRefused``."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if not host or parts.username or parts.password:
        raise errors.WebhookUrlRefused("The webhook URL needs a host and no credentials.")
    allowed = {h.lower() for h in getattr(settings, "WEBHOOK_ALLOW_HTTP_HOSTS", [])}
    if host not in allowed:
        with contextlib.suppress(ValueError):  # a name, not an address: checked when sending
            if not address_is_public(host):
                raise errors.WebhookUrlRefused("A webhook URL must reach a public address.")
    if parts.scheme == "https" or (parts.scheme == "http" and host in allowed):
        return
    raise errors.WebhookUrlRefused("A webhook URL must use https.")


def webhook_register(player_id: int, *, url: str, description: str = "") -> WebhookEndpoint:
    """A new endpoint with a fresh secret (256 bits; shown to its owner once). A player has at
    most ``WEBHOOKS_PER_PLAYER_MAX`` endpoints."""
    webhook_url_check(url)
    limit = int(getattr(settings, "WEBHOOKS_PER_PLAYER_MAX", 10))
    with transaction.atomic():
        # The player's row locked: two registrations at once cannot both pass the limit.
        Player.objects.select_for_update().filter(pk=player_id).values_list("pk").first()
        if WebhookEndpoint.objects.filter(player_id=player_id).count() >= limit:
            raise errors.WebhookLimitReached(
                f"A player may register at most {limit} webhooks: delete one first."
            )
        return WebhookEndpoint.objects.create(
            player_id=player_id, url=url, description=description, secret=secrets.token_hex(32)
        )


def webhook_delete(player_id: int, webhook_id: int) -> None:
    """Remove the player's endpoint; its pending deliveries are dropped."""
    with transaction.atomic():
        deleted, _ = WebhookEndpoint.objects.filter(pk=webhook_id, player_id=player_id).delete()
        if not deleted:
            raise errors.WebhookNotFound()
        Delivery.objects.filter(
            channel=Channel.WEBHOOK, endpoint_id=webhook_id, status=DeliveryStatus.PENDING
        ).update(status=DeliveryStatus.DROPPED, last_error="the endpoint was removed")


def webhook_enable(player_id: int, webhook_id: int) -> WebhookEndpoint:
    """Switch a (disabled) endpoint back on, its failure count and notice cleared."""
    with transaction.atomic():
        endpoint = (
            WebhookEndpoint.objects.select_for_update()
            .filter(pk=webhook_id, player_id=player_id)
            .first()
        )
        if endpoint is None:
            raise errors.WebhookNotFound()
        endpoint.enabled = True
        endpoint.consecutive_failures = 0
        endpoint.disabled_at = None
        endpoint.disabled_reason = ""
        endpoint.save(
            update_fields=["enabled", "consecutive_failures", "disabled_at", "disabled_reason"]
        )
        return endpoint
