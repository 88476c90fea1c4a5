from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Tables, the lobby, moves, the move log, replay, timers, table talk and live updates.

    Nothing to wire at start: the game publishes what happens through ``games.hooks``, and the
    apps above it subscribe in their own ``ready``.
    """

    name = "games"
    verbose_name = "Games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        import games.errors  # noqa: F401  its codes join the catalogue (core.errors)
