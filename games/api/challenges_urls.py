"""Routes of the challenges API (under /api/v1/, included from games.api.urls)."""

from django.urls import path

from core import converters  # noqa: F401  <id:...> (core.converters)
from games.api import challenges

urlpatterns = [
    path("challenges/", challenges.ChallengeListCreateApi.as_view(), name="challenges"),
    path(
        "challenges/<id:challenge_id>/",
        challenges.ChallengeDetailApi.as_view(),
        name="challenge-detail",
    ),
    path(
        "challenges/<id:challenge_id>/accept/",
        challenges.ChallengeAcceptApi.as_view(),
        name="challenge-accept",
    ),
    path(
        "challenges/<id:challenge_id>/decline/",
        challenges.ChallengeDeclineApi.as_view(),
        name="challenge-decline",
    ),
    path(
        "challenges/<id:challenge_id>/cancel/",
        challenges.ChallengeCancelApi.as_view(),
        name="challenge-cancel",
    ),
]
