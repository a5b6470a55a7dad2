"""WSGI entry point (gunicorn ``parlour.wsgi``)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")
application = get_wsgi_application()
