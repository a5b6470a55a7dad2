"""The ASGI side's database threads (tournaments/api/waiting.py, ``DatabaseThreads``): each
keeps its connection from one call to the next while there is work (issue 24: taking and
giving back a pooled connection, with its check, cost a tenth of a web process's CPU),
gives it back when idle, drops one a call failed with, and checks one kept through a pause.

A connection given back is closed (or back in the pool): not so Django's in-memory SQLite
test database, which it never closes, so those tests run on PostgreSQL (CI's)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from django.db import DatabaseError, connection
from django.utils import translation

from tournaments.api import waiting
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


def test_a_call_that_met_a_database_error_leaves_no_connection(
    one_thread: Any, on_postgres: None
) -> None:
    one_thread.submit(_own_connection).result(timeout=10)
    with pytest.raises(DatabaseError):
        one_thread.submit(_fails_in_the_database).result(timeout=10)
    assert not one_thread.submit(_has_connection).result(timeout=10)


def test_a_refusal_that_is_not_the_database_s_keeps_the_connection(one_thread: Any) -> None:
    def refuse() -> None:
        connection.ensure_connection()
        raise ValueError("refused")

    first = one_thread.submit(_own_connection).result(timeout=10)
    with pytest.raises(ValueError):
        one_thread.submit(refuse).result(timeout=10)
    assert one_thread.submit(_own_connection).result(timeout=10) == first


def test_a_connection_kept_through_a_pause_is_checked_before_its_next_use(
    one_thread: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(waiting, "CHECK_AFTER_SECONDS", 0.1)

    def checked_next() -> bool:
        return not getattr(connection, "health_check_done", True)

    one_thread.submit(_own_connection).result(timeout=10)
    assert not one_thread.submit(checked_next).result(timeout=10)  # right after: no check
    time.sleep(0.3)
    assert one_thread.submit(checked_next).result(timeout=10)


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
