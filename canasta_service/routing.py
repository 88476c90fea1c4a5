"""The ASGI application's routes: HTTP through the request body reader and limit
(``core.request_bodies``) to the live fast path (then Django), WebSockets to the game
socket."""

from __future__ import annotations

from typing import Any

from channels.routing import ProtocolTypeRouter, URLRouter
from channels.security.websocket import OriginValidator
from django.conf import settings
from django.urls import re_path

from core.request_bodies import AsgiBodies
from games.api.asgi import LiveHttp
from games.api.socket import GameSocketConsumer, NoSuchSocket


def socket_origins() -> list[str]:
    """Browser origins a socket is accepted from: the site's hosts and the CORS origins (with
    DEBUG and no ALLOWED_HOSTS, localhost, as Django does)."""
    hosts = list(settings.ALLOWED_HOSTS)
    if settings.DEBUG and not hosts:
        hosts = [".localhost", "127.0.0.1", "[::1]"]
    return hosts + list(getattr(settings, "CORS_ALLOWED_ORIGINS", []))


class BrowserOriginValidator(OriginValidator):
    """Channels' origin check for browsers (who always send ``Origin`` on a socket, so a page
    of another site cannot use a player's session cookie); apps without ``Origin`` pass (they
    authenticate with a token)."""

    def valid_origin(self, parsed_origin: Any) -> bool:
        return parsed_origin is None or bool(super().valid_origin(parsed_origin))


def application_build(django_application: Any) -> Any:
    sockets = URLRouter(
        [
            # With or without the trailing slash, as nginx sends both here.
            re_path(r"^api/v1/games/(?P<game_id>\d{1,18})/socket/?$", GameSocketConsumer.as_asgi()),
            re_path(r"", NoSuchSocket.as_asgi()),
        ]
    )
    return ProtocolTypeRouter(
        {
            "http": AsgiBodies(LiveHttp(django_application)),
            # No session middleware: the socket reads the session cookie itself, once.
            "websocket": BrowserOriginValidator(sockets, socket_origins()),
        }
    )
