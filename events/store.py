"""The event store: append-only streams with optimistic concurrency (docs/store.md).

One stream per game (``game-<id>``).  Every event has its stream, a gap-free
sequence number from 1, its type and version, a JSON payload, its cause, the
time it was recorded and, on the first event of an append made with one, the
command's idempotency key.

* :func:`append` writes events after the sequence the caller expects; a stale
  expectation is a :class:`Conflict` carrying the current sequence, and nothing
  of the losing append is stored.  A retried append with the same idempotency
  key and command hash returns the first outcome (``replayed=True``) and stores
  nothing; the same key with another command is :class:`IdempotencyKeyReused`.
* :func:`read_stream` reads one stream from a sequence onward.
* :func:`read_all` follows every stream by global :class:`Position`, and never
  skips an event whose transaction commits late (docs/store.md says why).

Every function takes ``using``, the database alias, so the same store runs on
SQLite and on PostgreSQL.  The database itself refuses UPDATE, DELETE and (on
PostgreSQL) TRUNCATE of events: see migration ``events/0002``.

(Over 400 lines, on purpose: this is the store.  The append's one conditional
``INSERT … RETURNING``, its replay of an idempotency key and the two readers share
the row shape and the per-backend SQL, and are read and reviewed together.)
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from django.db import DatabaseError, IntegrityError, connections, transaction
from django.utils import timezone

from events.models import CauseKind, Event

__all__ = [
    "CAUSE_KINDS",
    "LAST_ID",
    "START",
    "Along",
    "AppendResult",
    "Beside",
    "Collided",
    "Conflict",
    "IdempotencyKeyReused",
    "NewEvent",
    "Position",
    "StoreError",
    "StoredEvent",
    "StreamSet",
    "allow_flush_in_tests",
    "append",
    "command_hash",
    "find_command",
    "read_all",
    "read_stream",
    "read_stream_beside",
    "settled_bound",
    "stream_sequence",
    "streams",
]

#: The kinds of cause an event may have.
CAUSE_KINDS: Final = frozenset(CauseKind.values)

#: Transactions that may still write events have an id at or above this: events with a
#: smaller ``tx`` are committed (or never will be), so a reader may pass them for good.
#: It is the statement's snapshot's ``xmin`` (its oldest transaction still running),
#: except that transactions known to run in *another* database of the server are left
#: out: they cannot write to this table, and with them one long transaction of any
#: other database held every follower here back.  A running transaction is left out
#: only when pg_stat_activity shows it in another database; one it does not show (it
#: just ended, or its session is hidden from our role) still holds readers back.
_PG_XMIN = """(SELECT COALESCE(
    (SELECT MIN(x::text::bigint) FROM pg_snapshot_xip(s.snap) AS x
     WHERE NOT EXISTS (
       SELECT 1 FROM pg_stat_activity a
       WHERE a.backend_xid::text::bigint = mod(x::text::bigint, 4294967296)
         AND a.datname IS DISTINCT FROM current_database())),
    pg_snapshot_xmax(s.snap)::text::bigint)
  FROM (SELECT pg_current_snapshot() AS snap) AS s)"""


def settled_bound(using: str = "default") -> str | None:
    """SQL for the transaction id below which every writer has finished (committed or
    rolled back), on PostgreSQL; ``None`` on SQLite, whose one writer at a time makes the
    id order the commit order.

    Another table positioned like the events (a ``tx`` column defaulting to
    ``pg_current_xact_id()``, then its ``id``) is followed safely by reading only rows
    with ``tx`` below it: a row that commits late never lands behind a position already
    passed (docs/store.md).
    """
    return _PG_XMIN if connections[using].vendor == "postgresql" else None


_COLUMNS = (
    "stream, sequence, type, version, payload, cause_kind, cause_id, recorded_at,"
    " idempotency_key, command_hash, batch_size"
)
#: One new row: typed on PostgreSQL (a VALUES list takes its types from its rows).
_PG_ROW = (
    "(%s::varchar, %s::integer, %s::varchar, %s::smallint, %s::jsonb, %s::varchar,"
    " %s::varchar, %s::timestamptz, %s::varchar, %s::varchar, %s::integer)"
)
_SQLITE_ROW = "(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
#: The columns a :class:`StoredEvent` is read from, in :func:`_stored`'s order.
_READ = (
    "id",
    "tx",
    "stream",
    "sequence",
    "type",
    "version",
    "payload",
    "cause_kind",
    "cause_id",
    "recorded_at",
    "idempotency_key",
)
_SELECT = f"SELECT {', '.join(_READ)} FROM events_event"


# -- values -------------------------------------------------------------------


class StoreError(Exception):
    """An append the store refuses."""


class Conflict(StoreError):
    """The stream is not at the sequence the append expected; nothing was stored."""

    def __init__(self, stream: str, expected: int, current_sequence: int) -> None:
        super().__init__(
            f"stream {stream!r} is at sequence {current_sequence}, not {expected} as expected"
        )
        self.stream = stream
        self.expected = expected
        self.current_sequence = current_sequence


class Collided(StoreError):
    """An append without a savepoint (``savepoint=False``) met another writer's committed
    event at its position, or its idempotency key already used: nothing was stored, and
    the caller's atomic block can do nothing more (it is marked for rollback; PostgreSQL
    refuses every statement until it rolls back).  The caller lets it end its block,
    then answers as :func:`append` would have: :func:`find_command` for the key, else a
    :class:`Conflict` with :func:`stream_sequence`."""

    def __init__(self, stream: str, expected: int) -> None:
        super().__init__(
            f"stream {stream!r}: sequence {expected + 1} or the idempotency key was taken"
        )
        self.stream = stream
        self.expected = expected


class IdempotencyKeyReused(StoreError):
    """An idempotency key already used in the stream for a different command."""

    def __init__(self, stream: str, key: str) -> None:
        super().__init__(
            f"idempotency key {key!r} was already used in stream {stream!r} for another command"
        )
        self.stream = stream
        self.key = key


@dataclass(frozen=True, order=True, slots=True)
class Position:
    """A place in the global order of all events: the writing transaction, then the row.

    Written as ``"tx.id"``; :data:`START` is before every event.
    """

    tx: int
    id: int

    def __str__(self) -> str:
        return f"{self.tx}.{self.id}"

    @classmethod
    def parse(cls, text: str | Position | None) -> Position:
        """A position from its text ``"tx.id"`` (``None`` or ``""``: the start)."""
        if text is None or text == "":
            return START
        if isinstance(text, Position):
            return text
        match = re.fullmatch(r"(\d+)\.(\d+)", text)
        if match is None:
            raise ValueError(f"a position is written 'tx.id' (two integers), not {text!r}")
        return cls(int(match[1]), int(match[2]))


START: Final = Position(0, 0)


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append: its type, payload and cause."""

    type: str
    payload: Mapping[str, Any]
    cause_kind: str = "system"
    cause_id: str = ""
    version: int = 1


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as stored."""

    stream: str
    sequence: int
    type: str
    version: int
    payload: dict[str, Any]
    cause_kind: str
    cause_id: str
    recorded_at: datetime
    idempotency_key: str | None
    position: Position


#: In the text of an :class:`Along`, the id of the append's last event (not known before).
LAST_ID: Final = "{last_event_id}"
#: What :data:`LAST_ID` stands for in the append's statement on PostgreSQL: the id of the
#: highest sequence appended (ids need not follow the VALUES' order).
_APPENDED_LAST_ID = "(SELECT id FROM appended ORDER BY sequence DESC LIMIT 1)"


@dataclass(frozen=True, slots=True)
class Along:
    """A write of the caller's that stands or falls with an append: made only if the
    append stores its events, in the same transaction.

    On PostgreSQL it is a data-modifying ``WITH`` clause of the append's own statement,
    so that a move's event, its game's projection and its notices are one round trip and,
    in autocommit mode, one transaction with no ``BEGIN`` or ``COMMIT`` of its own
    (issue 24).  On SQLite it is run right after the ``INSERT``, in its transaction.

    ``sql`` is an ``UPDATE`` or an ``INSERT … SELECT`` that ends in a ``WHERE`` clause
    (its last ``" WHERE "``), which the store puts in parentheses and extends with its own
    condition; :data:`LAST_ID` in it stands for the id of the append's last event.  Any
    failure of such a write fails the append with it, and is raised as it is: it is
    never taken for another writer's collision.
    """

    sql: str
    params: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class Beside:
    """A caller's query of one row, read in the same statement as a stream's events
    (:func:`read_stream_beside`): a row and the stream's end in one round trip and one
    snapshot, so that they agree (a game's row, and its events since the fold a process
    keeps: issue 24).  ``sql`` is a ``SELECT`` of at most one row."""

    sql: str
    params: Sequence[Any] = ()


@dataclass(frozen=True, slots=True)
class AppendResult:
    """What an append stored, or, for a retried command, what it stored the first time."""

    stream: str
    events: tuple[StoredEvent, ...]
    replayed: bool = False
    #: The command hash stored with the idempotency key ("" without a key).
    command_hash: str = field(default="", compare=False)

    @property
    def sequence(self) -> int:
        """The sequence of the last event appended."""
        return self.events[-1].sequence


def command_hash(command: object) -> str:
    """The SHA-256 of ``command``'s canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(command, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


# -- writing ------------------------------------------------------------------


def append(
    stream: str,
    events: Sequence[NewEvent],
    *,
    expected_sequence: int,
    idempotency_key: str | None = None,
    command_hash: str = "",
    using: str = "default",
    savepoint: bool = True,
    along: Sequence[Along] = (),
    at: datetime | None = None,
) -> AppendResult:
    """Append ``events`` to ``stream``, which must be at ``expected_sequence`` (0: new).

    With ``idempotency_key``, a retry of the same command (same ``command_hash``;
    by default the hash of the expected sequence and the events) returns the
    first outcome flagged ``replayed`` and stores nothing; the same key with a
    different hash raises :class:`IdempotencyKeyReused`.  A stream not at
    ``expected_sequence`` raises :class:`Conflict` with the current sequence.
    Runs in its own transaction, or in a savepoint of the caller's.

    ``savepoint=False`` (in the caller's transaction): no savepoint, two round trips
    fewer; a stream found at another sequence is still a :class:`Conflict` (or a
    replay) in a transaction that goes on, but a collision with a writer that
    committed meanwhile, or with the key used before, raises :class:`Collided`, after
    which the caller's transaction must end (the game's commands do: issue 24).

    ``along``: the caller's writes made with the events, only if they are stored
    (:class:`Along`).  ``at``: the time recorded (now, by default), for a caller that
    derived something of it for those writes.
    """
    if not stream:
        raise ValueError("a stream has a name")
    if not events:
        raise ValueError("an append writes at least one event")
    if isinstance(expected_sequence, bool) or expected_sequence < 0:
        raise ValueError(f"expected_sequence is 0 or more, not {expected_sequence!r}")
    for event in events:
        if event.cause_kind not in CAUSE_KINDS:
            raise ValueError(
                f"cause_kind is one of {sorted(CAUSE_KINDS)}, not {event.cause_kind!r}"
            )
    for each in along:
        if " WHERE " not in each.sql:
            raise ValueError(f"a write along an append ends in a WHERE clause: {each.sql!r}")
    if len(stream) > 200 or (idempotency_key is not None and len(idempotency_key) > 200):
        raise ValueError("stream names and idempotency keys have at most 200 characters")
    if idempotency_key is not None and not command_hash:
        command_hash = _default_hash(expected_sequence, events)
    connection = connections[using]
    stored: AppendResult | None = None
    failed: IntegrityError | None = None
    write = functools.partial(
        _insert, stream, events, expected_sequence, idempotency_key, command_hash, using, along, at
    )
    # On SQLite the writes along are statements of their own: a transaction with the append.
    apart = bool(along) and connection.vendor != "postgresql" and not connection.in_atomic_block
    try:
        if (connection.in_atomic_block and savepoint) or apart:
            # A savepoint, so that a collision leaves the caller's transaction usable (or,
            # for writes along on SQLite outside one, a transaction with the append).
            with transaction.atomic(using=using):
                stored = write()
        else:
            # One statement in autocommit mode is a transaction of its own; without a
            # savepoint, one statement of the caller's transaction.
            stored = write()
    except IntegrityError as error:
        if connection.in_atomic_block and not savepoint:
            # Marked on both backends (SQLite would let a caller that caught this go on
            # and commit; PostgreSQL refuses): the block must end, rolled back.
            transaction.set_rollback(True, using=using)
            raise Collided(stream, expected_sequence) from error
        # Another writer took the position (or the key) and committed first.
        failed = error
    if stored is not None:
        return stored
    # Nothing of ours is stored: the stream is elsewhere, or the key was used.
    if idempotency_key is not None:
        found = find_command(stream, idempotency_key, command_hash, using=using)
        if found is not None:
            return found
    current = stream_sequence(stream, using=using)
    if failed is not None and current == expected_sequence:
        raise failed  # not a collision: a write along failed (the stream did not move)
    raise Conflict(stream, expected_sequence, current)


def _default_hash(expected: int, events: Sequence[NewEvent]) -> str:
    return command_hash(
        {
            "expected": expected,
            "events": [
                [e.type, e.version, dict(e.payload), e.cause_kind, e.cause_id] for e in events
            ],
        }
    )


def _insert(
    stream: str,
    events: Sequence[NewEvent],
    expected: int,
    key: str | None,
    hash_: str,
    using: str,
    along: Sequence[Along] = (),
    at: datetime | None = None,
) -> AppendResult | None:
    """Insert the events if the stream is at ``expected``, in one statement; ``None`` if not.

    The statement inserts only where the stream's last sequence is ``expected``
    (as the statement's snapshot sees it).  Two writers whose snapshots both
    pass insert the same ``(stream, sequence)``: the unique key makes the second
    wait for the first and fail with an IntegrityError if the first commits.
    The writes ``along`` are made only if it inserts (:class:`Along`).
    """
    connection = connections[using]
    postgres = connection.vendor == "postgresql"
    now = at or timezone.now()
    params, texts = _insert_params(
        stream, events, expected, key, hash_, connection.ops.adapt_datetimefield_value(now)
    )
    sql = _insert_statement(len(events), postgres=postgres)
    if along and postgres:
        sql, params = _with_along(sql, params, along)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        returned = cursor.fetchall()
        if returned and along and not postgres:
            last = str(int(max(returned)[1]))  # the id of the highest sequence
            try:
                for write in along:
                    cursor.execute(write.sql.replace(LAST_ID, last), write.params)
            except DatabaseError:
                if connection.in_atomic_block:  # the events inserted must not be kept
                    transaction.set_rollback(True, using=using)
                raise
    if not returned:
        return None
    returned.sort()  # by sequence: SQL does not promise RETURNING's order
    stored = tuple(
        StoredEvent(
            stream=stream,
            sequence=expected + 1 + offset,
            type=event.type,
            version=event.version,
            payload=json.loads(texts[offset]),
            cause_kind=event.cause_kind,
            cause_id=event.cause_id,
            recorded_at=now,
            idempotency_key=key if offset == 0 else None,
            position=Position(int(tx), int(id_)),
        )
        for offset, (event, (_, id_, tx)) in enumerate(zip(events, returned, strict=True))
    )
    return AppendResult(stream, stored, False, hash_ if key is not None else "")


def _with_along(insert: str, params: list[Any], along: Sequence[Along]) -> tuple[str, list[Any]]:
    """The append's ``INSERT`` and the writes ``along`` as one statement on PostgreSQL: each
    write a ``WITH`` clause made only if the ``INSERT`` returned its rows."""
    clauses = [f"appended AS ({insert})"]
    params = list(params)
    for number, write in enumerate(along):
        text = write.sql.replace(LAST_ID, _APPENDED_LAST_ID)
        head, _, condition = text.rpartition(" WHERE ")
        # The caller's condition in parentheses: an OR in it must not pass the append's.
        clauses.append(
            f"along_{number} AS ({head} WHERE ({condition}) AND EXISTS (SELECT 1 FROM appended))"
        )
        params += write.params
    return "WITH " + ", ".join(clauses) + " SELECT sequence, id, tx FROM appended", params


@functools.lru_cache(maxsize=64)  # by batch size: a move appends one to a few events
def _insert_statement(size: int, *, postgres: bool) -> str:
    """:func:`_insert`'s statement for ``size`` events: inserted only where the stream's
    last sequence is the one expected (its parameters: :func:`_insert_params`')."""
    table = Event._meta.db_table
    return (
        f"INSERT INTO {table} ({_COLUMNS}) SELECT * FROM (VALUES "
        + ", ".join([_PG_ROW if postgres else _SQLITE_ROW] * size)
        + ") AS incoming"
        + f" WHERE (SELECT COALESCE(MAX(sequence), 0) FROM {table} WHERE stream = %s) = %s"
        + " RETURNING sequence, id, tx"
    )


def _insert_params(
    stream: str,
    events: Sequence[NewEvent],
    expected: int,
    key: str | None,
    hash_: str,
    when: Any,
) -> tuple[list[Any], list[str]]:
    """:func:`_insert_statement`'s parameters for ``events`` appended to ``stream`` at
    ``expected``, recorded ``when`` (as the connection takes a time), and the events'
    payloads as the JSON texts stored."""
    size = len(events)
    params: list[Any] = []
    texts: list[str] = []
    for offset, event in enumerate(events):
        first = offset == 0
        text = json.dumps(event.payload, separators=(",", ":"))
        texts.append(text)
        params += [
            stream,
            expected + 1 + offset,
            event.type,
            event.version,
            text,
            event.cause_kind,
            event.cause_id,
            when,
            key if first else None,
            hash_ if first and key is not None else "",
            size,
        ]
    params += [stream, expected]
    return params, texts


# -- reading ------------------------------------------------------------------


def stream_sequence(stream: str, *, using: str = "default") -> int:
    """The sequence of the last event of ``stream`` (0 if it has none)."""
    with connections[using].cursor() as cursor:
        cursor.execute(
            f"SELECT MAX(sequence) FROM {Event._meta.db_table} WHERE stream = %s", [stream]
        )
        row = cursor.fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def read_stream(
    stream: str, *, from_sequence: int = 1, limit: int | None = None, using: str = "default"
) -> list[StoredEvent]:
    """The events of ``stream`` from ``from_sequence`` onward, in sequence order."""
    sql = f"{_SELECT} WHERE stream = %s AND sequence >= %s ORDER BY sequence"
    params: list[Any] = [stream, from_sequence]
    if limit is not None:
        sql += " LIMIT %s"
        params.append(limit)
    return _select(sql, params, using)


def read_stream_beside(
    stream: str, beside: Beside, *, from_sequence: int = 1, using: str = "default"
) -> tuple[tuple[Any, ...] | None, list[StoredEvent]]:
    """The row ``beside`` selects (``None``: it selects none) and the events of ``stream``
    from ``from_sequence`` onward, in sequence order, read in one statement."""
    events = ", ".join(f"e.{column}" for column in _READ)
    sql = (
        f"SELECT b.*, {events} FROM ({beside.sql}) b LEFT JOIN {Event._meta.db_table} e"
        " ON e.stream = %s AND e.sequence >= %s ORDER BY e.sequence"
    )
    with connections[using].cursor() as cursor:
        cursor.execute(sql, [*beside.params, stream, from_sequence])
        rows = cursor.fetchall()
    if not rows:
        return None, []
    width = len(_READ)
    # Without an event from that sequence on, the one row's event columns are all NULL.
    found = [_stored(row[-width:]) for row in rows if row[-width] is not None]
    return tuple(rows[0][:-width]), found


@dataclass(frozen=True, slots=True)
class StreamSet:
    """Some streams, named by a query: ``sql`` selects one column of stream names.

    It is evaluated in the same statement as the events it filters, so a stream whose
    first event was appended in the same transaction as the row the query finds (a
    game and its deal) is in the set exactly when its events are visible: a follower
    can never pass such an event before it knows the stream.
    """

    sql: str
    params: tuple[Any, ...] = ()


def read_all(
    after: Position | str | None = None,
    *,
    limit: int = 1000,
    within: StreamSet | None = None,
    using: str = "default",
) -> list[StoredEvent]:
    """Up to ``limit`` events of every stream (or of the streams ``within``) after ``after``,
    in global order.

    Pass the position of the last event returned to get the next ones.  On
    PostgreSQL only events of transactions older than every transaction still
    running are returned, so an event that commits late can never land behind
    a position a reader has already passed (docs/store.md).  With ``within`` the
    events are read stream by stream through the ``(stream, tx, id)`` index: the
    cost follows those streams' events, not the store's.
    """
    start = Position.parse(after)
    params: list[Any] = []
    if within is None:
        where = "(tx > %s OR (tx = %s AND id > %s))"
    else:
        # A row-value comparison per stream lets each stream's index range start at
        # the position (PostgreSQL and SQLite both compare (tx, id) rows in order).
        where = f"stream IN ({within.sql}) AND (tx, id) > (%s, %s)"
        params.extend(within.params)
    if connections[using].vendor == "postgresql":
        where += f" AND tx < {_PG_XMIN}"
    sql = f"{_SELECT} WHERE {where} ORDER BY tx, id LIMIT %s"
    if within is None:
        params += [start.tx, start.tx, start.id, limit]
    else:
        params += [start.tx, start.id, limit]
    return _select(sql, params, using)


def find_command(
    stream: str, key: str, command_hash: str, *, using: str = "default"
) -> AppendResult | None:
    """The first outcome of the command with ``key`` in ``stream`` (``replayed``), or ``None``.

    Raises :class:`IdempotencyKeyReused` if the key was used for a command with
    another hash.
    """
    with connections[using].cursor() as cursor:
        cursor.execute(
            f"SELECT sequence, batch_size, command_hash FROM {Event._meta.db_table}"
            " WHERE stream = %s AND idempotency_key = %s",
            [stream, key],
        )
        first = cursor.fetchone()
    if first is None:
        return None
    sequence, size, stored_hash = first
    if stored_hash != command_hash:
        raise IdempotencyKeyReused(stream, key)
    events = read_stream(stream, from_sequence=sequence, limit=size, using=using)
    return AppendResult(stream, tuple(events), True, stored_hash)


def streams(prefix: str = "", *, using: str = "default") -> list[str]:
    """The names of every stream starting with ``prefix``, sorted."""
    names = Event.objects.using(using).filter(sequence=1)
    if prefix:
        names = names.filter(stream__startswith=prefix)
    return sorted(names.values_list("stream", flat=True))


def _select(sql: str, params: Sequence[Any], using: str) -> list[StoredEvent]:
    connection = connections[using]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return [_stored(row) for row in rows]


def _stored(row: Sequence[Any]) -> StoredEvent:
    id_, tx, stream, sequence, type_, version, payload, kind, cause, when, key = row
    if isinstance(payload, str | bytes):
        payload = json.loads(payload)
    if isinstance(when, str):  # SQLite keeps UTC times as text
        when = datetime.fromisoformat(when)
    if when.tzinfo is None:  # ... and Django's SQLite converter makes them naive
        when = when.replace(tzinfo=UTC)
    return StoredEvent(
        stream=stream,
        sequence=sequence,
        type=type_,
        version=version,
        payload=payload,
        cause_kind=kind,
        cause_id=cause,
        recorded_at=when,
        idempotency_key=key,
        position=Position(int(tx), int(id_)),
    )


# -- test support -------------------------------------------------------------

_flush_allowed = False


def allow_flush_in_tests() -> None:
    """Let Django's ``flush`` (run after every transactional test) empty the event table.

    The immutability triggers refuse TRUNCATE and DELETE, so a test suite that
    flushes the database between tests calls this once (the test ``conftest``
    does).  It changes only the SQL of ``flush``: on PostgreSQL the flush runs
    with ``session_replication_role = replica`` (triggers do not fire; needs a
    superuser, as test databases are), on SQLite the triggers are dropped,
    the tables emptied and the triggers created again, all in one transaction.
    Never call it outside tests.
    """
    global _flush_allowed
    if _flush_allowed:
        return
    from django.db.backends.postgresql.base import DatabaseWrapper as Postgres
    from django.db.backends.sqlite3.base import DatabaseWrapper as Sqlite

    PostgresOperations = Postgres.ops_class
    SqliteOperations = Sqlite.ops_class

    table = Event._meta.db_table
    postgres_flush = PostgresOperations.sql_flush
    sqlite_flush = SqliteOperations.sql_flush

    def flush_postgres(self: Any, style: Any, tables: Sequence[str], **kwargs: Any) -> list[str]:
        sql: list[str] = postgres_flush(self, style, tables, **kwargs)
        if table in tables and sql:
            return ["SET LOCAL session_replication_role = replica", *sql]
        return sql

    def flush_sqlite(self: Any, style: Any, tables: Sequence[str], **kwargs: Any) -> list[str]:
        sql: list[str] = sqlite_flush(self, style, tables, **kwargs)
        if table not in tables or not sql:
            return sql
        with self.connection.cursor() as cursor:
            cursor.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = %s",
                [table],
            )
            triggers = cursor.fetchall()
        drop = [f'DROP TRIGGER "{name}"' for name, _ in triggers]
        return [*drop, *sql, *(text for _, text in triggers)]

    PostgresOperations.sql_flush = flush_postgres  # type: ignore[method-assign]
    SqliteOperations.sql_flush = flush_sqlite  # type: ignore[method-assign]
    _flush_allowed = True
