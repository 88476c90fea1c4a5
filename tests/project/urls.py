"""A URLconf for the error-handling tests: the real routes plus views that fail on purpose."""

from typing import Any

from django.http import Http404
from django.urls import include, path
from rest_framework import exceptions, serializers
from rest_framework.permissions import AllowAny, IsAdminUser, IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from canasta_service.urls import handler400, handler403, handler404, handler500
from canasta_service.urls import urlpatterns as service_urlpatterns
from core.errors import ServiceError


class NotYourTurn(ServiceError):
    code = "not_your_turn"
    status = 403
    default_message = "It is not your turn."


class SeatSerializer(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=5)


class GameCreateSerializer(serializers.Serializer[Any]):
    preset = serializers.ChoiceField(choices=["classic", "hoyle"])
    seats = SeatSerializer(many=True)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if len(attrs["seats"]) == 3 and attrs["preset"] == "hoyle":
            raise serializers.ValidationError("hoyle is for four players")
        return attrs


class Open(APIView):
    authentication_classes = ()
    permission_classes = (AllowAny,)


class ServiceErrorApi(Open):
    def get(self, request: Request) -> Response:
        raise NotYourTurn(extra={"seat": 2})


class StaleApi(Open):
    def get(self, request: Request) -> Response:
        raise ServiceError(
            "The game moved on.", code="stale_version", status=409, extra={"current_version": 7}
        )


class ValidateApi(Open):
    def post(self, request: Request) -> Response:
        serializer = GameCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        return Response(serializer.validated_data)


class PrivateApi(APIView):
    permission_classes = (IsAuthenticated,)

    def get(self, request: Request) -> Response:
        return Response({})


class StaffOnlyApi(APIView):
    permission_classes = (IsAdminUser,)


class Http404Api(Open):
    def get(self, request: Request) -> Response:
        raise Http404("No game 42")


class ThrottledApi(Open):
    def get(self, request: Request) -> Response:
        raise exceptions.Throttled(wait=7)


class BugApi(Open):
    def get(self, request: Request) -> Response:
        raise RuntimeError("a bug")


test_patterns = [
    path("service-error/", ServiceErrorApi.as_view()),
    path("stale/", StaleApi.as_view()),
    path("validate/", ValidateApi.as_view()),
    path("private/", PrivateApi.as_view()),
    path("staff-only/", StaffOnlyApi.as_view()),
    path("http404/", Http404Api.as_view()),
    path("throttled/", ThrottledApi.as_view()),
    path("bug/", BugApi.as_view()),
]

urlpatterns = [path("test/", include(test_patterns)), *service_urlpatterns]

__all__ = ["handler400", "handler403", "handler404", "handler500", "urlpatterns"]
