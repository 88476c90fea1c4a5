"""Friends over HTTP: your friends, your friend requests (incoming and outgoing), sending,
accepting, declining and cancelling a request, removing a friend. Thin views: parse, call
``accounts.services.friends``, render; refusals are problem documents from the central
handler."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api.authentication import player_of
from accounts.selectors.friends import friend_requests_list, friends_list
from accounts.services.friends import (
    friend_remove,
    friend_request_accept,
    friend_request_cancel,
    friend_request_decline,
    friend_request_send,
)
from core.problems import AUTH, BODY, problem_responses

Base = serializers.Serializer[Any]

READ_SCOPES = ("profile:read",)
WRITE_SCOPES = ("profile:write",)


class SomeoneSerializer(Base):
    id = serializers.IntegerField(help_text="The player's id.")
    display_name = serializers.CharField(help_text="The name other players see.")
    is_bot = serializers.BooleanField(help_text="A bot account.")


class FriendSerializer(SomeoneSerializer):
    since = serializers.DateTimeField(help_text="When you became friends.")


class FriendsSerializer(Base):
    friends = FriendSerializer(many=True, help_text="Your friends, newest friendship first.")


class FriendRequestSerializer(Base):
    id = serializers.IntegerField(help_text="The request's id.")
    from_player = SomeoneSerializer(help_text="Who sent it.")
    to_player = SomeoneSerializer(help_text="Whom it asks.")
    status = serializers.ChoiceField(
        choices=["pending", "accepted", "declined", "cancelled"],
        help_text="`pending` while it waits for an answer; in the answer to an accept, decline "
        "or cancel (or to a request that accepted the other player's), what happened to it: "
        "an answered request is no longer listed.",
    )
    created_at = serializers.DateTimeField(help_text="When it was sent.")


class FriendRequestsSerializer(Base):
    incoming = FriendRequestSerializer(many=True, help_text="Pending requests sent to you.")
    outgoing = FriendRequestSerializer(many=True, help_text="Pending requests you sent.")


class FriendRequestCreateSerializer(Base):
    player_id = serializers.IntegerField(
        min_value=1, max_value=10**18 - 1, help_text="The player you ask to be friends."
    )


REQUEST_ID = OpenApiParameter(
    "request_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="Friend request id"
)
PLAYER_ID = OpenApiParameter(
    "player_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The friend's player id"
)
SEND_PROBLEMS = (
    BODY,
    "friend_self",
    AUTH,
    "friend_request_blocked",
    "player_not_found",
    "friend_request_exists",
    "already_friends",
    "friend_requests_limit",
    "friends_limit",
)
FRIEND_REQUEST_SENT = OpenApiExample("Ask a player", value={"player_id": 8}, request_only=True)


class FriendsApi(APIView):
    read_scopes = READ_SCOPES
    write_scopes = WRITE_SCOPES

    @extend_schema(
        operation_id="friends_list",
        tags=["friends"],
        summary="Your friends",
        responses={200: FriendsSerializer, **problem_responses(AUTH)},
    )
    def get(self, request: Request) -> Response:
        return Response(FriendsSerializer(friends_list(player=player_of(request))).data)


class FriendDetailApi(APIView):
    read_scopes = READ_SCOPES
    write_scopes = WRITE_SCOPES

    @extend_schema(
        operation_id="friends_remove",
        tags=["friends"],
        summary="Remove a friend",
        description="Ends the friendship for both of you.",
        parameters=[PLAYER_ID],
        request=None,
        responses={204: None, **problem_responses(AUTH, "friend_not_found")},
    )
    def delete(self, request: Request, player_id: int) -> Response:
        friend_remove(player=player_of(request), friend_id=player_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class FriendRequestsApi(APIView):
    read_scopes = READ_SCOPES
    write_scopes = WRITE_SCOPES

    @extend_schema(
        operation_id="friends_requests_list",
        tags=["friends"],
        summary="Your pending friend requests, incoming and outgoing",
        responses={200: FriendRequestsSerializer, **problem_responses(AUTH)},
    )
    def get(self, request: Request) -> Response:
        body = friend_requests_list(player=player_of(request))
        return Response(FriendRequestsSerializer(body).data)

    @extend_schema(
        operation_id="friends_requests_create",
        tags=["friends"],
        summary="Send a friend request",
        description="Asks `player_id` to be friends (201, `status: pending`). If that player "
        "has already asked you, their request is accepted instead and you are friends at once "
        "(200, their request with `status: accepted`). Refused between players either of whom "
        "blocked the other (403 `friend_request_blocked`), to a friend (409 `already_friends`), "
        "twice (409 `friend_request_exists`), and past the unanswered requests a player may "
        "have out (409 `friend_requests_limit`).",
        request=FriendRequestCreateSerializer,
        responses={
            201: FriendRequestSerializer,
            200: FriendRequestSerializer,
            **problem_responses(SEND_PROBLEMS),
        },
        examples=[FRIEND_REQUEST_SENT],
    )
    def post(self, request: Request) -> Response:
        data = FriendRequestCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        doc, created = friend_request_send(
            sender=player_of(request), to_player_id=data.validated_data["player_id"]
        )
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(FriendRequestSerializer(doc).data, status=code)


class FriendRequestCancelApi(APIView):
    read_scopes = READ_SCOPES
    write_scopes = WRITE_SCOPES

    @extend_schema(
        operation_id="friends_requests_cancel",
        tags=["friends"],
        summary="Cancel a friend request you sent",
        parameters=[REQUEST_ID],
        request=None,
        responses={
            200: FriendRequestSerializer,
            **problem_responses(AUTH, "friend_request_not_found"),
        },
    )
    def delete(self, request: Request, request_id: int) -> Response:
        doc = friend_request_cancel(player=player_of(request), request_id=request_id)
        return Response(FriendRequestSerializer(doc).data)


class FriendRequestAcceptApi(APIView):
    read_scopes = READ_SCOPES
    write_scopes = WRITE_SCOPES

    @extend_schema(
        operation_id="friends_requests_accept",
        tags=["friends"],
        summary="Accept a friend request sent to you",
        description="You become friends. Refused if either of you has blocked the other since "
        "(403 `friend_request_blocked`).",
        parameters=[REQUEST_ID],
        request=None,
        responses={
            200: FriendRequestSerializer,
            **problem_responses(
                AUTH, "friend_request_blocked", "friend_request_not_found", "friends_limit"
            ),
        },
    )
    def post(self, request: Request, request_id: int) -> Response:
        doc = friend_request_accept(player=player_of(request), request_id=request_id)
        return Response(FriendRequestSerializer(doc).data)


class FriendRequestDeclineApi(APIView):
    read_scopes = READ_SCOPES
    write_scopes = WRITE_SCOPES

    @extend_schema(
        operation_id="friends_requests_decline",
        tags=["friends"],
        summary="Decline a friend request sent to you",
        description="The request is deleted; its sender is not told (it is no longer among "
        "their outgoing requests).",
        parameters=[REQUEST_ID],
        request=None,
        responses={
            200: FriendRequestSerializer,
            **problem_responses(AUTH, "friend_request_not_found"),
        },
    )
    def post(self, request: Request, request_id: int) -> Response:
        doc = friend_request_decline(player=player_of(request), request_id=request_id)
        return Response(FriendRequestSerializer(doc).data)
