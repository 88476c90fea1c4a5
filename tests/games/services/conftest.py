"""Fixtures of the service tests."""

from __future__ import annotations

import pytest

from tests.games.services.timers.clock import FakeClock, fake_clock


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """A fake clock behind ``django.utils.timezone.now`` (``tests.games.services.timers.clock``)."""
    return fake_clock(monkeypatch)


@pytest.fixture
def nothing_delivered(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests check what the outbox writes; no delivery leaves after a commit."""
    monkeypatch.setattr("notifications.services.notifications.deliveries_send", lambda ids: None)
