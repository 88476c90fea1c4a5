"""Routes of the bots' API: hints and post-game reviews (under /api/v1/)."""

from django.urls import path

from bots.api import hints, reviews
from core import converters  # noqa: F401  <id:...> (core.converters)

urlpatterns = [
    # A suggested move for the seat to act, at tables with hints (bots/api/hints.py).
    path("games/<id:game_id>/hint/", hints.GameHintApi.as_view(), name="game-hint"),
    # The post-game review of a seat's play (bots/api/reviews.py).
    path("games/<id:game_id>/review/", reviews.GameReviewApi.as_view(), name="game-review"),
]
