from tests.games.api.conftest import *  # noqa: F403  the API tests' players and clients
