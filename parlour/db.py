"""Database connections and the pool (``DATABASE_POOL_SIZE``, docs/operations.md).

With psycopg's pool a request holds one pooled connection from its first query
to its end.  A request that waits for long (a stream, a long-poll) would hold
its connection all that time, and a handful of them would leave none for the
other requests of the process: such waits give their connection back between
reads with :func:`release_pooled_connections`.
"""

from __future__ import annotations

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
