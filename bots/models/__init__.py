"""Post-game reviews of a seat's play."""

from bots.models.reviews import GameReview, ReviewStatus

__all__ = ["GameReview", "ReviewStatus"]
