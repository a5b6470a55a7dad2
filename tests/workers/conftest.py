"""Fixtures for the worker tests: real Celery worker processes on the test database and Redis.

A worker is ``celery -A parlour worker --beat`` started as a subprocess with
``DATABASE_URL`` pointing at the PostgreSQL test database pytest-django made
(the ``default`` alias under ``DATABASE_URL=postgres://…``, else the
``postgres`` alias of ``PARLOUR_TEST_BOTH_BACKENDS=1``) and its broker at a
Redis database of its own (flushed when the fixture starts).  The test process
itself then plays the web server's part: its commits queue tasks on that
broker, and its ``default`` database is the worker's.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import pytest
import redis
from django.conf import settings
from django.db import connections

from parlour.celery import app as celery_app
from tests.waiting import wait_for

ROOT = Path(__file__).resolve().parents[2]

#: Redis databases the worker tests own: the broker and the cache (flushed at start).
#: ``PARLOUR_TEST_WORKER_REDIS_DBS=broker,cache`` moves them, so that two test runs can
#: share one Redis server (docs/tests.md).
BROKER_DB, CACHE_DB = (
    int(n) for n in os.environ.get("PARLOUR_TEST_WORKER_REDIS_DBS", "14,13").split(",")
)

#: The databases a test that needs the worker's database must ask pytest-django for.
WORKER_DATABASES = ["default", "postgres"] if "postgres" in settings.DATABASES else ["default"]


@pytest.fixture(autouse=True, scope="session")
def _event_table_flushable() -> None:
    from events.store import allow_flush_in_tests

    allow_flush_in_tests()


def worker_alias() -> str:
    """The database alias on PostgreSQL that the workers use."""
    if connections["default"].vendor == "postgresql":
        return "default"
    if "postgres" in connections.settings:
        return "postgres"
    pytest.fail(
        "the worker tests need PostgreSQL: set PARLOUR_TEST_BOTH_BACKENDS=1 (make test does)"
        " or DATABASE_URL=postgres://…"
    )


def redis_at(db: int) -> str:
    """The Redis of ``REDIS_URL`` (or the local one), database ``db``."""
    parts = urlparse(os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0")
    return urlunparse(parts._replace(path=f"/{db}"))


@contextmanager
def default_database(alias: str) -> Iterator[None]:
    """Make ``alias``'s connection this thread's ``default`` one while the block runs.

    The game service works on ``default``; under the SQLite default the worker
    tests point it at the PostgreSQL test database the workers share.
    """
    if alias == "default":
        yield
        return
    local = connections._connections  # type: ignore[attr-defined]
    saved = connections["default"]
    local.default = connections[alias]
    try:
        yield
    finally:
        local.default = saved


@contextmanager
def broker(url: str) -> Iterator[None]:
    """Publish this process's tasks to ``url`` while the block runs."""
    conf = celery_app.conf
    names = ("broker_read_url", "broker_write_url", "broker_transport_options", "task_always_eager")
    saved = {name: conf.get(name) for name in names}

    def reset() -> None:
        # Forget the pools (kombu keeps them per broker and reuses them later).
        celery_app._pool = None
        celery_app.amqp._producer_pool = None

    reset()
    # The read and write URLs win over CELERY_BROKER_URL, which Celery reads from
    # the environment before its configuration.
    conf.broker_read_url = conf.broker_write_url = url
    conf.broker_transport_options = {"visibility_timeout": 3600}
    conf.task_always_eager = False
    try:
        yield
    finally:
        reset()
        for name, value in saved.items():
            conf[name] = value


class Worker:
    """One ``celery -A parlour worker --beat`` process group, its log in a file."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.env = env
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        schedule = self.log.parent / f"beat-{self.starts}"
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "parlour",
                    "worker",
                    "--beat",
                    f"--schedule={schedule}",
                    "--loglevel=INFO",
                    "--concurrency=2",
                    "--without-gossip",
                    "--without-mingle",
                    f"--hostname=test-{os.getpid()}-{self.starts}@%h",
                ],
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        marker = f"test-{os.getpid()}-{self.starts}@"
        wait_for(
            lambda: any(marker in line and "ready." in line for line in self.lines()),
            timeout=60,
            what=f"worker start (log: {self.log})",
            check=self.alive_or_fail,
        )

    def lines(self) -> list[str]:
        return self.log.read_text(errors="replace").splitlines()

    def alive_or_fail(self) -> None:
        if self.process is not None and self.process.poll() is not None:
            pytest.fail(f"the worker exited with {self.process.returncode}:\n" + self.tail())

    def tail(self, lines: int = 60) -> str:
        return "\n".join(self.lines()[-lines:])

    def kill(self) -> None:
        """SIGKILL the whole process group at once: the main process, its pool and beat."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        self.process = None

    def stop(self) -> None:
        if self.process is None:
            return
        # As parlour.devserver stops a worker: SIGTERM to the main process alone, which
        # stops its pool in order (a SIGTERM to the whole group can kill a pool child
        # holding the pool's lock, and the main process then hangs: docs/tests.md,
        # sqlite-1 of 2026-12-03); then nothing of its group outlives it.
        try:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            pass
        finally:
            with suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        self.process = None


@pytest.fixture
def worker_env(tmp_path: Path, transactional_db: None) -> dict[str, str]:
    """The environment of a worker process on this test's database and Redis."""
    alias = worker_alias()
    name = connections[alias].settings_dict["NAME"]
    url = settings.DATABASE_URL if alias == "default" else settings.POSTGRES_URL
    database = urlunparse(urlparse(str(url))._replace(path=f"/{name}"))
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PARLOUR_TEST_BOTH_BACKENDS", "CELERY_TASK_ALWAYS_EAGER", "DEBUG")
    }
    env.update(
        DATABASE_URL=database,
        CELERY_BROKER_URL=redis_at(BROKER_DB),
        REDIS_URL=redis_at(CACHE_DB),
        DJANGO_SETTINGS_MODULE="parlour.settings",
        PYTHONPATH=str(ROOT),
        PARLOUR_VAR_DIR=str(tmp_path / "var"),
        PARLOUR_SWEEP_SECONDS="0.5",
        PARLOUR_BOT_STALL_SECONDS="1",
        PARLOUR_BOT_THINK_SECONDS="0",
        LOG_LEVEL="INFO",
    )
    return env


def flush_test_redis() -> None:
    for db in (BROKER_DB, CACHE_DB):
        redis.Redis.from_url(redis_at(db)).flushdb()


@pytest.fixture
def worker(worker_env: dict[str, str], tmp_path: Path) -> Iterator[Worker]:
    """A running worker (with beat) on this test's database; this process publishes to it.

    The Redis databases are flushed first, so no task of an earlier test is left.
    """
    flush_test_redis()
    process = Worker(worker_env, tmp_path / "worker.log")
    with default_database(worker_alias()), broker(redis_at(BROKER_DB)):
        try:
            process.start()
            yield process
        finally:
            process.stop()
    if os.environ.get("PARLOUR_SHOW_WORKER_LOG"):
        print(process.tail(200))


@pytest.fixture
def test_broker(worker_env: dict[str, str]) -> Iterator[redis.Redis]:
    """No worker: this process publishes to the (flushed) test broker, which the test reads."""
    flush_test_redis()
    with default_database(worker_alias()), broker(redis_at(BROKER_DB)):
        yield redis.Redis.from_url(redis_at(BROKER_DB))


@pytest.fixture
def eager() -> Iterator[None]:
    """Tasks run in this process as they are queued (no worker): bot chains play out inline."""
    saved = celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    try:
        yield
    finally:
        celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = saved
