"""Followers of the global order see every committed event exactly once, in one order.

Many writers append in transactions of one to three events over one to three streams
(several streams in one transaction), each waiting a random while before it commits,
so that transactions commit out of the order they began in; several followers read
``read_all`` live meanwhile, with pages of different sizes, one of them only a set of
streams (``within``).  Afterwards each follower's events are compared with a full read:
nothing missing, nothing twice, in position order.  Both backends, a fixed seed.
"""

from __future__ import annotations

import random
import threading
import time

import pytest
from django.db import connections, transaction

from events.store import NewEvent, Position, StoredEvent, StreamSet, append, read_all

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", "sqlite", "postgres"])

#: Events written in all: the issue asks for at least 10,000 on PostgreSQL.
EVENTS = {"postgres": 10_002, "sqlite": 4_002}
WRITERS = 6
STREAMS_PER_WRITER = 5
#: The streams the ``within`` follower reads.
WATCHED = ("w0-s0", "w1-s3", "w3-s1", "w5-s4")
#: How long a follower keeps reading empty pages once the writers are done.
SETTLE_SECONDS = 3.0


def _writer(alias: str, w: int, budget: int, seed: int, failures: list[BaseException]) -> None:
    rng = random.Random(seed)
    sequences = [0] * STREAMS_PER_WRITER
    written = 0
    # SQLite has one writer at a time: a long wait inside a transaction only stalls the rest.
    pause = 0.004 if alias == "postgres" else 0.0005
    try:
        while written < budget:
            with transaction.atomic(using=alias):
                for s in rng.sample(range(STREAMS_PER_WRITER), rng.randint(1, 3)):
                    n = min(rng.randint(1, 2), budget - written)
                    if n <= 0:
                        break
                    events = [
                        NewEvent("move", {"w": w, "s": s, "n": sequences[s] + k + 1}, "seat", "0")
                        for k in range(n)
                    ]
                    append(f"w{w}-s{s}", events, expected_sequence=sequences[s], using=alias)
                    sequences[s] += n
                    written += n
                time.sleep(rng.random() * pause)
    except BaseException as error:  # reported by the test, not lost in a thread
        failures.append(error)
    finally:
        connections[alias].close()


def _follower(
    alias: str,
    seen: list[StoredEvent],
    last: dict[int, Position],
    me: int,
    seed: int,
    within: StreamSet | None,
    failures: list[BaseException],
) -> None:
    """Follow until this follower has passed ``last[me]``, the position of the last event
    it should see (set by the test once the writers are done and a full read has them
    all), or a minute after that."""
    rng = random.Random(seed)
    position: Position | None = None
    deadline: float | None = None
    try:
        while True:
            page = read_all(position, limit=rng.choice([7, 50, 200]), within=within, using=alias)
            seen.extend(page)
            if page:
                position = page[-1].position
            end = last.get(me)
            if end is not None:
                deadline = deadline or time.monotonic() + 60
                if (position is not None and position >= end) or time.monotonic() > deadline:
                    return
            if not page:
                time.sleep(0.001)
    except BaseException as error:
        failures.append(error)
    finally:
        connections[alias].close()


def _read_everything(alias: str, count: int) -> list[StoredEvent]:
    """Every event, once ``count`` are visible (on PostgreSQL another client's open
    transaction may hold the newest back for a while: docs/store.md)."""
    deadline = time.monotonic() + 60
    while True:
        everything: list[StoredEvent] = []
        position: Position | None = None
        while page := read_all(position, limit=5000, using=alias):
            everything += page
            position = page[-1].position
        if len(everything) >= count or time.monotonic() > deadline:
            return everything
        time.sleep(0.1)


@pytest.mark.parametrize("alias", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_every_follower_sees_every_committed_event_exactly_once_in_one_order(alias: str) -> None:
    total = EVENTS[alias]
    failures: list[BaseException] = []
    last: dict[int, Position] = {}
    within = StreamSet(" UNION ALL ".join("SELECT %s" for _ in WATCHED), tuple(WATCHED))
    views: list[tuple[StreamSet | None, list[StoredEvent]]] = [(None, []) for _ in range(3)]
    views.append((within, []))
    followers = [
        threading.Thread(target=_follower, args=(alias, seen, last, i, 100 + i, w, failures))
        for i, (w, seen) in enumerate(views)
    ]
    writers = [
        threading.Thread(target=_writer, args=(alias, w, total // WRITERS, w, failures))
        for w in range(WRITERS)
    ]
    for thread in followers + writers:
        thread.start()
    for thread in writers:
        thread.join(300)
    everything = _read_everything(alias, WRITERS * (total // WRITERS))
    for i, (scope, _) in enumerate(views):
        last[i] = [e for e in everything if scope is None or e.stream in WATCHED][-1].position
    for thread in followers:
        thread.join(120)
    assert not failures, failures
    assert len(everything) == WRITERS * (total // WRITERS) >= (10_000 if alias == "postgres" else 1)
    for scope, seen in views:
        expected = [
            (e.stream, e.sequence) for e in everything if scope is None or e.stream in WATCHED
        ]
        got = [(e.stream, e.sequence) for e in seen]
        missing = set(expected) - set(got)
        assert not missing and len(got) == len(set(got)), (len(missing), len(got) - len(set(got)))
        assert got == expected  # the one order: the full read's
