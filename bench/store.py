"""Benchmark of the event store and the game service on PostgreSQL.

    .venv/bin/python bench/store.py [--url postgres://postgres@127.0.0.1:5432/postgres]

Creates its own database ``parlour_bench`` on that server (dropped at the end),
migrates it and prints:

* appends per second, one writer (one event per append, each its own
  transaction, committed with the server's durability settings);
* appends per second with 16 writer processes, each on its own stream, and
  with 16 writers contending for one stream (accepted appends per second);
* the time to load and fold a finished game of each kind: the longest of the
  games played (at the fewest, 4 and the most seats), median of 200 loads,
  without the service's cache;
* action round trips per second through the service (``submit_action``,
  one process: load, decide, append, project, commit).

docs/benchmarks.md records the figures measured on the project's machine.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BENCH_DB = "parlour_bench"


def admin(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)


def setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")
    os.environ.pop("PARLOUR_TEST_BOTH_BACKENDS", None)
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()


def event(n: int) -> Any:
    from events.store import NewEvent

    payload = {"type": "move", "v": 1, "seat": n % 4, "action": {"type": "pass"}, "chance": False}
    return [NewEvent("move", payload, "seat", str(n % 4))]


def append_run(stream: str, count: int) -> int:
    """Append ``count`` events to ``stream``, retrying conflicts; the number of conflicts."""
    from events.store import Conflict, append, stream_sequence

    conflicts = 0
    seen = stream_sequence(stream)
    done = 0
    while done < count:
        try:
            seen = append(stream, event(done), expected_sequence=seen).sequence
            done += 1
        except Conflict as conflict:
            conflicts += 1
            seen = conflict.current_sequence
    return conflicts


def writer(url: str, stream: str, count: int, barrier: Any, queue: Any) -> None:
    setup_django(url)
    from django.db import connection

    connection.ensure_connection()
    barrier.wait()
    started = time.perf_counter()
    conflicts = append_run(stream, count)
    queue.put((time.perf_counter() - started, conflicts))
    connection.close()


def concurrent(url: str, writers: int, count: int, shared: bool) -> tuple[float, int]:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(writers + 1)
    queue = context.Queue()
    procs = [
        context.Process(
            target=writer,
            args=(
                url,
                "shared" if shared else f"w{shared}-{w}-{time.time_ns()}",
                count,
                barrier,
                queue,
            ),
        )
        for w in range(writers)
    ]
    for p in procs:
        p.start()
    barrier.wait()
    started = time.perf_counter()
    results = [queue.get(timeout=600) for _ in procs]
    wall = time.perf_counter() - started
    for p in procs:
        p.join()
    return writers * count / wall, sum(c for _, c in results)


def play_through_service(kind: str, seats: int, rng: random.Random) -> tuple[int, int, float]:
    """Play one game through the service; (game id, actions, seconds in submit_action)."""
    from engine.registry import get_game
    from tournaments import play as service

    game = service.create_game(kind, seats)
    engine = get_game(kind)
    actions, spent = 0, 0.0
    while not game.is_over:
        state = service.load_state(game)
        seat = rng.choice(game.waiting_for or game.to_act)
        action = rng.choice(engine.legal_actions(state, seat))
        started = time.perf_counter()
        service.submit_action(game.pk, seat, action, expected_sequence=game.sequence)
        spent += time.perf_counter() - started
        actions += 1
        game.refresh_from_db(fields=["sequence", "status", "to_act", "waiting_for"])
    return game.pk, actions, spent


def main() -> None:
    parser = argparse.ArgumentParser(description="Benchmark the event store on PostgreSQL.")
    parser.add_argument("--url", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--appends", type=int, default=3000, help="appends by the single writer")
    parser.add_argument("--each", type=int, default=500, help="appends per concurrent writer")
    parser.add_argument("--games", type=int, default=12, help="games per kind through the service")
    args = parser.parse_args()
    url = urlunparse(urlparse(args.url)._replace(path=f"/{BENCH_DB}"))
    admin(args.url, f"DROP DATABASE IF EXISTS {BENCH_DB}")
    admin(args.url, f"CREATE DATABASE {BENCH_DB}")
    try:
        setup_django(url)
        run(url, args)
    finally:
        from django.db import connections

        connections.close_all()
        admin(args.url, f"DROP DATABASE IF EXISTS {BENCH_DB}")


def run(url: str, args: argparse.Namespace) -> None:
    from django.core.management import call_command
    from django.db import connection

    from engine.registry import all_games, get_game
    from events.store import read_stream
    from tournaments import play as service

    call_command("migrate", verbosity=0)
    with connection.cursor() as cursor:
        cursor.execute("SELECT version(), current_setting('synchronous_commit')")
        version, sync = cursor.fetchone()
    print(
        f"PostgreSQL: {version.split(' on ')[0]}, synchronous_commit={sync}; {os.cpu_count()} CPUs"
    )

    started = time.perf_counter()
    append_run("single", args.appends)
    single = args.appends / (time.perf_counter() - started)
    print(f"appends/s, 1 writer:                       {single:8.0f}")
    connection.close()
    rate, _ = concurrent(url, 16, args.each, shared=False)
    print(f"appends/s, 16 writers, 16 streams:         {rate:8.0f}")
    rate, conflicts = concurrent(url, 16, args.each // 5, shared=True)
    print(
        f"appends/s, 16 writers, 1 stream (accepted):{rate:8.0f}   ({conflicts} conflicts retried)"
    )

    rng = random.Random(1)
    total_actions, total_time = 0, 0.0
    finished: dict[str, tuple[int, int]] = {}
    for engine in all_games():
        tables = sorted({engine.min_seats, min(4, engine.max_seats), engine.max_seats})
        for n in range(args.games):
            seats = tables[n % len(tables)]
            game_id, actions, spent = play_through_service(engine.id, seats, rng)
            total_actions += actions
            total_time += spent
            events = len(read_stream(service.stream_name(game_id)))
            if events > finished.get(engine.id, (0, 0))[1]:
                finished[engine.id] = (game_id, events)
    print(
        f"service round trips/s (submit_action):     {total_actions / total_time:8.0f}"
        f"   ({total_actions} actions, 1 process)"
    )

    print(
        f"load + fold, longest of {args.games} finished games per kind (median of 200, no cache):"
    )
    for kind, (game_id, events) in sorted(finished.items()):
        engine = get_game(kind)
        stream = service.stream_name(game_id)
        times = []
        for _ in range(200):
            started = time.perf_counter()
            engine.fold(e.payload for e in read_stream(stream))
            times.append(time.perf_counter() - started)
        median = statistics.median(times) * 1000
        print(f"  {kind:14} {events:4} events  {median:6.2f} ms")


if __name__ == "__main__":
    main()
