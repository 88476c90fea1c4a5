from django.apps import AppConfig


class BotsConfig(AppConfig):
    """Bot players: the Celery task that plays a bot's turn and the ``arena`` command."""

    name = "bots"
    verbose_name = "Bots"
