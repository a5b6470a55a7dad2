"""The leak check over many games: every game at every seat count, every byte searched.

    .venv/bin/python bench/leaks.py [--games 200] [--url postgres://postgres@127.0.0.1:5432/postgres]
                                    [--database parlour_bench_leaks] [--only old_maid]

Creates its own database (``--database``, dropped at the end) on that server,
migrates it, and plays ``--games`` random games of each game, spread over its seat
counts (Give Away 2-6, Old Maid 2-6, Bhabhi 3-8, Give & Take 2-4), through the API
with the checks of tests/fuzz/leaks.py: each viewer (each seat, an anonymous caller, a
club player without a seat, the organiser) reads ``--per-step`` of the game's surfaces
every ``--stride`` steps, staggered so some viewer reads at every step (view, long-poll,
events, record, stream, table, tournament and its stream, the pages and fragments), the
acting seat's answer is read at every step, and every byte is searched for what is
hidden from that viewer, computed from the engine's full state and the stored events.
Prints per game: games, steps, responses and bytes checked, hits (leaks); exits 1 on
any hit.  Games are seeded by their number (``--first`` to start elsewhere).  Record
the figures in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def admin(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--url", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--database", default="parlour_bench_leaks")
    parser.add_argument("--games", type=int, default=200, help="games of each game")
    parser.add_argument("--first", type=int, default=0, help="the first game's seed")
    parser.add_argument("--per-step", type=int, default=1, help="surfaces a viewer reads a step")
    parser.add_argument(
        "--stride", type=int, default=1, help="a viewer reads every N steps (staggered)"
    )
    parser.add_argument("--only", default="", help="one game (default: all four)")
    parser.add_argument(
        "--language", default="en", choices=["en", "ru"], help="the language viewers ask for"
    )
    args = parser.parse_args()

    # Stopped by a signal, it still drops its database (the finally below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    database = urlunparse(urlparse(args.url)._replace(path=f"/{args.database}"))
    admin(args.url, f"DROP DATABASE IF EXISTS {args.database}")
    admin(args.url, f"CREATE DATABASE {args.database}")
    # The figures are about what is checked, not about the disk: no wait for each commit.
    admin(args.url, f"ALTER DATABASE {args.database} SET synchronous_commit = off")
    os.environ["DATABASE_URL"] = database
    os.environ["CELERY_BROKER_URL"] = "memory://"  # no worker: moves' tasks go nowhere
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")
    os.environ.pop("PARLOUR_TEST_BOTH_BACKENDS", None)
    os.environ.pop("REDIS_URL", None)  # the local memory cache: nothing shared
    import django

    django.setup()
    try:
        from django.conf import settings
        from django.core.management import call_command
        from django.test.utils import override_settings, setup_test_environment

        from tests.fuzz.conftest import HIGH_RATES
        from tests.fuzz.leaks import SEAT_COUNTS, Tally, play_game

        call_command("migrate", verbosity=0)
        setup_test_environment()  # the test client's host, in-memory mail
        rest = dict(settings.REST_FRAMEWORK) | {"DEFAULT_THROTTLE_RATES": HIGH_RATES}
        # Bhabhi's games are the longest: last, so the others' figures come first.
        kinds = [args.only] if args.only else ["give_and_take", "give_away", "old_maid", "bhabhi"]
        total = Tally()
        failed = False
        with override_settings(
            REST_FRAMEWORK=rest,
            PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"],
            PARLOUR_STREAM_POLL_SECONDS=0.001,
            PARLOUR_STREAM_SECONDS=0.5,
            PARLOUR_LONG_POLL_SECONDS=0.05,
        ):
            for kind in kinds:
                counts = list(SEAT_COUNTS[kind])
                tally = Tally()
                started = time.perf_counter()
                for n in range(args.games):
                    seats = counts[n % len(counts)]
                    tally.add(
                        play_game(
                            kind, seats, args.first + n, args.per_step, args.stride, args.language
                        )
                    )
                    if (n + 1) % 25 == 0 and n + 1 < args.games:
                        print(
                            f"  {kind}: {tally.games} games, {tally.steps} steps,"
                            f" {tally.responses} responses, {len(tally.hits)} hits"
                            f" ({time.perf_counter() - started:.0f} s)",
                            flush=True,
                        )
                seconds = time.perf_counter() - started
                print(
                    f"{kind} (seats {counts[0]}-{counts[-1]}): {tally.games} games,"
                    f" {tally.steps} steps, {tally.responses} responses,"
                    f" {tally.bytes / 1e6:.1f} MB checked, {len(tally.hits)} hits"
                    f" ({seconds:.0f} s)",
                    flush=True,
                )
                for hit in tally.hits[:10]:
                    print(f"  leak: {hit}")
                failed = failed or bool(tally.hits)
                total.add(tally)
        print(
            f"all: {total.games} games, {total.steps} steps, {total.responses} responses,"
            f" {total.bytes / 1e6:.1f} MB checked, {len(total.hits)} hits"
        )
    finally:
        from django.db import connections

        connections.close_all()  # this thread's; the push channel's threads keep theirs
        admin(args.url, f"DROP DATABASE IF EXISTS {args.database} WITH (FORCE)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
