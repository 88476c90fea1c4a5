"""Reads of the game service, one module per feature: nothing here writes."""
