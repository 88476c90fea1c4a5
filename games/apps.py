from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.conf import settings
        from django.db.models.signals import post_save

        from games import live
        from accounts.services.players import user_saved

        live.receivers_connect()  # wake live clients after every committed move
        # Every user gets a player profile when it is made, so no read has to make one.
        post_save.connect(user_saved, sender=settings.AUTH_USER_MODEL, dispatch_uid="player")
