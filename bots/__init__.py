"""Bot players: pure policies that see only a player's view, and the task that plays a turn."""
