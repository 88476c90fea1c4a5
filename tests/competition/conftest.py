"""Fixtures of the competition tests."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture
def every_result_counts(settings: Any) -> None:
    """Every rated result counts, however short the game and however often the same players
    meet: for the tests of the rating update itself, which end games with a concession at the
    start (tests/competition/services/test_rating_integrity.py tests when a result counts)."""
    settings.RATED_MIN_MOVES_PER_SIDE = 0
    settings.RATED_SAME_PLAYERS_MAX = 0
