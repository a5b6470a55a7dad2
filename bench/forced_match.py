"""How long a whole Give Away match takes when the server plays every move.

    .venv/bin/python bench/forced_match.py [--url sqlite:///var/bench_forced.sqlite3] [--matches 5]

Migrates the database at ``--url`` (a SQLite file by default; give your own
PostgreSQL database to measure on it), runs Celery's tasks in this process
(``CELERY_TASK_ALWAYS_EAGER``, so no pause and no broker: the server's own work
only) and plays ``--matches`` tournament matches, first to 3 round wins, per
table: two, three and four people (their forced moves played for them), and two
bots.  Prints deals, moves and seconds per match.  Record the figures in
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def setup_django(url: str) -> None:
    os.environ["DATABASE_URL"] = url
    os.environ["CELERY_TASK_ALWAYS_EAGER"] = "true"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "parlour.settings")
    os.environ.pop("PARLOUR_TEST_BOTH_BACKENDS", None)
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def one_match(people: int, bots: int, n: int) -> tuple[int, int, float]:
    """Deals, moves and seconds of one first-to-3 match at a table of ``people`` and ``bots``."""
    from django.contrib.auth.models import User

    from events import store
    from tournaments import services
    from tournaments.models import Game, Round

    tag = f"{time.time_ns()}-{n}"
    club = services.create_club(f"Bench {tag}", slug=f"bench-{tag}")
    players = [
        services.add_player(club, f"P{p}", user=User.objects.create_user(f"p{p}-{tag}"))
        for p in range(people)
    ] + [services.add_player(club, f"B{b}", bot_level="heuristic") for b in range(bots)]
    night = services.create_tournament(
        club,
        "Bench",
        "give_away",
        1,
        series={"kind": "first_to", "target": 3},
        table_min=len(players),
        table_max=len(players),
    )
    for player in players:
        services.register(night, player)
    started = time.perf_counter()
    round_ = services.begin_round(services.start_round(night, auto_check_in=True))
    seconds = time.perf_counter() - started
    round_.refresh_from_db()
    assert round_.status == Round.Status.FINISHED, "the match did not play itself out"
    games = list(Game.objects.filter(table__round=round_))
    moves = sum(len(store.read_stream(g.stream)) - 1 for g in games)
    return len(games), moves, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=f"sqlite:///{ROOT / 'var' / 'bench_forced.sqlite3'}")
    parser.add_argument("--matches", type=int, default=5)
    args = parser.parse_args()
    (ROOT / "var").mkdir(exist_ok=True)
    setup_django(args.url)
    print(f"Give Away, first to 3, {args.matches} matches per table, {args.url.split(':')[0]}")
    print(f"{'table':<16}{'deals':>7}{'moves':>7}{'s/match':>9}{'max s':>7}{'moves/s':>9}")
    for people, bots in ((2, 0), (3, 0), (4, 0), (0, 2)):
        runs = [one_match(people, bots, n) for n in range(args.matches)]
        seconds = [r[2] for r in runs]
        moves = sum(r[1] for r in runs)
        label = f"{people} people" if people else f"{bots} bots"
        print(
            f"{label:<16}{statistics.mean(r[0] for r in runs):>7.1f}"
            f"{statistics.mean(r[1] for r in runs):>7.0f}{statistics.mean(seconds):>9.2f}"
            f"{max(seconds):>7.2f}{moves / sum(seconds):>9.0f}"
        )


if __name__ == "__main__":
    main()
