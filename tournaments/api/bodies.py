"""How large a request body may be, and a body over it never read.

:func:`tournaments.api.parsers.body_limit` is the one answer to "how many bytes
may a body to this path have": ``DATA_UPLOAD_MAX_MEMORY_SIZE``, or less where the
view's parser takes less (a portable record: ``PARLOUR_RECORD_MAX_BYTES``).  The
API's middleware refuses a body announced larger with a 413 problem
(tournaments/api/middleware.py).

Under ASGI Django reads the whole body before any middleware runs, so that 413
came only after every byte had been received and spooled: an attacker posting
0.88 MB records as fast as four connections allow kept the server reading them
(bench/abuse.py, attack e), and a body sent without ``Content-Length`` (chunked)
was read whole whatever its size.  :class:`BodyLimitedASGIHandler` looks at the
headers first: a body announced over the limit is not read at all (the request
goes on with an empty one, and the middleware answers the 413 from the header;
the server drops the bytes still coming), and a body without ``Content-Length``
is read only up to one byte past the limit (the API reads no body without a
length: DRF takes it as empty).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from tournaments.api.parsers import body_limit
from tournaments.api.waiting import ASGIHandler

Receive = Callable[[], Awaitable[dict[str, Any]]]


def _header(scope: dict[str, Any], name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value)
    return None


def _without_body(receive: Receive) -> Receive:
    """``receive`` for a request whose body is not read: an empty body at once, then
    (Django listens for the client going away) the real messages, the body's dropped."""
    first = True

    async def receiving() -> dict[str, Any]:
        nonlocal first
        if first:
            first = False
            return {"type": "http.request", "body": b"", "more_body": False}
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return message

    return receiving


def _at_most(receive: Receive, most: int) -> Receive:
    """``receive`` for a body of unknown size: its first ``most`` bytes, then its end."""
    taken = 0
    ended = False

    async def receiving() -> dict[str, Any]:
        nonlocal taken, ended
        while ended:  # past the end: drop the rest of the body, pass on the rest
            message = await receive()
            if message["type"] != "http.request":
                return message
        message = await receive()
        if message["type"] != "http.request":
            return message
        body = bytes(message.get("body", b""))[: most - taken]
        taken += len(body)
        more = bool(message.get("more_body", False)) and taken < most
        ended = not more
        return {"type": "http.request", "body": body, "more_body": more}

    return receiving


class BodyLimitedASGIHandler(ASGIHandler):
    """The project's ASGI handler (parlour/asgi.py), which reads no body past its limit."""

    async def handle(self, scope: Any, receive: Any, send: Any) -> None:
        length = _header(scope, b"content-length")
        chunked = length is None and _header(scope, b"transfer-encoding") is not None
        if length is not None or chunked:
            limit = body_limit(scope.get("path", ""))
            if limit is None:
                pass
            elif chunked:
                receive = _at_most(receive, limit[0] + 1)
            elif length is not None and length.isdigit() and int(length) > limit[0]:
                receive = _without_body(receive)
        await super().handle(scope, receive, send)


__all__ = ["BodyLimitedASGIHandler"]
