"""A database or Redis that refuses is a 503 (``Retry-After``), never a 500.

The servers here are real: a web server whose PostgreSQL is a port where nothing
listens (the connection is refused, as a full ``max_connections`` refuses it), and
one whose Redis is such a port.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from django.db import OperationalError
from psycopg import errors

from conftest import postgres_url
from tests.api.live import base_env, free_port, live_database
from tournaments.api.problems import unavailable_reason

ROOT = Path(__file__).resolve().parents[2]
NOWHERE = free_port()  # nothing listens there: a connection is refused


def wrapped(error: Exception) -> OperationalError:
    """What Django raises for a driver's error: its own, the driver's as the cause."""
    try:
        raise error
    except Exception as cause:
        try:
            raise OperationalError(str(cause)) from cause
        except OperationalError as django_error:
            return django_error


def test_too_many_clients_and_a_refused_or_lost_connection_are_unavailable() -> None:
    full = errors.TooManyConnections("FATAL:  sorry, too many clients already")
    assert unavailable_reason(wrapped(full)) == "the database refused or lost the connection"
    refused = psycopg.OperationalError("connection failed: Connection refused")
    assert unavailable_reason(wrapped(refused)) is not None
    assert unavailable_reason(wrapped(errors.AdminShutdown("terminating connection"))) is not None


def test_a_deadlock_or_a_bad_query_is_not_unavailable() -> None:
    assert unavailable_reason(wrapped(errors.DeadlockDetected("deadlock detected"))) is None
    assert unavailable_reason(wrapped(errors.UndefinedTable("no such table"))) is None
    assert unavailable_reason(OperationalError("deadlock detected")) is None


def _get(url: str) -> tuple[int, dict[str, str], bytes]:
    try:
        with urllib.request.urlopen(url, timeout=20) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def _server(tmp: Path, env: dict[str, str]) -> Iterator[str]:
    port = free_port()
    log = tmp / f"server-{port}.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            # gunicorn, as in production (runserver stops at start-up without a database)
            [str(Path(sys.executable).parent / "gunicorn"), "parlour.wsgi:application"]
            + ["-k", "gthread", "--threads", "4", "-b", f"127.0.0.1:{port}"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _get(url + "/healthz")
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("the server did not start: " + log.read_text()[-2000:])
                time.sleep(0.2)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)


@pytest.fixture(scope="module", params=["true", "false"], ids=["debug", "production"])
def no_database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A web server whose PostgreSQL refuses every connection (``DEBUG`` on and off)."""
    env = base_env(f"postgres://postgres@127.0.0.1:{NOWHERE}/parlour")
    env.update(DEBUG=request.param)
    yield from _server(tmp_path_factory.mktemp("no-database"), env)


@pytest.mark.parametrize("path", ["/api/v1/clubs", "/api/v1/games/1", "/api/v1/games/1/record"])
def test_an_api_request_when_the_database_refuses_is_a_503_problem(
    no_database: str, path: str
) -> None:
    status, headers, body = _get(no_database + path)
    assert status == 503, body[:500]
    assert headers["Content-Type"] == "application/problem+json"
    assert headers["Retry-After"] == "2"
    problem = json.loads(body)
    assert problem["type"] == "/api/v1/problems/unavailable" and problem["retry_after"] == 2


@pytest.mark.parametrize("path", ["/", "/healthz"])
def test_a_page_when_the_database_refuses_is_a_clear_503_page(no_database: str, path: str) -> None:
    status, headers, body = _get(no_database + path)
    assert status == 503, body[:500]
    assert headers["Retry-After"] == "2"
    assert headers["Content-Type"].startswith("text/html")
    assert b"Busy for a moment" in body and b"Traceback" not in body


@pytest.mark.postgres
def test_with_redis_down_the_api_and_the_pages_still_answer(tmp_path: Path) -> None:
    """Redis is only the cache here (throttles fail open): a refused Redis costs no answer."""
    with live_database(tmp_path, postgres_url()) as database:
        env = base_env(database.url)
        env.update(REDIS_URL=f"redis://127.0.0.1:{NOWHERE}/0")
        del env["PARLOUR_API_RATE_ADDRESS"]  # the throttles count, in the (refusing) cache
        for url in _server(tmp_path, env):
            for path in ("/api/v1/clubs", "/", "/healthz"):
                status, _, body = _get(url + path)
                assert status == 200, (path, body[:500])
