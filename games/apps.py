from django.apps import AppConfig


class GamesConfig(AppConfig):
    """Tables, the lobby, moves, the move log, replay, timers, table talk and live updates.

    The game publishes what happens through ``games.hooks``, and the apps above it subscribe in
    their own ``ready``; games itself subscribes to ``accounts.hooks`` (a deleted account).
    """

    name = "games"
    verbose_name = "Games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        import games.errors  # noqa: F401  its codes join the catalogue (core.errors)
        from games import subscriptions

        subscriptions.subscribe()  # accounts never imports games: it publishes (accounts.hooks)
