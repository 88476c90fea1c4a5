"""Pytest plugin: every game a test leaves in the database must replay from its move log.

Enabled for the whole suite by ``pytest_plugins`` in ``tests/conftest.py``. After each test
that used the database, before its transaction is rolled back (or its tables flushed), every
game the test left is rebuilt through the rules engine and compared with its snapshot, seats,
Meld and RoundScore rows and recorded effects (``games.selectors.verify.game_verify``, what
``manage.py replay --all --verify`` runs). A mismatch fails the test (an error at teardown) with
the verifier's report. A test that damages games on purpose asks for the ``replay_unverified``
fixture (a whole module: ``REPLAY_VERIFY = False``).

What it costs is kept small: a test whose database holds no game pays two ``SELECT``s of game
ids and nothing else; games are verified directly (no management command, no report text unless
one fails), and only the games the test wrote: a game already in the database when the test
started (data a broader fixture made) is verified again only if its row changed (version,
update time, status, seat to act, winner or seed). The terminal summary says how many games
were verified and how long that took (summed over the xdist workers).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

DB_FIXTURES = frozenset(
    {"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback"}
)
_verified: dict[str, float] = {"tests": 0, "games": 0, "seconds": 0.0}
WORKER_OUTPUT_KEY = "replay_verified"


def _uses_db(request: pytest.FixtureRequest) -> bool:
    if request.node.get_closest_marker("django_db") is not None:
        return True
    return bool(DB_FIXTURES.intersection(request.fixturenames))


# What tells a written game from one left as it was (a move, a concession, a seat or seed
# changed behind the services' back all change one of these).
FINGERPRINT = ("version", "updated_at", "status", "to_act", "winner_team", "seed")


def _games_now() -> dict[int, tuple[Any, ...]]:
    """Every game in the test database: id -> its fingerprint."""
    from games.models import Game

    return {row[0]: row[1:] for row in Game.objects.values_list("pk", *FINGERPRINT)}


@pytest.fixture
def replay_unverified() -> None:
    """Ask for it in a test that leaves a damaged game on purpose: no verification after it."""


@pytest.fixture(autouse=True)
def replay_verify_games(request: pytest.FixtureRequest) -> Iterator[None]:
    """After the test, verify every game it wrote against its log."""
    skip = "replay_unverified" in request.fixturenames
    if skip or not _uses_db(request) or not getattr(request.module, "REPLAY_VERIFY", True):
        yield
        return
    # Set the database up now, so that it is torn down (rolled back) after this fixture.
    request.getfixturevalue("_django_db_helper")
    # Games that outlive a test (made by a broader fixture) are usually none: one query.
    before = _games_now()
    yield
    from games.models import Game
    from games.selectors.verify import game_verify

    started = time.perf_counter()
    now = _games_now()
    written = sorted(pk for pk, seen in now.items() if before.get(pk) != seen)
    if not written:
        return
    failures = []
    for game in Game.objects.filter(pk__in=written).order_by("pk"):
        report = game_verify(game)
        if not report.ok:
            lines = "\n".join(f"  - {problem}" for problem in report.problems)
            failures.append(f"game {game.pk} ({game.status}, {report.events} events):\n{lines}")
    _verified["seconds"] += time.perf_counter() - started
    if failures:
        pytest.fail(
            f"{len(failures)} game(s) this test left do not replay from their logs; a test that "
            "damages games on purpose asks for the replay_unverified fixture:\n"
            + "\n".join(failures),
            pytrace=False,
        )
    _verified["tests"] += 1
    _verified["games"] += len(written)


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On an xdist worker: hand the counts to the controller."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output[WORKER_OUTPUT_KEY] = dict(_verified)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """On the xdist controller: add up what each worker verified."""
    counts = getattr(node, "workeroutput", {}).get(WORKER_OUTPUT_KEY) or {}
    for key in _verified:
        _verified[key] += counts.get(key, 0)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _verified["tests"]:
        terminalreporter.write_line(
            f"replay verification: {int(_verified['games'])} game(s) left by "
            f"{int(_verified['tests'])} test(s) replay from their logs "
            f"({_verified['seconds']:.1f} s)"
        )
