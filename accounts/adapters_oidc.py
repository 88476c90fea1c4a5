"""How allauth's OpenID Connect provider fits the service: which scopes a third-party app may
ask for (OpenID's own and the API's grantable ones, ``accounts.scopes.GRANTABLE``), what the
consent page says of each, what the discovery document lists, and the claims about a person.

A client may ask only for scopes it was registered with (``manage.py oidc_client_create``
refuses any other name); a token's scopes are what the person consented to, and the API checks
them as it checks a personal access token's (``accounts.api.scopes``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from allauth.idp.oidc.adapter import DefaultOIDCAdapter
from django.contrib.auth.base_user import AbstractBaseUser

from accounts import scopes

# OpenID Connect's own scopes: who the person is, their profile, their e-mail address.
OPENID_SCOPES: dict[str, str] = {
    "openid": "Know who you are (your account's identifier).",
    "profile": "See your display name.",
    "email": "See your e-mail address.",
}

# Every scope a client may be registered with and ask for, with what the consent page says.
PROVIDER_SCOPES: dict[str, str] = {
    **OPENID_SCOPES,
    **{name: text for name, text in scopes.SCOPES.items() if name in scopes.GRANTABLE},
}


def provider_scopes_unknown(names: Iterable[str]) -> list[str]:
    """The names that are not scopes a client may be registered with, in the order given."""
    return [name for name in names if name not in PROVIDER_SCOPES]


class OIDCAdapter(DefaultOIDCAdapter):
    """The service's scopes beside OpenID's; the player's display name as the profile's name."""

    scope_display = PROVIDER_SCOPES

    def populate_server_metadata(self, data: dict[str, str | list[str]]) -> None:
        data["scopes_supported"] = list(PROVIDER_SCOPES)
        data["code_challenge_methods_supported"] = ["S256"]

    def get_claims(
        self,
        purpose: Literal["id_token", "userinfo"],
        user: AbstractBaseUser,
        client: Any,
        scopes: Iterable[str],
        email: str | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        scopes = list(scopes)
        claims = super().get_claims(purpose, user, client, scopes, email=email, **kwargs)
        # The username is an internal handle (accounts.adapters): never shown to anyone.
        claims.pop("preferred_username", None)
        if "profile" in scopes:
            player = getattr(user, "player", None)
            if player is not None:
                claims["name"] = player.display_name
        return claims
