"""Database connections and the pool (``DATABASE_POOL_SIZE``, docs/operations.md).

With psycopg's pool a request holds one pooled connection from its first query
to its end.  A request that waits for long (a stream, a long-poll) would hold
its connection all that time, and a handful of them would leave none for the
other requests of the process: such waits give their connection back between
reads with :func:`release_pooled_connections`.
"""

from __future__ import annotations

from django.conf import settings
from django.db import connections


def release_pooled_connections() -> None:
    """Give this thread's pooled database connections back to their pools.

    The next query takes one again (no connect: the pool keeps them open).
    Connections without a pool are left open: closing them would cost a new
    connect at the next read.  A connection inside a transaction is left alone.
    """
    for connection in connections.all(initialized_only=True):
        pooled = bool(connection.settings_dict.get("OPTIONS", {}).get("pool"))
        if pooled and connection.connection is not None and not connection.in_atomic_block:
            connection.close()


def close_thread_connections() -> None:
    """Close this thread's database connections (a pooled one goes back to its pool).

    For a thread that serves many requests' short reads (an ASGI waiter's, in
    :mod:`tournaments.api.waiting`), or one that is about to end: either way no
    connection may be left with it.  A connection inside a transaction is left alone.
    """
    for connection in connections.all(initialized_only=True):
        if connection.connection is not None and not connection.in_atomic_block:
            connection.close()


#: The ASGI side's database threads (``tournaments.api.waiting.DatabaseThreads``).  Two,
#: not more: at 32 players over the push channel four threads a process made no more
#: moves a second than two and a p99 of 133-164 ms where two made 87-104 ms (their GIL
#: and the event loop's taken in turn by fewer threads; docs/benchmarks.md, issue 24).
DATABASE_THREADS = 2


def database_threads() -> tuple[int, bool]:
    """How many database threads an ASGI process runs for its waits and its push channel,
    and whether each keeps its connection from one call to the next.

    Without a pool: :data:`DATABASE_THREADS`, each keeping its own connection (a connect
    for every read cost far more).  With a pool of ``DATABASE_POOL_SIZE`` connections:
    as many, but at most half the pool, keeping theirs, and the requests run in threads
    at once are limited to what the pool has left (``tournaments.api.handler``), so that
    neither waits on the other for a connection.  A pool under four is too small to
    spare any: the threads then take a connection for each call and give it back.
    """
    pool = int(getattr(settings, "DATABASE_POOL_SIZE", 0) or 0)
    if pool <= 0:
        return DATABASE_THREADS, True
    if pool < 4:
        return DATABASE_THREADS, False
    return min(DATABASE_THREADS, pool // 2), True


def connections_kept_by_threads() -> int:
    """How many of the pool's connections the database threads may keep (0 without one)."""
    pool = int(getattr(settings, "DATABASE_POOL_SIZE", 0) or 0)
    size, keep = database_threads()
    return size if pool > 0 and keep else 0
