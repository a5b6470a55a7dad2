"""How many streams and long-polls one client may hold open at once.

A Server-Sent Events stream or a long-poll occupies the server while it waits (a
thread under WSGI, a slot of the connection pool while it reads), so one client
opening a thousand of them wore everyone else down.  Each caller has a number of
*slots*: per token (or per logged-in user of the pages) and per address, kept in
the default cache (Redis in production, so every web process shares them).  A
request over either limit is refused at once with a 429 problem, before it waits.

Slots are counted in windows of the longest a stream may stay open (plus a
margin): a take adds one to its window's count, a release takes it off again, and
the open count is the sum of the current window and the one before.  A stream is
always counted while it is open, and a slot a killed process never gave back is
forgotten after at most two windows -- however busy the client stays.  (A single
counter refreshed on every take never expired under traffic: slots leaked by killed
processes added up until the client was refused for good.)  Each take costs the
same few cache round trips whatever the limits are.

While the cache does not answer, requests are let through (logged), as the
throttles do: nothing else a stream needs is in the cache.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

from django.conf import settings
from django.core.cache import caches
from rest_framework.exceptions import Throttled
from rest_framework.request import Request

from tournaments.api.throttling import RateLimits
from tournaments.models import ApiToken

log = logging.getLogger("parlour.api")


#: The problem's ``limit`` when an address's open streams are all taken / a login's.
ADDRESS_LIMIT = "open_address"
LOGIN_LIMIT = "open_login"


class TooManyOpen(Throttled):
    """A 429 whose problem says which limit: the caller's open streams and long-polls."""

    def __init__(self, reason: str, limit: str) -> None:
        super().__init__(wait=1)
        self.reason = reason
        self.limit = limit


# A window outlives the longest stream by this much.
MARGIN_SECONDS = 60


class Slots:
    """The slots one request takes (a window's counter each): released exactly once."""

    def __init__(self, keys: list[str]) -> None:
        self.keys = keys
        self.held = bool(keys)

    def release(self) -> None:
        if not self.held:
            return
        self.held = False
        cache = caches["default"]
        try:
            for key in self.keys:
                cache.decr(key)
        except Exception as error:  # the cache backend's own; an expired window is a ValueError
            log.warning("capacity: slots %s not given back (%r)", self.keys, error)


def _limits(request: Request) -> list[tuple[str, int]]:
    address = str(RateLimits().get_ident(request))
    found = [(f"open:a:{address}", int(settings.PARLOUR_OPEN_STREAMS_PER_ADDRESS))]
    user = request.user
    if user is not None and user.is_authenticated:
        auth = request.auth
        ident = f"t{auth.pk}" if isinstance(auth, ApiToken) else f"u{user.pk}"
        found.append((f"open:c:{ident}", int(settings.PARLOUR_OPEN_STREAMS_PER_TOKEN)))
    return found


def take(request: Request) -> Slots:
    """A slot of each of the caller's limits, or :class:`Throttled` (429) if one is full."""
    cache = caches["default"]
    window = int(settings.PARLOUR_STREAM_SECONDS) + MARGIN_SECONDS
    now = int(time.time()) // window
    taken: list[str] = []
    try:
        for limit, most in _limits(request):
            current, before = f"{limit}:{now}", f"{limit}:{now - 1}"
            cache.add(current, 0, 2 * window)
            count = cache.incr(current)
            taken.append(current)
            if count + int(cache.get(before, 0)) > most:
                Slots(taken).release()
                by_address = limit.startswith("open:a:")
                whose = "from this address" if by_address else "with this login"
                raise TooManyOpen(
                    f"you have {most} streams or long-polls open already ({whose}):"
                    " close one (or wait for one to answer) before you open another",
                    ADDRESS_LIMIT if by_address else LOGIN_LIMIT,
                )
    except Throttled:
        raise
    except Exception as error:  # the cache backend's own (redis.ConnectionError, …)
        log.warning("capacity: the cache does not answer; stream allowed (%r)", error)
        Slots(taken).release()
        return Slots([])
    return Slots(taken)


@contextmanager
def held(request: Request) -> Iterator[None]:
    """Hold the caller's slots for the block (a long-poll's wait)."""
    slots = take(request)
    try:
        yield
    finally:
        slots.release()


def releasing(content: Any, slots: Slots) -> Any:
    """``content`` (a streaming response's iterator, sync or async) giving the slots back when
    it ends or is closed."""
    if hasattr(content, "__aiter__"):

        async def async_frames() -> AsyncIterator[bytes]:
            try:
                async for chunk in content:
                    yield chunk
            finally:
                slots.release()

        return async_frames()

    def frames() -> Iterator[bytes]:
        try:
            yield from content
        finally:
            slots.release()

    return frames()
