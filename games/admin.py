"""Django admin for the game service.

A game's truth is its move log, and what is stored beside it (the snapshot, the seats and their
copy on the game row, the projections, the table) is kept equal to the log by the services, in
the transaction of each change. So the admin shows all of it and changes none of it: every model
of the app is here read-only (no add, change or delete; ``core.admin``), except a player's display
name, which is saved through ``games.services.players.player_rename`` (it also renames the player
in the seating of every game they sit at, so the player's admin is here rather than in accounts).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from accounts import errors as account_errors
from accounts.models import Player
from accounts.services.players import display_name_clean
from core.admin import ReadOnlyAdmin, ReadOnlyInline, read_only_register
from games.models import Game, GameEvent, IdempotencyRecord, Meld, RoundScore, Seat
from games.services.players import player_rename


# ------------------------------------------------------------------------------ players
class PlayerForm(forms.ModelForm):
    class Meta:
        model = Player
        fields = ("display_name",)

    def clean_display_name(self) -> str:
        try:
            return display_name_clean(self.cleaned_data.get("display_name") or "")
        except account_errors.DisplayNameInvalid as exc:
            raise ValidationError(exc.message) from None


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    """Only the display name changes, through the rename service; players are made with their
    users (sign-up, ``createsuperuser``) and are not deleted here."""

    form = PlayerForm
    list_display = ("id", "display_name", "user", "created_at")
    search_fields = ("display_name", "user__username")
    fields = ("display_name", "user", "created_at")
    readonly_fields = ("user", "created_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> None:
        player_rename(obj, form.cleaned_data["display_name"])


# ------------------------------------------------------------------------------ games
class SeatInline(ReadOnlyInline):
    model = Seat
    fields = ("index", "team", "player", "bot_level", "joined_at", "timeouts", "stand_in")
    readonly_fields = fields


@admin.register(Game)
class GameAdmin(ReadOnlyAdmin):
    """Options, seed, status, version, snapshot, seating, timer: all follow from the log."""

    list_display = ("id", "preset", "status", "version", "is_public", "created_by", "created_at")
    list_filter = ("status", "preset", "is_public")
    search_fields = ("join_code",)
    inlines = [SeatInline]


@admin.register(Seat)
class SeatAdmin(ReadOnlyAdmin):
    list_display = ("game", "index", "team", "player", "bot_level")


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


# Every other model of the app (the table, chat, probes...): read-only as it is.
read_only_register("games")
