"""The real stack for load and fault runs: a database of its own, web and Celery processes.

Used by ``bench/load.py`` and the fault scripts beside this file.  Everything
runs on this machine: PostgreSQL at ``--url`` (a database made for the run and
dropped at its end), Redis at ``--redis`` (two databases of its own, flushed),
``gunicorn`` serving ``parlour.asgi`` with uvicorn workers (or ``parlour.wsgi``
with gthread workers), and ``celery -A parlour worker`` processes (one of them
with ``--beat``).  This process points Django at the same database and broker,
so that it can set up players, tokens and tournaments and check the store.

The players that play through the API are in :mod:`bench.faults.players`; what
the fault runs check, and the run they share, in :mod:`bench.faults.checks`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))

PYTHON = sys.executable
BIN = Path(PYTHON).parent
DEFAULT_PG = "postgres://postgres@127.0.0.1:5432/postgres"
DEFAULT_REDIS = "redis://127.0.0.1:6379/0"
#: Big enough that no throttle answers 429 during a run (the throttles still count).
HIGH_RATE = "100000000/min"


def with_path(url: str, path: str) -> str:
    return urlunparse(urlparse(url)._replace(path=path))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def admin_sql(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)


def percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` percentile (nearest rank) of ``values``; 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(fraction * len(ordered)) - 1))]


# -- the proxy in front -------------------------------------------------------------------------


def nginx_program() -> str:
    """nginx's path ("" when it is not installed: apt-get install nginx-light)."""
    found = shutil.which("nginx") or "/usr/sbin/nginx"
    return found if Path(found).exists() else ""


def proxy_config(folder: Path, upstream: str, port: int) -> Path:
    """An nginx main configuration in ``folder`` that runs compose's ``deploy/nginx.conf``
    on 127.0.0.1:``port`` in front of ``upstream`` (host:port): those two lines alone
    differ from compose, which runs the file in its image's own main configuration."""
    site = (ROOT / "deploy" / "nginx.conf").read_text()
    for old, new in (
        ("server web:8000 resolve;", f"server {upstream};"),
        ("listen 8000;", f"listen 127.0.0.1:{port};"),
    ):
        if old not in site:
            raise SystemExit(f"deploy/nginx.conf no longer says {old!r}: update proxy_config")
        site = site.replace(old, new)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "parlour.conf").write_text(site)
    main = folder / "nginx.conf"
    main.write_text(
        f"worker_processes 1;\npid {folder}/nginx.pid;\nerror_log {folder}/error.log warn;\n"
        "events { worker_connections 8192; }\n"
        f"worker_rlimit_nofile 20000;\nhttp {{\n  access_log off;\n"
        f"  client_body_temp_path {folder}/body;\n  proxy_temp_path {folder}/proxy;\n"
        f"  include {folder}/parlour.conf;\n}}\n"
    )
    return main


# -- processes ---------------------------------------------------------------------------------


def _answering(url: str, process: Process, what: str, seconds: float) -> None:
    """Wait until ``url``'s ``/healthz`` answers 200; stop the run if ``process`` ends or
    ``seconds`` pass first."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not process.alive():
            raise SystemExit(f"{what} stopped:\n" + process.tail())
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2) as answer:
                if answer.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            time.sleep(0.2)
    raise SystemExit(f"{what} did not answer in {seconds:.0f} s:\n" + process.tail())


@dataclass
class Process:
    """One process group started by the stack, its output in a log file."""

    name: str
    args: list[str]
    log: Path
    env: dict[str, str]
    popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(
                self.args,
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def crashed(self) -> str | None:
        """The line of its log where Celery said it is going down (``Unrecoverable
        error``), if it did: such a worker may take a while to exit, still "alive"."""
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return next((line for line in text.splitlines() if "Unrecoverable error" in line), None)

    def tail(self, lines: int = 40) -> str:
        text = self.log.read_text(errors="replace") if self.log.exists() else ""
        return "\n".join(text.splitlines()[-lines:])

    def kill(self) -> None:
        """SIGKILL the whole process group at once (a crash, not a shutdown)."""
        if self.popen is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait(timeout=15)
        self.popen = None

    def stop(self) -> None:
        if self.popen is None:
            return
        try:
            os.killpg(self.popen.pid, signal.SIGTERM)
            self.popen.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout=10)
        except ProcessLookupError:
            pass
        self.popen = None


class Stack:
    """A database, Redis databases, web processes and workers of one run.

    Use as a context manager: on leaving, every process it started is stopped,
    the database dropped (unless ``keep``) and its Redis databases flushed.
    """

    def __init__(
        self,
        name: str,
        *,
        pg_url: str = DEFAULT_PG,
        redis_url: str = DEFAULT_REDIS,
        cache_db: int = 8,
        broker_db: int = 9,
        keep: bool = False,
        sweep_seconds: float = 1.0,
        stall_seconds: float = 5.0,
    ) -> None:
        self.name = name
        self.pg_admin = pg_url
        self.database_url = with_path(pg_url, f"/{name}")
        self.cache_url = with_path(redis_url, f"/{cache_db}")
        self.broker_url = with_path(redis_url, f"/{broker_db}")
        self.keep = keep
        self.folder = Path(f"/tmp/{name}-{os.getpid()}")
        self.folder.mkdir(parents=True, exist_ok=True)
        self.processes: list[Process] = []
        self.url = ""
        self.web: Process | None = None
        self.env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("PARLOUR_TEST_") and k not in ("CELERY_TASK_ALWAYS_EAGER",)
        }
        self.env.update(
            DJANGO_SETTINGS_MODULE="parlour.settings",
            DATABASE_URL=self.database_url,
            POSTGRES_URL=self.database_url,
            REDIS_URL=self.cache_url,
            CELERY_BROKER_URL=self.broker_url,
            DEBUG="false",
            SECRET_KEY="bench-" + uuid.uuid4().hex,
            ALLOWED_HOSTS="127.0.0.1,localhost",
            PARLOUR_VAR_DIR=str(self.folder / "var"),
            PARLOUR_API_RATE_ADDRESS=HIGH_RATE,
            PARLOUR_API_RATE_ANON=HIGH_RATE,
            PARLOUR_API_RATE_TOKEN=HIGH_RATE,
            PARLOUR_API_RATE_ANON_STREAMS=HIGH_RATE,
            PARLOUR_API_RATE_ANON_TOURNAMENT_STREAMS=HIGH_RATE,
            # Every player here calls from 127.0.0.1: the limit of open long-polls and
            # streams per address (32) would refuse the 33rd player's long-poll.
            PARLOUR_OPEN_STREAMS_PER_ADDRESS="100000",
            PARLOUR_BOT_THINK_SECONDS="0",
            PARLOUR_SWEEP_SECONDS=str(sweep_seconds),
            PARLOUR_BOT_STALL_SECONDS=str(stall_seconds),
            LOG_LEVEL="WARNING",
            PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
            PYTHONUNBUFFERED="1",
        )

    @staticmethod
    def add_arguments(parser: argparse.ArgumentParser, database: str) -> None:
        """The options :meth:`from_args` reads, for a script that runs in process on its own
        database ``database`` (made and dropped) and Redis databases 15 and 10 (flushed)."""
        parser.add_argument("--url", default=DEFAULT_PG, help="PostgreSQL (an admin connection)")
        parser.add_argument("--redis", default=DEFAULT_REDIS)
        parser.add_argument("--database", default=database, help="made and dropped")
        parser.add_argument("--cache-db", type=int, default=15, help="Redis database (flushed)")
        parser.add_argument("--broker-db", type=int, default=10, help="Redis database (flushed)")
        parser.add_argument("--keep", action="store_true", help="keep the database")

    @classmethod
    def from_args(cls, name: str, args: argparse.Namespace) -> Stack:
        """A stack called ``name`` on a script's ``--url``, ``--redis``, ``--cache-db``,
        ``--broker-db`` and ``--keep``."""
        return cls(
            name,
            pg_url=args.url,
            redis_url=args.redis,
            cache_db=args.cache_db,
            broker_db=args.broker_db,
            keep=args.keep,
        )

    # -- the database and this process ---------------------------------------------------

    def __enter__(self) -> Stack:
        admin_sql(self.pg_admin, f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
        admin_sql(self.pg_admin, f'CREATE DATABASE "{self.name}"')
        self.flush_redis()
        os.environ.update(self.env)
        import django

        django.setup()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for process in reversed(self.processes):
            process.stop()
        self.processes.clear()
        try:
            from django.db import connections

            connections.close_all()
        except Exception:  # noqa: BLE001 - closing what may already be gone
            pass
        if not self.keep:
            try:
                admin_sql(self.pg_admin, f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)')
            except Exception as error:  # noqa: BLE001
                print(f"could not drop {self.name}: {error}", file=sys.stderr)
            self.flush_redis(quiet=True)

    def flush_redis(self, quiet: bool = False) -> None:
        import redis

        for url in (self.cache_url, self.broker_url):
            try:
                redis.Redis.from_url(url, socket_timeout=5).flushdb()
            except redis.RedisError:
                if not quiet:
                    raise

    # -- processes ---------------------------------------------------------------------

    def _process(self, name: str, args: list[str], env: dict[str, str] | None = None) -> Process:
        process = Process(name, args, self.folder / f"{name}.log", env or self.env)
        self.processes.append(process)
        process.start()
        return process

    def start_web(
        self,
        workers: int,
        server: str = "asgi",
        threads: int = 8,
        pool: int = 0,
        app: str = "parlour.wsgi:application",
    ) -> Process:
        """gunicorn with ``workers`` processes: uvicorn workers (asgi) or gthread (wsgi).

        ``app``: the WSGI application gthread serves (another one only to measure the
        server itself, ``bench/floor.py``; it must answer ``/healthz`` with a 200).

        With ``pool`` each process has a connection pool of that size
        (``DATABASE_POOL_SIZE``).  Otherwise, under gthread each thread keeps its
        database connection for a minute (``DATABASE_CONN_MAX_AGE=60``, safe with
        a fixed set of threads); under ASGI the settings' default (no persistent
        connections) stands.
        """
        port = free_port()
        if server == "asgi":
            args = [
                str(BIN / "gunicorn"),
                "parlour.asgi:application",
                "-k",
                "uvicorn_worker.UvicornWorker",
            ]
        else:
            args = [
                str(BIN / "gunicorn"),
                app,
                "-k",
                "gthread",
                "--threads",
                str(threads),
            ]
        args += [
            "--workers",
            str(workers),
            "--bind",
            f"127.0.0.1:{port}",
            "--backlog",
            "2048",
            "--graceful-timeout",
            "3",
            "--timeout",
            "60",
        ]
        if pool:
            env = self.env | {"DATABASE_POOL_SIZE": str(pool), "DATABASE_CONN_MAX_AGE": "0"}
        else:
            env = self.env | ({"DATABASE_CONN_MAX_AGE": "60"} if server == "wsgi" else {})
        self.web = self._process("web", args, env)
        self.url = f"http://127.0.0.1:{port}"
        _answering(self.url, self.web, "the web server", 60)
        return self.web

    def start_proxy(self) -> Process:
        """nginx in front of the web processes, with compose's own ``deploy/nginx.conf``
        (:func:`proxy_config`); the stack's ``url`` is then the proxy's.  Call after
        :meth:`start_web`."""
        if not nginx_program():
            raise SystemExit("nginx is not installed (apt-get install nginx-light), or --no-proxy")
        port = free_port()
        config = proxy_config(self.folder / "nginx", urlparse(self.url).netloc, port)
        process = self._process("proxy", [nginx_program(), "-c", str(config), "-g", "daemon off;"])
        self.url = f"http://127.0.0.1:{port}"
        _answering(self.url, process, "nginx", 30)
        return process

    def start_worker(self, name: str, *, beat: bool, concurrency: int = 2) -> Process:
        """``celery -A parlour worker`` (with beat if ``beat``), ready before returning."""
        node = f"{name}-{os.getpid()}-{uuid.uuid4().hex[:4]}"
        args = [PYTHON, "-m", "celery", "-A", "parlour", "worker"]
        if beat:
            args += ["--beat", f"--schedule={self.folder / (node + '-beat')}"]
        args += [
            "--loglevel=INFO",
            f"--concurrency={concurrency}",
            "--without-gossip",
            "--without-mingle",
            f"--hostname={node}@%h",
        ]
        # Each pool process runs one task at a time: it keeps its database connection
        # (docs/operations.md) instead of connecting for every task, as compose runs it.
        env = self.env | {"LOG_LEVEL": "INFO", "DATABASE_CONN_MAX_AGE": "60"}
        process = self._process(name, args, env)
        deadline = time.monotonic() + 60
        while True:
            text = process.log.read_text(errors="replace") if process.log.exists() else ""
            if any(node in line and "ready." in line for line in text.splitlines()):
                return process
            if not process.alive() or time.monotonic() > deadline:
                raise SystemExit(f"worker {name} did not start:\n" + process.tail())
            time.sleep(0.1)

    def start_beat(self) -> Process:
        """``celery -A parlour beat`` on its own, as docker-compose runs it (one beat)."""
        args = [PYTHON, "-m", "celery", "-A", "parlour", "beat", "--loglevel=INFO"]
        args.append(f"--schedule={self.folder / 'beat-schedule'}")
        process = self._process("beat", args, self.env | {"LOG_LEVEL": "INFO"})
        deadline = time.monotonic() + 60
        while True:
            text = process.log.read_text(errors="replace") if process.log.exists() else ""
            if "beat: Starting..." in text:
                return process
            if not process.alive() or time.monotonic() > deadline:
                raise SystemExit("beat did not start:\n" + process.tail())
            time.sleep(0.1)

    def restart(self, process: Process) -> None:
        """Start a stopped or killed process again with the same command."""
        process.start()
