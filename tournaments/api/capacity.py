"""How many streams and long-polls one client may hold open at once.

A Server-Sent Events stream or a long-poll occupies the server while it waits (a
thread under WSGI, a slot of the connection pool while it reads), so one client
opening a thousand of them wore everyone else down.  Each caller has a number of
*slots*: per token (or per logged-in user of the pages) and per address, kept in
the default cache (Redis in production, so every web process shares them).  A
request over either limit is refused at once with a 429 problem, before it waits.

Each slot is its own cache key (``open:a:<address>:<n>``), taken with an atomic
``add`` and given back by deleting it.  A slot also expires by itself after the
longest a stream may stay open, so a process killed with its streams open cannot
lock a client out for longer than that -- however busy the client stays.  (A single
counter refreshed on every take did not expire under traffic: slots leaked by killed
processes added up until the client was refused for good.)

While the cache does not answer, requests are let through (logged), as the
throttles do: nothing else a stream needs is in the cache.
"""

from __future__ import annotations

import logging
import uuid
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


# A slot outlives the longest stream by this much before it expires by itself.
MARGIN_SECONDS = 60


class Slots:
    """The slots one request takes: released exactly once."""

    def __init__(self, keys: list[str], holder: str = "") -> None:
        self.keys = keys
        self.holder = holder
        self.held = bool(keys)

    def release(self) -> None:
        if not self.held:
            return
        self.held = False
        cache = caches["default"]
        try:
            # Only our own: a slot that expired may have been taken by another request.
            mine = [key for key, value in cache.get_many(self.keys).items() if value == self.holder]
            cache.delete_many(mine)
        except Exception as error:  # the cache backend's own (redis.ConnectionError, …)
            log.debug("capacity: slots %s not given back (%r)", self.keys, error)


def _limits(request: Request) -> list[tuple[str, int]]:
    address = str(RateLimits().get_ident(request))
    found = [(f"open:a:{address}", int(settings.PARLOUR_OPEN_STREAMS_PER_ADDRESS))]
    user = request.user
    if user is not None and user.is_authenticated:
        auth = request.auth
        ident = f"t{auth.pk}" if isinstance(auth, ApiToken) else f"u{user.pk}"
        found.append((f"open:c:{ident}", int(settings.PARLOUR_OPEN_STREAMS_PER_TOKEN)))
    return found


def _take_one(cache: Any, limit: str, most: int, holder: str, ttl: int) -> str | None:
    """The key of a free slot of ``limit``, now held by ``holder``; None when all are taken."""
    names = [f"{limit}:{n}" for n in range(most)]
    taken = cache.get_many(names)  # one round trip; ``add`` settles a race for a slot
    for name in names:
        if name not in taken and cache.add(name, holder, ttl):
            return name
    return None


def take(request: Request) -> Slots:
    """A slot of each of the caller's limits, or :class:`Throttled` (429) if one is full."""
    cache = caches["default"]
    ttl = int(settings.PARLOUR_STREAM_SECONDS) + MARGIN_SECONDS
    holder = uuid.uuid4().hex
    taken: list[str] = []
    try:
        for limit, most in _limits(request):
            slot = _take_one(cache, limit, most, holder, ttl)
            if slot is None:
                Slots(taken, holder).release()
                whose = "from this address" if limit.startswith("open:a:") else "with this login"
                raise TooManyOpen(
                    f"you have {most} streams or long-polls open already ({whose}):"
                    " close one (or wait for one to answer) before you open another"
                )
            taken.append(slot)
    except Throttled:
        raise
    except Exception as error:  # the cache backend's own (redis.ConnectionError, …)
        log.warning("capacity: the cache does not answer; stream allowed (%r)", error)
        Slots(taken, holder).release()
        return Slots([])
    return Slots(taken, holder)


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
