"""Django admin for the game service. The move log is read-only: the log is the truth."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from games.models import Game, GameEvent, IdempotencyRecord, Meld, Player, RoundScore, Seat


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("id", "display_name", "user", "created_at")
    search_fields = ("display_name", "user__username")


class SeatInline(admin.TabularInline):
    """Seats change only through the services, which keep ``Game.seating`` equal to them."""

    model = Seat
    extra = 0
    fields = ("index", "team", "player", "bot_level", "joined_at", "timeouts", "stand_in")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "preset", "status", "version", "is_public", "created_by", "created_at")
    list_filter = ("status", "preset", "is_public")
    search_fields = ("join_code",)
    readonly_fields = (
        "version",
        "snapshot",
        "seating",
        "seed",
        "rules_version",
        "created_at",
        "updated_at",
    )
    raw_id_fields = ("created_by",)
    inlines = [SeatInline]


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ("game", "index", "team", "player", "bot_level")
    raw_id_fields = ("game", "player")


@admin.register(Meld)
class MeldAdmin(ReadOnlyAdmin):
    list_display = ("game", "team", "rank", "is_canasta", "natural_count", "wild_count")


@admin.register(RoundScore)
class RoundScoreAdmin(ReadOnlyAdmin):
    list_display = ("game", "round_no", "team", "total", "cumulative")


@admin.register(GameEvent)
class GameEventAdmin(ReadOnlyAdmin):
    list_display = ("game", "seq", "type", "seat", "source", "created_at")
    list_filter = ("type", "source")


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin):
    list_display = ("player", "game", "key", "response_status", "created_at")
