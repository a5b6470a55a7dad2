"""The real stack for load and fault runs: a database of its own, web and Celery processes.

Used by ``bench/load.py`` and the fault scripts beside this file.  Everything
runs on this machine: PostgreSQL at ``--url`` (a database made for the run and
dropped at its end), Redis at ``--redis`` (two databases of its own, flushed),
``gunicorn`` serving ``parlour.asgi`` with uvicorn workers (or ``parlour.wsgi``
with gthread workers), and ``celery -A parlour worker`` processes (one of them
with ``--beat``).  This process points Django at the same database and broker,
so that it can set up players, tokens and tournaments and check the store.

Players are asyncio tasks on one ``aiohttp`` session: each plays its seat of a
tournament table through the API as any client would (GET the game, POST an
action with the sequence it saw and a fresh ``Idempotency-Key``, retrying the
same key after an error), and records what the API acknowledged.
:func:`check_store` then proves what the fault runs promise: every acknowledged
action is in the store once, every stream is gap-free and replays legally, and
the projections rebuilt from the events equal the live ones.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
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


# -- processes ---------------------------------------------------------------------------------


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
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if not self.web.alive():
                raise SystemExit("the web server stopped:\n" + self.web.tail())
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=2) as answer:
                    if answer.status == 200:
                        return self.web
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.2)
        raise SystemExit("the web server did not answer in 60 s:\n" + self.web.tail())

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


# -- setting up tables -------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatAt:
    """A person's seat at a tournament table, played through the API with ``token``."""

    name: str
    token: str
    user_id: int
    table: int
    game: int


def person_tables(
    tag: str,
    tables: int,
    *,
    game: str = "old_maid",
    people_per_table: int = 1,
    bots_per_table: int = 1,
    deals: int = 1000,
    turn_seconds: int | None = None,
) -> tuple[int, list[SeatAt]]:
    """A begun one-round tournament of ``tables`` tables of people and bots.

    Each table has ``people_per_table`` people, who play through the API (their
    tokens are returned), and ``bots_per_table`` heuristic bots, played by the
    Celery workers.  The series at each table has ``deals`` deals (the game's
    default kind: ``losses``, ``first_to`` or ``place_points``).  Returns the
    tournament id and the people's seats.
    """
    from django.contrib.auth.models import User

    from engine.registry import get_game
    from tournaments import services
    from tournaments.api.authentication import create_token
    from tournaments.models import Game, TableSeat

    engine = get_game(game)
    size = people_per_table + bots_per_table
    count = tables * people_per_table
    User.objects.bulk_create([User(username=f"{tag}-p{i}", password="!") for i in range(count)])
    users = list(User.objects.filter(username__startswith=f"{tag}-p").order_by("id"))
    club = services.create_club(f"Club {tag}", slug=f"club-{tag}")
    tournament = services.create_tournament(
        club,
        f"{game} {tag}",
        game,
        1,
        series={"kind": engine.default_series.kind, "target": deals},
        table_min=size,
        table_max=size,
        turn_seconds=turn_seconds,
    )
    fixed: dict[Any, int] = {}
    people = []
    for i, user in enumerate(users):
        number = i // people_per_table + 1
        person = services.add_player(club, f"P{i}", user=user)
        people.append(person)
        services.register(tournament, person)
        services.check_in(tournament, person)
        fixed[person.pk] = number
        if i % people_per_table == 0:
            for b in range(bots_per_table):
                bot = services.add_player(club, f"Bot {number}.{b}", bot_level="heuristic")
                services.register(tournament, bot)
                fixed[bot.pk] = number
    round_ = services.start_round(tournament, fixed=fixed)
    tokens = {user.pk: create_token(user, "bench")[1] for user in users}
    services.begin_round(round_)
    seats: list[SeatAt] = []
    for person, user in zip(people, users, strict=True):
        table_seat = TableSeat.objects.get(table__round=round_, player=person)
        first = Game.objects.filter(table_id=table_seat.table_id).order_by("id").first()
        assert first is not None
        seats.append(SeatAt(person.name, tokens[user.pk], user.pk, table_seat.table_id, first.pk))
    return tournament.pk, seats


def bot_tournament(tag: str, players: int, game: str, rounds: int, size: int, deals: int) -> int:
    """A begun tournament of bots only, ``rounds`` rounds at tables of ``size``; its id.

    The workers play it on their own: bot moves, and each next round
    (``advance_tournament``) when the last finishes.
    """
    from engine.registry import get_game
    from tournaments import services

    engine = get_game(game)
    club = services.create_club(f"Bots {tag}", slug=f"bots-{tag}")
    tournament = services.create_tournament(
        club,
        f"{game} bots {tag}",
        game,
        rounds,
        series={"kind": engine.default_series.kind, "target": deals},
        table_min=size,
        table_max=size,
    )
    for i in range(players):
        level = "heuristic" if i % 2 else "random"
        services.register(tournament, services.add_player(club, f"B{i}", bot_level=level))
    services.begin_round(services.start_round(tournament, auto_check_in=True))
    return tournament.pk


# -- players -------------------------------------------------------------------------------------


@dataclass
class Record:
    """What the players saw: latencies, acknowledged actions, refusals and errors."""

    post_ms: list[float] = field(default_factory=list)
    get_ms: list[float] = field(default_factory=list)
    #: ``(game id, user id, Idempotency-Key, sequence answered)`` of every 200 to an action.
    acknowledged: list[tuple[int, int, str, int]] = field(default_factory=list)
    conflicts: int = 0
    refused: int = 0
    replayed: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    finished_tables: int = 0
    measuring: bool = True
    #: Long-poll GETs answered (not in ``get_ms``: they wait for the next move on purpose).
    waits: int = 0

    def error(self, what: str) -> None:
        self.errors[what] = self.errors.get(what, 0) + 1


def choose_action(view: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A random legal action (never the representative Old Maid ``arrange``)."""
    actions = [a for a in view.get("legal_actions") or [] if a.get("type") != "arrange"]
    return rng.choice(actions) if actions else None


@dataclass(frozen=True)
class Answer:
    """An HTTP answer, read whole."""

    status_code: int
    body: bytes
    #: The ``Retry-After`` header, if any (a 503 must have one).
    retry_after: str | None = None

    def json(self) -> Any:
        return json.loads(self.body)


class Client:
    """The players' HTTP client: an ``aiohttp`` session with the two calls they make.

    aiohttp, not httpx: on our 2-core machines httpx's ``AsyncClient`` cost
    about 5 ms of CPU a request against aiohttp's 0.3 ms (docs/benchmarks.md),
    and the client shares the cores with the server it measures.
    """

    def __init__(self, session: Any) -> None:
        self.session = session

    async def get(self, path: str, *, headers: dict[str, str]) -> Answer:
        async with self.session.get(path, headers=headers) as response:
            return Answer(
                response.status, await response.read(), response.headers.get("Retry-After")
            )

    async def post(self, path: str, *, json: Any, headers: dict[str, str]) -> Answer:
        async with self.session.post(path, json=json, headers=headers) as response:
            return Answer(
                response.status, await response.read(), response.headers.get("Retry-After")
            )


async def _get(
    client: Any, path: str, token: str, record: Record, *, timed: bool = True
) -> tuple[int, dict[str, Any] | None]:
    """GET ``path``; its latency is recorded unless ``timed`` is off (a long-poll waits
    on purpose: it is counted in ``record.waits`` instead)."""
    started = time.perf_counter()
    try:
        response = await client.get(path, headers={"Authorization": f"Bearer {token}"})
    except Exception as error:  # noqa: BLE001 - a fault run expects connection errors
        record.error(type(error).__name__)
        return 0, None
    if record.measuring:
        if timed:
            record.get_ms.append((time.perf_counter() - started) * 1000)
        else:
            record.waits += 1
    if response.status_code >= 500 or response.status_code == 429:
        record.error(f"GET {response.status_code}")
        if response.status_code == 503 and not response.retry_after:
            record.error("503 without Retry-After")
        return response.status_code, None
    try:
        body = response.json()
    except ValueError:
        record.error("GET not JSON")
        return response.status_code, None
    return response.status_code, body


async def act(
    client: Any,
    me: SeatAt,
    game: int,
    action: dict[str, Any],
    sequence: int,
    record: Record,
    give_up_at: float,
) -> dict[str, Any] | None:
    """POST one action; retry the same key after a server error or a lost connection.

    Returns the new view when the API acknowledged the action (200), ``None``
    when it refused it (409, 422) or never answered before ``give_up_at``.
    """
    key = uuid.uuid4().hex
    body = {"action": action, "expected_sequence": sequence}
    headers = {"Authorization": f"Bearer {me.token}", "Idempotency-Key": key}
    while True:
        started = time.perf_counter()
        try:
            response = await client.post(
                f"/api/v1/games/{game}/actions", json=body, headers=headers
            )
        except Exception as error:  # noqa: BLE001
            record.error(type(error).__name__)
            response = None
        if response is not None and response.status_code < 500:
            if record.measuring:
                record.post_ms.append((time.perf_counter() - started) * 1000)
            if response.status_code == 200:
                answer = response.json()
                record.acknowledged.append((game, me.user_id, key, int(answer["sequence"])))
                if answer.get("replayed"):
                    record.replayed += 1
                view: dict[str, Any] = answer["view"]
                return view
            if response.status_code == 409:
                record.conflicts += 1
            else:
                record.refused += 1
                record.error(f"POST {response.status_code}")
            return None
        if response is not None:
            record.error(f"POST {response.status_code}")
            if response.status_code == 503 and not response.retry_after:
                record.error("503 without Retry-After")
        if time.monotonic() > give_up_at:
            return None
        await asyncio.sleep(0.2)


async def play_seat(
    client: Any,
    me: SeatAt,
    until: float,
    record: Record,
    *,
    poll: float = 0.02,
    long_poll: float = 0.0,
    rng: random.Random | None = None,
    grace: float = 30.0,
) -> None:
    """Play ``me``'s seat (and the table's next games) until ``until`` or the series ends.

    While another seat is to act, with ``long_poll`` seconds the client asks
    ``GET /api/v1/games/{id}?after=<sequence>&wait=<long_poll>``, which answers
    when the game moves on; without it, the game is polled after ``poll``
    seconds, then after twice as long each time, up to ``8 * poll``; acting
    resets the delay.
    """
    rng = rng or random.Random()
    game = me.game
    view: dict[str, Any] | None = None
    wait = poll
    while time.monotonic() < until:
        if view is None:
            status, view = await _get(client, f"/api/v1/games/{game}", me.token, record)
            if view is None:
                await asyncio.sleep(poll if status else 0.2)
                continue
        if view.get("status") == "over" and view.get("next_game_id"):
            game, view = view["next_game_id"], None  # the series' next deal
            continue
        if view.get("status") == "over":
            # No next game named: the series is over, or this server predates next_game_id.
            _, table = await _get(client, f"/api/v1/tables/{me.table}", me.token, record)
            if table is None:
                await asyncio.sleep(0.2)
                continue
            newest = max(table["games"], key=lambda g: g["game_number"] or 0)
            if newest["id"] == game:
                if table["status"] == "finished":
                    record.finished_tables += 1
                    return
                await asyncio.sleep(poll)
            game = newest["id"]
            view = None
            continue
        action = choose_action(view, rng) if view.get("seat") in view["waiting_for"] else None
        if action is None and long_poll > 0:
            # Not our turn: the server answers when the game has moved on.
            left = max(0.0, min(long_poll, until - time.monotonic()))
            path = f"/api/v1/games/{game}?after={view['sequence']}&wait={left:.1f}"
            status, view = await _get(client, path, me.token, record, timed=False)
            if view is None:
                await asyncio.sleep(poll if status else 0.2)
            continue
        if action is None:
            # Not our turn: look again soon, then less and less often (up to 8 x poll).
            await asyncio.sleep(wait)
            wait = min(wait * 2, poll * 8)
            view = None
            continue
        wait = poll
        view = await act(client, me, game, action, view["sequence"], record, until + grace)


def run_players(
    url: str,
    seats: Iterable[SeatAt],
    seconds: float,
    *,
    poll: float = 0.02,
    long_poll: float = 0.0,
    warmup: float = 0.0,
    seed: int = 1,
) -> tuple[Record, float, float]:
    """Play every seat at once for ``seconds`` (after ``warmup``, not measured).

    Returns the record, the measured wall time and this client's CPU seconds.
    """
    import aiohttp

    seats = list(seats)
    record = Record(measuring=warmup <= 0)

    async def main() -> float:
        connector = aiohttp.TCPConnector(limit=len(seats) + 8)
        timeout = aiohttp.ClientTimeout(sock_connect=10.0, sock_read=30.0)
        async with aiohttp.ClientSession(url, connector=connector, timeout=timeout) as session:
            client = Client(session)
            begin = time.monotonic()
            until = begin + warmup + seconds
            rng = random.Random(seed)
            tasks = [
                asyncio.create_task(
                    play_seat(
                        client,
                        s,
                        until,
                        record,
                        poll=poll,
                        long_poll=long_poll,
                        rng=random.Random(rng.random()),
                    )
                )
                for s in seats
            ]
            if warmup > 0:
                await asyncio.sleep(warmup)
                record.post_ms.clear()
                record.get_ms.clear()
                record.acknowledged.clear()
                record.conflicts = record.refused = record.replayed = record.waits = 0
                record.measuring = True
            measured_from = time.monotonic()
            await asyncio.gather(*tasks)
            return time.monotonic() - measured_from

    cpu = time.process_time()
    wall = asyncio.run(main())
    return record, wall, time.process_time() - cpu


def latency_line(values: list[float]) -> str:
    if not values:
        return "none"
    return (
        f"median {statistics.median(values):.1f} ms, p99 {percentile(values, 0.99):.1f} ms,"
        f" max {max(values):.1f} ms"
    )


# -- what the fault runs check -----------------------------------------------------------------


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


def wait_until(predicate: Callable[[], bool], seconds: float, every: float = 0.25) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if predicate():
                return True
        except Exception:  # noqa: BLE001 - the database may be restarting
            from django.db import connections

            connections.close_all()
        time.sleep(every)
    return False


def check_store(
    acknowledged: list[tuple[int, int, str, int]], tournaments: list[int]
) -> list[Check]:
    """Every check a fault run promises, on the run's database."""
    from django.db import connection, connections

    from engine.registry import get_game
    from events.store import read_stream
    from tournaments.models import Game, Tournament
    from tournaments.play import PROJECTED_FIELDS, rebuild_projections

    connections.close_all()
    checks: list[Check] = []

    # 1. Every acknowledged action is in the store, once, ending at the answered sequence.
    missing: list[str] = []
    with connection.cursor() as cursor:
        for game, user, key, sequence in acknowledged:
            cursor.execute(
                "SELECT sequence, batch_size FROM events_event WHERE stream = %s"
                " AND idempotency_key = %s",
                [f"game-{game}", f"api:{user}:{key}"],
            )
            rows = cursor.fetchall()
            if len(rows) != 1 or rows[0][0] + rows[0][1] - 1 != sequence:
                missing.append(f"game {game} key {key}: {rows} (answered {sequence})")
    keys = {(g, k) for g, _, k, _ in acknowledged}
    checks.append(
        Check(
            "acknowledged actions stored once",
            not missing,
            f"{len(keys)} distinct actions acknowledged ({len(acknowledged)} answers),"
            f" {len(missing)} not stored as answered" + (f": {missing[:3]}" if missing else ""),
        )
    )

    # 2. No event twice: every stream is 1..n, and every idempotency key once per stream.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT stream, COUNT(*), MIN(sequence), MAX(sequence), COUNT(DISTINCT sequence)"
            " FROM events_event GROUP BY stream"
        )
        streams = cursor.fetchall()
        cursor.execute(
            "SELECT stream, idempotency_key, COUNT(*) FROM events_event"
            " WHERE idempotency_key IS NOT NULL GROUP BY stream, idempotency_key"
            " HAVING COUNT(*) > 1"
        )
        doubled = cursor.fetchall()
    gaps = [s for s in streams if not (s[2] == 1 and s[3] == s[1] == s[4])]
    checks.append(
        Check(
            "every stream gap-free, no event twice",
            not gaps and not doubled,
            f"{len(streams)} streams, {sum(s[1] for s in streams)} events;"
            f" {len(gaps)} with gaps, {len(doubled)} keys used twice",
        )
    )

    # 3. Every stream replays: each stored move is what the engine decides for it.
    bad: list[str] = []
    games = list(Game.objects.all())
    for row in games:
        engine = get_game(row.kind)
        state: Any = None
        for event in read_stream(row.stream):
            payload = event.payload
            if payload["type"] == "move" and state is not None:
                try:
                    decided = engine.decide(
                        state, payload["seat"], payload["action"], chance=payload["chance"]
                    )
                except Exception as error:  # noqa: BLE001
                    bad.append(f"{row.stream} #{event.sequence}: {error}")
                    break
                if decided[0]["action"] != payload["action"]:
                    bad.append(f"{row.stream} #{event.sequence}: not canonical")
                    break
            state = engine.evolve(state, payload)
    checks.append(
        Check(
            "every stream replays legally",
            not bad,
            f"{len(games)} games" + f" {bad[:3]}" * bool(bad),
        )
    )

    # 4. Every game finished, and the tournaments with them.
    running = Game.objects.filter(status=Game.Status.RUNNING).count()
    unfinished = Tournament.objects.filter(pk__in=tournaments).exclude(
        status=Tournament.Status.FINISHED
    )
    checks.append(
        Check(
            "every game and tournament finished",
            running == 0 and not unfinished.exists(),
            f"{len(games)} games, {running} running; {len(tournaments)} tournaments,"
            f" {unfinished.count()} not finished",
        )
    )

    # 5. Projections rebuilt from the events alone equal the live ones.
    before = {g.pk: tuple(getattr(g, f) for f in PROJECTED_FIELDS) for g in Game.objects.all()}
    rebuilt = rebuild_projections()
    after = {g.pk: tuple(getattr(g, f) for f in PROJECTED_FIELDS) for g in Game.objects.all()}
    differ = [pk for pk in before if before[pk] != after.get(pk)]
    checks.append(
        Check(
            "projections rebuilt from events equal the live ones",
            not differ and rebuilt == len(before),
            f"{rebuilt} rebuilt, {len(differ)} differ"
            + (f": games {differ[:5]}" if differ else ""),
        )
    )
    return checks


def report(title: str, checks: list[Check], notes: list[str]) -> int:
    """Print the pass/fail summary; the exit code (0: every check passed)."""
    print()
    print(f"== {title} ==")
    for note in notes:
        print(f"   {note}")
    for check in checks:
        print(f"[{'PASS' if check.ok else 'FAIL'}] {check.name}: {check.detail}")
    failed = sum(not c.ok for c in checks)
    print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


# -- one fault run ---------------------------------------------------------------------------------


@dataclass
class FaultRun:
    """What a fault script sets up, and the moment its fault struck."""

    stack: Stack
    workers: list[Process]
    notes: list[str] = field(default_factory=list)
    #: Seconds a restarted service stays down (``--outage``).
    outage: float = 2.0

    def note(self, text: str) -> None:
        stamp = time.strftime("%H:%M:%S")
        self.notes.append(f"{stamp} {text}")
        print(f"{stamp} {text}", flush=True)


def run_fault(
    name: str,
    inject: Callable[[FaultRun], None],
    *,
    argv: list[str] | None = None,
    description: str = "",
) -> int:
    """Play a bot tournament and people's tables through the API while ``inject`` strikes.

    The workload: a two-round Bhabhi tournament of 12 bots (tables of four, three
    deals a table) played by the workers alone, and 6 Old Maid tables of a person
    and a bot (six deals each) whose people play through the API on
    ``gunicorn`` with uvicorn workers.  Two workers run (``worker-a``,
    ``worker-b``) and beat on its own, as docker-compose runs them; the sweep
    every 0.5 s, a stalled bot requeued after 1 s.  Each of them must still be
    running at the end.
    ``inject`` runs in a thread from the start.  When every person's table is
    done, the run waits for every game and both tournaments to finish, then checks
    the store (:func:`check_store`) and prints a pass/fail summary.
    """
    import argparse
    import threading

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--url", default=DEFAULT_PG)
    parser.add_argument("--redis", default=DEFAULT_REDIS)
    parser.add_argument("--tables", type=int, default=6, help="people's tables")
    parser.add_argument("--keep", action="store_true", help="keep the database")
    parser.add_argument(
        "--outage", type=float, default=2.0, help="seconds a restarted service stays down"
    )
    parser.add_argument(
        "--yes",
        action="store_true",
        help="confirm: this run restarts a shared service (Redis or PostgreSQL)",
    )
    args = parser.parse_args(argv)
    if name in ("redis_restart", "postgres_restart") and not args.yes:
        print(
            f"{name} restarts the machine's shared {name.split('_')[0]} server: every other"
            " client of it (tests, workers) sees the outage. Run again with --yes to go on."
        )
        return 2
    with Stack(
        # The process id: two people's runs on one server never drop each other's database.
        f"parlour_fault_{name}_{os.getpid()}",
        pg_url=args.url,
        redis_url=args.redis,
        cache_db=6,
        broker_db=7,
        keep=args.keep,
        sweep_seconds=0.5,
        stall_seconds=1.0,
    ) as stack:
        workers = [
            stack.start_worker("worker-a", beat=False),
            stack.start_worker("worker-b", beat=False),
            stack.start_beat(),
        ]
        stack.start_web(2, "asgi")
        run = FaultRun(stack, workers, outage=args.outage)
        bots = bot_tournament(name, 12, "bhabhi", rounds=2, size=4, deals=3)
        people, seats = person_tables(name, args.tables, deals=6)
        run.note(f"started: {len(seats)} people's tables and a tournament of 12 bots")
        failed: list[BaseException] = []

        def strike() -> None:
            try:
                inject(run)
            except BaseException as error:  # noqa: BLE001 - reported below
                failed.append(error)
                run.note(f"the fault itself failed: {error!r}")

        thread = threading.Thread(target=strike, daemon=True)
        thread.start()
        record, wall, _ = run_players(stack.url, seats, 240.0, poll=0.02)
        thread.join(timeout=120)
        run.note(
            f"people done in {wall:.1f} s: {len(record.acknowledged)} actions acknowledged,"
            f" {record.replayed} of them replays of a retried key, {record.conflicts}"
            f" conflicts, errors seen by the clients: {record.errors or 'none'}"
        )
        from tournaments.models import Tournament

        finished = wait_until(
            lambda: (
                Tournament.objects.filter(
                    pk__in=[bots, people], status=Tournament.Status.FINISHED
                ).count()
                == 2
            ),
            180,
        )
        run.note(f"tournaments finished: {finished}")
        checks = check_store(record.acknowledged, [bots, people])
        checks.insert(
            0,
            Check(
                "every person's table played to its end",
                record.finished_tables == len(seats),
                f"{record.finished_tables} of {len(seats)}",
            ),
        )
        if failed:
            checks.append(Check("the fault was injected", False, repr(failed[0])))
        dead = [process for process in workers if not process.alive()]
        for process in dead:
            run.note(f"{process.name} is not running at the end: {process.tail(5)}")
        checks.append(
            Check(
                "the workers and beat are still running",
                not dead,
                ", ".join(f"{p.name} {'stopped' if p in dead else 'running'}" for p in workers),
            )
        )
        return report(f"fault run: {name}", checks, run.notes)
