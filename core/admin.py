"""The admin's shared parts: what every app shows read-only.

A game's truth is its move log, and what the services store beside it is kept equal to the log
in the transaction of each change; the outbox, the ratings and the reviews are written by their
services too. So the admin shows every model of the service and changes none (no add, change or
delete), but a player's display name (``games.admin``).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from django.apps import apps
from django.contrib import admin
from django.http import HttpRequest


class ReadOnlyAdmin(admin.ModelAdmin):
    """Shown, never written: no add, change or delete (a POST to a change view is refused)."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def read_only_register(app_label: str, *, skip: Collection[str] = ()) -> None:
    """Register every model of ``app_label`` not yet registered (but the ``skip`` model names,
    registered elsewhere) as read-only."""
    for model in apps.get_app_config(app_label).get_models():
        if model._meta.model_name not in skip and not admin.site.is_registered(model):
            admin.site.register(model, ReadOnlyAdmin)
