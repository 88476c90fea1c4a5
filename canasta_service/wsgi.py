"""WSGI entry point: ``gunicorn canasta_service.wsgi:application``.

Django, wrapped in the request body reader and limit (``core.request_bodies``): a
chunked body is read rather than taken for an empty one, an oversized one refused as it comes.
"""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canasta_service.settings")

from canasta_service.tracing import tracing_init  # noqa: E402

tracing_init()  # before Django builds its middleware (off unless configured)
django_application = get_wsgi_application()  # sets Django up before the import below

from core.request_bodies import WsgiBodies  # noqa: E402

application = WsgiBodies(django_application)
