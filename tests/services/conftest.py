"""Fixtures of the service tests."""

from __future__ import annotations

import pytest

from tests.services.timers.clock import FakeClock, fake_clock


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """A fake clock behind ``django.utils.timezone.now`` (``tests.services.timers.clock``)."""
    return fake_clock(monkeypatch)
