"""Players' relations in the admin: shown, never written (``core.admin``). A player is shown
and renamed by ``games.admin`` (a rename rewrites the seating of the player's games)."""

from core.admin import read_only_register

read_only_register("accounts", skip=("player",))
