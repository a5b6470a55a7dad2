"""Abuse: the attacks of issue 17 on the production shape, and what the other users feel.

    .venv/bin/python bench/abuse.py [--quick] [--db parlour_abuse] [--only a,b,c,d,g,e,f]
        [--url postgres://postgres@127.0.0.1:5432/postgres] [--redis redis://127.0.0.1:6379/0]
        [--cache-db 5 --broker-db 12] [--web-workers 4] [--pool 10] [--events 92000]
        [--no-proxy]

The shape is docker-compose's, through bench/faults/stack.py: a PostgreSQL
database of its own (``--db``, dropped at the end) migrated by the owner, the web
processes and the worker connecting as an application role made with
``grant_app_role`` (SELECT and INSERT only on the events), two Redis databases of
its own (``--cache-db``, ``--broker-db``, flushed), ``gunicorn parlour.asgi`` with
uvicorn workers and a connection pool behind compose's nginx (``deploy/nginx.conf``,
which refuses an address's connections beyond 64 at once; ``--no-proxy``: the web
processes alone; nginx must be installed), one Celery worker and beat on its own,
``DEBUG=false``, the API's throttles and the login limits at their production
defaults, and ``PARLOUR_NUM_PROXIES=1``: every client sends ``X-Forwarded-For``
as a proxy would, so that the attackers and the other users have addresses of
their own although all of them run here.

Before anything the store is filled with ``--events`` events of other games (a
bulk insert as the owner, 100 events a stream, as bench/stream_scale.py does) and
a bot tournament is played in this process, so that the tournament stream has a
history of its own among them.

The *other users* are one steady client that, all run long, asks in turn for a
game's view (``GET /api/v1/games/{id}`` with its token), the home page and a
tournament page, one request at a time with a short pause, and a second one that
asks for ``/healthz`` twice a second; both run in a process of their own (the
attackers' client work must not delay their timings), which writes each sample to
a file and stops by itself after an hour if nobody stops it.  First a quiet
baseline is measured; then each attack runs in turn after ``--quiet`` seconds of
quiet of its own, and for each the other users' median and 99th percentile
during it are printed beside both quiets', with whether both are within 2x of the
quiet just before (the machine is shared: its load drifts during a run).  The web processes' threads
and Redis and PostgreSQL connections are printed before, at most during, and 3 s
after each attack, and the CPU time the web processes and this process (the
attackers' client) used during it.  The attacks (issue 17's report):

a. 350 wrong HTTP Basic passwords on ``POST /api/v1/tokens`` for one account, 350
   spread over 35 accounts from one address, 40 wrong logins on
   ``/accounts/login/`` and 40 on the admin's login (32 guessing at once): how
   many were answered after hashing the password (401 / the form's error) and how
   many refused before it (429 / the lockout message, or the message that another
   login for the account or the address is being checked: one hash at a time);
b. 16 anonymous loops (an address each) reading the tournament stream from its start
   (``?last_event_id=0.0``; the tournament is over, so each request ends with its
   ``end`` event, and ``&timeout=1`` bounds it otherwise); one such request alone
   first; past ``PARLOUR_API_RATE_ANON_TOURNAMENT_STREAMS`` (one a second) each loop
   meets 429s;
c. 1,000 Server-Sent Event streams opened at once from one address with 12 tokens,
   held open: how many opened, how many were refused (429 beyond the caps), how
   many of the open ones died before the end;
d. 1,000 long-polls (``GET /api/v1/games/{id}?after=N&wait=25``) from one address
   with 12 tokens: the threads, Redis and PostgreSQL connections of the web
   processes during them and after, healthz's latency;
g. (issue 24's push channel) 1,000 WebSockets to ``/api/v1/ws`` opened at once from
   one address with 12 tokens, each following the game, held open: a socket takes a slot
   of the same caps, and each follow beyond its first one more (429 problems beyond
   them), none of the open
   ones may die, and the threads and connections stay bounded as in c and d;
e. ``POST /api/v1/records/verify`` of a valid 0.88 MB Old Maid record of 9,900
   arranges, 4 at once for 30 s (413 expected, 429 once the records rate is
   spent), and of its first 2,001 moves (422: over the move limit);
f. 100,000 nested ``[`` to ``/api/v1/records/verify`` and to
   ``/api/v1/games/{id}/actions`` for 30 s: a 400 problem each time (429 once a
   rate is spent).

Exit code 0 when every check passes.  ``--quick`` runs every attack, shorter and
smaller (a baseline of 6 s, 4 s of quiet before each, holds of 8 s, a store of
10,000 events), to try the script out.
docs/benchmarks.md ("Abuse") records a full run.

(Over 400 lines, on purpose: a bench script read top to bottom, one section per
attack of the issue, each with its setup, its attackers and its verdict; the stack,
the players and the checks it shares are in bench/faults/.)
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import random
import re
import statistics
import sys
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # before bench/, whose engine.py would shadow the package

from bench.faults.checks import Check, report  # noqa: E402
from bench.faults.players import person_tables  # noqa: E402
from bench.faults.stack import DEFAULT_PG, DEFAULT_REDIS, Stack, admin_sql, percentile  # noqa: E402

#: The limits Stack raises for load runs: an abuse run keeps the production defaults.
PRODUCTION_RATES = (
    "PARLOUR_API_RATE_ADDRESS",
    "PARLOUR_API_RATE_ANON",
    "PARLOUR_API_RATE_TOKEN",
    "PARLOUR_API_RATE_ANON_STREAMS",
    "PARLOUR_API_RATE_ANON_TOURNAMENT_STREAMS",
    "PARLOUR_OPEN_STREAMS_PER_ADDRESS",
)
PASSWORD = "the right password 42"
PASS = {"type": "move", "v": 1, "seat": 0, "action": {"type": "pass"}, "chance": False}
#: Addresses, as the proxy would pass them on (PARLOUR_NUM_PROXIES=1).
OTHERS = "10.1.0.1"


def forwarded(address: str) -> dict[str, str]:
    return {"X-Forwarded-For": address}


# -- the other users -----------------------------------------------------------------------------


@dataclass
class Sample:
    at: float
    what: str
    ms: float
    status: int


@dataclass
class Others:
    """What the other users saw, all run long: one sample per request.

    In the run, the other users are a process of their own (:func:`others_main`), which
    writes each sample as a line of JSON to ``path``: a real other user is not in the
    attacker's process, and in it their timings took in the attackers' own client work
    (32 guessers' or 16 readers' answers parsed on the same event loop).
    """

    samples: list[Sample] = field(default_factory=list)
    running: bool = True
    path: Path | None = None

    def refresh(self) -> None:
        if self.path is None or not self.path.exists():
            return
        lines = self.path.read_text().splitlines()
        self.samples = [Sample(**json.loads(line)) for line in lines if line.endswith("}")]

    def window(self, start: float, end: float, health: bool = False) -> list[float]:
        self.refresh()
        return [
            s.ms
            for s in self.samples
            if start <= s.at <= end and (s.what == "healthz") == health and s.status == 200
        ]

    def failures(self, start: float, end: float) -> dict[str, int]:
        self.refresh()
        found: dict[str, int] = {}
        for s in self.samples:
            if start <= s.at <= end and s.status != 200:
                key = f"{s.what} {s.status}"
                found[key] = found.get(key, 0) + 1
        return found


async def timed_get(session: Any, url: str, headers: dict[str, str]) -> tuple[int, float]:
    started = time.perf_counter()
    try:
        async with session.get(url, headers=headers, allow_redirects=False) as answer:
            await answer.read()
            status = answer.status
    except Exception:  # noqa: BLE001 - an error is what the other users would see
        status = 0
    return status, (time.perf_counter() - started) * 1000


async def other_users(base: str, token: str, game: int, tournament: int, others: Others) -> None:
    """The steady client: a game's view, the home page, a tournament page, in turn."""
    import aiohttp

    pages = [
        ("game view", f"/api/v1/games/{game}", {"Authorization": f"Bearer {token}"}),
        ("home", "/", {}),
        ("tournament page", f"/tournaments/{tournament}/", {}),
    ]
    async with aiohttp.ClientSession(base) as session:
        turn = 0
        while others.running:
            what, path, headers = pages[turn % len(pages)]
            status, ms = await timed_get(session, path, headers | forwarded(OTHERS))
            others.samples.append(Sample(time.monotonic(), what, ms, status))
            turn += 1
            await asyncio.sleep(0.1)


async def health_prober(base: str, others: Others) -> None:
    import aiohttp

    async with aiohttp.ClientSession(base) as session:
        while others.running:
            status, ms = await timed_get(session, "/healthz", forwarded(OTHERS))
            others.samples.append(Sample(time.monotonic(), "healthz", ms, status))
            await asyncio.sleep(0.5)


#: The longest the other users' process runs if nobody stops it (it stops by itself).
OTHERS_MOST_SECONDS = 3600


def others_main(base: str, token: str, game: int, tournament: int, path: str) -> int:
    """The other users' process: their requests until SIGTERM (or an hour), each sample a
    line of JSON in ``path`` (monotonic times: one clock for every process here)."""
    import signal

    others = Others()
    out = open(path, "a", buffering=1)  # noqa: SIM115 - open for the process's life

    class Written(list[Sample]):
        def append(self, sample: Sample) -> None:
            out.write(json.dumps(sample.__dict__) + "\n")

    others.samples = Written()

    def stop(*_: Any) -> None:
        others.running = False

    signal.signal(signal.SIGTERM, stop)

    async def main() -> None:
        async def deadline() -> None:
            end = time.monotonic() + OTHERS_MOST_SECONDS
            while others.running and time.monotonic() < end:
                await asyncio.sleep(0.5)
            others.running = False

        await asyncio.gather(
            other_users(base, token, game, tournament, others),
            health_prober(base, others),
            deadline(),
        )

    asyncio.run(main())
    out.close()
    return 0


# -- the web processes ---------------------------------------------------------------------------


def group_pids(pgid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # the process group (after state and parent)
            found.append(int(entry.name))
    return found


def cpu_seconds(pgid: int) -> float:
    """CPU time (user + system) the processes of group ``pgid`` have used so far."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for pid in group_pids(pgid):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (after state)
    return total / ticks


def _remote_ports() -> dict[int, int]:
    """Socket inode → remote port, for every TCP socket of this machine."""
    ports: dict[int, int] = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            ports[int(parts[9])] = int(parts[2].rsplit(":", 1)[1], 16)
    return ports


@dataclass
class Usage:
    threads: int = 0
    redis: int = 0
    postgres: int = 0


def usage(pgid: int) -> Usage:
    """Threads of the web processes, and their connections to Redis and PostgreSQL."""
    ports = _remote_ports()
    found = Usage()
    for pid in group_pids(pgid):
        try:
            found.threads += len(os.listdir(f"/proc/{pid}/task"))
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    target = os.readlink(f"/proc/{pid}/fd/{fd}")
                except OSError:
                    continue
                match = re.fullmatch(r"socket:\[(\d+)\]", target)
                if not match:
                    continue
                port = ports.get(int(match.group(1)))
                if port == 6379:
                    found.redis += 1
                elif port == 5432:
                    found.postgres += 1
        except OSError:
            continue
    return found


# -- the attacks ---------------------------------------------------------------------------------


@dataclass
class Attack:
    key: str
    title: str
    start: float = 0.0
    end: float = 0.0
    lines: list[str] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)

    def say(self, text: str) -> None:
        self.lines.append(text)
        print(f"   {text}", flush=True)

    def check(self, name: str, ok: bool, detail: str) -> None:
        self.checks.append(Check(f"{self.key}. {name}", ok, detail))


def counted(statuses: list[int]) -> str:
    found: dict[int, int] = {}
    for status in statuses:
        found[status] = found.get(status, 0) + 1
    return ", ".join(f"{n} x {s or 'error'}" for s, n in sorted(found.items()))


def limits(bodies: list[bytes]) -> str:
    """Which limits 429 problems named (``connections_address``: the proxy in front)."""

    def named(body: bytes) -> str:
        try:
            return str(json.loads(body).get("limit"))
        except ValueError:
            return "not a problem"

    found = Counter(named(body) for body in bodies)
    return ", ".join(f"{n} {name}" for name, n in sorted(found.items())) or "none"


def basic(username: str, password: str) -> dict[str, str]:
    raw = base64.b64encode(f"{username}:{password}".encode()).decode()
    return {"Authorization": f"Basic {raw}"}


async def burst(
    one: Callable[[int], Awaitable[None]],
    count: int,
    started: float,
    answered: asyncio.Event,
    hold: float,
    release: asyncio.Event,
) -> float:
    r"""``count`` clients ``one(n)`` at once; once ``answered`` (every one was), the open ones
    are held ``hold`` seconds, then ``release``\ d: the seconds from ``started`` to answered."""
    tasks = [asyncio.ensure_future(one(n)) for n in range(count)]
    await answered.wait()
    seconds = time.monotonic() - started
    await asyncio.sleep(hold)
    release.set()
    await asyncio.gather(*tasks)
    return seconds


async def guess_api(
    session: Any, guesses: list[tuple[str, str]], address: str, at_once: int = 32
) -> list[int]:
    """Wrong HTTP Basic passwords on POST /api/v1/tokens, ``at_once`` guessers."""
    queue = list(guesses)
    statuses: list[int] = []

    async def guesser() -> None:
        while queue:
            user, password = queue.pop()
            headers = basic(user, password) | forwarded(address)
            try:
                async with session.post(
                    "/api/v1/tokens", json={"name": "guess"}, headers=headers
                ) as answer:
                    await answer.read()
                    statuses.append(answer.status)
            except Exception as error:  # noqa: BLE001
                statuses.append(0)
                print(f"   (a guess got no answer: {error!r})", flush=True)

    await asyncio.gather(*(guesser() for _ in range(at_once)))
    return statuses


async def guess_form(
    base: str, path: str, username: str, tries: int, address: str, at_once: int = 8
) -> tuple[int, int, list[int]]:
    """Wrong passwords on a login form: (answered after hashing, refused before hashing —
    locked out or busy —, statuses)."""
    import aiohttp

    hashed = locked = 0
    statuses: list[int] = []
    queue = list(range(tries))
    jar = aiohttp.CookieJar(unsafe=True)  # cookies for 127.0.0.1
    async with aiohttp.ClientSession(base, cookie_jar=jar) as session:
        async with session.get(path, headers=forwarded(address)) as page:
            text = await page.text()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', text)
        assert token is not None, f"no CSRF token on {path}"

        async def guesser() -> None:
            nonlocal hashed, locked
            while queue:
                n = queue.pop()
                form = {
                    "csrfmiddlewaretoken": token.group(1),
                    "username": username,
                    "password": f"wrong {n}",
                }
                headers = forwarded(address) | {"Referer": base + path}
                async with session.post(path, data=form, headers=headers) as answer:
                    body = await answer.text()
                    statuses.append(answer.status)
                # Refused before hashing: locked out, or another of these guesses was
                # being checked (one password at a time per account and per address).
                if "Too many failed logins" in body or "being checked right now" in body:
                    locked += 1
                elif "correct username and password" in body:
                    hashed += 1

        await asyncio.gather(*(guesser() for _ in range(at_once)))
    return hashed, locked, statuses


async def attack_logins(base: str, attack: Attack, quick: bool) -> None:
    import aiohttp
    from django.conf import settings

    rates = settings.PARLOUR_LOGIN_RATES
    account, per_address = (int(rates[k].split("/")[0]) for k in ("account", "address"))
    attack.say(f"limits: {rates['account']} per account, {rates['address']} per address")
    async with aiohttp.ClientSession(base) as session:
        started = time.perf_counter()
        one = await guess_api(
            session, [("target-0", f"wrong {n}") for n in range(350)], "10.66.1.1"
        )
        seconds = time.perf_counter() - started
        hashed = one.count(401)
        attack.say(
            f"API Basic, one account, 350 wrong: {counted(one)} in {seconds:.1f} s"
            f" ({hashed} hashed)"
        )
        attack.check(
            "API Basic on one account: nothing hashed beyond the account's limit",
            hashed <= account and not any(200 <= s < 300 for s in one),
            f"{hashed} hashed (limit {account}), {one.count(429)} x 429",
        )
        attack.check(
            "API Basic on one account: every guess answered 401 or 429 (no 5xx)",
            one.count(429) == 350 - hashed,
            counted(one),
        )
        right = await guess_api(session, [("target-0", PASSWORD)], "10.66.1.1", at_once=1)
        attack.check(
            "the locked account refuses even its right password (until the window ends)",
            right == [429],
            f"right password: {counted(right)}",
        )
        spread = [(f"target-{1 + n % 35}", f"wrong {n}") for n in range(350)]
        started = time.perf_counter()
        many = await guess_api(session, spread, "10.66.1.2")
        seconds = time.perf_counter() - started
        hashed = many.count(401)
        attack.say(
            f"API Basic, 35 accounts from one address, 350 wrong: {counted(many)}"
            f" in {seconds:.1f} s ({hashed} hashed)"
        )
        attack.check(
            "API Basic over many accounts: nothing hashed beyond the address's limit",
            hashed <= per_address and not any(200 <= s < 300 for s in many),
            f"{hashed} hashed (limit {per_address}), {many.count(429)} x 429",
        )
        attack.check(
            "API Basic over many accounts: every guess answered 401 or 429 (no 5xx)",
            many.count(429) == 350 - hashed,
            counted(many),
        )
    tries = 40
    for name, path, user, address in (
        ("/accounts/login/", "/accounts/login/", "target-36", "10.66.1.3"),
        ("the admin's login", "/admin/login/?next=/admin/", "staff-0", "10.66.1.4"),
    ):
        hashed, locked, statuses = await guess_form(base, path, user, tries, address)
        attack.say(
            f"{name}, {tries} wrong: {hashed} answered after hashing, {locked} refused before"
            f" it (locked out or busy; {counted(statuses)})"
        )
        attack.check(
            f"{name}: locked out after the account's limit",
            hashed <= account and locked == tries - hashed and not any(s >= 500 for s in statuses),
            f"{hashed} hashed (limit {account}), {locked} with the lockout or busy message",
        )
    del quick


async def attack_stream_loops(base: str, tournament: int, attack: Attack, seconds: float) -> None:
    import aiohttp

    statuses: list[int] = []
    times: list[float] = []
    frames: list[int] = []
    stop = 0.0
    path = f"/api/v1/tournaments/{tournament}/stream?last_event_id=0.0&timeout=1"

    async def loop(n: int) -> None:
        headers = forwarded(f"10.66.2.{n + 1}")
        async with aiohttp.ClientSession(base) as session:
            while time.monotonic() < stop:
                started = time.perf_counter()
                try:
                    async with session.get(path, headers=headers) as answer:
                        body = await answer.read()
                        statuses.append(answer.status)
                        if answer.status == 200:
                            frames.append(body.count(b"\nid: ") + body.startswith(b"id: "))
                            times.append((time.perf_counter() - started) * 1000)
                        else:
                            await asyncio.sleep(1)
                except Exception:  # noqa: BLE001
                    statuses.append(0)

    alone = []
    async with aiohttp.ClientSession(base) as session:
        for _ in range(3):
            _, ms = await timed_get(session, path, forwarded("10.66.2.100"))
            alone.append(ms)
    attack.say(f"one such stream alone, 3 times: {', '.join(f'{ms:.0f}' for ms in alone)} ms")
    stop = time.monotonic() + seconds
    await asyncio.gather(*(loop(n) for n in range(16)))
    attack.say(f"16 loops for {seconds:.0f} s: {counted(statuses)}")
    if times:
        attack.say(
            f"each whole stream ({statistics.median(frames):.0f} events, to its end event):"
            f" median {statistics.median(times):.0f} ms, p99 {percentile(times, 0.99):.0f} ms"
        )
    attack.check(
        "the whole stream from its start, alone, answered in under 1.5 s",
        statistics.median(alone) < 1500,
        f"alone: median {statistics.median(alone):.0f} ms",
    )
    attack.check(
        "every loop's stream answered (no 5xx)",
        not any(s >= 500 or s == 0 for s in statuses),
        counted(statuses),
    )


async def attack_streams(
    base: str, game: int, tokens: list[str], attack: Attack, hold: float, count: int
) -> None:
    """Open ``count`` streams at once; once every one is answered, hold the open ones
    ``hold`` seconds more: an open stream that ends before it is let go died."""
    import aiohttp
    from django.conf import settings

    per_token = settings.PARLOUR_OPEN_STREAMS_PER_TOKEN
    per_address = settings.PARLOUR_OPEN_STREAMS_PER_ADDRESS
    statuses: list[int] = []
    refusals: list[bytes] = []
    died: list[str] = []
    opened = open_now = most_open = 0
    release = asyncio.Event()
    answered = asyncio.Event()
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=None, sock_read=None)
    started = time.monotonic()
    async with aiohttp.ClientSession(base, connector=connector, timeout=timeout) as session:

        async def one(n: int) -> None:
            nonlocal opened, open_now, most_open
            headers = {"Authorization": f"Bearer {tokens[n % len(tokens)]}"}
            headers |= forwarded("10.66.3.1")
            try:
                async with session.get(f"/api/v1/games/{game}/stream", headers=headers) as answer:
                    statuses.append(answer.status)
                    if len(statuses) == count:
                        answered.set()
                    if answer.status != 200:
                        body = await answer.read()
                        if answer.status == 429:
                            refusals.append(body)
                        return
                    opened += 1
                    open_now += 1
                    most_open = max(most_open, open_now)
                    reader = asyncio.ensure_future(answer.content.read())
                    waiter = asyncio.ensure_future(release.wait())
                    done, _ = await asyncio.wait(
                        {reader, waiter}, return_when=asyncio.FIRST_COMPLETED
                    )
                    if reader in done:
                        died.append("closed by the server")
                    open_now -= 1
                    waiter.cancel()
                    reader.cancel()
            except Exception as error:  # noqa: BLE001
                if len(statuses) < count:
                    statuses.append(0)
                    if len(statuses) == count:
                        answered.set()
                else:
                    died.append(type(error).__name__)

        seconds = await burst(one, count, started, answered, hold, release)
    refused = statuses.count(429)
    attack.say(
        f"{count} streams, {len(tokens)} tokens, one address: {counted(statuses)}, all answered"
        f" in {seconds:.1f} s; {opened} opened, at most {most_open} at once, held {hold:.0f} s"
        f" more; {len(died)} of them died; the 429s' limits: {limits(refusals)}"
    )
    cap = min(per_address, per_token * len(tokens))
    attack.check(
        "no more streams open at once than the caps",
        most_open <= cap and opened <= cap,
        f"{opened} opened, {most_open} at once (cap {cap}: {per_token} a token,"
        f" {per_address} an address)",
    )
    attack.check(
        "every stream beyond the caps refused with a 429 (no 5xx)",
        refused == count - opened,
        f"{refused} x 429, {sum(s >= 500 for s in statuses)} x 5xx",
    )
    attack.check("no open stream dies", not died, f"{len(died)} died: {sorted(set(died))}")


async def attack_sockets(
    base: str, game: int, tokens: list[str], attack: Attack, hold: float, count: int
) -> None:
    """Open ``count`` WebSockets to the push channel at once, each following the game; once
    every one is answered, hold the open ones ``hold`` seconds more.  A socket takes an
    open-stream slot, which carries its first follow; each further follow takes one more:
    beyond the caps, a 429 problem (and, for a socket, close code 4429)."""
    import aiohttp
    from django.conf import settings

    per_token = settings.PARLOUR_OPEN_STREAMS_PER_TOKEN
    per_address = settings.PARLOUR_OPEN_STREAMS_PER_ADDRESS
    opened = refused = at_handshake = follows = follows_refused = answered_count = 0
    other: list[str] = []
    died: list[str] = []
    release = asyncio.Event()
    answered = asyncio.Event()
    started = time.monotonic()

    def done_one() -> None:
        nonlocal answered_count
        answered_count += 1
        if answered_count == count:
            answered.set()

    async with aiohttp.ClientSession(base, connector=aiohttp.TCPConnector(limit=0)) as session:

        async def one(n: int) -> None:
            nonlocal opened, refused, at_handshake, follows, follows_refused
            headers = {"Authorization": f"Bearer {tokens[n % len(tokens)]}"}
            headers |= forwarded("10.66.3.3")
            counted_once = False
            try:
                async with session.ws_connect("/api/v1/ws", headers=headers) as ws:
                    first = json.loads((await ws.receive(timeout=60)).data)
                    if first["type"] != "hello":
                        status = first.get("problem", {}).get("status")
                        refused += status == 429
                        if status != 429:
                            other.append(f"socket {status}")
                        return
                    opened += 1
                    await ws.send_json({"type": "follow", "game": game})
                    reply = json.loads((await ws.receive(timeout=60)).data)
                    if reply["type"] == "view":
                        follows += 1
                    elif reply.get("problem", {}).get("status") == 429:
                        follows_refused += 1
                    else:
                        other.append(f"follow {reply.get('problem', {}).get('status')}")
                    done_one()
                    counted_once = True
                    receiving = asyncio.ensure_future(ws.receive())
                    waiting = asyncio.ensure_future(release.wait())
                    finished, _ = await asyncio.wait(
                        {receiving, waiting}, return_when=asyncio.FIRST_COMPLETED
                    )
                    if receiving in finished and receiving.result().type != aiohttp.WSMsgType.TEXT:
                        died.append(f"closed by the server ({ws.close_code})")
                    receiving.cancel()
                    waiting.cancel()
            except aiohttp.WSServerHandshakeError as error:
                # Refused before the upgrade: by the proxy in front, with its 429 problem.
                if error.status == 429:
                    refused += 1
                    at_handshake += 1
                else:
                    other.append(f"handshake {error.status}")
            except Exception as error:  # noqa: BLE001
                other.append(type(error).__name__)
            finally:
                if not counted_once:
                    done_one()

        seconds = await burst(one, count, started, answered, hold, release)
    cap = min(per_address, per_token * len(tokens))
    attack.say(
        f"{count} sockets, {len(tokens)} tokens, one address, each following the game: all"
        f" answered in {seconds:.1f} s; {opened} opened, {refused} refused (429: {at_handshake}"
        f" at the handshake, by the proxy; the rest close 4429); of the"
        f" opened, {follows} follows pushed their view and {follows_refused} refused (429);"
        f" held {hold:.0f} s more, {len(died)} died; other answers: {sorted(set(other)) or 'none'}"
    )
    # A socket takes a slot; its first follow is carried by it, each one more takes one.
    beyond = max(0, follows - opened)
    attack.check(
        "no more sockets and follows open at once than the caps",
        opened + beyond <= cap,
        f"{opened} sockets + {beyond} follows beyond each socket's first (cap {cap}:"
        f" {per_token} a token, {per_address} an address)",
    )
    attack.check(
        "every socket beyond the caps refused with a 429 problem (no 5xx)",
        refused == count - opened and not other,
        f"{refused} x 429, other: {sorted(set(other)) or 'none'}",
    )
    attack.check("no open socket dies", not died, f"{len(died)} died: {sorted(set(died))}")


def most_at_once(intervals: list[tuple[float, float]]) -> int:
    """The most of ``intervals`` (start, end) that overlap at one moment."""
    edges = sorted([(a, 1) for a, _ in intervals] + [(b, -1) for _, b in intervals])
    now = most = 0
    for _, step in edges:
        now += step
        most = max(most, now)
    return most


async def attack_long_polls(
    base: str,
    game: int,
    sequence: int,
    tokens: list[str],
    attack: Attack,
    count: int,
    wait: int,
) -> None:
    """``count`` long-polls at once on a game nobody moves in: each waits ``wait`` s or is
    refused.  The threads and connections are sampled by :func:`run` (``attack.usage``)."""
    import aiohttp
    from django.conf import settings

    statuses: list[int] = []
    refusals: list[bytes] = []
    waits: list[tuple[float, float]] = []
    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=wait + 120)
    async with aiohttp.ClientSession(base, connector=connector, timeout=timeout) as session:

        async def one(n: int) -> None:
            headers = {"Authorization": f"Bearer {tokens[n % len(tokens)]}"}
            headers |= forwarded("10.66.4.1")
            path = f"/api/v1/games/{game}?after={sequence}&wait={wait}"
            sent = time.monotonic()
            try:
                async with session.get(path, headers=headers) as answer:
                    body = await answer.read()
                    statuses.append(answer.status)
                    if answer.status == 429:
                        refusals.append(body)
                    end = time.monotonic()
                    if answer.status == 200:
                        # It held a slot for its whole wait somewhere between sending and
                        # the answer: surely from ``end - wait`` to ``sent + wait``.
                        waits.append((end - wait, sent + wait))
            except Exception:  # noqa: BLE001
                statuses.append(0)

        await asyncio.gather(*(one(n) for n in range(count)))
    at_once = most_at_once([(a, b) for a, b in waits if a < b])
    attack.say(
        f"{count} long-polls (wait={wait}), {len(tokens)} tokens, one address:"
        f" {counted(statuses)}; at least {at_once} surely waiting at once (from the times"
        f" each was sent and answered); the 429s' limits: {limits(refusals)}"
    )
    cap = min(
        settings.PARLOUR_OPEN_STREAMS_PER_ADDRESS,
        settings.PARLOUR_OPEN_STREAMS_PER_TOKEN * len(tokens),
    )
    attack.check(
        "no more long-polls waiting at once than the caps (no proof of more)",
        at_once <= cap,
        f"{at_once} at once (cap {cap}), {len(waits)} waited in all",
    )
    attack.check(
        "every long-poll beyond the caps refused with a 429 (no 5xx)",
        statuses.count(429) + len(waits) == count,
        f"{statuses.count(429)} x 429, {sum(s >= 500 for s in statuses)} x 5xx",
    )


def big_record(moves: int, seats: int = 3) -> dict[str, Any]:
    """A valid Old Maid record of ``moves`` arranges (each seat in turn reverses its fan)."""
    from engine.fairness import canonical_order, derive_deck
    from engine.record import export_record
    from engine.registry import get_game

    game = get_game("old_maid")
    # This seed deals fans of 7, 5 and 5 cards after the pairs: 9,900 arranges make 0.88 MB.
    deck = derive_deck(bytes([3]) * 32, canonical_order(game.deck))
    events = [dict(e) for e in game.deal(seats, 0, deck, {})]
    state = game.fold(events)
    for n in range(moves):
        seat = n % seats
        action = {"type": "arrange", "order": [str(c) for c in reversed(state.hands[seat])]}
        new = game.decide(state, seat, action, chance=False)
        for event in new:
            state = game.evolve(state, event)
        events.extend(dict(e) for e in new)
    record = export_record(events, players=[f"P{s}" for s in range(seats)])
    assert len(record["moves"]) == moves
    return record


async def post_body(
    session: Any, path: str, body: bytes, headers: dict[str, str]
) -> tuple[int, str, float, bytes]:
    started = time.perf_counter()
    try:
        async with session.post(
            path, data=body, headers=headers | {"Content-Type": "application/json"}
        ) as answer:
            text = await answer.read()
            kind = answer.headers.get("Content-Type", "")
            return answer.status, kind, (time.perf_counter() - started) * 1000, text
    except Exception:  # noqa: BLE001
        return 0, "", (time.perf_counter() - started) * 1000, b""


async def attack_records(base: str, attack: Attack, seconds: float) -> None:
    """The big record to verify, 4 at once from one address, for ``seconds``."""
    import aiohttp
    from django.conf import settings

    record = big_record(9900)
    body = json.dumps(record).encode()
    most = int(settings.PARLOUR_RECORD_MAX_MOVES)
    short = json.dumps(record | {"moves": record["moves"][: most + 1]}).encode()
    attack.say(
        f"the record: {len(body) / 1e6:.2f} MB, {len(record['moves'])} arranges;"
        f" its first {most + 1} moves: {len(short) / 1e6:.2f} MB (limits:"
        f" {settings.PARLOUR_RECORD_MAX_BYTES} bytes, {most} moves)"
    )
    answers = []
    stop = time.monotonic() + seconds
    async with aiohttp.ClientSession(base) as session:

        async def poster() -> None:
            while time.monotonic() < stop:
                answers.append(
                    await post_body(session, "/api/v1/records/verify", body, forwarded("10.66.5.1"))
                )

        await asyncio.gather(*(poster() for _ in range(4)))
        shorts = [
            await post_body(session, "/api/v1/records/verify", short, forwarded("10.66.5.2"))
            for _ in range(3)
        ]
    statuses = [a[0] for a in answers]
    times = [a[2] for a in answers]
    attack.say(
        f"{len(answers)} x the big record in {seconds:.0f} s: {counted(statuses)}; each answered"
        f" in median {statistics.median(times):.0f} ms, p99 {percentile(times, 0.99):.0f} ms"
    )
    attack.say(f"3 x its first {most + 1} moves: {counted([a[0] for a in shorts])}")
    attack.check(
        "the big record is refused (413) before any replay, then throttled (429)",
        set(statuses) <= {413, 429} and 413 in statuses,
        counted(statuses),
    )
    attack.check(
        "a record over the move limit is a 422 problem",
        all(a[0] == 422 and "problem+json" in a[1] for a in shorts),
        counted([a[0] for a in shorts]),
    )


async def attack_deep_json(
    base: str, game: int, token: str, attack: Attack, seconds: float
) -> None:
    """100,000 nested ``[`` to both endpoints at once, one client each, for ``seconds``."""
    import aiohttp

    body = b"[" * 100_000
    found: dict[str, list[tuple[int, str, float, bytes]]] = {}
    stop = time.monotonic() + seconds

    async def sender(name: str, path: str, headers: dict[str, str]) -> None:
        found[name] = []
        async with aiohttp.ClientSession(base) as session:
            while time.monotonic() < stop:
                key = {"Idempotency-Key": str(uuid.uuid4())}
                found[name].append(await post_body(session, path, body, headers | key))

    await asyncio.gather(
        sender("/records/verify", "/api/v1/records/verify", forwarded("10.66.6.1")),
        sender(
            f"/games/{game}/actions",
            f"/api/v1/games/{game}/actions",
            forwarded("10.66.6.2") | {"Authorization": f"Bearer {token}"},
        ),
    )
    for name, answers in found.items():
        statuses = [a[0] for a in answers]
        times = [a[2] for a in answers]
        parsed = [a for a in answers if a[0] != 429]
        attack.say(
            f"{len(answers)} x 100,000 '[' to {name} in {seconds:.0f} s: {counted(statuses)},"
            f" median {statistics.median(times):.0f} ms"
        )
        attack.check(
            f"deep JSON to {name} is a 400 problem (429 once the rate is spent)",
            bool(parsed) and all(a[0] == 400 and "problem+json" in a[1] for a in parsed),
            f"{counted(statuses)}; {parsed[0][3][:100]!r}" if parsed else counted(statuses),
        )


# -- the run -------------------------------------------------------------------------------------


def seed_store(total: int) -> int:
    """Other games' events up to ``total`` in the store (100 a stream), as the owner.

    Called once: the streams ``game-10000000`` on are no game of this run.
    """
    from django.db import connection

    from events.models import Event

    have = Event.objects.count()
    if have < total:
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO events_event (stream, sequence, type, version, payload,"
                " cause_kind, cause_id, recorded_at, idempotency_key, command_hash, batch_size)"
                " SELECT 'game-' || (10000000 + n / 100), (n %% 100) + 1, 'move', 1, %s::jsonb,"
                " 'seat', '0', now(), NULL, '', 1 FROM generate_series(0, %s) AS n",
                [json.dumps(PASS), total - have - 1],
            )
            cursor.execute("ANALYZE events_event")
    return Event.objects.count()


def stream_tournament() -> int:
    """A small bot tournament played to its end in this process: the stream's history."""
    from engine.series import SeriesFormat
    from tournaments import services
    from tournaments.management.commands.play_bots import run_all_bots

    club = services.create_club("Stream club", slug="stream-club")
    bots = [services.add_player(club, f"Bot {i}", bot_level="random") for i in range(8)]
    tournament = services.create_tournament(
        club, "Streamed", "old_maid", 1, series=SeriesFormat("losses", 3), table_max=4
    )
    for bot in bots:
        services.register(tournament, bot)
    services.begin_round(services.start_round(tournament, auto_check_in=True))
    run_all_bots(tournament)
    return tournament.pk


def accounts(tokens: int) -> list[str]:
    """Login targets (``target-N``, a staff ``staff-0``) and ``tokens`` users' API tokens."""
    from django.contrib.auth.models import User

    from tournaments.api.authentication import create_token

    for n in range(40):
        User.objects.create_user(f"target-{n}", password=PASSWORD)
    User.objects.create_user("staff-0", password=PASSWORD, is_staff=True)
    found = []
    for n in range(tokens):
        user = User.objects.create_user(f"streamer-{n}", password=PASSWORD)
        found.append(create_token(user, "streams")[1])
    return found


async def sample_usage(pgid: int, peak: Usage) -> None:
    """The most threads and connections of the web processes, every half second."""
    while True:
        now = await asyncio.to_thread(usage, pgid)
        peak.threads = max(peak.threads, now.threads)
        peak.redis = max(peak.redis, now.redis)
        peak.postgres = max(peak.postgres, now.postgres)
        await asyncio.sleep(0.5)


def quiet_figures(others: Others, start: float, end: float) -> tuple[float, float, float, float]:
    """The other users' median and p99, and healthz's, between ``start`` and ``end``."""
    quiet = others.window(start, end) or [0.0]
    probes = others.window(start, end, health=True) or [0.0]
    return (
        statistics.median(quiet),
        percentile(quiet, 0.99),
        statistics.median(probes),
        percentile(probes, 0.99),
    )


def judge(
    attack: Attack,
    others: Others,
    before: tuple[float, float, float, float],
    first: tuple[float, float, float, float],
) -> None:
    """The other users during ``attack`` against the quiet just ``before`` it (the machine
    is shared: its load drifts) and the run's ``first`` quiet baseline."""
    during = others.window(attack.start, attack.end)
    probes = others.window(attack.start, attack.end, health=True)
    failures = others.failures(attack.start, attack.end)
    if not during:
        attack.check("the other users were served", False, "no answer during the attack")
        return
    median, p99 = statistics.median(during), percentile(during, 0.99)
    attack.say(
        f"others ({len(during)} requests in {attack.end - attack.start:.0f} s): median"
        f" {median:.1f} ms, p99 {p99:.1f} ms, max {max(during):.0f} ms; quiet before:"
        f" {before[0]:.1f} / {before[1]:.1f} ms -> x{median / before[0]:.2f},"
        f" x{p99 / before[1]:.2f}; first baseline {first[0]:.1f} / {first[1]:.1f} ms ->"
        f" x{median / first[0]:.2f}, x{p99 / first[1]:.2f}"
    )
    if probes:
        attack.say(
            f"healthz: median {statistics.median(probes):.1f} ms, p99"
            f" {percentile(probes, 0.99):.1f} ms (quiet before: {before[2]:.1f} /"
            f" {before[3]:.1f} ms)"
        )
    ratio = max(median / before[0], p99 / before[1])
    attack.check(
        "others' median and p99 within 2x of the quiet just before",
        ratio <= 2 and not failures,
        f"median x{median / before[0]:.2f}, p99 x{p99 / before[1]:.2f}"
        + (f"; failed: {failures}" if failures else ""),
    )


async def run(stack: Stack, args: argparse.Namespace, setup: dict[str, Any]) -> list[Attack]:
    import subprocess

    base = stack.url
    others = Others(path=stack.folder / "others.jsonl")
    assert stack.web is not None and stack.web.popen is not None
    pgid = stack.web.popen.pid
    child = subprocess.Popen(
        [
            sys.executable,
            __file__,
            "--be-the-other-users",
            json.dumps(
                [base, setup["token"], setup["game"], setup["tournament"], str(others.path)]
            ),
        ]
    )
    quick = args.quick
    await asyncio.sleep(2)  # the first requests of each process warm it up
    started = time.monotonic()
    await asyncio.sleep(args.baseline)
    first = quiet_figures(others, started, time.monotonic())
    count = len(others.window(started, time.monotonic()))
    idle = usage(pgid)
    print(
        f"quiet baseline ({count} requests in {args.baseline:.0f} s): median"
        f" {first[0]:.1f} ms, p99 {first[1]:.1f} ms; healthz {first[2]:.1f} /"
        f" {first[3]:.1f} ms; web processes idle: {idle.threads} threads, {idle.redis} Redis"
        f" and {idle.postgres} PostgreSQL connections",
        flush=True,
    )
    hold = 8.0 if quick else 30.0
    plan = {
        "a": ("a", "wrong passwords", lambda a: attack_logins(base, a, quick)),
        "b": (
            "b",
            f"16 anonymous tournament-stream loops over {setup['events']:,} events",
            lambda a: attack_stream_loops(base, setup["stream_tournament"], a, hold),
        ),
        "c": (
            "c",
            "1,000 SSE streams from one client",
            lambda a: attack_streams(base, setup["game"], setup["tokens"], a, hold, 1000),
        ),
        "d": (
            "d",
            "1,000 long-polls from one client",
            lambda a: attack_long_polls(
                base,
                setup["game"],
                setup["sequence"],
                setup["tokens"],
                a,
                1000,
                8 if quick else 25,
            ),
        ),
        "g": (
            "g",
            "1,000 WebSockets of the push channel from one client, each following a game",
            lambda a: attack_sockets(base, setup["game"], setup["tokens"], a, hold, 1000),
        ),
        "e": (
            "e",
            "records verify of a record of 9,900 arranges",
            lambda a: attack_records(base, a, hold),
        ),
        "f": (
            "f",
            "100,000 nested '['",
            lambda a: attack_deep_json(base, setup["game"], setup["attacker_token"], a, hold),
        ),
    }
    done = []
    for key in args.only.split(","):
        name, title, start = plan[key.strip()]
        attack = Attack(name, title)
        print(f"\n({name}) {title}", flush=True)
        started = time.monotonic()
        await asyncio.sleep(args.quiet)
        quiet = quiet_figures(others, started, time.monotonic())
        before = usage(pgid)
        peak = Usage()
        sampling = asyncio.ensure_future(sample_usage(pgid, peak))
        server_cpu, own_cpu = cpu_seconds(pgid), time.process_time()
        attack.start = time.monotonic()
        await start(attack)
        attack.end = time.monotonic()
        server_cpu, own_cpu = cpu_seconds(pgid) - server_cpu, time.process_time() - own_cpu
        sampling.cancel()
        judge(attack, others, quiet, first)
        attack.say(
            f"CPU during it ({attack.end - attack.start:.1f} s, 2 cores): the web processes"
            f" {server_cpu:.1f} s, the attackers' client (this process) {own_cpu:.1f} s"
        )
        await asyncio.sleep(3)  # the machine settles before the next
        after = usage(pgid)
        attack.say(
            f"web processes: threads {before.threads} before, {peak.threads} at most,"
            f" {after.threads} 3 s after; Redis connections {before.redis} / {peak.redis} /"
            f" {after.redis}; PostgreSQL connections {before.postgres} / {peak.postgres} /"
            f" {after.postgres}"
        )
        if name in ("c", "d", "g"):
            attack.check(
                "the web processes' threads stay bounded by the caps",
                peak.threads - before.threads <= 64,
                f"{peak.threads - before.threads} more threads at most",
            )
            attack.check(
                "no idle Redis connections left behind",
                after.redis <= before.redis + 8,
                f"{after.redis} 3 s after against {before.redis} before",
            )
        done.append(attack)
    started = time.monotonic()
    await asyncio.sleep(min(args.baseline, 10))
    again = others.window(started, time.monotonic())
    print(
        f"\nquiet again at the end: median {statistics.median(again):.1f} ms, p99"
        f" {percentile(again, 0.99):.1f} ms",
        flush=True,
    )
    child.terminate()
    child.wait(timeout=30)
    return done


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == "--be-the-other-users":
        return others_main(*json.loads(sys.argv[2]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="shorter and smaller")
    parser.add_argument("--url", default=DEFAULT_PG, help="PostgreSQL (an admin connection)")
    parser.add_argument("--redis", default=DEFAULT_REDIS)
    parser.add_argument("--db", default="parlour_abuse", help="the run's own database")
    parser.add_argument("--cache-db", type=int, default=5)
    parser.add_argument("--broker-db", type=int, default=12)
    parser.add_argument("--web-workers", type=int, default=4)
    parser.add_argument("--pool", type=int, default=10, help="DATABASE_POOL_SIZE per process")
    parser.add_argument("--events", type=int, default=None, help="events of other games")
    parser.add_argument("--baseline", type=float, default=None, help="seconds of quiet")
    parser.add_argument(
        "--quiet", type=float, default=None, help="seconds of quiet before each attack"
    )
    parser.add_argument("--only", default="a,b,c,d,g,e,f", help="the attacks to run, in order")
    parser.add_argument("--keep", action="store_true", help="keep the database")
    parser.add_argument(
        "--no-proxy",
        action="store_true",
        help="the web processes alone, without compose's nginx in front (deploy/nginx.conf)",
    )
    args = parser.parse_args()
    if args.events is None:
        args.events = 10_000 if args.quick else 92_000
    if args.baseline is None:
        args.baseline = 6.0 if args.quick else 30.0
    if args.quiet is None:
        args.quiet = 4.0 if args.quick else 15.0
    role = f"{args.db}_app"
    password = uuid.uuid4().hex
    print(
        f"abuse run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, load average"
        f" {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
        flush=True,
    )
    stack = Stack.from_args(args.db, args)
    for name in PRODUCTION_RATES:
        stack.env.pop(name, None)
    stack.env["PARLOUR_NUM_PROXIES"] = "1"
    try:
        with stack:
            from events.roles import grant_app_role

            grant_app_role(role, password)
            app_url = stack.database_url.replace("://postgres@", f"://{role}:{password}@", 1)
            stack.env.update(DATABASE_URL=app_url, POSTGRES_URL=app_url)
            started = time.perf_counter()
            stream_id = stream_tournament()
            events = seed_store(args.events)
            tournament, seats = person_tables("abuse", 1, people_per_table=2, bots_per_table=0)
            tokens = accounts(12)
            from tournaments.models import Game

            game = Game.objects.get(pk=seats[0].game)
            setup = {
                "stream_tournament": stream_id,
                "events": events,
                "tournament": tournament,
                "game": game.pk,
                "sequence": game.sequence,
                "token": seats[0].token,
                # The other player of the game: the deep-JSON attacker (its own token's
                # rate, not the other users').
                "attacker_token": seats[1].token,
                "tokens": tokens,
            }
            print(
                f"set up in {time.perf_counter() - started:.0f} s: {events:,} events in the store;"
                f" the web processes and the worker connect as {role}",
                flush=True,
            )
            stack.start_web(args.web_workers, "asgi", pool=args.pool)
            if not args.no_proxy:
                stack.start_proxy()
            stack.start_worker("worker", beat=False)
            stack.start_beat()
            print(
                f"gunicorn parlour.asgi, {args.web_workers} uvicorn workers, pool {args.pool}"
                f"{'' if args.no_proxy else ', behind nginx (deploy/nginx.conf)'};"
                " one Celery worker and beat; DEBUG=false; production throttles",
                flush=True,
            )
            random.seed(1)
            attacks = asyncio.run(run(stack, args, setup))
    finally:
        try:
            admin_sql(args.url, f'DROP ROLE IF EXISTS "{role}"')
        except Exception as error:  # noqa: BLE001 - the database may still hold its grants
            print(f"could not drop the role {role}: {error}", file=sys.stderr)
    checks = [check for attack in attacks for check in attack.checks]
    notes = [f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}"]
    return report("abuse (bench/abuse.py)", checks, notes)


if __name__ == "__main__":
    sys.exit(main())
