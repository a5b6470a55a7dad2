"""What only PostgreSQL can show: TRUNCATE refused, concurrent writers, late commits."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from django.db import DatabaseError, connections, transaction

from events.store import Conflict, NewEvent, Position, StoredEvent, append, read_all, read_stream

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True, databases=["default", "postgres"]),
]

PG = "postgres"


def event(n: int) -> list[NewEvent]:
    return [NewEvent("move", {"type": "move", "n": n}, "seat", "0")]


def test_the_database_refuses_to_truncate_the_event_table() -> None:
    append("s", event(1), expected_sequence=0, using=PG)
    with (
        pytest.raises(DatabaseError, match="immutable: TRUNCATE"),
        transaction.atomic(using=PG),
        connections[PG].cursor() as cursor,
    ):
        cursor.execute("TRUNCATE events_event")
    assert len(read_stream("s", using=PG)) == 1


def test_the_transaction_id_is_the_first_half_of_the_position() -> None:
    with transaction.atomic(using=PG):
        a = append("a", event(1), expected_sequence=0, using=PG)
        b = append("b", event(2), expected_sequence=0, using=PG)
        with connections[PG].cursor() as cursor:
            cursor.execute("SELECT pg_current_xact_id()::text::bigint")
            (tx,) = cursor.fetchone()
    assert a.events[0].position.tx == b.events[0].position.tx == tx
    assert a.events[0].position.id < b.events[0].position.id


def hold_open(
    stream: str, expected: int, seconds: float, key: str | None = None
) -> threading.Thread:
    """A writer that appends in a transaction it commits only after ``seconds``."""
    appended = threading.Event()

    def run() -> None:
        try:
            with transaction.atomic(using=PG):
                append(stream, event(99), expected_sequence=expected, idempotency_key=key, using=PG)
                appended.set()
                time.sleep(seconds)
        finally:
            connections[PG].close()

    thread = threading.Thread(target=run)
    thread.start()
    assert appended.wait(10)
    return thread


def test_two_writers_of_one_position_collide_and_the_loser_stores_nothing() -> None:
    """Both see the stream at 1; the second waits on the first's uncommitted row, then fails."""
    append("s", event(1), expected_sequence=0, using=PG)
    first = hold_open("s", 1, 0.3)
    with pytest.raises(Conflict) as caught:
        append("s", event(2) + event(3), expected_sequence=1, using=PG)
    first.join()
    assert caught.value.current_sequence == 2
    assert [e.payload["n"] for e in read_stream("s", using=PG)] == [1, 99]


def test_a_keyed_retry_racing_its_original_gets_the_original_outcome() -> None:
    original = hold_open("s", 0, 0.3, key="k")
    again = append("s", event(99), expected_sequence=0, idempotency_key="k", using=PG)
    original.join()
    assert again.replayed
    assert read_stream("s", using=PG) == list(again.events)


def test_an_event_committed_late_is_not_skipped_by_a_reader() -> None:
    """A transaction that began writing first but commits last is read in its place, not lost.

    With a plain auto-increment id the reader would see ``late`` (higher id)
    first, move past it, and never see ``early`` (lower id, committed after).
    """
    started = threading.Event()
    release = threading.Event()

    def slow_writer() -> None:
        try:
            with transaction.atomic(using=PG):
                append("early", event(1), expected_sequence=0, using=PG)
                started.set()
                release.wait(10)
        finally:
            connections[PG].close()

    thread = threading.Thread(target=slow_writer)
    thread.start()
    assert started.wait(10)
    append("late", event(2), expected_sequence=0, using=PG)  # commits at once
    # While "early" is uncommitted, the reader is held before it: nothing is
    # returned past it, not even the committed "late".
    assert read_all(using=PG) == []
    release.set()
    thread.join(10)
    seen = read_all(using=PG)
    assert [e.stream for e in seen] == ["early", "late"]
    assert read_all(seen[-1].position, using=PG) == []


def test_concurrent_writers_to_one_stream_leave_it_gap_free() -> None:
    """16 threads append to one stream, retrying on conflict: every event lands once, in order."""
    writers, each = 16, 10
    conflicts = Counter[int]()
    barrier = threading.Barrier(writers)

    def writer(w: int) -> None:
        try:
            barrier.wait(10)
            for n in range(each):
                while True:
                    seen = len(read_stream("shared", using=PG))
                    try:
                        append("shared", event(w * 100 + n), expected_sequence=seen, using=PG)
                        break
                    except Conflict:
                        conflicts[w] += 1
        finally:
            connections[PG].close()

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    events = read_stream("shared", using=PG)
    assert [e.sequence for e in events] == list(range(1, writers * each + 1))
    assert sorted(e.payload["n"] for e in events) == sorted(
        w * 100 + n for w in range(writers) for n in range(each)
    )
    assert sum(conflicts.values()) > 0  # they really raced


def test_a_follower_sees_every_event_of_concurrent_writers_exactly_once() -> None:
    writers, each = 8, 40
    done = threading.Event()
    seen: list[StoredEvent] = []

    def writer(w: int) -> None:
        try:
            for n in range(each):
                with transaction.atomic(using=PG):
                    append(f"w{w}", event(n), expected_sequence=n, using=PG)
                    if n % 2:
                        append(f"x{w}", event(n), expected_sequence=n // 2, using=PG)
        finally:
            connections[PG].close()

    def follower() -> None:
        position: Position | None = None
        try:
            while True:
                finished = done.is_set()
                page = read_all(position, limit=50, using=PG)
                seen.extend(page)
                if page:
                    position = page[-1].position
                elif finished:
                    return
        finally:
            connections[PG].close()

    reader = threading.Thread(target=follower)
    reader.start()
    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    done.set()
    reader.join(60)
    keys = [(e.stream, e.sequence) for e in seen]
    assert len(keys) == len(set(keys)) == writers * each * 3 // 2
    assert [e.position for e in seen] == sorted(e.position for e in seen)
    # Within a stream the follower meets the events in sequence order.
    for stream in {e.stream for e in seen}:
        assert [e.sequence for e in seen if e.stream == stream] == sorted(
            e.sequence for e in seen if e.stream == stream
        )
