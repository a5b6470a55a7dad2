"""The project's ASGI handler: no body read past its limit, a bound on the requests
run in threads at once, and refusals (429) held back a moment (:func:`refusal_delay`).

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
import base64
import binascii
import contextvars
import hashlib
import json
import math
import threading
import time
import weakref
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestAborted
from django.urls import Resolver404, resolve

from parlour.db import connections_kept_by_threads
from tournaments.api import capacity
from tournaments.api.parsers import body_limit
from tournaments.api.waiting import ASGIHandler, let_the_request_thread_go

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
#: ``DATABASE_POOL_SIZE`` less what the database threads keep, :mod:`parlour.db`).
REQUESTS_AT_ONCE = 32


def requests_at_once() -> int:
    """How many requests one process runs in threads at once (:class:`BoundedASGIHandler`)."""
    pool = int(getattr(settings, "DATABASE_POOL_SIZE", 0) or 0)
    return pool - connections_kept_by_threads() if pool > 0 else REQUESTS_AT_ONCE


def client_address(scope: dict[str, Any]) -> str:
    """The client's address as the throttles read it (DRF's ``get_ident``, with
    ``PARLOUR_NUM_PROXIES``), from an ASGI scope."""
    from rest_framework.settings import api_settings

    forwarded = _header(scope, b"x-forwarded-for")
    client = scope.get("client") or ("", 0)
    remote = str(client[0])
    proxies = api_settings.NUM_PROXIES
    if forwarded is None:
        return remote
    text = forwarded.decode("latin-1")
    if proxies is not None:
        if proxies == 0:
            return remote
        parts = text.split(",")
        return parts[-min(int(proxies), len(parts))].strip()
    return "".join(text.split())


class Turns:
    """The turns of one process (one event loop) to run requests in threads.

    At most ``total`` run at once, at most ``per_address`` of them from one client
    address; a request that must wait waits in the event loop, and a turn given back
    goes to the waiting addresses in turn (round robin), each address's own requests
    in order of arrival.  So one client's burst queues behind itself: another
    client's request waits for the next free turn, not behind the burst.
    """

    def __init__(self, total: int, per_address: int) -> None:
        self.total = total
        self.per_address = per_address
        self.running = 0
        self.by_address: dict[str, int] = {}
        self.waiting: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    def _start(self, address: str) -> None:
        self.running += 1
        self.by_address[address] = self.by_address.get(address, 0) + 1

    async def take(self, address: str) -> None:
        if (
            address not in self.waiting
            and self.running < self.total
            and self.by_address.get(address, 0) < self.per_address
        ):
            self._start(address)
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.waiting.setdefault(address, deque()).append(turn)
        self._hand_out()
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self.give_back(address)  # handed the turn as the client went away
            else:
                queue = self.waiting.get(address)
                if queue is not None and turn in queue:
                    queue.remove(turn)
                    if not queue:
                        del self.waiting[address]
            raise

    def give_back(self, address: str) -> None:
        self.running -= 1
        left = self.by_address.get(address, 1) - 1
        if left > 0:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)
        self._hand_out()

    def _hand_out(self) -> None:
        """Free turns to waiting requests: one per address per pass, round robin."""
        handed = True
        while handed and self.waiting and self.running < self.total:
            handed = False
            for address in list(self.waiting):
                if self.running >= self.total:
                    break
                if self.by_address.get(address, 0) >= self.per_address:
                    continue
                queue = self.waiting[address]
                turn = queue.popleft()
                if queue:
                    self.waiting.move_to_end(address)
                else:
                    del self.waiting[address]
                handed = True
                if turn.cancelled():
                    continue
                self._start(address)
                turn.set_result(None)


class _Turn:
    """A request's turn to run in a thread: taken once its body is read, given back once
    its response starts (or when the request ends, whichever is first)."""

    def __init__(self, turns: Turns, address: str) -> None:
        self.turns = turns
        self.address = address
        self.taken = False

    async def take(self) -> None:
        await self.turns.take(self.address)
        self.taken = True

    def give_back(self) -> None:
        if self.taken:
            self.taken = False
            self.turns.give_back(self.address)


_turn: contextvars.ContextVar[_Turn | None] = contextvars.ContextVar("turn", default=None)
#: One set of turns per event loop (one loop per uvicorn worker; tests run several).
_turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Turns] = weakref.WeakKeyDictionary()


async def refusal_delay(retry_after: str | int | None) -> None:
    """Wait before a 429 (or a 413) goes out: ``PARLOUR_REFUSAL_DELAY_SECONDS``, at most
    ``retry_after``.

    A 413 waits too: four connections posting a 0.88 MB record as fast as they were
    refused (attack e) made 465 refusals a second, each a request's work, the body
    dropped by the server; held back, each connection makes one a second.

    A refusal costs the server a request's work however fast it is sent, and a client
    that loops on refusals without waiting (bench/abuse.py, attack a: 32 connections
    guessing passwords) sent them as fast as they were answered: ~6 ms of the web
    processes' CPU each, 780 in 2.8 s, the two cores full.  Held back in the event loop
    (its thread ended and its database connection given back first, the request's turn
    already given back) each such connection makes one request a second; a client that
    honours ``Retry-After`` waits longer than this anyway.
    """
    delay = float(getattr(settings, "PARLOUR_REFUSAL_DELAY_SECONDS", 0.0))
    try:
        if retry_after is not None:
            delay = min(delay, float(retry_after))
    except ValueError:
        pass
    if delay > 0:
        await asyncio.sleep(delay)


class Refusals:
    """The API's 429 answers of the last moment, to give again from the event loop.

    A client refused for a rate or for its open streams that sends the same kind of
    request again at once is refused the same way: its credentials are the same, so the
    same limit is still spent.  Recomputing that costs the request's whole path (a
    thread, the token's row, the throttles' and slots' Redis round trips): about 10 ms
    of CPU for each of 968 streams, long-polls or sockets sent at once beyond the caps
    (bench/abuse.py, attacks c, d, g), which held both cores for seconds.  For
    :data:`SECONDS` after a 429 (at most its ``Retry-After``) a request of the same
    caller (address, ``Authorization``, cookies, ``Origin``, ``Accept-Language``) for
    the same route and method, with
    or without a long-poll's ``wait``, gets the same problem at once: its
    ``Retry-After`` and ``instance`` its own.  A stream slot given back meanwhile may
    be taken a second late: the refusal said ``Retry-After: 1``.

    When what was full is the address's open streams (``limit`` ``open_address``), the
    refusal is given again to anyone asking that route from the address, whatever their
    credentials: the cap counts them all.  A burst of 1,000 from one address with 12
    tokens then costs each process one refusal's whole path, not one a token (48 in
    four processes, which kept others' p99 over 2× in attacks d and g).

    A password login refused (``limit`` ``login_address`` or ``login_account``: locked
    out, or another login being checked) is given again to whoever asks that route the
    same way from the address, or with the account's name in HTTP Basic from anywhere,
    whatever the password: each guess carries a password of its own, so keyed by the
    credentials every guess of 32 guessers took the whole path (attack a).
    """

    #: Seconds a refusal is given again without asking (at most its Retry-After).
    SECONDS = 1.0
    #: Refusals kept at once (the oldest go first).
    MOST = 10_000

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # key -> (given again until, retry at, headers, the problem document)
        self._kept: OrderedDict[
            tuple[str, ...], tuple[float, float, list[tuple[bytes, bytes]], dict[str, Any]]
        ] = OrderedDict()

    @staticmethod
    def keys_of(
        scope: dict[str, Any],
    ) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...] | None] | None:
        """The caller and the kind of request, for an API request or a push-channel
        handshake; anyone at the caller's address asking the same way whatever their
        credentials; and anyone naming the same account in HTTP Basic (``None`` without
        Basic) (else ``None``)."""
        path = str(scope.get("path", ""))
        if scope.get("type") not in ("http", "websocket") or not path.startswith("/api/"):
            return None
        if scope["type"] == "websocket":
            route = path  # Channels' routes, not Django's: the push channel's one address
        else:
            try:
                route = str(resolve(path).route)
            except Resolver404:
                return None
        # Who asks (credentials, cookies) and what the answer depends on besides: its CORS
        # headers (Origin) and its language.
        who = [_header(scope, name) or b"" for name in (b"authorization", b"cookie")]
        answer = [_header(scope, name) or b"" for name in (b"origin", b"accept-language")]
        caller = hashlib.sha256(b"\0".join([*who, *answer])).hexdigest()
        anyone = "*" + hashlib.sha256(b"\0".join(answer)).hexdigest()
        waits = "wait" if b"wait=" in bytes(scope.get("query_string", b"")) else ""
        method = str(scope.get("method", "WEBSOCKET"))
        address = client_address(scope)
        account = _basic_account(who[0])
        return (
            (address, caller, method, route, waits),
            (address, anyone, method, route, waits),
            None if account is None else ("account", account, anyone, method, route),
        )

    def remember(self, scope: dict[str, Any], response: Any) -> None:
        """Keep ``response``, a 429 problem, for the caller of ``scope`` (:meth:`refused`)."""
        if response.status_code != 429 or "json" not in response.get("Content-Type", ""):
            return
        try:
            problem = json.loads(response.content)
            retry = float(response.get("Retry-After", "1"))
        except ValueError:
            return
        headers = [
            (str(k).lower().encode("latin-1"), str(v).encode("latin-1"))
            for k, v in response.items()
            if str(k).lower() not in ("retry-after", "content-length")
        ]
        self.refused(scope, problem, retry, headers)

    def refused(
        self,
        scope: dict[str, Any],
        problem: dict[str, Any],
        retry: float,
        headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        """Give ``problem`` again to the caller of ``scope`` for a moment, and to anyone at
        its address when the address's open streams were full."""
        keys = self.keys_of(scope)
        if keys is None:
            return
        caller, anyone, account = keys
        self.keep(caller, problem, retry, headers)
        limit = problem.get("limit")
        if limit in (capacity.ADDRESS_LIMIT, LOGIN_ADDRESS):
            self.keep(anyone, problem, retry, headers)
        elif limit == LOGIN_ACCOUNT and account is not None:
            self.keep(account, problem, retry, headers)

    def keep(
        self,
        key: tuple[str, ...],
        problem: dict[str, Any],
        retry: float,
        headers: list[tuple[bytes, bytes]] | None = None,
    ) -> None:
        """Give ``problem`` again to ``key`` for a moment (``retry``: its Retry-After)."""
        now = time.monotonic()
        headers = headers or []
        with self._lock:
            self._kept[key] = (now + min(self.SECONDS, retry), now + retry, headers, problem)
            self._kept.move_to_end(key)
            while len(self._kept) > self.MOST:
                self._kept.popitem(last=False)

    def answer(self, key: tuple[str, ...], path: str) -> tuple[int, list[Any], bytes] | None:
        """The refusal to give again for ``key`` (its status, headers and body), if any."""
        now = time.monotonic()
        with self._lock:
            found = self._kept.get(key)
            if found is None:
                return None
            if found[0] <= now:
                del self._kept[key]
                return None
        _, retry_at, headers, problem = found
        retry = max(1, math.ceil(retry_at - now))
        body = json.dumps(problem | {"instance": path, "retry_after": retry}).encode()
        extra = [
            (b"retry-after", str(retry).encode()),
            (b"content-length", str(len(body)).encode()),
        ]
        return 429, [*headers, *extra], body

    def again_for(self, scope: dict[str, Any]) -> tuple[int, list[Any], bytes] | None:
        """:meth:`answer` for the request of ``scope``; its key is worked out only when a
        refusal is kept at all (most requests pay nothing for this)."""
        if not self._kept:
            return None
        keys = self.keys_of(scope)
        if keys is None:
            return None
        path = str(scope.get("path", ""))
        caller, anyone, account = keys
        return (
            self.answer(caller, path)
            or self.answer(anyone, path)
            or (None if account is None else self.answer(account, path))
        )

    def clear(self) -> None:
        with self._lock:
            self._kept.clear()


#: The login limits' names in a refusal (tournaments/api/throttling.py, ``LoginLockedOut``).
LOGIN_ADDRESS = "login_address"
LOGIN_ACCOUNT = "login_account"


def _basic_account(authorization: bytes) -> str | None:
    """A digest of the account named by HTTP Basic credentials (case folded, as the login
    limits count it), or ``None`` for other credentials."""
    scheme, _, encoded = authorization.partition(b" ")
    if scheme.lower() != b"basic":
        return None
    try:
        user = base64.b64decode(encoded.strip(), validate=True).decode("utf-8").partition(":")[0]
    except (binascii.Error, UnicodeDecodeError):
        return None
    return hashlib.sha256(user.strip().casefold().encode("utf-8")).hexdigest()


#: This process's refusals (:class:`Refusals`).
refusals = Refusals()
#: The request's scope and the server's ``send`` (for :data:`refusals`).
_asked: contextvars.ContextVar[tuple[dict[str, Any], Any] | None] = contextvars.ContextVar(
    "asked", default=None
)


async def _give_again(again: tuple[int, list[Any], bytes], send: Any) -> None:
    status, headers, body = again
    await refusal_delay(dict(headers).get(b"retry-after", b"1").decode())
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class BoundedASGIHandler(ASGIHandler):
    """The project's ASGI handler (parlour/asgi.py), which reads no body past its limit and
    runs at most :func:`requests_at_once` requests in threads at once.

    Django runs each ASGI request's signals, middleware and view in a thread of its
    own: 1,000 streams or long-polls opened at once from one client (bench/abuse.py,
    attacks c and d) made about 1,000 threads in the web processes, each
    authenticating its token with a pooled connection, so that hundreds waited out
    the pool's timeout (a 503) while every thread fought for the interpreter, other
    users' requests too.  Past the limit a request waits in the event loop, holding no
    thread and no connection (:class:`Turns`: one address may hold half the turns,
    and the turns go round robin between the waiting addresses, so others' requests
    do not wait behind one client's burst); a request gives its turn back when its
    response starts (a stream's or a long-poll's waits are in the event loop, not in
    its turn).
    """

    async def handle(self, scope: Any, receive: Any, send: Any) -> None:
        again = refusals.again_for(scope)
        if again is not None:  # refused a moment ago: the same refusal, from here
            await _give_again(again, send)
            return
        asked = _asked.set((scope, send))
        try:
            await self._bounded(scope, receive, send)
        finally:
            _asked.reset(asked)

    async def _bounded(self, scope: Any, receive: Any, send: Any) -> None:
        loop = asyncio.get_running_loop()
        turns = _turns.get(loop)
        if turns is None:
            total = requests_at_once()
            turns = _turns[loop] = Turns(total, max(1, total // 2))
        turn = _Turn(turns, client_address(scope))
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
            asked = _asked.get()
            again = None if asked is None else refusals.again_for(asked[0])
            if asked is not None and again is not None:
                # Its caller was refused while it waited for its turn: refused as well,
                # before Django begins it (no thread for its signals, no middleware).
                turn.give_back()
                body.close()
                await _give_again(again, asked[1])
                raise RequestAborted
        return body

    async def send_response(self, response: Any, send: Any) -> None:
        turn = _turn.get()
        if turn is not None:
            turn.give_back()
        if response.status_code in (413, 429):
            asked = _asked.get()
            if asked is not None and response.status_code == 429:
                refusals.remember(asked[0], response)
            # Its database connection back to the pool and its thread ended first: a
            # refusal held back must not hold them (the pool's 10 ran out under 968
            # refusals at once, and everyone else waited for a connection; and each
            # request's thread, begun for Django's request_started, lived through it).
            await let_the_request_thread_go()
            await refusal_delay(response.get("Retry-After"))
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
