"""Post-game reviews in the admin: shown, never written here (``core.admin``)."""

from core.admin import read_only_register

read_only_register("bots")
