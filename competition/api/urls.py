"""Routes of competition's API: quick play, leaderboards, rating histories and profiles (under
/api/v1/)."""

from django.urls import path, register_converter

from competition.api import matchmaking, profiles, ratings
from core import converters  # noqa: F401  <id:...> (core.converters)

# A rating format (competition/api/ratings.py): any other value is no such URL, 404 not_found.
register_converter(ratings.RatingFormatConverter, "rating_format")

urlpatterns = [
    # Quick play: join, read (long-poll) and leave the queue (competition/api/matchmaking.py).
    path("queue/", matchmaking.QueueApi.as_view(), name="queue"),
    path(
        "players/<id:player_id>/profile/",
        profiles.PlayerProfileApi.as_view(),
        name="player-profile",
    ),
    # Leaderboards and rating histories (competition/api/ratings.py).
    path(
        "leaderboards/<rating_format:rating_format>/",
        ratings.LeaderboardApi.as_view(),
        name="leaderboard",
    ),
    path(
        "leaderboards/<rating_format:rating_format>/around-me/",
        ratings.LeaderboardAroundApi.as_view(),
        name="leaderboard-around-me",
    ),
    path(
        "players/<id:player_id>/ratings/<rating_format:rating_format>/history/",
        ratings.RatingHistoryApi.as_view(),
        name="player-rating-history",
    ),
]
