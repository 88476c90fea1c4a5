from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    """The outbox and its deliveries: webhooks, Web Push, e-mail."""

    name = "notifications"
    verbose_name = "Notifications"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        import notifications.errors  # noqa: F401  its codes join the catalogue (core.errors)
        from notifications import subscriptions

        subscriptions.subscribe()  # games never imports notifications: it publishes (games.hooks)
