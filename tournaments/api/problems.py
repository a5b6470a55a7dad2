"""Errors as RFC 9457 problem documents, for every response under ``/api/``.

Every error the API gives is ``application/problem+json``::

    {"type": "/api/v1/problems/illegal-action", "title": "Illegal action",
     "status": 422, "detail": "seat 1 offers 5 cards: choose a position from 0 to 4, not 7",
     "field": "action.index", "instance": "/api/v1/games/12/actions"}

``type`` names the kind of problem (a relative URI answered by
``GET /api/v1/problems/<slug>``; it never changes with the language), ``title`` is that
kind's fixed summary and, like ``detail``, in the language of ``Accept-Language``
(English by default: docs/i18n.md),
``detail`` says what is wrong this time and how to fix it, ``field`` names the
input at fault (``null`` when no single field is) and ``instance`` is the
request path.  Some kinds add members: a conflict has ``current_sequence``,
a validation error ``errors`` (every field's messages), a throttled request
``retry_after``.

:func:`exception_handler` is DRF's ``EXCEPTION_HANDLER``; the Django handlers
(:func:`not_found`, :func:`server_error`, ...) and
:class:`~tournaments.api.middleware.ApiProblemMiddleware` cover what never
reaches a DRF view (unknown URLs, crashes, oversized bodies).

(Over 400 lines, on purpose: every error the API gives is made here, from the one
catalogue of problem types (``_TYPES``, a fifth of the module) through DRF's handler
to Django's; one place, so no error leaves in another shape.)
"""

from __future__ import annotations

import json
import logging
import sqlite3
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import psycopg
import redis
from django.core.exceptions import PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.db import InterfaceError
from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.utils.translation import gettext, gettext_lazy, gettext_noop, ngettext
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from psycopg_pool import PoolTimeout
from rest_framework import exceptions, status

from engine.contract import IllegalAction
from engine.fairness import FairnessError
from engine.record import RecordError
from events.store import Conflict, IdempotencyKeyReused
from tournaments.play import GameNotOver, GameOver
from tournaments.services import ServiceError
from tournaments.words import record_fault, refusal, say

logger = logging.getLogger("parlour.api")

PROBLEM_CONTENT_TYPE = "application/problem+json"
#: Where problem types live: ``type`` is this followed by the slug.
TYPE_PREFIX = "/api/v1/problems/"


@dataclass(frozen=True)
class ProblemType:
    """One kind of problem: its slug (the end of its ``type``), title, status and meaning."""

    slug: str
    #: English (marked for the catalog): a problem says it in the request's language.
    title: str
    status: int
    description: str

    @property
    def uri(self) -> str:
        return TYPE_PREFIX + self.slug


_TYPES = [
    ProblemType(
        "bad-request",
        gettext_noop("Bad request"),
        400,
        gettext_noop("The request cannot be read (for example malformed JSON)."),
    ),
    ProblemType(
        "invalid",
        gettext_noop("Invalid input"),
        400,
        gettext_noop("A field is missing or has a value of the wrong shape."),
    ),
    ProblemType(
        "unauthenticated",
        gettext_noop("Authentication needed"),
        401,
        gettext_noop(
            "Send 'Authorization: Bearer <key>' with a valid, unrevoked token (or log in)."
        ),
    ),
    ProblemType(
        "forbidden",
        gettext_noop("Forbidden"),
        403,
        gettext_noop("You may see this, but not do this (not your seat or club)."),
    ),
    ProblemType(
        "not-found",
        gettext_noop("Not found"),
        404,
        gettext_noop("There is no such resource, or you may not see it."),
    ),
    ProblemType(
        "method-not-allowed",
        gettext_noop("Method not allowed"),
        405,
        gettext_noop("The resource does not take this method."),
    ),
    ProblemType(
        "not-acceptable",
        gettext_noop("Not acceptable"),
        406,
        gettext_noop("The API answers application/json only."),
    ),
    ProblemType(
        "conflict",
        gettext_noop("Sequence conflict"),
        409,
        gettext_noop(
            "The game moved on since the sequence you sent: fetch the view at current_sequence,"
            " decide again and send the new sequence."
        ),
    ),
    ProblemType(
        "game-not-over",
        gettext_noop("Game not over"),
        409,
        gettext_noop(
            "What you asked for (the record, the deck, the seed) is shown once the game is over."
        ),
    ),
    ProblemType(
        "game-over",
        gettext_noop("Game over"),
        409,
        gettext_noop(
            "The game is over: nothing more can be done in it. A tournament table's next game"
            " is next_game_id in the finished game's view."
        ),
    ),
    ProblemType(
        "payload-too-large",
        gettext_noop("Request body too large"),
        413,
        gettext_noop("The body is larger than the server accepts (PARLOUR_MAX_BODY_BYTES)."),
    ),
    ProblemType(
        "unsupported-media-type",
        gettext_noop("Unsupported media type"),
        415,
        gettext_noop("Send JSON bodies with 'Content-Type: application/json'."),
    ),
    ProblemType(
        "illegal-action",
        gettext_noop("Illegal action"),
        422,
        gettext_noop("The rules do not allow this action now; detail gives the engine's reason."),
    ),
    ProblemType(
        "idempotency-key-reused",
        gettext_noop("Idempotency key reused"),
        422,
        gettext_noop(
            "This Idempotency-Key was used for another command in this game: use a fresh key"
            " for each new command, the same key only to retry the same command."
        ),
    ),
    ProblemType(
        "refused",
        gettext_noop("Refused"),
        422,
        gettext_noop("The tournament rules do not allow this now; detail says why and what to do."),
    ),
    ProblemType(
        "invalid-record",
        gettext_noop("Invalid record"),
        422,
        gettext_noop(
            "The record does not hold: detail names the first fault (and move_index the move)."
        ),
    ),
    ProblemType(
        "throttled",
        gettext_noop("Too many requests"),
        429,
        gettext_noop(
            "Slow down: wait retry_after seconds (the Retry-After header) before trying again."
        ),
    ),
    ProblemType(
        "server-error",
        gettext_noop("Server error"),
        500,
        gettext_noop("Something went wrong on our side; nothing you sent was at fault."),
    ),
    ProblemType(
        "unavailable",
        gettext_noop("Service unavailable"),
        503,
        gettext_noop(
            "The server is too busy to answer now (no database connection was free in time, the"
            " database refused a connection or Redis is not answering): wait retry_after seconds"
            " (the Retry-After header) and try again, an action with the same Idempotency-Key."
        ),
    ),
]
PROBLEM_TYPES: dict[str, ProblemType] = {t.slug: t for t in _TYPES}


def problem_body(
    slug: str,
    detail: str,
    *,
    field: str | None = None,
    status_code: int | None = None,
    instance: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The problem document of kind ``slug`` (``status_code`` overrides the kind's status)."""
    kind = PROBLEM_TYPES[slug]
    body: dict[str, Any] = {
        "type": kind.uri,
        "title": gettext(kind.title),
        "status": status_code or kind.status,
        "detail": detail,
        "field": field,
    }
    if instance is not None:
        body["instance"] = instance
    if extra:
        body.update(extra)
    return body


def problem_response(
    slug: str,
    detail: str,
    *,
    field: str | None = None,
    status_code: int | None = None,
    request: HttpRequest | None = None,
    extra: Mapping[str, Any] | None = None,
    headers: Mapping[str, str] | None = None,
) -> HttpResponse:
    """An ``application/problem+json`` response (a plain Django response: no renderer needed)."""
    body = problem_body(
        slug,
        detail,
        field=field,
        status_code=status_code,
        instance=request.path if request is not None else None,
        extra=extra,
    )
    response = HttpResponse(
        json.dumps(body, ensure_ascii=False),
        status=body["status"],
        content_type=PROBLEM_CONTENT_TYPE,
    )
    for name, value in (headers or {}).items():
        response[name] = value
    return response


# -- API exceptions the views raise ----------------------------------------------------------------


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = gettext_lazy("the request body is too large")
    default_code = "payload_too_large"


class Refused(exceptions.APIException):
    """A use case refused (422), with the field at fault."""

    status_code = status.HTTP_422_UNPROCESSABLE_ENTITY
    default_code = "refused"

    def __init__(self, detail: str, field: str | None = None, slug: str = "refused") -> None:
        super().__init__(detail)
        self.field = field
        self.slug = slug


class TooManyLogins(exceptions.Throttled):
    """Password logins refused after too many failures: 429 ``throttled``, with its message
    and the ``limit`` (``login_account`` or ``login_address``)."""

    def __init__(self, wait: int, message: str, limit: str) -> None:
        super().__init__(wait=wait)
        self.message = message
        self.limit = limit


class Forbidden(exceptions.PermissionDenied):
    """403 with the field at fault."""

    def __init__(self, detail: str, field: str | None = None) -> None:
        super().__init__(detail)
        self.field = field


# -- the DRF exception handler ---------------------------------------------------------------------

_DRF_SLUGS: dict[type[exceptions.APIException], str] = {
    exceptions.ParseError: "bad-request",
    exceptions.ValidationError: "invalid",
    exceptions.AuthenticationFailed: "unauthenticated",
    exceptions.NotAuthenticated: "unauthenticated",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not-found",
    exceptions.MethodNotAllowed: "method-not-allowed",
    exceptions.NotAcceptable: "not-acceptable",
    exceptions.UnsupportedMediaType: "unsupported-media-type",
    exceptions.Throttled: "throttled",
    PayloadTooLarge: "payload-too-large",
}


def _flatten(errors: Any, prefix: str = "") -> list[dict[str, str]]:
    """DRF's nested validation errors as ``[{"field": "a.b", "detail": "..."}]``."""
    found: list[dict[str, str]] = []
    if isinstance(errors, Mapping):
        for key, value in errors.items():
            name = "" if key in ("non_field_errors", "__all__") else str(key)
            found += _flatten(value, f"{prefix}.{name}" if prefix and name else prefix or name)
    elif isinstance(errors, list):
        for index, value in enumerate(errors):
            if isinstance(value, Mapping | list):
                found += _flatten(value, f"{prefix}.{index}" if prefix else str(index))
            else:
                found.append({"field": prefix, "detail": str(value)})
    else:
        found.append({"field": prefix, "detail": str(errors)})
    return found


def _action_field(field: str | None) -> str | None:
    """The engine's field at fault, as the request body names it."""
    if field is None:
        return None
    return field if field in ("seat", "expected_sequence") else f"action.{field}"


def exception_handler(exc: Exception, context: Mapping[str, Any]) -> HttpResponse | None:
    """DRF's exception handler: every known error becomes a problem document.

    Unknown exceptions return ``None``: DRF re-raises them and the middleware
    answers a logged 500 problem.
    """
    request = context.get("request")
    django_request: HttpRequest | None = getattr(request, "_request", request)
    if isinstance(exc, Http404):
        exc = exceptions.NotFound(str(exc) or None)
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or None)

    def answer(slug: str, detail: str, **kwargs: Any) -> HttpResponse:
        return problem_response(slug, detail, request=django_request, **kwargs)

    if isinstance(exc, Conflict):
        return answer(
            "conflict",
            gettext(
                "the game is at sequence %(current)s, not %(expected)s: fetch it,"
                " decide again and send expected_sequence %(current)s"
            )
            % {"current": exc.current_sequence, "expected": exc.expected},
            field="expected_sequence",
            extra={"current_sequence": exc.current_sequence, "expected_sequence": exc.expected},
        )
    if isinstance(exc, IdempotencyKeyReused):
        return answer(
            "idempotency-key-reused",
            gettext(
                "this Idempotency-Key was already used in this game for another command:"
                " send a new key with a new command"
            ),
            field="Idempotency-Key",
        )
    if isinstance(exc, GameOver):
        # As autoplay of a finished game is answered: whatever is asked of a finished game
        # is one problem, which a client tells from a refusal of the rules by its type.
        return answer(
            "game-over",
            gettext(
                "game %(game)s is over: nothing more is played in it (a tournament table"
                " plays on in the game its view's next_game_id names)"
            )
            % {"game": exc.game_id},
        )
    if isinstance(exc, IllegalAction):
        return answer("illegal-action", refusal(exc), field=_action_field(exc.field))
    if isinstance(exc, GameNotOver):
        return answer("game-not-over", str(exc))
    if isinstance(exc, RecordError):
        return answer(
            "invalid-record",
            record_fault(exc),
            field=exc.field,
            extra={"move_index": exc.index},
        )
    if isinstance(exc, FairnessError):
        return answer(
            "invalid-record", say(exc.phrase), field="shuffle", extra={"move_index": None}
        )
    if isinstance(exc, Refused):
        return answer(exc.slug, str(exc.detail), field=exc.field)
    if isinstance(exc, ServiceError):
        return answer("refused", exc.message, field=exc.field)
    if isinstance(exc, exceptions.APIException):
        slug = next(
            (s for cls, s in _DRF_SLUGS.items() if isinstance(exc, cls)),
            "bad-request" if exc.status_code < 500 else "server-error",
        )
        headers: dict[str, str] = {}
        extra: dict[str, Any] = {}
        auth_header = getattr(exc, "auth_header", None)
        if auth_header:
            headers["WWW-Authenticate"] = auth_header
        if isinstance(exc, exceptions.Throttled):
            # DRF sets Throttled.wait (seconds, or None); the stubs leave it out.
            seconds: float | None = exc.wait  # type: ignore[attr-defined]
            wait = int(seconds) if seconds is not None else 1
            headers["Retry-After"] = str(max(wait, 1))
            extra["retry_after"] = max(wait, 1)
            reason = getattr(exc, "reason", None)
            if isinstance(getattr(exc, "limit", None), str):  # the open streams' caps, the logins'
                extra["limit"] = exc.limit  # type: ignore[attr-defined]
            state = _rate_state(context)
            if reason is None and state is not None and state.exceeded():
                # The request rates (tournaments/api/throttling.py): which limit, when.
                reason = state.refusal()
                extra["limit"] = state.exceeded()[0]
            detail = (
                exc.message
                if isinstance(exc, TooManyLogins)
                else reason
                or ngettext(
                    "too many requests: try again in %(seconds)s second",
                    "too many requests: try again in %(seconds)s seconds",
                    max(wait, 1),
                )
                % {"seconds": max(wait, 1)}
            )
            return answer(slug, detail, headers=headers, extra=extra)
        if isinstance(exc, exceptions.ValidationError):
            errors = _flatten(exc.detail)
            first = errors[0] if errors else {"field": "", "detail": gettext("invalid input")}
            field = first["field"] or None
            detail = f"{first['field']}: {first['detail']}" if field else first["detail"]
            # The whole body at fault is field null, as the problem's own "field" says it.
            listed = [{"field": e["field"] or None, "detail": e["detail"]} for e in errors]
            return answer(slug, detail, field=field, extra={"errors": listed})
        if isinstance(exc, exceptions.MethodNotAllowed):
            view = context.get("view")
            if view is not None:
                headers["Allow"] = ", ".join(view.allowed_methods)
        field = getattr(exc, "field", None)
        return answer(
            slug,
            _text(exc.detail),
            field=field,
            status_code=exc.status_code,
            headers=headers,
        )
    return None


def _rate_state(context: Mapping[str, Any]) -> Any:
    """The request's rate limits as its throttle left them (``None`` if it did not run)."""
    from tournaments.api.throttling import STATE_ATTRIBUTE

    request = context.get("request")
    django_request = getattr(request, "_request", request)
    return getattr(django_request, STATE_ATTRIBUTE, None)


def _text(detail: Any) -> str:
    if isinstance(detail, list | tuple):
        return "; ".join(_text(d) for d in detail)
    if isinstance(detail, Mapping):
        return "; ".join(f"{k}: {_text(v)}" for k, v in detail.items())
    return str(detail)


# -- Django handlers for what never reaches a DRF view ---------------------------------------------


def is_api(request: HttpRequest) -> bool:
    """Whether ``request`` is for the API (its errors are problem documents)."""
    return request.path.startswith("/api/") or request.path == "/api"


def not_found_response(request: HttpRequest) -> HttpResponse:
    return problem_response(
        "not-found",
        gettext("there is no resource at %(path)s: see /api/v1/docs for the API's URLs")
        % {"path": request.path},
        request=request,
    )


def server_error_response(request: HttpRequest) -> HttpResponse:
    return problem_response(
        "server-error",
        gettext("the server failed to answer this request; it has been logged"),
        request=request,
    )


#: Seconds a client is told to wait after a 503 ``unavailable`` (it already waited
#: DATABASE_POOL_TIMEOUT for a connection): long enough for a burst to pass.
UNAVAILABLE_RETRY_SECONDS = 2


#: SQLSTATE classes of a PostgreSQL that cannot serve now (not a bug of the query):
#: 08 connection exception, 53 insufficient resources ("too many clients"), 57P
#: the server shutting down or starting (admin shutdown, cannot connect now).
_UNAVAILABLE_SQLSTATES = ("08", "53", "57P")


def unavailable_reason(exc: BaseException) -> str | None:
    """Why ``exc`` means a resource ran out or is down (a 503, not a bug), or ``None``.

    Django wraps the driver's errors in its own (the driver's is the cause): the
    pool's timeout; PostgreSQL refusing or losing the connection; SQLite's lock
    held past its timeout; Redis not answering.
    """
    for error in (exc, exc.__cause__):
        if isinstance(error, PoolTimeout):
            return "no free database connection"
        if isinstance(error, psycopg.OperationalError) and (
            error.sqlstate is None or error.sqlstate.startswith(_UNAVAILABLE_SQLSTATES)
        ):
            return "the database refused or lost the connection"
        if isinstance(error, psycopg.InterfaceError | InterfaceError):
            return "the database connection is closed"
        if isinstance(error, sqlite3.OperationalError) and "locked" in str(error):
            return "the database is locked"
        if isinstance(error, redis.ConnectionError | redis.TimeoutError):
            return "Redis is not answering"
    return None


def unavailable_detail() -> str:
    """What a 503 ``unavailable`` problem says (the REST API's and the push channel's)."""
    return ngettext(
        "the server is too busy to answer now: try again in %(seconds)s second",
        "the server is too busy to answer now: try again in %(seconds)s seconds",
        UNAVAILABLE_RETRY_SECONDS,
    ) % {"seconds": UNAVAILABLE_RETRY_SECONDS}


def unavailable_response(request: HttpRequest, reason: str) -> HttpResponse:
    """The 503 ``unavailable`` problem, logged as a warning (overload: no traceback)."""
    logger.warning("API request %s %s: %s; answered 503", request.method, request.path, reason)
    return problem_response(
        "unavailable",
        unavailable_detail(),
        request=request,
        extra={"retry_after": UNAVAILABLE_RETRY_SECONDS},
        headers={"Retry-After": str(UNAVAILABLE_RETRY_SECONDS)},
    )


def exception_response(request: HttpRequest, exc: Exception) -> HttpResponse:
    """The problem document for an exception raised outside DRF's handling (middleware)."""
    reason = unavailable_reason(exc)
    if reason is not None:
        return unavailable_response(request, reason)
    if isinstance(exc, RequestDataTooBig):
        return problem_response(
            "payload-too-large",
            gettext("the request body is larger than the server accepts"),
            request=request,
        )
    if isinstance(exc, SuspiciousOperation):
        return problem_response(
            "bad-request", gettext("the request cannot be accepted"), request=request
        )
    if isinstance(exc, Http404):
        return not_found_response(request)
    if isinstance(exc, PermissionDenied):
        return problem_response("forbidden", str(exc) or gettext("forbidden"), request=request)
    logger.error("API request %s %s failed", request.method, request.path, exc_info=exc)
    return server_error_response(request)


def handler400(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's ``handler400``: a problem document under ``/api/``, Django's page elsewhere."""
    if is_api(request):
        return problem_response(
            "bad-request", gettext("the request cannot be accepted"), request=request
        )
    return defaults.bad_request(request, exception or SuspiciousOperation())


def handler403(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api(request):
        return problem_response("forbidden", gettext("forbidden"), request=request)
    return defaults.permission_denied(request, exception or PermissionDenied())


def handler404(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api(request):
        return not_found_response(request)
    return defaults.page_not_found(request, exception)


def handler500(request: HttpRequest) -> HttpResponse:
    # Django calls it inside its `except`: an exhausted resource raised outside a
    # view (a middleware's session save) is a 503 here too.
    exc = sys.exc_info()[1]
    reason = None if exc is None else unavailable_reason(exc)
    if reason is not None:
        return unavailable_response(request, reason) if is_api(request) else unavailable_page()
    if is_api(request):
        return server_error_response(request)
    return defaults.server_error(request)


def unavailable_page() -> HttpResponse:
    """The browser's 503: a page of its own that needs neither the database nor Redis."""
    response = HttpResponse(
        render_to_string("503.html", {"retry_after": UNAVAILABLE_RETRY_SECONDS}), status=503
    )
    response["Retry-After"] = str(UNAVAILABLE_RETRY_SECONDS)
    return response


@csrf_exempt
def api_not_found(request: HttpRequest, rest: str = "") -> HttpResponse:
    """The catch-all view of ``/api/``: unknown URLs are 404 problems even with DEBUG on."""
    return not_found_response(request)
