"""How many streams and long-polls one client may hold open at once.

A Server-Sent Events stream or a long-poll occupies the server while it waits (a
thread under WSGI, a slot of the connection pool while it reads), so one client
opening a thousand of them wore everyone else down.  Each caller has a number of
*slots*: per token (or per logged-in user of the pages) and per address, counted in
the default cache (Redis in production, so every web process shares the count).  A
request over either limit is refused at once with a 429 problem, before it waits.
A slot is given back when its stream closes or its long-poll answers; a counter
also expires after the longest a stream may stay open, so a process killed with
its streams open cannot lock a client out for longer than that.

While the cache does not answer, requests are let through (logged), as the
throttles do: nothing else a stream needs is in the cache.
"""

from __future__ import annotations

import logging
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


class TooManyOpen(Throttled):
    """A 429 whose problem says which limit: the caller's open streams and long-polls."""

    def __init__(self, reason: str) -> None:
        super().__init__(wait=1)
        self.reason = reason


class Slots:
    """The slots one request takes: released exactly once."""

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
        except Exception as error:  # the cache backend's own; an expired key is a ValueError
            log.debug("capacity: slot %s not given back (%r)", self.keys, error)


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
    ttl = int(settings.PARLOUR_STREAM_SECONDS) + 60
    taken: list[str] = []
    try:
        for key, most in _limits(request):
            cache.add(key, 0, ttl)
            count = cache.incr(key)
            cache.touch(key, ttl)
            taken.append(key)
            if count > most:
                Slots(taken).release()
                raise TooManyOpen(
                    f"you have {most} streams or long-polls open already"
                    f" ({'from this address' if key.startswith('open:a:') else 'with this login'}):"
                    " close one (or wait for one to answer) before you open another"
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
