from django.apps import AppConfig


class BotsConfig(AppConfig):
    """Bot players: level policies, the turn service and task, and the ``arena`` command."""

    name = "bots"
    verbose_name = "Bots"

    def ready(self) -> None:
        import bots.errors  # noqa: F401  its codes join the catalogue (core.errors)
        from bots.tasks import CeleryBotPlayer
        from games.services.bots import bot_player_register

        bot_player_register(CeleryBotPlayer())  # games never imports bots: it is told
