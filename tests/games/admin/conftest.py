"""Service tests share the API tests' fixtures (bots run in-process)."""

from tests.games.api.conftest import eager_bots  # noqa: F401  (autouse fixture)
