"""The Redis broker's transport (``parlour.broker.RedisTransport``) on the real Redis.

A Redis restart made kombu 5.7 close a worker's channel after its connection had been
released; the channel's return of its unacknowledged messages then failed with an
``AttributeError`` that Celery does not ignore, and the worker died (bench/faults/
redis_restart.py, two worker starts in six on 2026-12-06).  These tests lead a worker's
connection there as Celery does, with messages taken and not acknowledged.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from kombu import Connection, Exchange, Queue
from kombu.common import ignore_errors

from conftest import redis_url

pytestmark = pytest.mark.redis


@pytest.fixture
def prefix() -> Iterator[str]:
    """A key prefix of the test's own on the shared Redis, its keys deleted after."""
    mine = f"parlour-test-broker-{uuid.uuid4().hex}:"
    yield mine
    client = redis.Redis.from_url(redis_url())
    for key in client.scan_iter(f"{mine}*"):
        client.delete(key)


def _redis_lost_with_messages_taken(transport: str, prefix: str) -> tuple[Connection, Any]:
    """A worker's broker connection as Celery finds it when Redis goes away: two channels
    each holding a message taken and not acknowledged, the consuming one's read failing,
    Redis gone for new connections, and the connection collected as Celery collects it
    (``Consumer.on_connection_error_after_connected``).  Returns the connection and its
    consuming channel."""
    connection = Connection(
        redis_url(), transport=transport, transport_options={"global_keyprefix": prefix}
    )
    queue = Queue(f"q-{uuid.uuid4().hex}", Exchange("parlour-test", "direct"), "k")
    consuming = connection.default_channel
    for channel in (consuming, connection.channel()):
        producer = connection.Producer(channel)
        producer.publish({"bot": "move"}, exchange=queue.exchange, routing_key="k", declare=[queue])
        assert queue(channel).get(no_ack=False) is not None
    connection.port = 9  # Redis is gone: new pools connect nowhere (port 9 is closed here)
    consuming._in_poll = True  # waiting in BRPOP when the server closed the socket

    def closed_by_the_server(**_: Any) -> None:
        consuming._in_poll = None
        raise redis.ConnectionError("Connection closed by server.")

    consuming._brpop_read = closed_by_the_server
    with contextlib.suppress(Exception):  # as Celery: whatever collect() raises is passed over
        connection.collect(socket_timeout=1)
    return connection, consuming


def test_a_worker_s_connection_closed_after_redis_went_away_ends_with_no_error_celery_dies_of(
    prefix: str,
) -> None:
    connection, channel = _redis_lost_with_messages_taken("parlour.broker:RedisTransport", prefix)
    # What Celery does next (it ignores the transport's connection errors, then connects
    # again): no error comes out of it.
    ignore_errors(connection, connection.close)
    assert channel.closed
    # The messages taken are not lost: they wait in Redis's unacknowledged set, given back
    # to the queue after the visibility timeout, as a vanished worker's are.
    client = redis.Redis.from_url(redis_url())
    assert client.hlen(f"{prefix}unacked") == 2


def test_kombu_s_own_transport_still_dies_there_so_the_mended_channel_is_still_needed(
    prefix: str,
) -> None:
    connection, _ = _redis_lost_with_messages_taken("redis", prefix)
    with pytest.raises(AttributeError, match="hostname"):
        ignore_errors(connection, connection.close)
