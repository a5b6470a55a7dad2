"""The project's ASGI handler: no body read past its limit, and a bound on the requests
run in threads at once.

:func:`tournaments.api.parsers.body_limit` is the one answer to "how many bytes
may a body to this path have": ``DATA_UPLOAD_MAX_MEMORY_SIZE``, or less where the
view's parser takes less (a portable record: ``PARLOUR_RECORD_MAX_BYTES``).  The
API's middleware refuses a body announced larger with a 413 problem
(tournaments/api/middleware.py).

Under ASGI Django reads the whole body before any middleware runs, so that 413
came only after every byte had been received and spooled: an attacker posting
0.88 MB records as fast as four connections allow kept the server reading them
(bench/abuse.py, attack e), and a body sent without ``Content-Length`` (chunked)
was read whole whatever its size.  :class:`BoundedASGIHandler` looks at the
headers first: a body announced over the limit is not read at all (the request
goes on with an empty one, and the middleware answers the 413 from the header;
the server drops the bytes still coming), and a body without ``Content-Length``
is read only up to one byte past the limit (the API reads no body without a
length: DRF takes it as empty).
"""

from __future__ import annotations

import asyncio
import contextvars
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings

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


#: Requests a process runs in threads at once without a connection pool (with one:
#: ``DATABASE_POOL_SIZE``).
REQUESTS_AT_ONCE = 32


def requests_at_once() -> int:
    """How many requests one process runs in threads at once (:class:`BoundedASGIHandler`)."""
    pool = int(getattr(settings, "DATABASE_POOL_SIZE", 0) or 0)
    return pool if pool > 0 else REQUESTS_AT_ONCE


class _Turn:
    """A request's turn to run in a thread: taken once its body is read, given back once
    its view has answered (or when the request ends, whichever is first)."""

    def __init__(self, turns: asyncio.Semaphore) -> None:
        self.turns = turns
        self.taken = False

    async def take(self) -> None:
        await self.turns.acquire()
        self.taken = True

    def give_back(self) -> None:
        if self.taken:
            self.taken = False
            self.turns.release()


_turn: contextvars.ContextVar[_Turn | None] = contextvars.ContextVar("turn", default=None)
#: One semaphore per event loop (one loop per uvicorn worker; tests run several).
_turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


class BoundedASGIHandler(ASGIHandler):
    """The project's ASGI handler (parlour/asgi.py), which reads no body past its limit and
    runs at most :func:`requests_at_once` requests in threads at once.

    Django runs each ASGI request's signals, middleware and view in a thread of its
    own: 1,000 streams or long-polls opened at once from one client (bench/abuse.py,
    attacks c and d) made about 1,000 threads in the web processes, each
    authenticating its token with a pooled connection, so that hundreds waited out
    the pool's timeout (a 503) while every thread fought for the interpreter, other
    users' requests too.  Past the limit a request waits in the event loop, holding no
    thread and no connection, and the turns go in order of arrival; a request gives
    its turn back when its response starts (a stream's or a long-poll's waits are in
    the event loop, not in its turn).
    """

    async def handle(self, scope: Any, receive: Any, send: Any) -> None:
        loop = asyncio.get_running_loop()
        turns = _turns.get(loop)
        if turns is None:
            turns = _turns[loop] = asyncio.Semaphore(requests_at_once())
        turn = _Turn(turns)
        token = _turn.set(turn)
        try:
            await self._handle(scope, receive, send)
        finally:
            turn.give_back()
            _turn.reset(token)

    async def read_body(self, receive: Any) -> Any:
        body = await super().read_body(receive)
        turn = _turn.get()
        if turn is not None:
            await turn.take()  # after the body: a slow upload holds no turn
        return body

    async def send_response(self, response: Any, send: Any) -> None:
        turn = _turn.get()
        if turn is not None:
            turn.give_back()
        await super().send_response(response, send)

    async def _handle(self, scope: Any, receive: Any, send: Any) -> None:
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


__all__ = ["BoundedASGIHandler"]
