"""HTTP load on the real stack: many games at once through the API, and where the time goes.

    .venv/bin/python bench/load.py [--quick] [--levels 1,8,32,128] [--seconds 20]
                                   [--server wsgi|asgi] [--web-workers 3] [--celery 2]
                                   [--people 1] [--bots 1]
                                   [--compose] [--redis-outage SECONDS --redis URL]
                                   [--transport http|ws] [--database NAME]
                                   [--cache-db N] [--broker-db N]

Makes its own database ``parlour_load`` (``--database``) on the local PostgreSQL
(``--url``; dropped at the end unless ``--keep``), uses Redis databases 8 (cache,
throttle counts; ``--cache-db``) and 9 (Celery broker; ``--broker-db``), which it
flushes, and starts:

* the web server: ``gunicorn parlour.wsgi:application -k gthread --workers N --threads T``
  (``--server asgi``: ``parlour.asgi`` with uvicorn workers, as docker-compose runs it;
  at 32 and more players it runs PostgreSQL out of connections, see
  docs/operations.md, so it is not the default on a shared machine);
* ``celery -A parlour worker --beat --concurrency=C``, which plays the bot seats.

``--compose`` runs docker-compose.yml's defaults instead, read from that file: its
web service (gunicorn with uvicorn workers, ``--workers`` and ``DATABASE_POOL_SIZE``
as the file sets them), its worker (``--concurrency`` as set there, no pool,
connections kept 60 s) and beat on its own; the machine's PostgreSQL should have
compose's ``max_connections`` (100, postgres:16's default).  ``--redis-outage S``
stops the Redis of ``--redis`` (``shutdown nosave``) for S seconds in the middle of
each level's measured time and starts it again, empty: it must be a Redis of the
run's own (not 6379, which everyone on the machine shares).  Every 5xx answer is
counted by status (and a 503 without ``Retry-After`` apart).

For each level (1, 8, 32, 128 concurrent players) it sets up, with Django code, a
one-round Old Maid tournament of that many tables, each a person and a heuristic
bot (``--people``, ``--bots``: other tables, e.g. ``--people 2 --bots 0`` for two
people and no worker on the path), each person with a login and an API token; then
each person is an asyncio task on one ``aiohttp`` session that plays its seat as a
client would: ``GET`` the game; when its seat is waited for, ``POST`` a random legal
action with the sequence it saw and a fresh ``Idempotency-Key``; otherwise long-poll
``GET …?after=<sequence>&wait=<--long-poll>`` (``--long-poll 0``: poll again after
``--poll`` seconds, doubling up to 8 x while nothing changes); when a game
ends, find the table's next game.  With ``--transport ws`` each person instead opens
one WebSocket to the push channel (``/api/v1/ws``), follows its game, is pushed every
new view and sends its moves over it (a move's latency: from sending it to its
answer; pushed views are counted as *waits*).  A bot's move is played by the worker after the
commit before it.  After ``--warmup`` seconds the run is measured for
``--seconds``: accepted actions per second (the people's POSTs; bot moves counted
apart), the latency of the POSTs and of the GETs (median, 99th percentile),
conflicts (another seat moved first), errors, and the CPU each part used (and what
the rest of the machine used meanwhile).

Then the action path is profiled in this process: ``--profile-requests`` POSTs
through Django's test client (the whole Django/DRF stack, without the socket)
under cProfile, the time split per layer: HTTP/Django/DRF machinery, token
authentication, throttles, the game-access checks, the service (load/fold, the
engine's decide, the store append, the projection, the commit, after-commit
signal and Celery publish) and the response view.

Everything stops at the end; a table is printed. docs/benchmarks.md ("HTTP load")
records the figures.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # before bench/, whose engine.py would shadow the package

from bench.action_profile import profile_actions  # noqa: E402
from bench.faults.players import (  # noqa: E402
    latency_line,
    person_tables,
    run_players,
)
from bench.faults.stack import Stack, percentile  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def compose_defaults() -> dict[str, Any]:
    """docker-compose.yml's web and worker settings: what production runs by default."""
    import yaml

    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    web = " ".join(services["web"]["command"])
    worker = " ".join(services["worker"]["command"])
    workers = re.search(r"--workers[= ](\d+)", web)
    concurrency = re.search(r"--concurrency[= ](\d+)", worker)
    assert workers and concurrency and "uvicorn" in web, (web, worker)
    return {
        "server": "asgi",
        "web_workers": int(workers.group(1)),
        "pool": int(services["web"]["environment"]["DATABASE_POOL_SIZE"]),
        "celery": int(concurrency.group(1)),
    }


def redis_outage(redis_url: str, after: float, outage: float, notes: list[str]) -> threading.Thread:
    """In ``after`` seconds, stop the Redis of ``redis_url`` for ``outage`` seconds, empty."""
    from urllib.parse import urlparse

    from bench.faults.redis_restart import start_command

    port = urlparse(redis_url).port or 6379

    def run() -> None:
        time.sleep(after)
        subprocess.run(["redis-cli", "-p", str(port), "shutdown", "nosave"], check=False)
        stopped = time.monotonic()
        time.sleep(outage)
        subprocess.run(start_command(port), check=True)
        notes.append(f"Redis :{port} down {time.monotonic() - stopped:.1f} s")

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def group_cpu(pgid: int | None) -> float:
    """CPU seconds (user + system) used so far by the processes of group ``pgid``."""
    if pgid is None:
        return 0.0
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:
            # utime, stime and the same of reaped children (gunicorn restarts, pool workers)
            total += sum(int(x) for x in fields[11:15])
    return total / TICKS


def postgres_cpu() -> float:
    """CPU seconds used so far by every PostgreSQL process (shared with anything else),
    backends that exited included (in the postmaster's children's times)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if not (entry / "comm").read_text().startswith("postgres"):
                continue
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # The postmaster's cutime/cstime hold what its exited backends used.
        total += sum(int(x) for x in fields[11:15])
    return total / TICKS


def machine_busy() -> float:
    """CPU seconds the whole machine has been busy (every process, every core)."""
    fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    ticks = [int(x) for x in fields]
    idle = ticks[3] + ticks[4]  # idle, iowait
    return (sum(ticks[:8]) - idle) / TICKS


def events_between(start: datetime, end: datetime, tournament: int) -> dict[str, int]:
    """Events of ``tournament``'s games recorded in [start, end], by cause kind."""
    from django.db import connection

    from tournaments.models import Game

    streams = [g.stream for g in Game.objects.filter(table__round__tournament_id=tournament)]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT cause_kind, COUNT(*) FROM events_event WHERE stream = ANY(%s)"
            " AND recorded_at BETWEEN %s AND %s GROUP BY cause_kind",
            [streams, start, end],
        )
        return {kind: count for kind, count in cursor.fetchall()}


# -- main ------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short runs: 1,8,32 for 4 s each")
    parser.add_argument("--levels", default="1,8,32,128")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--poll", type=float, default=0.02, help="seconds between polls")
    parser.add_argument(
        "--long-poll",
        type=float,
        default=25.0,
        help="seconds a client's GET ?after=<sequence> waits for the next move (0: poll instead)",
    )
    parser.add_argument("--game", default="old_maid")
    parser.add_argument("--people", type=int, default=1, help="people at each table")
    parser.add_argument("--bots", type=int, default=1, help="bots at each table")
    parser.add_argument(
        "--server",
        choices=["asgi", "wsgi"],
        default="wsgi",
        help="wsgi: gthread workers (default); asgi: uvicorn workers, as docker-compose runs"
        " (runs PostgreSQL out of connections at 32+ players: docs/operations.md)",
    )
    parser.add_argument("--web-workers", type=int, default=3)
    parser.add_argument(
        "--threads",
        type=int,
        default=0,
        help="gthread threads per web worker (wsgi; default 24 with long-polls, which hold a"
        " thread each while they wait, else 8)",
    )
    parser.add_argument("--celery", type=int, default=2, help="worker concurrency")
    parser.add_argument(
        "--pool",
        type=int,
        default=0,
        help="DATABASE_POOL_SIZE of each web process (0: no pool; as docker-compose: 20)",
    )
    parser.add_argument(
        "--compose",
        action="store_true",
        help="docker-compose.yml's defaults (read from it): ASGI workers and their pool,"
        " the worker's concurrency, beat on its own",
    )
    parser.add_argument(
        "--redis-outage",
        type=float,
        default=0.0,
        help="stop --redis (a Redis of the run's own) this many seconds mid-level",
    )
    parser.add_argument(
        "--transport",
        choices=["http", "ws"],
        default="http",
        help="http: the REST API (a POST a move, long-polls); ws: the push channel, one"
        " WebSocket a player (needs --server asgi)",
    )
    parser.add_argument(
        "--database", default="parlour_load", help="the run's own database (made and dropped)"
    )
    parser.add_argument("--cache-db", type=int, default=8, help="Redis database of the cache")
    parser.add_argument("--broker-db", type=int, default=9, help="Redis database of the broker")
    parser.add_argument("--profile-requests", type=int, default=300)
    parser.add_argument("--url", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--keep", action="store_true", help="keep the database parlour_load")
    parser.add_argument(
        "--settings",
        default="parlour.settings",
        help="settings module of the web and worker processes (to try a change; on PYTHONPATH)",
    )
    args = parser.parse_args()
    levels = [int(x) for x in args.levels.split(",")]
    if args.compose:
        for name, value in compose_defaults().items():
            setattr(args, name, value)
    if args.redis_outage and (re.search(r":6379\b", args.redis) or ":" not in args.redis[8:]):
        parser.error("--redis-outage stops that Redis: give a Redis of the run's own (--redis)")
    if not args.threads:
        args.threads = 24 if args.long_poll > 0 else 8
    if args.quick:
        levels = [n for n in levels if n <= 32]
        args.seconds, args.warmup, args.profile_requests = 4.0, 1.0, 60
    if args.redis_outage:
        # An outage run measures answers, not the action path (whose profile waits for
        # bot moves that an emptied broker lost until the sweep finds them).
        args.profile_requests = 0

    rows: list[dict[str, Any]] = []
    if args.transport == "ws" and args.server != "asgi":
        parser.error("--transport ws needs --server asgi (the push channel is ASGI only)")
    stack_of = Stack.from_args(args.database, args)
    with stack_of as stack:
        stack.env["DJANGO_SETTINGS_MODULE"] = args.settings
        worker = stack.start_worker("worker", beat=not args.compose, concurrency=args.celery)
        if args.compose:
            stack.start_beat()  # compose's beat service: one scheduler of its own
        web = stack.start_web(args.web_workers, args.server, args.threads, args.pool)
        outages: list[str] = []
        server = (
            ("docker-compose.yml's defaults: " if args.compose else "")
            + f"gunicorn {args.server} x{args.web_workers}"
            + (f" ({args.threads} threads)" if args.server == "wsgi" else "")
            + (f", pool of {args.pool} connections" if args.pool else "")
            + f", celery --concurrency={args.celery}"
            + (", beat on its own" if args.compose else " --beat")
            + (f", Redis stopped {args.redis_outage:g} s mid-level" if args.redis_outage else "")
            + (
                ", clients on the push channel (WebSocket)"
                if args.transport == "ws"
                else f", clients long-poll {args.long_poll:g} s"
                if args.long_poll > 0
                else f", clients poll every {args.poll:g} s+"
            )
            + (f", settings {args.settings}" if args.settings != "parlour.settings" else "")
        )
        print(f"stack: {server}; logs in {stack.folder}")
        for level in levels:
            if level % args.people:
                print(f"{level} players do not fill tables of {args.people} people: skipped")
                continue
            tournament, seats = person_tables(
                f"l{level}",
                level // args.people,
                game=args.game,
                people_per_table=args.people,
                bots_per_table=args.bots,
            )
            pgids = {"web": web.popen.pid if web.popen else None}
            pgids["worker"] = worker.popen.pid if worker.popen else None
            cpu_before = {k: group_cpu(v) for k, v in pgids.items()} | {"pg": postgres_cpu()}
            cpu_before["machine"] = machine_busy()
            start = datetime.now(UTC)
            if args.redis_outage:
                middle = args.warmup + args.seconds / 2 - args.redis_outage / 2
                redis_outage(args.redis, max(middle, 0.0), args.redis_outage, outages)
            record, wall, client_cpu = run_players(
                stack.url,
                seats,
                args.seconds,
                poll=args.poll,
                long_poll=args.long_poll,
                warmup=args.warmup,
                transport=args.transport,
            )
            end = datetime.now(UTC)
            cpu_after = {k: group_cpu(v) for k, v in pgids.items()} | {"pg": postgres_cpu()}
            cpu_after["machine"] = machine_busy()
            span = (end - start).total_seconds()
            cpu = {k: (cpu_after[k] - cpu_before[k]) / span for k in cpu_after}
            # What the rest of the machine (other people's work) used meanwhile.
            mine = cpu["web"] + cpu["worker"] + cpu["pg"] + client_cpu / span
            cpu["others"] = max(cpu.pop("machine") - mine, 0.0)
            by_cause = events_between(start, end, tournament)
            actions = len(record.acknowledged)
            row = {
                "players": level,
                "actions/s": actions / wall,
                "bot moves/s": by_cause.get("bot", 0) / span,
                "post median": percentile(record.post_ms, 0.5),
                "post p99": percentile(record.post_ms, 0.99),
                "get median": percentile(record.get_ms, 0.5),
                "get p99": percentile(record.get_ms, 0.99),
                "gets/s": len(record.get_ms) / wall,
                "waits/s": record.waits / wall,
                "conflicts": record.conflicts,
                "errors": sum(record.errors.values()),
                "cpu": cpu | {"client": client_cpu / wall},
            }
            rows.append(row)
            print(
                f"{level:>4} players: {actions} actions in {wall:.1f} s ="
                f" {row['actions/s']:.0f}/s (bots {row['bot moves/s']:.0f}/s);"
                f" POST {latency_line(record.post_ms)}; GET {latency_line(record.get_ms)};"
                f" {record.waits} long-polls answered;"
                f" {record.conflicts} conflicts, errors {record.errors or 0};"
                f" CPU cores: web {cpu['web']:.2f}, worker {cpu['worker']:.2f},"
                f" postgres {cpu['pg']:.2f}, client {client_cpu / wall:.2f};"
                f" everything else on the machine {cpu['others']:.2f}"
                + (f"; {outages[-1]}" if args.redis_outage and outages else "")
            )
        # The profile runs in this process: stop the web server first (under ASGI it may
        # hold many database connections, docs/operations.md), keep the worker for the bots.
        web.stop()
        layers, per_request = (
            profile_actions(args.profile_requests, 8) if args.profile_requests > 0 else ([], 0.0)
        )

    print()
    print(f"HTTP load, {args.game} ({args.people} people, {args.bots} bots a table), {server}")
    print(
        f"{'players':>7} {'actions/s':>9} {'bots/s':>7} {'POST med':>9} {'POST p99':>9}"
        f" {'GET med':>8} {'GET p99':>8} {'GETs/s':>7} {'waits/s':>7} {'409s':>5} {'errors':>6}"
        f"  CPU cores web/worker/pg/client/others"
    )
    for r in rows:
        c = r["cpu"]
        print(
            f"{r['players']:>7} {r['actions/s']:>9.0f} {r['bot moves/s']:>7.0f}"
            f" {r['post median']:>7.1f}ms {r['post p99']:>7.1f}ms {r['get median']:>6.1f}ms"
            f" {r['get p99']:>6.1f}ms {r['gets/s']:>7.0f} {r['waits/s']:>7.0f}"
            f" {r['conflicts']:>5} {r['errors']:>6}"
            f"  {c['web']:.2f}/{c['worker']:.2f}/{c['pg']:.2f}/{c['client']:.2f}/{c['others']:.2f}"
        )
    if not layers:
        return 0
    print()
    print(f"Action path, in process (cProfile), {per_request:.1f} ms per POST profiled:")
    for label, ms, share in layers:
        print(f"  {label:<44} {ms:>6.2f} ms {share:>5.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
