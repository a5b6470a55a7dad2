"""One Redis connection pool per process for the cache (throttles, open-stream counts).

Django makes a cache object per thread and, under ASGI, per request (its
connection handler keeps them per context), and its Redis cache a connection pool
per cache object: every ASGI request connected to Redis anew, and a request that
waited (a stream, a long-poll) kept its connection open, idle, until it ended — a
thousand waiting requests held a thousand Redis connections.  With
:class:`SharedConnectionPool` as the cache's ``pool_class`` they all share this
process's pool (redis-py's pools are thread-safe, and start again after a fork).

The pool *blocks* when all its connections are busy: redis-py's plain pool (at most
100 connections since redis-py 8) raised ``MaxConnectionsError`` instead, so in a
burst of hundreds of streams closing at once their slots were never given back
(tournaments/api/capacity.py) and the client was refused until they expired.  A
request now waits up to ``POOL_TIMEOUT_SECONDS`` for a connection.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from typing import Any

import redis

MAX_CONNECTIONS = 100
POOL_TIMEOUT_SECONDS = 5

_lock = threading.Lock()
_pools: dict[tuple[str, str], redis.BlockingConnectionPool] = {}


class SharedConnectionPool(redis.BlockingConnectionPool):
    """``from_url`` gives the same pool for the same URL and options, process-wide."""

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> Any:
        key = (url, repr(sorted(kwargs.items())))
        with _lock:
            pool = _pools.get(key)
            if pool is None:
                kwargs.setdefault("max_connections", MAX_CONNECTIONS)
                kwargs.setdefault("timeout", POOL_TIMEOUT_SECONDS)
                pool = _pools[key] = redis.BlockingConnectionPool.from_url(url, **kwargs)
            return pool


class LuaScript:
    """A Lua script run by its digest (``EVALSHA``) on whichever client is given, its text
    sent again (``SCRIPT LOAD``) only to a server that lost it (restarted, ``SCRIPT FLUSH``).

    What redis-py's ``register_script`` gives, with the digest computed once a process and
    no client kept: ``register_script`` at every call computed it each time, and its
    :class:`~redis.commands.core.Script` holds on to the client it was made with.  The
    request rates count with one (tournaments/api/throttling.py) and a change is published
    with another (tournaments/workers/notify.py): one command where a pipeline sent
    several (issue 24).
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self.sha = hashlib.sha1(text.encode()).hexdigest()

    def __call__(
        self, client: redis.Redis, *, keys: Sequence[str] = (), args: Sequence[Any] = ()
    ) -> Any:
        try:
            return client.evalsha(self.sha, len(keys), *keys, *args)
        except redis.exceptions.NoScriptError:
            self.sha = client.script_load(self.text)
            return client.evalsha(self.sha, len(keys), *keys, *args)
