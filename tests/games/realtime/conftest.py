"""The API tests' guest players, for the feed's tests."""

from tests.games.api.conftest import ada, bob, eager_bots, make_player  # noqa: F401 - fixtures
