"""What a tournament stream costs as the store grows around it (PostgreSQL).

    .venv/bin/python bench/stream_scale.py [--url postgres://postgres@127.0.0.1:5432/postgres]
        [--sizes 10000,1000000] [--repeat 20]

Creates its own database ``parlour_stream_scale`` on that server (dropped at the end),
plays one small bot tournament through the service (its games' events are what the
stream sends), then fills the store with other streams' events up to each size and
times, for each size, the median and worst of ``--repeat`` reads of the whole
tournament stream from its start (``TournamentFeed.poll`` until caught up: the
request that took 7.7 s at 92k events when the stream filtered the global order),
and prints the plan PostgreSQL chose.  docs/benchmarks.md records the figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
from store import admin, setup_django  # noqa: E402

DB = "parlour_stream_scale"
PASS = {"type": "move", "v": 1, "seat": 0, "action": {"type": "pass"}, "chance": False}


def fill(total: int) -> None:
    """Other streams' events up to ``total`` events in the store (100 events a stream)."""
    from django.db import connection

    from events.models import Event

    have = Event.objects.count()
    if have >= total:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO events_event (stream, sequence, type, version, payload, cause_kind,"
            " cause_id, recorded_at, idempotency_key, command_hash, batch_size)"
            " SELECT 'other-' || ((n + %s) / 100), ((n + %s) %% 100) + 1, 'move', 1, %s::jsonb,"
            " 'seat', '0', now(), NULL, '', 1 FROM generate_series(0, %s) AS n",
            [have, have, json.dumps(PASS), total - have - 1],
        )
        cursor.execute("ANALYZE events_event")


def read_stream_once(tournament_id: int) -> tuple[float, int]:
    from django.contrib.auth.models import AnonymousUser

    from tournaments.api.streams import TournamentFeed

    feed = TournamentFeed(tournament_id, AnonymousUser(), None)
    started = time.perf_counter()
    frames = 0
    while True:
        sent, _ = feed.poll()
        frames += len(sent)
        if not sent:
            break
    return time.perf_counter() - started, frames


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--url", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--sizes", default="10000,1000000")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    parts = urlparse(args.url)
    admin(args.url, f"DROP DATABASE IF EXISTS {DB}")
    admin(args.url, f"CREATE DATABASE {DB}")
    try:
        setup_django(urlunparse(parts._replace(path=f"/{DB}")))
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        from django.db import connection

        from engine.series import SeriesFormat
        from events.models import Event
        from tournaments import services
        from tournaments.management.commands.play_bots import run_all_bots

        club = services.create_club("Bench club")
        bots = [services.add_player(club, f"Bot {i}", bot_level="random") for i in range(8)]
        tournament = services.create_tournament(
            club, "Bench", "old_maid", 1, series=SeriesFormat("losses", 3), table_max=4
        )
        for bot in bots:
            services.register(tournament, bot)
        services.begin_round(services.start_round(tournament, auto_check_in=True))
        run_all_bots(tournament)
        own = Event.objects.count()
        # A follower sees an event once every older transaction on the server has ended
        # (docs/store.md): another client's open transaction can hold them back a while.
        deadline = time.monotonic() + 120
        while read_stream_once(tournament.pk)[1] < own and time.monotonic() < deadline:
            time.sleep(0.5)
        print(f"the tournament: {own} events of its own (2 tables, 3 deals each)")
        for size in [int(s) for s in args.sizes.split(",")]:
            fill(size)
            times = []
            frames = 0
            for _ in range(args.repeat):
                seconds, frames = read_stream_once(tournament.pk)
                times.append(seconds * 1000)
            print(
                f"store of {Event.objects.count():>9,} events: the whole tournament stream"
                f" ({frames} frames) in median {statistics.median(times):.1f} ms,"
                f" worst {max(times):.1f} ms"
            )
        from tournaments.api.streams import TournamentFeed

        within = TournamentFeed(tournament.pk, None, None)._streams()
        with connection.cursor() as cursor:
            cursor.execute(
                "EXPLAIN SELECT id FROM events_event WHERE stream IN ("
                + within.sql
                + ") AND (tx, id) > (0, 0) AND tx < (SELECT pg_snapshot_xmin("
                "pg_current_snapshot())::text::bigint) ORDER BY tx, id LIMIT 500",
                list(within.params),
            )
            print("plan:\n  " + "\n  ".join(row[0] for row in cursor.fetchall()))
        connection.close()
    finally:
        admin(args.url, f"DROP DATABASE IF EXISTS {DB}")


if __name__ == "__main__":
    main()
