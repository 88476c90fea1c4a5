"""A fake clock for correspondence tests: ``django.utils.timezone.now`` returns its time, so
every deadline the services arm, every reminder time and every row's timestamps follow it;
a test moves it on and calls the sweep at its time."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from django.utils import timezone


class FakeClock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        """Move the clock on (``minutes=46``, ``days=2``...); returns the new time."""
        self.now += timedelta(**delta)
        return self.now

    def to(self, when: datetime) -> datetime:
        assert when >= self.now, "the clock never goes back"
        self.now = when
        return when


def fake_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """Put a fake clock, set to the real time, behind ``timezone.now`` (undone with
    ``monkeypatch``): the ``clock`` fixture of tests/games/services/conftest.py."""
    fake = FakeClock(timezone.now())
    monkeypatch.setattr(timezone, "now", fake)
    return fake
