"""ASGI entry point: the live server (docker-compose's ``live`` service, and ``make run``).

HTTP: the body read and its size limited first (core/request_bodies.py), then the
event stream and long-poll waits served straight from each game's feed, everything else by
Django (games/api/asgi.py). WebSocket: the game socket (games/api/socket.py), through
Channels, with the session cookie read and browser origins checked against ALLOWED_HOSTS and
CORS_ALLOWED_ORIGINS.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canasta_service.settings")

from canasta_service.tracing import tracing_init  # noqa: E402

tracing_init()  # before Django builds its middleware (off unless configured)
django_application = get_asgi_application()  # sets Django up before the imports below

from canasta_service.routing import application_build  # noqa: E402

application = application_build(django_application)
