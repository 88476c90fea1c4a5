"""How the OpenAPI document describes signing requests: the security schemes of
``KeyAuthentication`` (a bearer key, a guest key, the OpenID Connect provider's OAuth 2.0 flow)
and, for each operation, the scopes its view declares for the method (``read_scopes`` or
``write_scopes``) under the ``oauth2`` scheme, so that a client's generated code and the docs
show what a token needs. Registered when the accounts app is ready (``AccountsConfig``)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.authentication import SessionScheme
from drf_spectacular.extensions import OpenApiAuthenticationExtension

from accounts import scopes
from accounts.api.scopes import scopes_wanted

BEARER = "bearer"
GUEST_KEY = "guestKey"
OAUTH2 = "oauth2"


class SessionAuthenticationScheme(SessionScheme):
    """The browser session (``accounts.api.authentication.SessionAuthentication``, DRF's with
    the player's language), described as drf-spectacular describes DRF's: ``cookieAuth``."""

    target_class = "accounts.api.authentication.SessionAuthentication"


class KeyAuthenticationScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.api.authentication.KeyAuthentication"
    name = [BEARER, GUEST_KEY, OAUTH2]

    def get_security_definition(self, auto_schema: Any) -> list[dict[str, Any]]:
        return [
            {
                "type": "http",
                "scheme": "bearer",
                "description": "`Authorization: Bearer <key>`: a device session's access key, "
                "a personal access token (`POST /api/v1/account/tokens/`), or an access token "
                "the OpenID Connect provider issued to an app (the `oauth2` scheme). A token "
                "with scopes is let in only where the operation lists one of them under "
                "`oauth2`; a device session's key holds every scope.",
            },
            {
                "type": "apiKey",
                "in": "header",
                "name": "Authorization",
                "description": "`Authorization: Token <guest key>`: the key `POST "
                "/api/v1/players/` returns (send the `Token ` prefix with it). A person's guest "
                "key holds every scope; a bot account's holds `bot:play` and `profile:read`.",
            },
            {
                "type": "oauth2",
                "description": "A third-party app's access token from this service's OpenID "
                "Connect provider (`/.well-known/openid-configuration`), sent as a bearer key. "
                "Each operation lists the scopes that let it in: any one of them suffices.",
                "flows": {
                    "authorizationCode": {
                        "authorizationUrl": reverse("idp:oidc:authorization"),
                        "tokenUrl": reverse("idp:oidc:token"),
                        "scopes": dict(scopes.SCOPES),
                    }
                },
            },
        ]

    def get_security_requirement(self, auto_schema: Any) -> list[dict[str, list[str]]]:
        # Alternatives (OR): a bearer key, a guest key, or an app's token with any one of the
        # scopes the view declares for the method (one requirement per scope: listed together
        # they would all be needed).
        wanted = scopes_wanted(auto_schema.view, auto_schema.method)
        return [{BEARER: []}, {GUEST_KEY: []}, *({OAUTH2: [name]} for name in wanted)]
