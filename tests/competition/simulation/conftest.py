"""The 64-entrant simulations: one module per format, so that parallel test workers (which
take a module each) run them side by side."""

from tests.games.services.conftest import *  # noqa: F403  the fake clock
