from tests.games.services.conftest import *  # noqa: F403  the service tests' clock and outbox
