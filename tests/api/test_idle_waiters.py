"""Idle long-polls and streams hold no thread, no database connection, no Redis connection.

One web process as production runs it (gunicorn's uvicorn worker, ``parlour.asgi``,
PostgreSQL with the pool, Redis) holds hundreds of waiting long-polls
(``GET /games/{id}?after=N&wait=S``) and Server-Sent Events streams (games' and
accounts') at once.  Counted
from outside the server: its threads (``/proc/<pid>/task``), its database
connections (``pg_stat_activity`` of its own database) and its Redis connections
(``CLIENT LIST``, matched to the server's sockets).  While they wait, ``/healthz``
stays fast, and waiters on a game that moves are woken at once however many
others wait on other games (``tournaments/api/waiting.py``).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

import psycopg
import pytest
import redis

from conftest import postgres_url, redis_url
from tests.api.live import LiveDatabase, LiveServer, call, live_database, live_server
from tests.api.test_live import _draw

pytestmark = [pytest.mark.postgres, pytest.mark.redis]

#: Idle waiters held open at once, on a game nobody moves.
LONG_POLLS = 300
STREAMS = 100
#: Waiters on the game that moves, opened on top of the idle ones.
WOKEN_POLLS = 20
WOKEN_STREAMS = 10
#: Account streams (GET /stream/events) of a login whose games do not move, and of each
#: of the two players of the game that moves.
ACCOUNT_STREAMS = 50
WOKEN_ACCOUNTS = 5
#: What "a handful" is: threads the server may add while they wait, and connections.
FEW_THREADS = 8
FEW_CONNECTIONS = 6
#: Redis connections: the hub's subscription and the cache's pool (shared by every request).
FEW_REDIS = 8


@dataclass
class Server:
    live: LiveServer
    database: LiveDatabase
    name: str
    admin_url: str

    @property
    def url(self) -> str:
        return self.live.url

    @property
    def worker(self) -> int:
        """The pid of gunicorn's one worker (the process that serves)."""
        master = self.live.process.pid
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        assert len(children) == 1, children
        return int(children[0])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("idle")
    with live_database(tmp, postgres_url()) as database:
        env = {
            "REDIS_URL": redis_url(),
            # A small pool, as production has one (compose: 20): were a waiter to keep its
            # connection, the few would be gone and every other request would wait.
            "DATABASE_POOL_SIZE": str(FEW_CONNECTIONS),
            "PARLOUR_STREAM_POLL_SECONDS": "0.25",  # the shipped default
            "PARLOUR_LONG_POLL_SECONDS": str(WAIT_SECONDS),
            "PARLOUR_OPEN_STREAMS_PER_TOKEN": "10000",
            "PARLOUR_OPEN_STREAMS_PER_ADDRESS": "10000",
        }
        with live_server(database, tmp, "gunicorn", workers=1, env=env) as live:
            parts = urlparse(database.url)
            yield Server(
                live,
                database,
                parts.path.lstrip("/"),
                urlunparse(parts._replace(path="/postgres")),
            )


# -- counting from outside -------------------------------------------------------------------


def threads_of(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/task"))


def database_connections(server: Server) -> int:
    with psycopg.connect(server.admin_url, autocommit=True) as admin:
        row = admin.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [server.name]
        ).fetchone()
    return int(row[0]) if row else 0


def _local_tcp_ports(pid: int) -> set[int]:
    """Local ports of the TCP sockets process ``pid`` holds (its fds, matched in /proc/net)."""
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue  # closed meanwhile
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = set()
    for table in ("tcp", "tcp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[9] in inodes:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def redis_connections(pid: int) -> int:
    """Redis's clients (CLIENT LIST) whose address is a socket of process ``pid``."""
    ports = _local_tcp_ports(pid)
    client = redis.Redis.from_url(redis_url())
    try:
        clients = client.client_list()
    finally:
        client.close()
    return sum(1 for c in clients if int(str(c["addr"]).rsplit(":", 1)[1]) in ports)


def slots_held(seconds: float = 0, down_to: int = 0) -> int:
    """The open-stream slots counted in Redis (tournaments/api/capacity.py; other tests'
    servers, killed with streams open, may have left some), once no more than ``down_to``
    or after ``seconds``."""
    client = redis.Redis.from_url(redis_url())
    try:
        deadline = time.monotonic() + seconds
        while True:
            held = sum(int(client.get(key) or 0) for key in client.scan_iter("*open:*"))
            if held <= down_to or time.monotonic() > deadline:
                return held
            time.sleep(0.2)
    finally:
        client.close()


@dataclass
class Counts:
    threads: int
    database: int
    redis: int


def counts(server: Server) -> Counts:
    return Counts(
        threads_of(server.worker), database_connections(server), redis_connections(server.worker)
    )


def healthz_median(url: str, times: int = 20) -> float:
    took = []
    for _ in range(times):
        started = time.monotonic()
        with urllib.request.urlopen(url + "/healthz", timeout=10) as answer:
            answer.read()
        took.append(time.monotonic() - started)
    return statistics.median(took)


# -- clients: raw HTTP over asyncio, hundreds at once in one thread -------------------------------


async def _open(url: str, path: str, token: str) -> tuple[asyncio.StreamReader, Any]:
    parts = urlparse(url)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    writer.write(
        (
            f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            f"Authorization: Bearer {token}\r\nConnection: close\r\n\r\n"
        ).encode()
    )
    await writer.drain()
    return reader, writer


async def long_poll(url: str, path: str, token: str) -> tuple[float, int, dict[str, Any]]:
    """The time it answered, its status and body."""
    reader, writer = await _open(url, path, token)
    try:
        raw = await reader.read()
    finally:
        writer.close()
    at = time.monotonic()
    head, _, body = raw.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if b"chunked" in head.lower():
        body = _unchunk(body)
    return at, status, json.loads(body)


def _unchunk(body: bytes) -> bytes:
    out = b""
    while body:
        size, _, rest = body.partition(b"\r\n")
        length = int(size, 16)
        if length == 0:
            break
        out += rest[:length]
        body = rest[length + 2 :]
    return out


async def stream(
    url: str, path: str, token: str, opened: asyncio.Event, frames: list[tuple[float, str]]
) -> None:
    """Follow a stream until it ends (or is cancelled): (time, id) of each event."""
    reader, writer = await _open(url, path, token)
    try:
        while line := await reader.readline():
            if line.startswith(b"retry:"):
                opened.set()
            if line.startswith(b"id: "):
                frames.append((time.monotonic(), line[4:].strip().decode()))
    finally:
        writer.close()


@dataclass
class Seen:
    idle: Counts
    waiting: Counts
    healthz_quiet: float
    healthz_waiting: float
    #: Seconds from the move's request to each waiter's answer (frame).
    woken_polls: list[float]
    woken_streams: list[float]
    #: Slots still counted after every client went away (beyond those counted before).
    slots_left: int
    #: Seconds from the move's request to each told account stream's frame.
    woken_accounts: list[float]


class Waiters:
    """Long-polls and streams opened a few at a time, then left waiting."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.token = token
        self.polls: list[asyncio.Task[tuple[float, int, dict[str, Any]]]] = []
        self.opened_at: list[float] = []  # when each poll was sent, in time.monotonic()
        self.streams: list[asyncio.Task[None]] = []
        self.frames: list[list[tuple[float, str]]] = []

    async def open(self, game: int, after: int, polls: int, streams: int) -> None:
        waiting = f"/api/v1/games/{game}?after={after}&wait={WAIT_SECONDS}"
        following = f"/api/v1/games/{game}/stream?timeout={WAIT_SECONDS}&last_event_id={after}"
        for start in range(0, max(polls, streams), WAVE):
            opened = []
            for _ in range(start, min(start + WAVE, polls)):
                self.polls.append(asyncio.create_task(long_poll(self.url, waiting, self.token)))
                self.opened_at.append(time.monotonic())
            for _ in range(start, min(start + WAVE, streams)):
                opened.append(self._stream(following))
            await asyncio.wait_for(asyncio.gather(*(o.wait() for o in opened)), 30)
            await asyncio.sleep(0.1)

    def answered_before_their_wait(self) -> list[float]:
        """How long after it was sent each poll answered that answered before its wait
        ran out."""
        return [
            poll.result()[0] - sent
            for poll, sent in zip(self.polls, self.opened_at, strict=True)
            if poll.done() and poll.result()[0] - sent < WAIT_SECONDS - 0.5
        ]

    async def follow(self, path: str, count: int) -> None:
        """``count`` more streams of ``path`` (an account stream), opened a wave at a time."""
        for start in range(0, count, WAVE):
            opened = [self._stream(path) for _ in range(start, min(start + WAVE, count))]
            await asyncio.wait_for(asyncio.gather(*(o.wait() for o in opened)), 30)
            await asyncio.sleep(0.1)

    def _stream(self, path: str) -> asyncio.Event:
        """One more stream of ``path``; the event is set once it is open."""
        frames: list[tuple[float, str]] = []
        event = asyncio.Event()
        self.frames.append(frames)
        self.streams.append(asyncio.create_task(stream(self.url, path, self.token, event, frames)))
        return event

    async def close(self) -> None:
        for task in [*self.polls, *self.streams]:
            task.cancel()
        await asyncio.gather(*self.polls, *self.streams, return_exceptions=True)


#: Waiters opened at once.
WAVE = 10
#: How long an idle long-poll or stream waits before it answers unchanged or ends: longer
#: than opening them all and the move take on a loaded machine (CI once took more than
#: 25 s, and the first polls answered unchanged before the move), and no slower for it:
#: the waiters are closed once the move is seen.
WAIT_SECONDS = 120


async def account_position(url: str, token: str) -> str:
    """Where a login's account stream stands now: the id of its first frames (every
    running game of the login, sent to a new follower)."""
    frames: list[tuple[float, str]] = []
    await stream(url, "/api/v1/stream/events?timeout=1", token, asyncio.Event(), frames)
    assert frames, "the login has a running game: a new follower is told of it"
    return frames[-1][1]


async def _hold_and_wake(server: Server) -> Seen:
    seeded = server.database.seeded
    eli = seeded["tokens"]["eli"]
    idle_game = seeded["old_maid"]["game"]  # nobody moves it
    moving = seeded["duel_asgi"]["game"]
    status, idle_view = call(server.url, "GET", f"/api/v1/games/{idle_game}", token=eli)
    assert status == 200 and idle_view["status"] == "running", idle_view
    status, view = call(server.url, "GET", f"/api/v1/games/{moving}", token=eli)
    assert status == 200 and view["status"] == "running", view

    await asyncio.sleep(1)
    idle = await asyncio.to_thread(counts, server)
    quiet = await asyncio.to_thread(healthz_median, server.url)

    # Account streams: Ann's, whose one game nobody moves, and the two duellists'.
    tokens = {name: seeded["tokens"][name] for name in ("ann", "eli", "fay")}
    positions = {name: await account_position(server.url, t) for name, t in tokens.items()}
    accounts = {
        name: f"/api/v1/stream/events?timeout={WAIT_SECONDS}&last_event_id={position}"
        for name, position in positions.items()
    }

    slots_before = await asyncio.to_thread(slots_held)
    idle_waiters, woken = Waiters(server.url, eli), Waiters(server.url, eli)
    idle_accounts = Waiters(server.url, tokens["ann"])
    woken_accounts = {name: Waiters(server.url, tokens[name]) for name in ("eli", "fay")}
    try:
        await idle_waiters.open(idle_game, idle_view["sequence"], LONG_POLLS, STREAMS)
        await woken.open(moving, view["sequence"], WOKEN_POLLS, WOKEN_STREAMS)
        await idle_accounts.follow(accounts["ann"], ACCOUNT_STREAMS)
        for name, waiters in woken_accounts.items():
            await waiters.follow(accounts[name], WOKEN_ACCOUNTS)
        await asyncio.sleep(3)  # every one of them waiting, settled
        early = [p.result() for p in idle_waiters.polls + woken.polls if p.done()]
        assert not early, f"answered early: {early[:3]}"
        waiting = await asyncio.to_thread(counts, server)
        loaded = await asyncio.to_thread(healthz_median, server.url)

        moved_at = time.monotonic()  # the move's own request counts in the wake-up times
        sequence = await asyncio.to_thread(_draw, server.live, seeded, moving)
        answers = await asyncio.wait_for(asyncio.gather(*woken.polls), 10)
        for _, status, body in answers:
            assert status == 200 and body["sequence"] >= sequence, body
        await asyncio.sleep(1.5)
        arrived = [
            next((at for at, i in frames if int(i) == sequence), float("inf"))
            for frames in woken.frames
        ]
        early_idle = idle_waiters.answered_before_their_wait()
        assert not early_idle, f"woken by another game's move after {early_idle[:3]} s"
        assert all(not frames for frames in idle_waiters.frames), "another game's events"
        assert all(not frames for frames in idle_accounts.frames), "told of another's game"
        # The login the move left waited for (both, had it ended the game) is told at once.
        told = [
            min(at for at, _ in frames)
            for waiters in woken_accounts.values()
            for frames in waiters.frames
            if frames
        ]
        assert len(told) >= WOKEN_ACCOUNTS, told
    finally:
        for waiters in (idle_waiters, woken, idle_accounts, *woken_accounts.values()):
            await waiters.close()
    slots_left = await asyncio.to_thread(slots_held, 10, slots_before) - slots_before
    return Seen(
        idle,
        waiting,
        quiet,
        loaded,
        [at - moved_at for at, _, _ in answers],
        [at - moved_at for at in arrived],
        slots_left,
        [at - moved_at for at in told],
    )


def test_hundreds_of_idle_waiters_hold_a_handful_of_threads_and_connections(
    server: Server,
) -> None:
    seen = asyncio.run(_hold_and_wake(server))
    print(
        f"\nidle: {seen.idle}\n{LONG_POLLS + WOKEN_POLLS} long-polls and"
        f" {STREAMS + WOKEN_STREAMS} game streams and"
        f" {ACCOUNT_STREAMS + 2 * WOKEN_ACCOUNTS} account streams waiting: {seen.waiting}\n"
        f"healthz median {seen.healthz_quiet * 1000:.1f} ms quiet,"
        f" {seen.healthz_waiting * 1000:.1f} ms while they wait\n"
        f"woken long-polls after {max(seen.woken_polls):.3f} s at most,"
        f" streams after {max(seen.woken_streams):.3f} s at most,"
        f" account streams after {max(seen.woken_accounts):.3f} s at most"
    )
    assert seen.waiting.threads <= seen.idle.threads + FEW_THREADS, seen
    assert seen.waiting.database <= FEW_CONNECTIONS, seen
    assert seen.waiting.redis <= FEW_REDIS, seen
    assert seen.healthz_waiting < 0.1, seen
    assert max(seen.woken_polls) < 1.0, seen.woken_polls
    assert max(seen.woken_streams) < 1.0, seen.woken_streams
    assert max(seen.woken_accounts) < 1.0, seen.woken_accounts
    assert seen.slots_left <= 0, "the clients went away: their slots are given back"
