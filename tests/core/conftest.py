from tests.api.conftest import *  # noqa: F403  the API tests' players (ada, bob, make_player)
