"""The database connection pool (``DATABASE_POOL_SIZE``): settings, errors, a real server.

Under ASGI each request runs in a thread of its own and, without a pool, opens
a connection of its own: at 128 concurrent clients PostgreSQL ran out of
connections ("too many clients already", 500s).  With psycopg's pool a web
process holds at most ``DATABASE_POOL_SIZE`` connections, reused from request
to request; a request waits up to ``DATABASE_POOL_TIMEOUT`` seconds for one and
then gets a 503 ``unavailable`` problem.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

import psycopg
import pytest
from django.db import OperationalError
from django.test import Client
from psycopg_pool import PoolTimeout

from conftest import postgres_url
from parlour.env import ConfigError
from parlour.settings import database_settings
from tests.api.live import LiveDatabase, live_database, live_server
from tournaments.api import views

ROOT = Path(__file__).resolve().parents[2]
PG_URL = "postgres://parlour:secret@db.example:5432/parlour"

# -- the settings ------------------------------------------------------------------------

#: Every PostgreSQL connection binds parameters on the server and prepares what it runs often.
PREPARED = {"server_side_binding": True, "prepare_threshold": 5}


def test_a_pool_size_gives_postgresql_a_pool_and_no_persistent_connections() -> None:
    config = database_settings(PG_URL + "?sslmode=require", pool_size=20, pool_timeout=5.0)
    assert config["OPTIONS"] == {
        "sslmode": "require",  # the URL's own options are kept
        "pool": {"min_size": 2, "max_size": 20, "timeout": 5.0},
        **PREPARED,
    }
    assert config["CONN_MAX_AGE"] == 0
    assert config["CONN_HEALTH_CHECKS"] is True


def test_a_pool_of_one_keeps_one_connection() -> None:
    pool = database_settings(PG_URL, pool_size=1)["OPTIONS"]
    assert pool == {"pool": {"min_size": 1, "max_size": 1, "timeout": 10.0}, **PREPARED}


def test_without_a_pool_size_there_is_no_pool() -> None:
    config = database_settings(PG_URL, conn_max_age=60)
    assert "pool" not in dict(config.get("OPTIONS") or {})  # type: ignore[call-overload]
    assert config["CONN_MAX_AGE"] == 60


def test_postgresql_statements_are_prepared_unless_the_url_says_not() -> None:
    assert database_settings(PG_URL)["OPTIONS"] == PREPARED
    options = database_settings(PG_URL + "?server_side_binding=false")["OPTIONS"]
    assert options == {**PREPARED, "server_side_binding": False}


def test_a_pool_with_persistent_connections_is_refused() -> None:
    with pytest.raises(ConfigError, match="DATABASE_POOL_SIZE=4 and DATABASE_CONN_MAX_AGE=60"):
        database_settings(PG_URL, conn_max_age=60, pool_size=4)


def test_a_pool_on_sqlite_is_refused() -> None:
    with pytest.raises(ConfigError, match="the connection pool is for PostgreSQL"):
        database_settings("sqlite:////tmp/parlour.sqlite3", pool_size=4)


def _settings_of(**env: str) -> subprocess.CompletedProcess[str]:
    """Load the settings in a child process with ``env``; print the aliases' pool options."""
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DATABASE_", "PARLOUR_TEST_", "DJANGO_SETTINGS"))
    }
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings as s;"
            " print({a: d.get('OPTIONS', {}).get('pool') for a, d in s.DATABASES.items()})",
        ],
        cwd=ROOT,
        env=clean | {"DJANGO_SETTINGS_MODULE": "parlour.settings"} | env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DATABASE_POOL_SIZE": "twenty"}, "DATABASE_POOL_SIZE='twenty' is not a whole number"),
        ({"DATABASE_POOL_SIZE": "-1"}, "DATABASE_POOL_SIZE=-1 is below its minimum 0"),
        (
            {"DATABASE_POOL_SIZE": "4", "DATABASE_POOL_TIMEOUT": "soon"},
            "DATABASE_POOL_TIMEOUT='soon' is not a number",
        ),
        (
            {"DATABASE_POOL_SIZE": "4", "DATABASE_CONN_MAX_AGE": "60"},
            "DATABASE_POOL_SIZE=4 and DATABASE_CONN_MAX_AGE=60 do not go together",
        ),
        ({"DATABASE_POOL_SIZE": "4", "DATABASE_URL": ""}, "the connection pool is for PostgreSQL"),
    ],
)
def test_a_bad_pool_setting_stops_start_up_with_a_message(
    env: dict[str, str], message: str
) -> None:
    run = _settings_of(**({"DATABASE_URL": PG_URL} | env))
    assert run.returncode != 0
    assert message in run.stderr, run.stderr[-1000:]


def test_the_test_suites_extra_aliases_are_never_pooled() -> None:
    run = _settings_of(DATABASE_URL=PG_URL, DATABASE_POOL_SIZE="4", PARLOUR_TEST_BOTH_BACKENDS="1")
    assert run.returncode == 0, run.stderr[-1000:]
    pools = run.stdout.strip().splitlines()[-1]
    assert pools == (
        "{'default': {'min_size': 2, 'max_size': 4, 'timeout': 10.0},"
        " 'sqlite': None, 'postgres': None}"
    )


# -- a pool timeout is a 503 problem, not a crash ------------------------------------------


@pytest.mark.django_db
def test_no_free_connection_is_a_503_problem_with_retry_after(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def no_connection(*args: Any, **kwargs: Any) -> Any:
        # What Django raises when psycopg's pool times out (its error wrapper).
        try:
            raise PoolTimeout("couldn't get a connection after 10.00 sec")
        except PoolTimeout as timeout:
            raise OperationalError(str(timeout)) from timeout

    monkeypatch.setattr(views.ClubListView, "list", no_connection)
    monkeypatch.setattr(views.ClubListView, "throttle_classes", [])  # counts of other tests
    response = Client(raise_request_exception=False).get("/api/v1/clubs")
    assert response.status_code == 503, response.content[:300]
    assert response["Content-Type"] == "application/problem+json"
    assert response["Retry-After"] == "2"
    body = response.json()
    assert body["type"] == "/api/v1/problems/unavailable"
    assert body["retry_after"] == 2
    assert "no free database connection" in caplog.text
    assert "Traceback" not in caplog.text  # overload, not a bug: no stack trace


@pytest.mark.django_db
def test_other_database_errors_stay_500_problems(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise OperationalError("deadlock detected")

    monkeypatch.setattr(views.ClubListView, "list", broken)
    monkeypatch.setattr(views.ClubListView, "throttle_classes", [])  # counts of other tests
    response = Client(raise_request_exception=False).get("/api/v1/clubs")
    assert response.status_code == 500
    assert response.json()["type"] == "/api/v1/problems/server-error"


# -- a real ASGI server with a pool ---------------------------------------------------------

#: Connections of the pool of the server's one web process.
POOL_SIZE = 4


@dataclass
class PooledServer:
    url: str
    database: LiveDatabase
    #: The database's name: its connections in pg_stat_activity are the server's.
    name: str
    admin_url: str


@pytest.fixture(scope="module")
def pooled_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PooledServer]:
    """gunicorn with one uvicorn worker (parlour.asgi, as docker-compose runs it), pooled."""
    tmp = tmp_path_factory.mktemp("pool")
    with live_database(tmp, postgres_url()) as database:
        parts = urlparse(database.url)
        env = {
            "DATABASE_POOL_SIZE": str(POOL_SIZE),
            "DATABASE_POOL_TIMEOUT": "5",
            "PARLOUR_LONG_POLL_SECONDS": "10",
        }
        with live_server(database, tmp, "gunicorn", workers=1, env=env) as server:
            yield PooledServer(
                server.url,
                database,
                parts.path.lstrip("/"),
                urlunparse(parts._replace(path="/postgres")),
            )


def _get(url: str, token: str | None = None) -> int:
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            answer.read()
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


class ConnectionCounter:
    """Samples the server's connections (pg_stat_activity) in a thread; keeps the most seen."""

    def __init__(self, server: PooledServer) -> None:
        self.server = server
        self.most = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with psycopg.connect(self.server.admin_url, autocommit=True) as admin:
            while not self._stop.is_set():
                row = admin.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s",
                    [self.server.name],
                ).fetchone()
                self.most = max(self.most, int(row[0]) if row else 0)
                time.sleep(0.005)

    def __enter__(self) -> ConnectionCounter:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)


@pytest.mark.postgres
def test_concurrent_requests_share_the_pools_connections(pooled_server: PooledServer) -> None:
    paths = ["/healthz", "/api/v1/clubs", "/api/v1/games"] * 10
    with ConnectionCounter(pooled_server) as counter, ThreadPoolExecutor(30) as clients:
        statuses = list(clients.map(lambda path: _get(pooled_server.url + path), paths))
    assert statuses == [200] * len(paths)
    # 30 requests at once in one web process: without the pool each would hold
    # a connection of its own; with it they take turns with POOL_SIZE.
    assert 1 <= counter.most <= POOL_SIZE, counter.most


@pytest.mark.postgres
def test_open_streams_do_not_keep_the_pools_connections(pooled_server: PooledServer) -> None:
    seeded = pooled_server.database.seeded
    game, token = seeded["duel_asgi"]["game"], seeded["tokens"]["eli"]
    with ExitStack() as streams:
        # As many open streams as the pool has connections: each polls the
        # database, and must give its connection back between polls.
        for _ in range(POOL_SIZE):
            request = urllib.request.Request(
                f"{pooled_server.url}/api/v1/games/{game}/stream?timeout=20",
                headers={"Authorization": f"Bearer {token}"},
            )
            stream = streams.enter_context(urllib.request.urlopen(request, timeout=30))
            assert stream.readline().startswith(b"retry:")
        started = time.monotonic()
        with ThreadPoolExecutor(10) as clients:
            statuses = list(
                clients.map(lambda _: _get(pooled_server.url + "/api/v1/clubs"), range(10))
            )
        assert statuses == [200] * 10
        # Well within DATABASE_POOL_TIMEOUT (5 s): nobody waited for a stream's connection.
        assert time.monotonic() - started < 3


@pytest.mark.postgres
def test_waiting_long_polls_do_not_keep_the_pools_connections(
    pooled_server: PooledServer,
) -> None:
    seeded = pooled_server.database.seeded
    game, token = seeded["duel_asgi"]["game"], seeded["tokens"]["eli"]
    request = urllib.request.Request(
        f"{pooled_server.url}/api/v1/games/{game}", headers={"Authorization": f"Bearer {token}"}
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        sequence = json.loads(answer.read())["sequence"]
    waiting = f"{pooled_server.url}/api/v1/games/{game}?after={sequence}&wait=3"
    with ThreadPoolExecutor(POOL_SIZE) as pollers:
        # As many long-polls as the pool has connections, all waiting (nobody moves).
        polls = [pollers.submit(_get, waiting, token) for _ in range(POOL_SIZE)]
        time.sleep(0.5)
        started = time.monotonic()
        with ThreadPoolExecutor(10) as clients:
            statuses = list(
                clients.map(lambda _: _get(pooled_server.url + "/api/v1/clubs"), range(10))
            )
        took = time.monotonic() - started
        assert [poll.result() for poll in polls] == [200] * POOL_SIZE
    assert statuses == [200] * 10
    assert took < 2, f"the other requests waited {took:.1f} s for the long-polls' connections"


@pytest.mark.postgres
def test_connections_lost_by_the_pool_are_replaced_not_failed(
    pooled_server: PooledServer,
) -> None:
    """As after a PostgreSQL restart: the pool's connections die while idle.

    The pool checks a connection before handing it out (CONN_HEALTH_CHECKS), so
    requests wait for new connections instead of failing on dead ones; without
    the check, each dead connection failed a request (a 500).
    """
    with ThreadPoolExecutor(2 * POOL_SIZE) as clients:
        statuses = list(clients.map(lambda _: _get(pooled_server.url + "/api/v1/clubs"), range(30)))
    assert statuses == [200] * 30
    with psycopg.connect(pooled_server.admin_url, autocommit=True) as admin:
        row = admin.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = %s",
            [pooled_server.name],
        ).fetchone()
    assert row is not None and row[0] >= 1  # the server's idle pooled connections
    time.sleep(0.2)
    with ThreadPoolExecutor(2 * POOL_SIZE) as clients:
        statuses = list(
            clients.map(lambda _: _get(pooled_server.url + "/api/v1/clubs"), range(2 * POOL_SIZE))
        )
    assert statuses == [200] * (2 * POOL_SIZE)
