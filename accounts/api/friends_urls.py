"""Routes of the friends API (under /api/v1/, included from accounts.api.urls)."""

from django.urls import path

from accounts.api import friends
from core import converters  # noqa: F401  <id:...> (core.converters)

urlpatterns = [
    path("friends/", friends.FriendsApi.as_view(), name="friends"),
    path("friends/requests/", friends.FriendRequestsApi.as_view(), name="friend-requests"),
    path(
        "friends/requests/<id:request_id>/",
        friends.FriendRequestCancelApi.as_view(),
        name="friend-request",
    ),
    path(
        "friends/requests/<id:request_id>/accept/",
        friends.FriendRequestAcceptApi.as_view(),
        name="friend-request-accept",
    ),
    path(
        "friends/requests/<id:request_id>/decline/",
        friends.FriendRequestDeclineApi.as_view(),
        name="friend-request-decline",
    ),
    path("friends/<id:player_id>/", friends.FriendDetailApi.as_view(), name="friend"),
]
