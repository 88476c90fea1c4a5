from django.apps import AppConfig


class CompetitionConfig(AppConfig):
    """Ratings, quick-play matchmaking, leaderboards, profiles."""

    name = "competition"
    verbose_name = "Competition"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        import competition.errors  # noqa: F401  its codes join the catalogue (core.errors)
        from competition import subscriptions

        subscriptions.subscribe()  # games never imports competition: it publishes (games.hooks)
