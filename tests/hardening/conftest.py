"""Fixtures for the hardening tests: the API tests' guest players and in-process bots."""

from __future__ import annotations

from tests.games.api.conftest import ada, bob, eager_bots, make_player  # noqa: F401  (fixtures)
