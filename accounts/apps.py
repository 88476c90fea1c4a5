from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Players: guest sign-up, token authentication, relations."""

    name = "accounts"
    verbose_name = "Accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.conf import settings
        from django.db.models.signals import post_save

        import accounts.api.schema  # noqa: F401  the schema's security schemes and scopes
        import accounts.errors  # noqa: F401  its codes join the catalogue (core.errors)
        from accounts.services.players import user_saved

        # Every user gets a player profile when it is made, so no read has to make one.
        post_save.connect(user_saved, sender=settings.AUTH_USER_MODEL, dispatch_uid="player")

        from allauth.account.signals import password_changed, password_reset, password_set
        from django.db.models.signals import post_delete

        from accounts.models import Credential, Player
        from accounts.services.credentials import key_deleted, player_changed, user_changed

        # What each process remembers of a key is dropped when it is revoked (key_cache).
        post_delete.connect(key_deleted, sender=Credential, dispatch_uid="key-deleted")
        post_save.connect(user_changed, sender=settings.AUTH_USER_MODEL, dispatch_uid="key-user")
        post_delete.connect(
            user_changed, sender=settings.AUTH_USER_MODEL, dispatch_uid="key-user-gone"
        )
        post_save.connect(player_changed, sender=Player, dispatch_uid="key-player")

        from accounts.services.identity import password_changed_elsewhere

        # A new password signs every other device out (the one that changed it stays).
        for signal in (password_changed, password_set, password_reset):
            signal.connect(password_changed_elsewhere, dispatch_uid=f"devices-{id(signal)}")
