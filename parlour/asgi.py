"""ASGI entry point (uvicorn ``parlour.asgi:application``), for streaming responses."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")
application = get_asgi_application()
