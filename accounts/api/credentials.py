"""Sign-ins and keys over HTTP: the list of a person's sessions (end one, or all), a device
session opened from a guest key, and personal access tokens with scopes. Only a person's own
sign-in may do any of it (scope ``account:write``, which no token can be given)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle
from rest_framework.views import APIView

from accounts import errors, scopes
from accounts.models import Credential, CredentialKind
from accounts.services import apps, credentials, sessions
from accounts.services.credentials import DEVICE_HEADER
from core.problems import AUTH, BODY, problem_responses
from core.proxies import request_address

Base = serializers.Serializer[Any]
ACCOUNT = (scopes.ACCOUNT_WRITE,)


class SignInSerializer(Base):
    id = serializers.CharField(help_text="`device-<n>`, `guest-<n>` or `browser-<n>`.")
    kind = serializers.ChoiceField(
        choices=["device", "guest", "browser"],
        help_text="`device`: an app or program signed in (access and refresh keys); `guest`: "
        "a guest key; `browser`: the web client.",
    )
    device = serializers.CharField(help_text="The name the app gave (`X-Device-Name`), if any.")
    user_agent = serializers.CharField(help_text="The client's User-Agent at sign-in.")
    ip = serializers.CharField(allow_null=True, help_text="Where it signed in from.")
    created_at = serializers.DateTimeField(help_text="When it signed in.")
    last_seen_at = serializers.DateTimeField(
        allow_null=True, help_text="Last request (to within five minutes)."
    )
    current = serializers.BooleanField(help_text="The sign-in this request was made with.")


class DeviceSessionCreateSerializer(Base):
    device = serializers.CharField(
        required=False, allow_blank=True, max_length=80, help_text="A name for this device."
    )


class SessionKeysSerializer(Base):
    session_id = serializers.CharField(help_text="`device-<n>`.")
    access_token = serializers.CharField(
        help_text="Send as `Authorization: Bearer <access_token>`; lasts `expires_in` seconds."
    )
    refresh_token = serializers.CharField(
        help_text="Trade it for a new pair at `POST /_allauth/app/v1/tokens/refresh` (once: a "
        "refresh token presented twice ends the session)."
    )
    expires_in = serializers.IntegerField(help_text="Seconds the access token lasts.")


class TokenCreateSerializer(Base):
    name = serializers.CharField(max_length=80, help_text="What the token is for.")
    scopes = serializers.ListField(
        child=serializers.CharField(max_length=40),
        min_length=1,
        max_length=len(scopes.SCOPES),
        help_text="Any of: " + ", ".join(f"`{s}`" for s in sorted(scopes.GRANTABLE)) + ".",
    )
    days = serializers.IntegerField(
        required=False,
        allow_null=True,
        help_text="Lifetime in days (1-366); left out: until revoked.",
    )


class TokenSerializer(Base):
    id = serializers.IntegerField(help_text="The token's id (to revoke it).")
    name = serializers.CharField(help_text="What the token is for.")
    prefix = serializers.CharField(help_text="The token's first characters.")
    scopes = serializers.ListField(
        child=serializers.CharField(), help_text="What the token may do."
    )
    created_at = serializers.DateTimeField(help_text="When it was made.")
    expires_at = serializers.DateTimeField(
        allow_null=True, help_text="When it stops working (null: when revoked)."
    )
    last_used_at = serializers.DateTimeField(
        allow_null=True, help_text="Its last request (to within five minutes)."
    )


class TokenCreatedSerializer(TokenSerializer):
    token = serializers.CharField(help_text="The token, shown this once: store it now.")


def _token_body(credential: Credential) -> dict[str, Any]:
    return {
        "id": credential.pk,
        "name": credential.name,
        "prefix": credential.prefix,
        "scopes": credential.scopes,
        "created_at": credential.created_at,
        "expires_at": credential.expires_at,
        "last_used_at": credential.last_used_at,
    }


class AccountApi(APIView):
    read_scopes = ACCOUNT
    write_scopes = ACCOUNT


class SessionsApi(AccountApi):
    def get_throttles(self) -> list[BaseThrottle]:
        # Opening a device session from a guest key: per account (settings.THROTTLE_RATES).
        self.throttle_scope = "session_create" if self.request.method == "POST" else ""
        return super().get_throttles()

    @extend_schema(
        operation_id="account_sessions_list",
        tags=["account"],
        summary="List my sign-ins",
        description="Every device session, guest key and browser session of the account, the "
        "most recently used first.",
        responses={200: SignInSerializer(many=True), **problem_responses(AUTH)},
    )
    def get(self, request: Request) -> Response:
        rows = sessions.sign_ins_list(
            request.user,
            auth=request.auth,
            browser_session_key=request.session.session_key if request.auth is None else None,
        )
        return Response(SignInSerializer([r.__dict__ for r in rows], many=True).data)

    @extend_schema(
        operation_id="account_sessions_create",
        tags=["account"],
        summary="Open a device session with a guest key",
        description="Trades the guest key this request is made with for a device session (its "
        "access and refresh keys), so the guest can use the account endpoints of "
        "`/_allauth/app/v1/` (add an e-mail and password, or a passkey) with "
        "`Authorization: Bearer <access_token>`. The guest key keeps working.",
        request=DeviceSessionCreateSerializer,
        responses={
            201: SessionKeysSerializer,
            **problem_responses(BODY, AUTH, "guest_key_required", "throttled"),
        },
    )
    def post(self, request: Request) -> Response:
        data = DeviceSessionCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        auth = request.auth
        if not isinstance(auth, Credential) or auth.kind != CredentialKind.GUEST:
            raise errors.GuestKeyRequired()
        keys = credentials.device_session_open(
            request.user,
            device=data.validated_data.get("device") or request.headers.get(DEVICE_HEADER, ""),
            user_agent=request.headers.get("user-agent", ""),
            ip=request_address(request),
            session_key=credentials.django_session_for(request.user),
        )
        body = {
            "session_id": f"device-{keys.session.pk}",
            "access_token": keys.access_key,
            "refresh_token": keys.refresh_key,
            "expires_in": keys.expires_in,
        }
        return Response(SessionKeysSerializer(body).data, status=status.HTTP_201_CREATED)


class SessionDetailApi(AccountApi):
    @extend_schema(
        operation_id="account_sessions_end",
        tags=["account"],
        summary="End a sign-in",
        description="Its keys stop working at the next request, on every server.",
        parameters=[
            OpenApiParameter(
                "session_id",
                {"type": "string", "minLength": 3, "maxLength": 40},
                OpenApiParameter.PATH,
                description="A sign-in's `id` from the list.",
            )
        ],
        responses={204: None, **problem_responses(AUTH, "session_not_found")},
    )
    def delete(self, request: Request, session_id: str) -> Response:
        sessions.sign_in_end(request.user, session_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class SignOutEverywhereApi(AccountApi):
    @extend_schema(
        operation_id="account_sign_out_everywhere",
        tags=["account"],
        summary="Sign out everywhere",
        description="Ends every sign-in of the account (this one too) and revokes every key and "
        "personal access token: each answers 401 from the next request on.",
        request=None,
        responses={204: None, **problem_responses(AUTH)},
    )
    def post(self, request: Request) -> Response:
        credentials.credentials_revoke_all(request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokensApi(AccountApi):
    def get_throttles(self) -> list[BaseThrottle]:
        # Making a personal access token: per account (settings.THROTTLE_RATES).
        self.throttle_scope = "token_create" if self.request.method == "POST" else ""
        return super().get_throttles()

    @extend_schema(
        operation_id="account_tokens_list",
        tags=["account"],
        summary="List my personal access tokens",
        responses={200: TokenSerializer(many=True), **problem_responses(AUTH)},
    )
    def get(self, request: Request) -> Response:
        rows = Credential.objects.filter(
            user=request.user.pk, kind=CredentialKind.PERSONAL
        ).order_by("-created_at")
        return Response(TokenSerializer([_token_body(c) for c in rows], many=True).data)

    @extend_schema(
        operation_id="account_tokens_create",
        tags=["account"],
        summary="Create a personal access token",
        description="A token for a program (a bot, a script) with only the scopes it needs. The "
        "token is in this answer only; its digest is all the service keeps.",
        request=TokenCreateSerializer,
        responses={
            201: TokenCreatedSerializer,
            **problem_responses(BODY, AUTH, "scope_invalid", "tokens_limit", "throttled"),
        },
        examples=[
            OpenApiExample(
                "A bot's token",
                value={"name": "my bot", "scopes": ["bot:play"], "days": 90},
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        data = TokenCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        credential, key = credentials.personal_token_create(
            request.user,
            name=data.validated_data["name"],
            scopes_given=data.validated_data["scopes"],
            days=data.validated_data.get("days"),
        )
        body = {**_token_body(credential), "token": key}
        return Response(TokenCreatedSerializer(body).data, status=status.HTTP_201_CREATED)


class TokenDetailApi(AccountApi):
    @extend_schema(
        operation_id="account_tokens_revoke",
        tags=["account"],
        summary="Revoke a personal access token",
        parameters=[
            OpenApiParameter(
                "token_id", OpenApiTypes.INT, OpenApiParameter.PATH, description="The token's id."
            )
        ],
        responses={204: None, **problem_responses(AUTH, "token_not_found")},
    )
    def delete(self, request: Request, token_id: int) -> Response:
        credentials.personal_token_revoke(request.user, token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ConnectedAppSerializer(Base):
    client_id = serializers.CharField(help_text="The app's client id.")
    name = serializers.CharField(help_text="The app's name, as it was registered.")
    scopes = serializers.ListField(
        child=serializers.CharField(), help_text="What its tokens may do."
    )
    first_authorized_at = serializers.DateTimeField(help_text="Its oldest live token's issue.")
    last_authorized_at = serializers.DateTimeField(help_text="Its newest token's issue.")


class ConnectedAppsApi(AccountApi):
    @extend_schema(
        operation_id="account_apps_list",
        tags=["account"],
        summary="List the apps connected to my account",
        description="Every third-party app (a client of the OpenID Connect provider) that holds "
        "a live token of yours, with the scopes it holds.",
        responses={200: ConnectedAppSerializer(many=True), **problem_responses(AUTH)},
    )
    def get(self, request: Request) -> Response:
        rows = apps.connected_apps_list(request.user)
        return Response(ConnectedAppSerializer([r.__dict__ for r in rows], many=True).data)


class ConnectedAppDetailApi(AccountApi):
    @extend_schema(
        operation_id="account_apps_revoke",
        tags=["account"],
        summary="Disconnect an app",
        description="Revokes every token the app holds for you: it answers 401 from the next "
        "request, and must ask you again.",
        parameters=[
            OpenApiParameter(
                "client_id",
                {"type": "string", "minLength": 1, "maxLength": 100},
                OpenApiParameter.PATH,
                description="The app's `client_id` from the list.",
            )
        ],
        responses={204: None, **problem_responses(AUTH, "connected_app_not_found")},
    )
    def delete(self, request: Request, client_id: str) -> Response:
        apps.connected_app_revoke(request.user, client_id)
        return Response(status=status.HTTP_204_NO_CONTENT)
