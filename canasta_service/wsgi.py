"""WSGI entry point: ``gunicorn canasta_service.wsgi:application``."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "canasta_service.settings")

application = get_wsgi_application()
