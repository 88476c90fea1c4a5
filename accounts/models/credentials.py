"""Credentials: device sessions and the keys that stand for a person or a program.

No secret is stored: a key's row holds the SHA-256 digest of the key (the key is 256 random
bits, so a digest without a salt is as strong as the key), and the key itself is shown once,
when it is made. Revoking a key deletes its row; ending a device session deletes the session
and, with it, every key it issued. A refresh key that was used stays (``used_at``) until its
session ends, so that presenting it again is seen as a replay and ends the session."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class DeviceSession(models.Model):
    """One signed-in device (a phone app, a program): made at sign-in, it holds the device's
    access key and refresh keys, and the sign-in flow's Django session (``session_key``)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="device_sessions"
    )
    device = models.CharField(
        max_length=80, blank=True, help_text="The device's own name for itself."
    )
    user_agent = models.CharField(max_length=300, blank=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    # The Django session of the sign-in (allauth's X-Session-Token): ended with this session.
    session_key = models.CharField(max_length=40, blank=True, db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-last_seen_at",)

    def __str__(self) -> str:
        return f"{self.user_id}: {self.device or self.user_agent[:30]}"


class CredentialKind(models.TextChoices):
    GUEST = "guest", "Guest key"  # made at guest sign-up; never expires
    ACCESS = "access", "Access key"  # a device session's short-lived key
    REFRESH = "refresh", "Refresh key"  # a device session's key for a new access key
    PERSONAL = "personal", "Personal access token"  # made by its owner, with scopes


class Credential(models.Model):
    """A key that authenticates requests (guest, access, personal) or renews them (refresh)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="credentials"
    )
    kind = models.CharField(max_length=8, choices=CredentialKind.choices)
    digest = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the key, hex.")
    # The key's first characters, to tell personal tokens apart in a list (not a secret).
    prefix = models.CharField(max_length=12, blank=True)
    name = models.CharField(max_length=80, blank=True)
    scopes = models.JSONField(default=list)
    session = models.ForeignKey(
        DeviceSession, null=True, blank=True, on_delete=models.CASCADE, related_name="credentials"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    used_at = models.DateTimeField(null=True, blank=True, help_text="A refresh key's use.")

    class Meta:
        indexes = [models.Index(fields=["user", "kind"], name="credential_user_kind")]

    def __str__(self) -> str:
        return f"{self.kind} {self.prefix}… of {self.user_id}"
