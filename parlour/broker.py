"""The embedded broker: kombu's SQLAlchemy transport on a SQLite file, tuned for it; and
kombu's Redis transport with one of its failures on a Redis restart mended
(:class:`RedisTransport`).

``make run`` needs a broker without a server.  kombu's SQLAlchemy transport keeps
each message as a row and takes one in a ``BEGIN IMMEDIATE`` transaction, so
several processes (web, the worker and its pool) share one SQLite file safely
(docs/workers.md says why this one and not the filesystem transport).  This
module changes five things only, through the transport's own hooks:

* the tables are created under the file's write lock (several processes may
  open a new file at once);
* a queue that another process creates at the same moment is read, not a crash;
* the file is in WAL mode with a 30 s busy timeout, so a writer waits for
  another instead of failing with "database is locked";
* ``polling_interval`` is a transport option kombu reads, but the SQLAlchemy
  channel hands every option to ``create_engine`` (which refuses it): it is
  taken out here.  The worker polls every 0.1 s, or bots would move once a second;
* a message taken by a worker is deleted rather than kept hidden forever, so the
  file does not grow with every bot move of a night.  Nothing ever reads a
  hidden row: a worker that stops in order puts its unacknowledged messages
  (ETA timeouts, think delays) back as new rows; one killed loses them, and
  the sweep finds that work in the database.
"""

from __future__ import annotations

import json
from queue import Empty
from typing import Any

import redis.exceptions
from kombu.connection import Connection
from kombu.transport import redis as kombu_redis
from kombu.transport import sqlalchemy as kombu_sqlalchemy
from kombu.transport.sqlalchemy.models import metadata
from kombu.utils.encoding import bytes_to_str
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

#: Seconds a SQLite writer waits for the lock before "database is locked".
BUSY_TIMEOUT_SECONDS = 30
#: Seconds between two polls of an empty queue.
POLLING_INTERVAL = 0.1

# Options kombu or Celery put in transport_options that are not create_engine's.
_NOT_ENGINE_OPTIONS = (
    "queue_tablename",
    "message_tablename",
    "callback",
    "errback",
    "max_retries",
    "interval_start",
    "interval_step",
    "interval_max",
    "retry_errors",
    "polling_interval",
)


def _tune_sqlite(dbapi_connection: Any, connection_record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_SECONDS * 1000}")
    cursor.close()


class Channel(kombu_sqlalchemy.Channel):
    def _conninfo(self) -> tuple[Connection, str]:
        # The Connection this channel's transport was made for, and its URL (the
        # SQLAlchemy URL is the connection's "hostname" for this transport).
        conninfo = self.connection.client
        assert conninfo is not None and conninfo.hostname is not None
        return conninfo, conninfo.hostname

    def _open(self) -> tuple[Engine, sessionmaker[Session]]:
        # Upstream's _open, creating the tables under SQLite's write lock: the web
        # server and the worker start together on a new file, and two unlocked
        # create_all() both see no table and one fails "table already exists".
        hostname = self._conninfo()[1]
        # The stubs leave out the module's private lock.
        with kombu_sqlalchemy._MUTEX:  # type: ignore[attr-defined]
            if hostname not in self._engines:
                engine = self._engine_from_config()
                with engine.connect() as connection:
                    if engine.dialect.name == "sqlite":
                        connection.exec_driver_sql("BEGIN IMMEDIATE")
                    metadata.create_all(connection)
                    connection.commit()
                self._engines[hostname] = engine, sessionmaker(bind=engine)
        engines: dict[str, tuple[Engine, sessionmaker[Session]]] = self._engines
        return engines[hostname]

    def _engine_from_config(self) -> Engine:
        conninfo, url = self._conninfo()
        options = {
            key: value
            for key, value in (conninfo.transport_options or {}).items()
            if key not in _NOT_ENGINE_OPTIONS
        }
        engine = create_engine(
            url,
            connect_args={"timeout": BUSY_TIMEOUT_SECONDS},
            **options,
        )
        if engine.dialect.name == "sqlite":
            event.listen(engine, "connect", _tune_sqlite)
        return engine

    def _get_or_create(self, queue: str) -> Any:
        # Upstream's check-then-insert races another process creating the same
        # queue (the web server's first publish and the worker's first poll):
        # the loser's insert fails on the unique name, and then the row is there.
        try:
            # The stubs leave out this private upstream method.
            return super()._get_or_create(queue)  # type: ignore[misc]
        except IntegrityError:
            self.session.rollback()
            return self.session.query(self.queue_cls).filter(self.queue_cls.name == queue).one()

    # The signature of upstream's sqlalchemy Channel._get (its stub ignores the same).
    def _get(self, queue: str) -> Any:  # type: ignore[override]
        # Upstream's _get, deleting the row it takes instead of hiding it.
        obj = self._get_or_create(queue)
        if self.session.get_bind().dialect.name == "sqlite":
            self.session.execute(text("BEGIN IMMEDIATE TRANSACTION"))
        try:
            msg = (
                self.session.query(self.message_cls)
                .with_for_update()
                .filter(self.message_cls.queue_id == obj.id)
                .filter(self.message_cls.visible != False)  # noqa: E712 (SQL, not Python)
                .order_by(self.message_cls.sent_at)
                .order_by(self.message_cls.id)
                .limit(1)
                .first()
            )
            if msg is None:
                raise Empty()
            payload = json.loads(bytes_to_str(msg.payload))
            self.session.delete(msg)
            return payload
        finally:
            self.session.commit()


class Transport(kombu_sqlalchemy.Transport):
    Channel = Channel
    polling_interval = POLLING_INTERVAL


# -- Redis (production) ----------------------------------------------------------------------


class RedisChannel(kombu_redis.Channel):
    """kombu's Redis channel, which a Redis restart no longer turns into a worker's death.

    When the broker's connection drops, Celery releases it, ignoring the transport's
    connection errors: the channel is closed and gives its unacknowledged messages back
    (``restore_unacked``) over a pool it makes anew.  If the connection was released
    first, kombu 5.7 builds that pool from the released connection's ``None`` and raises
    ``AttributeError``, which Celery does not ignore: "Unrecoverable error: AttributeError
    ('NoneType' object has no attribute 'hostname')", and the worker is gone (two in
    six worker starts of bench/faults/redis_restart.py on 2026-12-06).  Here that case is
    the connection error it is, as when the pool exists and Redis is down: Celery ignores
    it and connects again, and the messages stay in Redis's unacknowledged set, given back
    after the visibility timeout, as any worker's that vanished (the sweep finds their
    work sooner: docs/workers.md).
    """

    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        transport = self.connection
        if transport is None or transport.client is None:
            raise redis.exceptions.ConnectionError("the broker's connection was released")
        # kombu's stubs leave the channel's private methods out.
        params: dict[str, Any] = super()._connparams(asynchronous=asynchronous)  # type: ignore[misc]
        return params


class RedisTransport(kombu_redis.Transport):
    """kombu's Redis transport with :class:`RedisChannel` (``CELERY_BROKER_TRANSPORT``
    for a ``redis://`` broker; a ``rediss://`` one keeps kombu's own, which takes TLS from
    the URL's scheme)."""

    Channel = RedisChannel
