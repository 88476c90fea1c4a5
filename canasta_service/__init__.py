"""The Django project: settings from the environment, URLs, the Celery app, error handling."""

from canasta_service.celery import app as celery_app

__all__ = ("celery_app",)
