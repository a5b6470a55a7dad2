"""ASGI entry point (uvicorn ``parlour.asgi:application``), for streaming responses.

Every middleware runs synchronously here.  Django's own middleware can run
either way, but WhiteNoise's and ours are sync only, and an ASGI stack that
mixes the two hands each request between the event loop and a thread at every
change of mode: about thirty hand-offs a request, which made a plain API call
cost 8.3 ms instead of 3.0 ms under WSGI (docs/benchmarks.md, "HTTP load").
Marked sync only, the middleware run in one thread per request, with the
views (also sync), and a request costs two hand-offs.  The streams are not
affected: the ASGI handler sends their async content itself, after the
middleware.

The handler is Django's with one change (tournaments/api/waiting.py): before a
streamed body or a long-poll's wait it lets the request's thread go, so that an
idle stream or long-poll holds no thread (nor database connection) of its own;
and ours on top (tournaments/api/handler.py): a body announced over its limit is
not read at all (the 413 comes from its headers), one without a length only up to
its limit, and at most ``DATABASE_POOL_SIZE`` (less the connections the waits' and the
push channel's database threads keep; else 32) requests of a process run in threads at
once, the rest waiting their turn in the event loop.

WebSockets (the push channel, ``/api/v1/ws``: tournaments/api/push.py) go to
Django Channels' consumer; everything else is HTTP as above.
"""

import os
from typing import Any

import django
from django.conf import settings
from django.utils.module_loading import import_string

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")
django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application does

from channels.routing import ProtocolTypeRouter  # noqa: E402
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler  # noqa: E402

from tournaments.api import push  # noqa: E402 (needs the apps loaded)
from tournaments.api.handler import BoundedASGIHandler  # noqa: E402

http = BoundedASGIHandler()
# With DEBUG on (make run) the pages' CSS and JavaScript come from the apps' folders, as
# runserver serves them; with it off WhiteNoise serves the collected files.
pages: Any = ASGIStaticFilesHandler(http) if settings.DEBUG else http
application = ProtocolTypeRouter({"http": pages, "websocket": push.application()})


def run_middleware_synchronously() -> None:
    """Mark every middleware of ``settings.MIDDLEWARE`` sync only, then rebuild the stack."""
    for path in settings.MIDDLEWARE:
        import_string(path).async_capable = False
    http.load_middleware(is_async=True)


run_middleware_synchronously()
