"""The ASGI side's database threads (tournaments/api/waiting.py, ``DatabaseThreads``): each
keeps its connection from one call to the next while there is work (issue 24: taking and
giving back a pooled connection, with its check, cost a tenth of a web process's CPU),
gives it back when idle, drops one a call failed with, and checks one kept through a pause.

A connection given back is closed (or back in the pool): not so Django's in-memory SQLite
test database, which it never closes, so those tests run on PostgreSQL (CI's)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import pytest
from django.db import DatabaseError, connection
from django.test import override_settings
from django.utils import translation

from parlour import db
from tournaments.api import handler, waiting
from tournaments.api.waiting import DatabaseThreads

pytestmark = pytest.mark.django_db(transaction=True)


def _own_connection() -> int:
    """Which connection this thread's queries go through (made if it has none)."""
    connection.ensure_connection()
    return id(connection.connection)


def _has_connection() -> bool:
    return connection.connection is not None


def _fails_in_the_database() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM no_such_table")


@pytest.fixture
def one_thread() -> Any:
    threads = DatabaseThreads(1)
    yield threads
    threads.stop()


def test_a_thread_keeps_its_connection_from_one_call_to_the_next(one_thread: Any) -> None:
    first = one_thread.submit(_own_connection).result(timeout=10)
    assert one_thread.submit(_own_connection).result(timeout=10) == first
    assert one_thread.submit(_has_connection).result(timeout=10)


def test_an_idle_thread_gives_its_connection_back(
    one_thread: Any, monkeypatch: pytest.MonkeyPatch, on_postgres: None
) -> None:
    monkeypatch.setattr(waiting, "IDLE_SECONDS", 0.2)
    one_thread.submit(_own_connection).result(timeout=10)  # started with the short idle time
    time.sleep(0.6)
    assert not one_thread.submit(_has_connection).result(timeout=10)


def test_a_call_whose_connection_broke_leaves_no_connection(
    one_thread: Any, on_postgres: None
) -> None:
    def broken() -> None:
        with connection.cursor() as cursor:  # PostgreSQL ends this very backend
            cursor.execute("SELECT pg_terminate_backend(pg_backend_pid())")

    one_thread.submit(_own_connection).result(timeout=10)
    with pytest.raises(DatabaseError):
        one_thread.submit(broken).result(timeout=10)
    assert not one_thread.submit(_has_connection).result(timeout=10)


def test_a_call_that_met_a_database_error_keeps_a_connection_that_answers(
    one_thread: Any,
) -> None:
    first = one_thread.submit(_own_connection).result(timeout=10)
    with pytest.raises(DatabaseError):
        one_thread.submit(_fails_in_the_database).result(timeout=10)
    assert one_thread.submit(_own_connection).result(timeout=10) == first


def test_a_refusal_that_is_not_the_database_s_keeps_the_connection(one_thread: Any) -> None:
    def refuse() -> None:
        connection.ensure_connection()
        raise ValueError("refused")

    first = one_thread.submit(_own_connection).result(timeout=10)
    with pytest.raises(ValueError):
        one_thread.submit(refuse).result(timeout=10)
    assert one_thread.submit(_own_connection).result(timeout=10) == first


def test_a_connection_broken_during_a_pause_is_replaced_before_the_next_call(
    one_thread: Any, monkeypatch: pytest.MonkeyPatch, on_postgres: None
) -> None:
    """PostgreSQL restarted while the thread was idle: its next call must not fail."""
    monkeypatch.setattr(waiting, "CHECK_AFTER_SECONDS", 0.1)

    def backend() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            return int(cursor.fetchone()[0])

    first = one_thread.submit(backend).result(timeout=10)
    with connection.cursor() as cursor:  # the test's own connection ends the thread's
        cursor.execute("SELECT pg_terminate_backend(%s)", [first])
    time.sleep(0.3)
    assert one_thread.submit(backend).result(timeout=10) != first


def test_a_database_error_caught_by_the_call_keeps_a_connection_that_answers(
    one_thread: Any,
) -> None:
    """A call that caught a database error itself (a long-poll's answer does) leaves its
    connection checked: kept if it answers, and not dropped at the next refusal."""

    def caught() -> bool:
        with contextlib.suppress(DatabaseError):
            _fails_in_the_database()
        return bool(connection.errors_occurred)

    def refuse() -> None:
        raise ValueError("refused")

    first = one_thread.submit(_own_connection).result(timeout=10)
    assert one_thread.submit(caught).result(timeout=10)  # the error was met
    assert not one_thread.submit(lambda: connection.errors_occurred).result(timeout=10)
    with pytest.raises(ValueError):
        one_thread.submit(refuse).result(timeout=10)
    assert one_thread.submit(_own_connection).result(timeout=10) == first


def test_threads_that_keep_nothing_give_their_connection_back_after_each_call(
    on_postgres: None,
) -> None:
    threads = DatabaseThreads(1, keep=False)
    try:
        threads.submit(_own_connection).result(timeout=10)
        assert not threads.submit(_has_connection).result(timeout=10)
    finally:
        threads.stop()


@pytest.mark.parametrize(
    ("pool", "threads", "keep", "requests"),
    [(0, 2, True, 32), (2, 2, False, 2), (4, 2, True, 2), (10, 2, True, 8), (20, 2, True, 18)],
)
def test_the_threads_never_take_more_of_the_pool_than_the_requests_leave(
    pool: int, threads: int, keep: bool, requests: int
) -> None:
    with override_settings(DATABASE_POOL_SIZE=pool):
        assert db.database_threads() == (threads, keep)
        assert handler.requests_at_once() == requests
        assert requests + db.connections_kept_by_threads() == (pool or requests)


def test_a_call_runs_in_its_caller_s_context() -> None:
    async def main() -> str:
        with translation.override("ru"):
            return await waiting.run_sync(translation.get_language)

    assert asyncio.run(main()) == "ru"


def test_stop_gives_every_connection_back_and_a_later_call_starts_them_again(
    on_postgres: None,
) -> None:
    threads = DatabaseThreads(2)
    for _ in range(4):
        threads.submit(_own_connection).result(timeout=10)
    threads.stop()
    assert threads._threads == []
    assert not threads.submit(_has_connection).result(timeout=10)
    threads.stop()
