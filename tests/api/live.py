"""A live Parlour server for end-to-end tests: its own database, seeded, in a child process.

The database is made for the run — a SQLite file, or a fresh PostgreSQL
database when the tests run on PostgreSQL — migrated and seeded by child
processes (:mod:`tests.api.live_seed`), and dropped at the end.  The server is
``manage.py runserver`` (WSGI) or gunicorn with uvicorn workers
(``parlour.asgi``).  Bots play eagerly inside whichever process makes the move
before them (``CELERY_TASK_ALWAYS_EAGER``), so no worker is needed.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
BIN = Path(PYTHON).parent


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class LiveDatabase:
    url: str
    seeded: dict[str, Any]


def base_env(database_url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARLOUR_TEST_")}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env.update(
        DJANGO_SETTINGS_MODULE="parlour.settings",
        DATABASE_URL=database_url,
        DEBUG="false",
        SECRET_KEY="live-test-" + uuid.uuid4().hex,
        # Its own throttle counters and stream slots in the shared Redis: a server an
        # earlier test killed with its streams open cannot fill this one's slots.
        CACHE_KEY_PREFIX="live-" + uuid.uuid4().hex[:12],
        ALLOWED_HOSTS="127.0.0.1,localhost",
        CELERY_BROKER_URL="memory://",
        CELERY_TASK_ALWAYS_EAGER="true",
        PARLOUR_API_RATE_ADDRESS="1000000/min",
        PARLOUR_API_RATE_ANON="1000000/min",
        PARLOUR_API_RATE_TOKEN="1000000/min",
        PARLOUR_API_RATE_ANON_STREAMS="1000000/min",
        PARLOUR_API_RATE_ANON_TOURNAMENT_STREAMS="1000000/min",
        PARLOUR_STREAM_POLL_SECONDS="0.05",
        # A fuzzer's long-poll (GET /games/{id}?after=…&wait=…) is cut to this: thousands
        # of generated requests must not each wait long.
        PARLOUR_LONG_POLL_SECONDS="0.05",
        PYTHONPATH=str(ROOT),
        PYTHONUNBUFFERED="1",
    )
    return env


def _run(args: list[str], env: dict[str, str], timeout: float = 240) -> str:
    done = subprocess.run(
        args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def postgres_of_the_run() -> str | None:
    """The PostgreSQL database the tests run on, or ``None`` on SQLite: for a live
    database on the same backend as the rest of the run."""
    from django.conf import settings

    engine = str(settings.DATABASES["default"]["ENGINE"])
    return str(settings.DATABASE_URL) if "postgresql" in engine else None


@contextmanager
def live_database(tmp: Path, postgres_url: str | None) -> Iterator[LiveDatabase]:
    """A migrated, seeded database of its own (PostgreSQL if ``postgres_url`` is given)."""
    name = f"parlour_api_live_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    admin = None
    if postgres_url:
        import psycopg

        parts = urlparse(postgres_url)
        admin = urlunparse(parts._replace(path="/postgres"))
        url = urlunparse(parts._replace(path=f"/{name}"))
        with psycopg.connect(admin, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
    else:
        url = f"sqlite:///{tmp / 'live.sqlite3'}"
    try:
        env = base_env(url)
        _run([PYTHON, "manage.py", "migrate", "--noinput"], env)
        seeded = json.loads(_run([PYTHON, "-m", "tests.api.live_seed"], env).splitlines()[-1])
        yield LiveDatabase(url, seeded)
    finally:
        if admin is not None:
            import psycopg

            with psycopg.connect(admin, autocommit=True) as connection:
                connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@dataclass
class LiveServer:
    url: str
    process: subprocess.Popen[str]
    log: Path


def _wait_until_up(url: str, process: subprocess.Popen[str], log: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server stopped: {log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/api/v1/", timeout=2) as response:
                if response.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    raise RuntimeError(f"the server did not answer in {seconds}s: {log.read_text()[-3000:]}")


@contextmanager
def live_server(
    database: LiveDatabase,
    tmp: Path,
    kind: str = "runserver",
    *,
    workers: int = 2,
    env: dict[str, str] | None = None,
) -> Iterator[LiveServer]:
    """``runserver`` (WSGI, threaded) or ``gunicorn`` with ``workers`` uvicorn workers (ASGI).

    ``env``: settings on top of :func:`base_env`'s.
    """
    port = free_port()
    if kind == "runserver":
        args = [PYTHON, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"]
    else:
        args = [
            str(BIN / "gunicorn"),
            "parlour.asgi:application",
            "-k",
            "uvicorn_worker.UvicornWorker",
            "-w",
            str(workers),
            "-b",
            f"127.0.0.1:{port}",
            "--graceful-timeout",
            "2",
        ]
    log = tmp / f"{kind}-{port}.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            args,
            cwd=ROOT,
            env=base_env(database.url) | (env or {}),
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(url, process, log, 60)
        yield LiveServer(url, process, log)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


def call(
    url: str,
    method: str,
    path: str,
    body: Any = None,
    *,
    token: str | None = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """One JSON request over HTTP: (status, parsed body)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url + path, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            text = response.read().decode()
            return response.status, (json.loads(text) if text else None)
    except urllib.error.HTTPError as error:
        text = error.read().decode()
        try:
            return error.code, json.loads(text)
        except ValueError:
            return error.code, text
