"""Register a third-party app with the OpenID Connect provider: ``manage.py oidc_client_create
--name "Scorekeeper" --redirect-uri https://scores.example.com/callback --scopes profile:read``.

It prints the client id and, for a confidential client (the default: a server that can keep a
secret), the client secret, once: only its hash is stored. ``--public`` registers an app that
cannot keep a secret (a single-page app, a mobile or command-line program): it must use PKCE.
``--device`` lets a public client use the device authorization grant (a program without a
browser: the person approves on another device). The admin (OpenID Connect IdP > clients) can
register and edit clients too."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from allauth.idp.oidc.adapter import get_adapter
from allauth.idp.oidc.models import Client
from django.core.management.base import BaseCommand, CommandError, CommandParser

from accounts.adapters_oidc import PROVIDER_SCOPES, provider_scopes_unknown

LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")


def redirect_uri_check(uri: str) -> str:
    """``uri`` if a client may be registered with it, else a ``CommandError`` saying why."""
    try:
        parts = urlsplit(uri)
        parts.port  # noqa: B018  a malformed port raises
    except ValueError as exc:
        raise CommandError(f"--redirect-uri {uri!r} is not a URL: {exc}.") from exc
    if not parts.scheme or "*" in uri or parts.fragment or "#" in uri:
        raise CommandError(
            f"--redirect-uri {uri!r} must be an absolute URI without a fragment or wildcard."
        )
    if parts.scheme == "http" and parts.hostname not in LOCAL_HOSTS:
        raise CommandError(
            f"--redirect-uri {uri!r}: plain http is allowed only on this machine "
            "(http://127.0.0.1:PORT/...); use https."
        )
    if parts.scheme == "https" and not parts.hostname:
        raise CommandError(f"--redirect-uri {uri!r} has no host.")
    return uri


def scopes_parse(values: list[str]) -> list[str]:
    names: list[str] = []
    for value in values:
        for name in value.replace(",", " ").split():
            if name not in names:
                names.append(name)
    return names


class Command(BaseCommand):
    help = "Register a third-party app (an OAuth 2 / OpenID Connect client); print its id."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", required=True, help="the app's name, shown at consent")
        parser.add_argument(
            "--redirect-uri",
            action="append",
            default=[],
            dest="redirect_uris",
            help="where the app receives the code; exact, repeat for several",
        )
        parser.add_argument(
            "--scopes",
            action="append",
            default=[],
            help=f"scopes it may ask for (space or comma separated): {' '.join(PROVIDER_SCOPES)}",
        )
        parser.add_argument(
            "--public",
            action="store_true",
            help="an app that cannot keep a secret (no secret; PKCE required)",
        )
        parser.add_argument(
            "--device",
            action="store_true",
            help="allow the device authorization grant (public clients only)",
        )
        parser.add_argument(
            "--skip-consent",
            action="store_true",
            help="never show the consent page (only for the service's own apps)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        name = options["name"].strip()
        if not name or len(name) > 100:
            raise CommandError("--name must be 1 to 100 characters.")
        scopes = scopes_parse(options["scopes"])
        if not scopes:
            raise CommandError("Give the scopes the app may ask for: --scopes 'profile:read'.")
        unknown = provider_scopes_unknown(scopes)
        if unknown:
            raise CommandError(
                f"Unknown scopes: {' '.join(unknown)}. A client may have: "
                f"{' '.join(PROVIDER_SCOPES)}."
            )
        redirect_uris = [redirect_uri_check(uri) for uri in options["redirect_uris"]]
        public, device = options["public"], options["device"]
        if device and not public:
            raise CommandError("--device needs --public (a device cannot keep a secret).")
        if not redirect_uris and not device:
            raise CommandError("Give at least one --redirect-uri (or --public --device).")

        grant_types: list[str] = []
        if redirect_uris:
            grant_types.append(Client.GrantType.AUTHORIZATION_CODE)
        if device:
            grant_types.append(Client.GrantType.DEVICE_CODE)
        grant_types.append(Client.GrantType.REFRESH_TOKEN)

        client = Client(
            name=name,
            type=Client.Type.PUBLIC if public else Client.Type.CONFIDENTIAL,
            skip_consent=options["skip_consent"],
        )
        client.set_scopes(scopes)
        client.set_default_scopes(scopes)
        client.set_grant_types(grant_types)
        client.set_response_types(["code"])
        client.set_redirect_uris(redirect_uris)
        secret = get_adapter().generate_client_secret()
        client.set_secret(secret)
        client.full_clean()
        client.save()

        self.stdout.write(f"client_id: {client.id}")
        if public:
            self.stdout.write("client_secret: (none: a public client; it must use PKCE)")
        else:
            self.stdout.write(f"client_secret: {secret}")
            self.stdout.write("Keep the secret now: only its hash is stored.")
        self.stdout.write(f"scopes: {' '.join(scopes)}")
        self.stdout.write(f"grant types: {' '.join(grant_types)}")
