"""Benchmark of bot games and turn timeouts through real Celery workers.

    .venv/bin/python bench/bots.py [--url postgres://postgres@127.0.0.1:5432/postgres]
                                   [--redis redis://127.0.0.1:6379] [--games 40]

Creates its own database ``parlour_bench_bots`` on that server (dropped at the
end), uses Redis databases 11 (broker) and 10 (cache), which it flushes, starts
``celery -A parlour worker --beat --concurrency=2`` on them and prints:

* bot games: complete games per minute, all seats bots (random and heuristic),
  played entirely through the worker: each move is one task, queued after the
  commit of the move before it;
* timeouts: Bhabhi games of a person who never acts and two heuristic bots,
  ``turn_seconds=1``, for ``--seconds``; for each timeout event the delay from
  the person's deadline to the event (median, 95th percentile, worst), split
  in two: each game's first timeout, whose task this process never queued, so
  only the periodic sweep (``PARLOUR_SWEEP_SECONDS``, 1 s) can apply it; and
  every later one, queued by the worker after its own commits with ``eta`` =
  the deadline (the fast path).

docs/benchmarks.md ("Bots and timeouts") records the figures measured on the
project's machine.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BENCH_DB = "parlour_bench_bots"
BROKER_DB, CACHE_DB = 11, 10
TURN_SECONDS = 1


def admin(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)


def with_path(url: str, path: str) -> str:
    return urlunparse(urlparse(url)._replace(path=path))


def setup(database: str, redis_base: str) -> dict[str, str]:
    """Point this process at the bench database and Redis; the worker's environment."""
    env = {k: v for k, v in os.environ.items() if k != "PARLOUR_TEST_BOTH_BACKENDS"}
    env.update(
        DATABASE_URL=database,
        CELERY_BROKER_URL=with_path(redis_base, f"/{BROKER_DB}"),
        REDIS_URL=with_path(redis_base, f"/{CACHE_DB}"),
        DJANGO_SETTINGS_MODULE="parlour.settings",
        PYTHONPATH=str(ROOT),
        PARLOUR_BOT_THINK_SECONDS="0",
        LOG_LEVEL="WARNING",
        DEBUG="true",
    )
    os.environ.update(env)
    import django

    django.setup()
    return env


def start_worker(env: dict[str, str], folder: Path) -> subprocess.Popen[bytes]:
    log = folder / "worker.log"
    with log.open("ab") as out:
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "parlour",
                "worker",
                "--beat",
                f"--schedule={folder / 'beat'}",
                "--loglevel=INFO",
                "--concurrency=2",
                "--without-gossip",
                "--without-mingle",
                "--hostname=bench@%h",
            ],
            cwd=ROOT,
            env=env | {"PARLOUR_VAR_DIR": str(folder)},
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    deadline = time.monotonic() + 60
    while "bench@" not in log.read_text() or " ready." not in log.read_text():
        if worker.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the worker did not start:\n" + log.read_text()[-3000:])
        time.sleep(0.1)
    return worker


def stop_worker(worker: subprocess.Popen[bytes]) -> None:
    os.killpg(worker.pid, signal.SIGTERM)
    try:
        worker.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()


def wait_over(ids: list[int], limit: float) -> float:
    """Seconds until every game of ``ids`` is over."""
    from tournaments.models import Game

    started = time.perf_counter()
    while Game.objects.filter(pk__in=ids, status=Game.Status.RUNNING).exists():
        if time.perf_counter() - started > limit:
            raise SystemExit(f"games still running after {limit} s")
        time.sleep(0.05)
    return time.perf_counter() - started


def bot_games(count: int) -> dict[str, Any]:
    from tournaments.models import Game
    from tournaments.play import create_game

    kinds = [("bhabhi", 4), ("give_away", 3), ("old_maid", 4), ("give_and_take", 4)]
    ids: list[int] = []
    started = time.perf_counter()
    for n in range(count):
        kind, seats = kinds[n % len(kinds)]
        levels = ["random", "heuristic"] * seats
        context = {
            "seats": [{"player": None, "name": f"bot {s}", "bot": levels[s]} for s in range(seats)]
        }
        ids.append(create_game(kind, seats, context=context).pk)
    wait_over(ids, 600)
    seconds = time.perf_counter() - started
    moves = sum(Game.objects.filter(pk__in=ids).values_list("sequence", flat=True))
    return {"games": count, "seconds": seconds, "moves": moves}


ON_CHANGE_UID = "tournaments.tasks.on_game_changed"


def deadline_delays(game_ids: list[int], first_only: bool) -> list[float]:
    """For each timeout event: seconds from the seat's deadline to the event.

    The deadline is recomputed from the events as the service does: the time
    of the event after which the seat became waited for, plus ``turn_seconds``.
    """
    from engine.registry import get_game
    from events.store import read_stream
    from tournaments.models import Game

    delays: list[float] = []
    for game in Game.objects.filter(pk__in=game_ids):
        engine = get_game(game.kind)
        state: Any = None
        since: dict[int, datetime] = {}
        for event in read_stream(game.stream):
            if event.cause_kind == "timeout":
                seat = event.payload["seat"]
                due = since[seat] + timedelta(seconds=TURN_SECONDS)
                delays.append((event.recorded_at - due).total_seconds())
                if first_only:
                    break
            state = engine.evolve(state, event.payload)
            waiting = set(engine.waiting_for(state))
            since = {s: since.get(s, event.recorded_at) for s in waiting}
    return delays


def deck_where_seat_0_leads(rng: random.Random) -> list[str]:
    """A shuffled Bhabhi deck for 3 seats, dealer 2, where seat 0 is the first waited for."""
    from engine.registry import get_game

    engine = get_game("bhabhi")
    while True:
        deck = list(engine.deck)
        rng.shuffle(deck)
        if engine.waiting_for(engine.fold(engine.deal(3, 2, deck, None))) == [0]:
            return deck


def person_games(count: int) -> list[int]:
    """Bhabhi games of a person (seat 0, to act first) and two heuristic bots, a 1 s clock.

    The person never acts: every one of their turns ends in a timeout (about 20
    a game).  This process queues nothing for these games (its receiver is
    disconnected while it deals): the person's first deadline can only be
    found by the sweep.  After that first timeout the worker's own commits
    queue every later task.
    """
    from tournaments import play
    from tournaments.workers.tasks import on_game_changed

    context = {
        "seats": [
            {"player": None, "name": "person", "bot": None},
            {"player": None, "name": "bot 1", "bot": "heuristic"},
            {"player": None, "name": "bot 2", "bot": "heuristic"},
        ]
    }
    rng = random.Random(2026)
    decks = [deck_where_seat_0_leads(rng) for _ in range(count)]
    play.game_changed.disconnect(dispatch_uid=ON_CHANGE_UID)
    try:
        return [
            play.create_game(
                "bhabhi", 3, dealer=2, deck=deck, turn_seconds=TURN_SECONDS, context=context
            ).pk
            for deck in decks
        ]
    finally:
        play.game_changed.connect(on_game_changed, dispatch_uid=ON_CHANGE_UID)


def summary(delays: list[float]) -> str:
    ordered = sorted(delays)
    p95 = ordered[max(0, round(0.95 * len(ordered)) - 1)]
    return (
        f"{len(ordered)} timeouts: median {statistics.median(ordered) * 1000:.0f} ms,"
        f" 95th percentile {p95 * 1000:.0f} ms, worst {ordered[-1] * 1000:.0f} ms"
        f" (earliest {ordered[0] * 1000:.0f} ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--timeout-games", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long timeouts run")
    args = parser.parse_args()

    database = with_path(args.url, f"/{BENCH_DB}")
    admin(args.url, f"DROP DATABASE IF EXISTS {BENCH_DB}")
    admin(args.url, f"CREATE DATABASE {BENCH_DB}")
    worker = None
    try:
        env = setup(database, args.redis)
        import redis
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        for db in (BROKER_DB, CACHE_DB):
            redis.Redis.from_url(with_path(args.redis, f"/{db}")).flushdb()
        folder = Path(tempfile.mkdtemp(prefix="parlour-bench-bots-"))
        worker = start_worker(env, folder)
        print(f"worker: celery -A parlour worker --beat --concurrency=2 (log {folder})")

        played = bot_games(args.games)
        per_minute = played["games"] / played["seconds"] * 60
        print(
            f"bot games: {played['games']} games ({played['moves']} events) in"
            f" {played['seconds']:.1f} s: {per_minute:.0f} games/min,"
            f" {played['moves'] / played['seconds']:.0f} events/s"
        )

        ids = person_games(args.timeout_games)
        time.sleep(args.seconds)
        first = deadline_delays(ids, first_only=True)
        every = deadline_delays(ids, first_only=False)
        later = sorted(every)
        for delay in first:
            later.remove(delay)
        print("timeouts, sweep only (each game's first, no task queued):", summary(first))
        print("timeouts, fast path (a task with eta = the deadline):", summary(later))
    finally:
        if worker is not None:
            stop_worker(worker)
        from django.db import connections

        connections.close_all()
        admin(args.url, f"DROP DATABASE IF EXISTS {BENCH_DB}")


if __name__ == "__main__":
    main()
