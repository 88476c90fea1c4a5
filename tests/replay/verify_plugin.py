"""Pytest plugin: every game a test leaves in the database must replay from its move log.

Enabled for the whole suite by ``pytest_plugins`` in ``tests/conftest.py``. After each test
that used the database, before its transaction is rolled back (or its tables flushed), it runs
``manage.py replay --all --verify``: every game is rebuilt through the rules engine and compared
with its snapshot, Meld and RoundScore rows and recorded effects. A mismatch fails the test (an
error at teardown) with the command's report. A test that damages games on purpose asks for the
``replay_unverified`` fixture (a whole module: ``REPLAY_VERIFY = False``). The terminal summary
says how many games were verified.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest

DB_FIXTURES = frozenset(
    {"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback"}
)
_verified = {"tests": 0, "games": 0}


def _uses_db(request: pytest.FixtureRequest) -> bool:
    if request.node.get_closest_marker("django_db") is not None:
        return True
    return bool(DB_FIXTURES.intersection(request.fixturenames))


@pytest.fixture
def replay_unverified() -> None:
    """Ask for it in a test that leaves a damaged game on purpose: no verification after it."""


@pytest.fixture(autouse=True)
def replay_verify_games(request: pytest.FixtureRequest) -> Iterator[None]:
    """After the test, verify every game in the test database against its log."""
    skip = "replay_unverified" in request.fixturenames
    if skip or not _uses_db(request) or not getattr(request.module, "REPLAY_VERIFY", True):
        yield
        return
    # Set the database up now, so that it is torn down (rolled back) after this fixture.
    request.getfixturevalue("_django_db_helper")
    yield
    from django.core.management import call_command
    from django.core.management.base import CommandError

    from games.models import Game

    games = Game.objects.count()
    if not games:
        return
    out = io.StringIO()
    try:
        call_command("replay", "--all", "--verify", stdout=out)
    except CommandError as exc:
        pytest.fail(
            f"a game this test left does not replay from its log ({exc}); a test that damages "
            f"games on purpose asks for the replay_unverified fixture:\n{out.getvalue()}",
            pytrace=False,
        )
    _verified["tests"] += 1
    _verified["games"] += games


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _verified["tests"]:
        terminalreporter.write_line(
            f"replay --all --verify: {_verified['games']} game(s) left by "
            f"{_verified['tests']} test(s) replay from their logs"
        )
