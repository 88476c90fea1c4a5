"""The local FCM and APNs receivers' fixtures for every notifications test
(tests/notifications/push_receivers.py)."""

from tests.notifications.push_receivers import (  # noqa: F401 - fixtures
    _apns_server,
    _fcm_server,
    apns_receiver,
    fcm_receiver,
    native_push_off,
    push_tls,
)
