"""One Redis connection pool per process for the cache (throttles, open-stream counts).

Django makes a cache object per thread and, under ASGI, per request (its
connection handler keeps them per context), and its Redis cache a connection pool
per cache object: every ASGI request connected to Redis anew, and a request that
waited (a stream, a long-poll) kept its connection open, idle, until it ended — a
thousand waiting requests held a thousand Redis connections.  With
:class:`SharedConnectionPool` as the cache's ``pool_class`` they all share this
process's pool (redis-py's pools are thread-safe, and start again after a fork).
"""

from __future__ import annotations

import threading
from typing import Any

import redis

_lock = threading.Lock()
_pools: dict[tuple[str, str], redis.ConnectionPool] = {}


class SharedConnectionPool(redis.ConnectionPool):
    """``from_url`` gives the same pool for the same URL and options, process-wide."""

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> Any:
        key = (url, repr(sorted(kwargs.items())))
        with _lock:
            pool = _pools.get(key)
            if pool is None:
                pool = _pools[key] = redis.ConnectionPool.from_url(url, **kwargs)
            return pool
