"""The event store, one suite run against SQLite and PostgreSQL (the ``store_alias`` fixture)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import DatabaseError, IntegrityError, connections, transaction
from django.db.transaction import TransactionManagementError
from django.test.utils import CaptureQueriesContext

from events import store
from events.models import Event
from events.store import (
    LAST_ID,
    START,
    Along,
    Collided,
    Conflict,
    IdempotencyKeyReused,
    NewEvent,
    Position,
    StoredEvent,
    append,
    find_command,
    read_all,
    read_stream,
    stream_sequence,
)

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", "sqlite", "postgres"])


def moves(*numbers: int, cause: str = "seat") -> list[NewEvent]:
    return [
        NewEvent(
            "move", {"type": "move", "v": 1, "n": n, "nested": {"cards": ["AS", "TD"]}}, cause, "0"
        )
        for n in numbers
    ]


def count(alias: str, stream: str | None = None) -> int:
    events = Event.objects.using(alias)
    return (events.filter(stream=stream) if stream else events).count()


def test_a_new_stream_numbers_its_events_from_one(store_alias: str) -> None:
    result = append("game-1", moves(1, 2), expected_sequence=0, using=store_alias)
    assert [e.sequence for e in result.events] == [1, 2]
    assert result.sequence == 2
    assert not result.replayed
    assert stream_sequence("game-1", using=store_alias) == 2
    assert stream_sequence("game-none", using=store_alias) == 0


@contextlib.contextmanager
def scratch(alias: str) -> Iterator[Callable[[], list[tuple[Any, ...]]]]:
    """A table of the test's own on ``alias``'s connection, for writes along an append: a
    row ``(1, 'before', NULL)``; yields a reader of its rows."""
    connection = connections[alias]
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMPORARY TABLE along_scratch (id integer, note text, last bigint)")
        cursor.execute("INSERT INTO along_scratch VALUES (1, 'before', NULL)")

    def rows() -> list[tuple[Any, ...]]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT id, note, last FROM along_scratch ORDER BY id, note")
            return [tuple(row) for row in cursor.fetchall()]

    try:
        yield rows
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE along_scratch")


def writes_along(note: str) -> list[Along]:
    return [
        Along("UPDATE along_scratch SET note = %s WHERE id = 1", [note]),
        Along(f"INSERT INTO along_scratch SELECT 2, %s, {LAST_ID} WHERE TRUE", [note]),
    ]


def test_writes_along_an_append_are_made_with_it_and_name_its_last_event(
    store_alias: str,
) -> None:
    with scratch(store_alias) as rows:
        append("s", moves(1), expected_sequence=0, using=store_alias)
        result = append(
            "s", moves(2, 3), expected_sequence=1, using=store_alias, along=writes_along("moved")
        )
        last = result.events[-1].position.id
        assert [e.sequence for e in result.events] == [2, 3]
        assert rows() == [(1, "moved", None), (2, "moved", last)]


def test_writes_along_a_refused_or_replayed_append_are_not_made(store_alias: str) -> None:
    with scratch(store_alias) as rows:
        append("s", moves(1), expected_sequence=0, idempotency_key="k", using=store_alias)
        with pytest.raises(Conflict):  # the stream is elsewhere
            append("s", moves(2), expected_sequence=0, using=store_alias, along=writes_along("a"))
        with pytest.raises(IdempotencyKeyReused):  # the key names another command
            append(
                "s",
                moves(9),
                expected_sequence=1,
                idempotency_key="k",
                using=store_alias,
                along=writes_along("b"),
            )
        replayed = append(  # the same command again: its first outcome, nothing written
            "s",
            moves(1),
            expected_sequence=0,
            idempotency_key="k",
            using=store_alias,
            along=writes_along("c"),
        )
        assert replayed.replayed
        assert rows() == [(1, "before", None)]
        assert stream_sequence("s", using=store_alias) == 1


def test_writes_along_an_append_that_collides_in_a_transaction_are_not_made(
    store_alias: str,
) -> None:
    """The INSERT itself fails (a key used before, as a move committed meanwhile at the
    same position makes it fail), without a savepoint: the caller's transaction ends with
    nothing of the append written, neither events nor writes along."""
    with scratch(store_alias) as rows:
        append("s", moves(1), expected_sequence=0, idempotency_key="k", using=store_alias)
        with pytest.raises(Collided), transaction.atomic(using=store_alias):
            append(
                "s",
                moves(2),
                expected_sequence=1,
                idempotency_key="k",
                using=store_alias,
                savepoint=False,
                along=writes_along("collided"),
            )
        assert rows() == [(1, "before", None)]
        assert stream_sequence("s", using=store_alias) == 1


def test_a_write_along_that_fails_fails_the_append_with_its_own_error(store_alias: str) -> None:
    """Not a collision: the stream did not move, so no Conflict to retry at the same
    sequence (found by review).  In autocommit mode the error itself; in a caller's
    transaction without a savepoint, Collided, the block rolled back."""
    later = [Along("INSERT INTO along_scratch SELECT 3, NULL, 0 WHERE TRUE")]
    with scratch(store_alias) as rows:
        with connections[store_alias].cursor() as cursor:
            cursor.execute("CREATE TEMPORARY TABLE along_strict (id integer NOT NULL)")
        strict = [Along("INSERT INTO along_strict SELECT NULL WHERE TRUE")]
        with pytest.raises(IntegrityError):
            append("s", moves(1), expected_sequence=0, using=store_alias, along=strict)
        with pytest.raises(Collided), transaction.atomic(using=store_alias):
            append(
                "s", moves(1), expected_sequence=0, using=store_alias, savepoint=False, along=strict
            )
        assert stream_sequence("s", using=store_alias) == 0
        append("s", moves(1), expected_sequence=0, using=store_alias, along=later)
        assert rows() == [(1, "before", None), (3, None, 0)]
        with connections[store_alias].cursor() as cursor:
            cursor.execute("DROP TABLE along_strict")


def test_a_write_along_keeps_its_own_condition_apart_from_the_appends(store_alias: str) -> None:
    """An OR in the write's condition must not let it pass a refused append."""
    with scratch(store_alias) as rows:
        append("s", moves(1), expected_sequence=0, using=store_alias)
        either = [Along("UPDATE along_scratch SET note = 'x' WHERE id = 1 OR id = 2")]
        with pytest.raises(Conflict):
            append("s", moves(2), expected_sequence=0, using=store_alias, along=either)
        assert rows() == [(1, "before", None)]
        with pytest.raises(ValueError):
            append("s", moves(2), expected_sequence=1, using=store_alias, along=[Along("DELETE")])
        assert stream_sequence("s", using=store_alias) == 1


@pytest.mark.postgres
def test_on_postgresql_an_append_and_its_writes_along_are_one_statement() -> None:
    with scratch("postgres") as rows:
        with CaptureQueriesContext(connections["postgres"]) as captured:
            result = append(
                "s", moves(1), expected_sequence=0, using="postgres", along=writes_along("one")
            )
        assert rows() == [(1, "one", None), (2, "one", result.events[-1].position.id)]
    assert len(captured.captured_queries) == 1, captured.captured_queries


def test_appending_continues_the_sequence_without_gaps(store_alias: str) -> None:
    append("s", moves(1), expected_sequence=0, using=store_alias)
    append("s", moves(2, 3), expected_sequence=1, using=store_alias)
    append("s", moves(4), expected_sequence=3, using=store_alias)
    assert [e.sequence for e in read_stream("s", using=store_alias)] == [1, 2, 3, 4]
    assert [e.payload["n"] for e in read_stream("s", using=store_alias)] == [1, 2, 3, 4]


def test_an_event_read_back_equals_the_event_appended(store_alias: str) -> None:
    appended = append("s", moves(7, 8, cause="bot"), expected_sequence=0, using=store_alias)
    assert tuple(read_stream("s", using=store_alias)) == appended.events
    first = appended.events[0]
    assert first.type == "move" and first.version == 1
    assert first.cause_kind == "bot" and first.cause_id == "0"
    assert first.payload == {"type": "move", "v": 1, "n": 7, "nested": {"cards": ["AS", "TD"]}}
    assert first.recorded_at.tzinfo is not None


def test_reading_a_stream_from_a_sequence_onward(store_alias: str) -> None:
    append("s", moves(1, 2, 3, 4, 5), expected_sequence=0, using=store_alias)
    append("other", moves(9), expected_sequence=0, using=store_alias)
    assert [e.sequence for e in read_stream("s", from_sequence=3, using=store_alias)] == [3, 4, 5]
    assert [e.sequence for e in read_stream("s", from_sequence=2, limit=2, using=store_alias)] == [
        2,
        3,
    ]
    assert read_stream("s", from_sequence=6, using=store_alias) == []


def test_a_stale_expected_sequence_is_a_conflict_with_the_current_sequence(
    store_alias: str,
) -> None:
    append("s", moves(1, 2), expected_sequence=0, using=store_alias)
    with pytest.raises(Conflict) as caught:
        append("s", moves(3), expected_sequence=1, using=store_alias)
    assert caught.value.current_sequence == 2
    assert caught.value.expected == 1
    assert count(store_alias, "s") == 2


def test_an_expected_sequence_ahead_of_the_stream_is_a_conflict_too(store_alias: str) -> None:
    append("s", moves(1), expected_sequence=0, using=store_alias)
    with pytest.raises(Conflict) as caught:
        append("s", moves(2), expected_sequence=5, using=store_alias)
    assert caught.value.current_sequence == 1
    assert [e.sequence for e in read_stream("s", using=store_alias)] == [1]


def test_the_database_refuses_a_duplicate_position(store_alias: str) -> None:
    append("s", moves(1), expected_sequence=0, using=store_alias)
    row = Event.objects.using(store_alias).get(stream="s")
    row.pk = None
    with pytest.raises(IntegrityError), transaction.atomic(using=store_alias):
        row.save(using=store_alias)


def test_a_conflict_inside_a_transaction_leaves_the_transaction_usable(store_alias: str) -> None:
    append("s", moves(1), expected_sequence=0, using=store_alias)
    with transaction.atomic(using=store_alias):
        with pytest.raises(Conflict):
            append("s", moves(2), expected_sequence=0, using=store_alias)
        append("t", moves(1), expected_sequence=0, using=store_alias)
    assert count(store_alias) == 2


def _reuse_the_key_at_the_stream_s_sequence(alias: str) -> None:
    """Stream ``s`` holds one append with key ``k``: append another command with ``k`` at
    its own sequence, without a savepoint (the INSERT itself fails)."""
    append("s", moves(2), expected_sequence=1, idempotency_key="k", using=alias, savepoint=False)


def test_without_a_savepoint_a_stale_expected_sequence_is_a_conflict_and_the_transaction_goes_on(
    store_alias: str,
) -> None:
    append("s", moves(1), expected_sequence=0, using=store_alias)
    with transaction.atomic(using=store_alias):
        with pytest.raises(Conflict) as refused:
            append("s", moves(2), expected_sequence=0, using=store_alias, savepoint=False)
        assert refused.value.current_sequence == 1
        append("t", moves(1), expected_sequence=0, using=store_alias, savepoint=False)
    assert count(store_alias) == 2


def test_without_a_savepoint_a_collision_is_collided_and_ends_the_callers_transaction(
    store_alias: str,
) -> None:
    """A key used before, at the stream's own sequence: the INSERT itself fails (as a
    move committed meanwhile at the same position makes it fail).  Nothing is stored,
    and what the transaction did before goes with it."""
    append("s", moves(1), expected_sequence=0, idempotency_key="k", using=store_alias)
    with pytest.raises(Collided) as collided, transaction.atomic(using=store_alias):
        append("t", moves(1), expected_sequence=0, using=store_alias, savepoint=False)
        _reuse_the_key_at_the_stream_s_sequence(store_alias)
    assert (collided.value.stream, collided.value.expected) == ("s", 1)
    assert count(store_alias) == 1 and count(store_alias, "t") == 0
    # Answered afterwards as a refused append is: the key names another command.
    with pytest.raises(IdempotencyKeyReused):
        find_command("s", "k", "another", using=store_alias)


def test_without_a_savepoint_a_caller_that_swallows_a_collision_cannot_commit_on_either_backend(
    store_alias: str,
) -> None:
    """SQLite would have let it commit what it did around the collision (PostgreSQL
    refuses): the block is marked for rollback, the same on both (found by review)."""
    append("s", moves(1), expected_sequence=0, idempotency_key="k", using=store_alias)
    with pytest.raises(TransactionManagementError), transaction.atomic(using=store_alias):
        append("t", moves(1), expected_sequence=0, using=store_alias, savepoint=False)
        with contextlib.suppress(Collided):
            _reuse_the_key_at_the_stream_s_sequence(store_alias)
        append("u", moves(1), expected_sequence=0, using=store_alias, savepoint=False)
    assert count(store_alias) == 1


def test_a_retry_with_the_same_key_returns_the_first_outcome_and_stores_nothing(
    store_alias: str,
) -> None:
    first = append("s", moves(1, 2), expected_sequence=0, idempotency_key="k1", using=store_alias)
    again = append("s", moves(1, 2), expected_sequence=0, idempotency_key="k1", using=store_alias)
    assert again.replayed and not first.replayed
    assert again.events == first.events
    assert count(store_alias, "s") == 2


def test_a_retry_is_answered_even_after_the_stream_moved_on(store_alias: str) -> None:
    first = append("s", moves(1), expected_sequence=0, idempotency_key="k", using=store_alias)
    append("s", moves(2), expected_sequence=1, using=store_alias)
    again = append("s", moves(1), expected_sequence=0, idempotency_key="k", using=store_alias)
    assert again.replayed and again.events == first.events
    assert count(store_alias, "s") == 2


def test_the_same_key_for_a_different_command_is_refused(store_alias: str) -> None:
    append("s", moves(1), expected_sequence=0, idempotency_key="k", using=store_alias)
    with pytest.raises(IdempotencyKeyReused):
        append("s", moves(99), expected_sequence=1, idempotency_key="k", using=store_alias)
    with pytest.raises(IdempotencyKeyReused):
        append(
            "s",
            moves(1),
            expected_sequence=0,
            idempotency_key="k",
            command_hash="another",
            using=store_alias,
        )
    assert count(store_alias, "s") == 1


def test_an_explicit_command_hash_decides_what_is_the_same_command(store_alias: str) -> None:
    first = append(
        "s", moves(1), expected_sequence=0, idempotency_key="k", command_hash="h", using=store_alias
    )
    # The events differ (a chance draw, say), the command is the same: replayed.
    again = append(
        "s", moves(5), expected_sequence=0, idempotency_key="k", command_hash="h", using=store_alias
    )
    assert again.replayed and again.events == first.events
    assert find_command("s", "k", "h", using=store_alias) == again
    assert find_command("s", "unknown", "h", using=store_alias) is None


def test_idempotency_keys_are_scoped_to_their_stream(store_alias: str) -> None:
    append("a", moves(1), expected_sequence=0, idempotency_key="k", using=store_alias)
    result = append("b", moves(2), expected_sequence=0, idempotency_key="k", using=store_alias)
    assert not result.replayed
    assert count(store_alias) == 2


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE events_event SET type = 'forged'",
        "UPDATE events_event SET payload = '{}' WHERE sequence = 1",
        "DELETE FROM events_event",
        "DELETE FROM events_event WHERE sequence = 2",
    ],
)
def test_the_database_refuses_to_change_or_delete_events(store_alias: str, sql: str) -> None:
    append("s", moves(1, 2), expected_sequence=0, using=store_alias)
    before = read_stream("s", using=store_alias)
    with (
        pytest.raises(DatabaseError, match="immutable"),
        transaction.atomic(using=store_alias),
        connections[store_alias].cursor() as cursor,
    ):
        cursor.execute(sql)
    assert read_stream("s", using=store_alias) == before


def test_the_orm_cannot_change_or_delete_events_either(store_alias: str) -> None:
    append("s", moves(1), expected_sequence=0, using=store_alias)
    events = Event.objects.using(store_alias)
    with pytest.raises(DatabaseError), transaction.atomic(using=store_alias):
        events.update(type="forged")
    with pytest.raises(DatabaseError), transaction.atomic(using=store_alias):
        events.all().delete()
    event = events.get()
    event.type = "forged"
    with pytest.raises(DatabaseError), transaction.atomic(using=store_alias):
        event.save(using=store_alias)
    assert events.get().type == "move"


def _read_all_once_settled(alias: str, count: int, seconds: float = 15.0) -> list[StoredEvent]:
    """``read_all`` once ``count`` events are visible to it.

    On PostgreSQL an event is handed to followers only once every transaction
    older than its own has ended, anywhere on the server (docs/store.md): a
    transaction of another client still open delays it, never reorders it.
    """
    deadline = time.monotonic() + seconds
    every = read_all(using=alias)
    while len(every) < count and time.monotonic() < deadline:
        time.sleep(0.05)
        every = read_all(using=alias)
    return every


def test_read_all_returns_every_event_once_in_global_order(store_alias: str) -> None:
    append("a", moves(1, 2), expected_sequence=0, using=store_alias)
    append("b", moves(1), expected_sequence=0, using=store_alias)
    append("a", moves(3), expected_sequence=2, using=store_alias)
    every = _read_all_once_settled(store_alias, 4)
    assert [(e.stream, e.sequence) for e in every] == [("a", 1), ("a", 2), ("b", 1), ("a", 3)]
    positions = [e.position for e in every]
    assert positions == sorted(positions) and len(set(positions)) == 4


def test_read_all_pages_from_a_position(store_alias: str) -> None:
    for n in range(7):
        append(f"s{n % 3}", moves(n), expected_sequence=n // 3, using=store_alias)
    seen = []
    position: Position | str | None = None
    while True:
        page = read_all(position, limit=3, using=store_alias)
        if not page:
            break
        seen += page
        position = str(page[-1].position)  # positions travel as text
    assert [e.payload["n"] for e in seen] == list(range(7))
    assert read_all(seen[-1].position, using=store_alias) == []


def test_positions_are_written_tx_dot_id() -> None:
    assert str(Position(12, 345)) == "12.345"
    assert Position.parse("12.345") == Position(12, 345)
    assert Position.parse(None) == START == Position.parse("")
    assert Position(1, 9) < Position(2, 1) < Position(2, 3)
    with pytest.raises(ValueError):
        Position.parse("12")


def test_streams_lists_stream_names_by_prefix(store_alias: str) -> None:
    append("game-2", moves(1, 2), expected_sequence=0, using=store_alias)
    append("game-10", moves(1), expected_sequence=0, using=store_alias)
    append("series-1", moves(1), expected_sequence=0, using=store_alias)
    assert store.streams("game-", using=store_alias) == ["game-10", "game-2"]
    assert len(store.streams(using=store_alias)) == 3


def test_an_append_names_a_known_cause_and_at_least_one_event(store_alias: str) -> None:
    with pytest.raises(ValueError):
        append("s", [], expected_sequence=0, using=store_alias)
    with pytest.raises(ValueError):
        append("s", moves(1, cause="nobody"), expected_sequence=0, using=store_alias)
    with pytest.raises(ValueError):
        append("s", moves(1), expected_sequence=-1, using=store_alias)
    assert count(store_alias) == 0


def test_a_row_is_read_beside_a_streams_events_in_one_statement(store_alias: str) -> None:
    """A caller's row and the stream's end in one round trip (a game's row and the events
    since the fold a process keeps, issue 24): the events exactly as ``read_stream``'s."""
    append("s", moves(1, 2, 3), expected_sequence=0, using=store_alias)
    beside = store.Beside("SELECT %s AS name, %s AS n, NULL", ("row", 7))
    with CaptureQueriesContext(connections[store_alias]) as queries:
        row, events = store.read_stream_beside("s", beside, from_sequence=2, using=store_alias)
    assert len(queries) == 1
    assert row == ("row", 7, None)
    assert events == read_stream("s", from_sequence=2, using=store_alias)
    assert [e.sequence for e in events] == [2, 3]
    # Past the stream's end, and a stream without events: the row alone.
    for stream, start in (("s", 4), ("none", 1)):
        found = store.read_stream_beside(stream, beside, from_sequence=start, using=store_alias)
        assert found == (("row", 7, None), [])
    # A query that selects no row: nothing, whatever the stream holds.
    nothing = store.Beside("SELECT 1 AS one WHERE 1 = %s", (0,))
    assert store.read_stream_beside("s", nothing, using=store_alias) == (None, [])
