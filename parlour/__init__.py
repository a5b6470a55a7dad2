"""The Django project package: settings, URLs, WSGI/ASGI, the Celery app."""

from parlour.celery import app as celery_app

__all__ = ["celery_app"]
