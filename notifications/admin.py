"""The outbox, deliveries, endpoints and preferences in the admin: shown, never written
(``core.admin``)."""

from core.admin import read_only_register

read_only_register("notifications")
