"""The Redis broker's transport (``parlour.broker.RedisTransport``) on the real Redis.

A Redis restart made kombu 5.7 close a worker's channel after its connection had been
released; the channel's return of its unacknowledged messages then failed with an
``AttributeError`` that Celery does not ignore, and the worker died (bench/faults/
redis_restart.py, two worker starts in six on 2026-12-06).  These tests put a channel in
that state on purpose, with a message taken and not acknowledged.
"""

from __future__ import annotations

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


def _released_with_a_message_taken(transport: str, prefix: str) -> tuple[Connection, Any]:
    """A connection whose channel holds a message taken and not acknowledged, left as a
    Redis restart leaves it: its pools disconnected, the connection released under it."""
    connection = Connection(
        redis_url(), transport=transport, transport_options={"global_keyprefix": prefix}
    )
    channel = connection.channel()
    queue = Queue(f"q-{uuid.uuid4().hex}", Exchange("parlour-test", "direct"), "k")
    producer = connection.Producer(channel)
    producer.publish({"bot": "move"}, exchange=queue.exchange, routing_key="k", declare=[queue])
    message = queue(channel).get(no_ack=False)
    assert message is not None and len(channel.qos._delivered) == 1
    channel._disconnect_pools()
    connection.transport.client = None
    return connection, channel


def test_a_channel_closed_after_its_connection_was_released_is_a_connection_error_celery_ignores(
    prefix: str,
) -> None:
    connection, channel = _released_with_a_message_taken("parlour.broker:RedisTransport", prefix)
    # What Celery's consumer does when the broker's connection is lost (it ignores the
    # transport's connection errors, then connects again): no error comes out of it.
    ignore_errors(connection, channel.close)
    assert channel.closed
    # The message taken is not lost: it waits in Redis's unacknowledged set, given back to
    # the queue after the visibility timeout, as a vanished worker's are.
    client = redis.Redis.from_url(redis_url())
    assert client.hlen(f"{prefix}unacked") == 1


def test_kombu_s_own_transport_still_fails_there_so_the_mended_channel_is_still_needed(
    prefix: str,
) -> None:
    connection, channel = _released_with_a_message_taken("redis", prefix)
    with pytest.raises(AttributeError, match="hostname"):
        ignore_errors(connection, channel.close)


def test_a_redis_broker_url_takes_the_mended_transport() -> None:
    import subprocess
    import sys

    from tests.workers.conftest import ROOT

    run = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings as s;"
            " print(s.CELERY_BROKER_TRANSPORT)",
        ],
        cwd=ROOT,
        env={"DJANGO_SETTINGS_MODULE": "parlour.settings", "PATH": "/usr/bin:/bin"}
        | {"CELERY_BROKER_URL": "redis://127.0.0.1:6379/1"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.stdout.strip() == "parlour.broker:RedisTransport", run.stderr[-2000:]
