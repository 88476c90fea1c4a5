"""Players and what they say of each other (block / favourite lists)."""

from django.conf import settings
from django.db import models

# The languages a player may choose (settings.LANGUAGES, as BCP 47 tags); blank: none chosen.
LANGUAGE_CHOICES = [
    ("en", "English"),
    ("es", "Español"),
    ("pt-BR", "Português (Brasil)"),
    ("it", "Italiano"),
    ("de", "Deutsch"),
]


class Player(models.Model):
    """A person who plays: a Django user (token auth) with a display name."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="player"
    )
    display_name = models.CharField(max_length=40)
    is_bot = models.BooleanField(
        default=False,
        help_text="A bot account: a program playing through the public API (never rated, "
        "never in the matchmaking queue); shown as a bot at every table.",
    )
    language = models.CharField(
        max_length=8,
        blank=True,
        default="",
        choices=LANGUAGE_CHOICES,
        help_text="The language the service answers and notifies this player in (a BCP 47 "
        "tag of settings.LANGUAGES); blank: each request's Accept-Language, and English for "
        "notifications.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    deleted_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="The account was deleted: the row stays for the games it played, with no "
        "personal data.",
    )

    def __str__(self) -> str:
        return f"{self.display_name} (#{self.pk})"

    class Meta:
        db_table = "games_player"  # the table it had in games, kept


class RelationKind(models.TextChoices):
    BLOCK = "block"
    FAVOURITE = "favourite"


class PlayerRelation(models.Model):
    """``owner`` blocks (may not sit at owner's tables) or favours ``other``."""

    owner = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="relations")
    other = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="related_by")
    kind = models.CharField(max_length=16, choices=RelationKind.choices)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "games_playerrelation"  # the table it had in games, kept
        ordering = ("owner", "kind", "-created_at")
        constraints = [
            models.UniqueConstraint(fields=["owner", "other", "kind"], name="relation_unique"),
            models.CheckConstraint(
                condition=~models.Q(owner=models.F("other")), name="relation_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.owner_id} {self.kind}s {self.other_id}"
