"""The notifications' error codes: webhooks and Web Push (see ``core.errors``, the one
catalogue). The table lists them after the game's codes (``after=``)."""

from __future__ import annotations

from core.errors import ServiceError


class WebhookUrlRefused(
    ServiceError,
    code="webhook_url_refused",
    status=400,
    title="Webhook URL refused",
    message="A webhook URL must be https (plain http only to a host the server allows), with a "
    "host and no credentials.",
    after="timer_proposal_missing",
):
    pass


class WebhookLimitReached(
    ServiceError,
    code="webhook_limit_reached",
    status=409,
    title="Webhook limit reached",
    message="You have as many webhooks as a player may register: delete one first.",
    after="webhook_url_refused",
):
    pass


class WebhookNotFound(ServiceError, code="not_found"):
    default_message = "You have no webhook with that id."


class WebPushUnavailable(
    ServiceError,
    code="web_push_unavailable",
    status=503,
    title="Web Push unavailable",
    message="Web Push is not configured on this server (no VAPID key): use a webhook or e-mail.",
    after="webhook_limit_reached",
):
    pass


class PushEndpointRefused(
    ServiceError,
    code="push_endpoint_refused",
    status=400,
    title="Push endpoint refused",
    message="A push subscription's endpoint must be an https URL of a push service at a public "
    "address (plain http only to a host the server allows), with no credentials.",
    after="web_push_unavailable",
):
    pass


class PushSubscriptionLimitReached(
    ServiceError,
    code="push_subscription_limit_reached",
    status=409,
    title="Push subscription limit reached",
    message="You have as many push subscriptions as a player may keep: delete one first.",
    after="push_endpoint_refused",
):
    pass


class PushEndpointTaken(
    ServiceError,
    code="push_endpoint_taken",
    status=409,
    title="Push endpoint taken",
    message="This push endpoint is registered already, and not by you: unsubscribe the browser "
    "and subscribe it again for an endpoint of its own.",
    after="push_subscription_limit_reached",
):
    pass


class PushSubscriptionNotFound(ServiceError, code="not_found"):
    default_message = "You have no push subscription with that id."


class NativePushUnavailable(
    ServiceError,
    code="native_push_unavailable",
    status=503,
    title="Native push unavailable",
    message="This push service (FCM or APNs) is not configured on this server: use Web Push, a "
    "webhook or e-mail.",
    after="push_endpoint_taken",
):
    pass


class PushDeviceLimitReached(
    ServiceError,
    code="push_device_limit_reached",
    status=409,
    title="Push device limit reached",
    message="You have as many push devices as a player may keep: delete one first.",
    after="native_push_unavailable",
):
    pass


class PushDeviceNotFound(ServiceError, code="not_found"):
    default_message = "You have no push device with that id."
