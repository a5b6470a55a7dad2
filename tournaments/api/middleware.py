"""Problem documents for what happens around the API's views.

:class:`ApiProblemMiddleware` acts on ``/api/`` paths (and answers pages' 503s):

* a body announced larger than its limit (``DATA_UPLOAD_MAX_MEMORY_SIZE``, or
  the view's parser's: tournaments.api.parsers.body_limit) is refused with a 413 problem
  before any view reads it — under ASGI before the body is even received — (and a
  ``Content-Length`` that is not a number with a 400 problem);
* an exception escaping a view (a bug) is logged and answered with a 500
  problem document, also with ``DEBUG`` on, never an HTML page;
* a database or Redis that ran out or is down is a 503 (``Retry-After``): a
  problem under ``/api/``, the page ``503.html`` elsewhere;
* every ``/api/`` answer carries the ``RateLimit-Policy`` and ``RateLimit``
  headers (tournaments/api/throttling.py).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import translation
from django.utils.translation import gettext

from engine.contract import said
from tournaments.api import throttling
from tournaments.api.parsers import body_limit
from tournaments.api.problems import (
    exception_response,
    is_api,
    problem_response,
    unavailable_page,
    unavailable_reason,
)
from tournaments.languages import language_of


class ApiProblemMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not is_api(request):
            return self.get_response(request)
        # The API's language is Accept-Language's alone (tournaments/languages.py), so it
        # is known here already: a body refused before the language middleware runs is
        # refused in the language asked for too.
        translation.activate(language_of(request))
        response = self._refuse_body(request) or self.get_response(request)
        throttling.add_headers(request, response)
        return response

    @staticmethod
    def _refuse_body(request: HttpRequest) -> HttpResponse | None:
        length = request.META.get("CONTENT_LENGTH") or ""
        if not length:
            return None
        try:
            size = int(length)
        except ValueError:
            return problem_response(
                "bad-request",
                gettext("Content-Length %(length)s is not a number of bytes")
                % {"length": said(length)},
                field="Content-Length",
                request=request,
            )
        limit = body_limit(request.path)
        if limit is not None and size > limit[0]:
            return problem_response(
                "payload-too-large",
                gettext("the body has %(size)d bytes; the server accepts at most %(limit)d%(why)s")
                % {"size": size, "limit": limit[0], "why": limit[1]},
                request=request,
            )
        return None

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not is_api(request):
            # A page whose database or Redis ran out is a 503 page, also with
            # DEBUG on (where Django would show its traceback page instead).
            if unavailable_reason(exception) is not None:
                return unavailable_page()
            return None
        return exception_response(request, exception)
