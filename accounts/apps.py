from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Players: guest sign-up, token authentication, relations."""

    name = "accounts"
    verbose_name = "Accounts"
    default_auto_field = "django.db.models.BigAutoField"
