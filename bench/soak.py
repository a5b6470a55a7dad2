"""Soak: bot tournaments of all four games back to back, the worker killed on the way.

    .venv/bin/python bench/soak.py [--shape embedded|production] [--minutes 30] [--kills 3]

``embedded`` (the default) runs what ``make run`` runs, with no configuration:
``manage.py migrate``, ``manage.py load_demo`` and ``python -m parlour.devserver``
(SQLite, the SQLite broker, uvicorn and a worker with beat, supervised) in
a folder of its own; the live demo (``PARLOUR_DEMO_LIVE``) begins a bot
tournament of the next game as each one reaches its last round.
``production`` runs the shape of docker-compose.yml through bench/faults/stack.py
(PostgreSQL, Redis, gunicorn with uvicorn workers, two Celery workers and beat on
its own; ``--redis`` a Redis of its own is best on a shared machine); this script
begins the bot tournaments itself, the four games in turn, one after another.

Every ``minutes / (kills + 1)`` the worker's whole process group is killed with
SIGKILL: the launcher restarts it in the embedded shape, this script after 1 s
(compose's ``restart:``) in the production one.  Meanwhile a client reads the home
page, its live fragment, the running games and a game's view once a second.

It prints: games finished, events stored, crashes and restarts, tasks lost (a bot
to act with nothing happening for a minute at the end: work nobody will do),
tasks recovered by the sweep (a bot move that came later than the stall period),
streams with a gap, 5xx answers, home pages with no tournament playing, and the
worst time a seat waited for its bot or timeout.  ``--json`` prints the figures as
one JSON line as well (``tests/workers/test_soak.py`` reads it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))

from bench.faults.players import bot_tournament  # noqa: E402
from bench.faults.stack import DEFAULT_PG, DEFAULT_REDIS, Stack, free_port  # noqa: E402

PYTHON = sys.executable
GAMES = ("bhabhi", "old_maid", "give_away", "give_and_take")
#: A bot to act in a game where nothing happened for this long has lost its task for good.
LOST_SECONDS = 60.0


@dataclass
class Figures:
    shape: str
    minutes: float
    games_finished: int = 0
    games_running: int = 0
    tournaments_finished: int = 0
    events: int = 0
    kills: int = 0
    restarts: int = 0
    unplanned_crashes: int = 0
    given_up: int = 0
    tasks_lost: int = 0
    recovered_by_sweep: int = 0
    streams: int = 0
    streams_with_gap: int = 0
    requests: int = 0
    answers_5xx: int = 0
    request_errors: int = 0
    homes_with_nothing_playing: int = 0
    worst_bot_wait_s: float = 0.0
    p99_bot_wait_s: float = 0.0
    worst_timeout_lateness_s: float = 0.0
    notes: list[str] = field(default_factory=list)


# -- the client: pages and API once a second ------------------------------------------------


class Watcher(threading.Thread):
    """Reads what a visitor and a client read, counting 5xx answers and empty homes."""

    def __init__(self, url: str, figures: Figures) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.figures = figures
        self.stopped = threading.Event()

    def get(self, path: str) -> tuple[int, bytes]:
        self.figures.requests += 1
        try:
            with urllib.request.urlopen(self.url + path, timeout=30) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()
        except OSError:
            self.figures.request_errors += 1
            return 0, b""

    def run(self) -> None:
        while not self.stopped.wait(1.0):
            status, body = self.get("/")
            if status >= 500:
                self.figures.answers_5xx += 1
            elif status == 200 and b'class="live-tournament"' not in body:
                self.figures.homes_with_nothing_playing += 1
            for path in ("/?fragment=live", "/api/v1/games?status=running"):
                status, body = self.get(path)
                self.figures.answers_5xx += status >= 500
                if path.startswith("/api/") and status == 200:
                    games = json.loads(body).get("results") or []
                    if games:
                        status, _ = self.get(f"/api/v1/games/{games[0]['id']}")
                        self.figures.answers_5xx += status >= 500


# -- the figures from the database ----------------------------------------------------------


def measure(figures: Figures, stall_seconds: float) -> None:
    """Games, events, gaps, lost and late work: read from the run's database."""
    from django.db import connection, connections
    from django.utils import timezone

    from events.store import read_stream
    from tournaments.models import Game, Tournament
    from tournaments.workers.autoplay import bot_to_act

    connections.close_all()
    figures.games_finished = Game.objects.exclude(status=Game.Status.RUNNING).count()
    figures.games_running = Game.objects.filter(status=Game.Status.RUNNING).count()
    figures.tournaments_finished = Tournament.objects.filter(
        status=Tournament.Status.FINISHED
    ).count()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT stream, COUNT(*), MIN(sequence), MAX(sequence) FROM events_event"
            " GROUP BY stream"
        )
        streams = cursor.fetchall()
    figures.streams = len(streams)
    figures.events = sum(s[1] for s in streams)
    figures.streams_with_gap = sum(1 for s in streams if not (s[2] == 1 and s[3] == s[1]))
    now = timezone.now()
    waits: list[float] = []
    for game in Game.objects.all():
        events = read_stream(game.stream)
        for before, event in zip(events, events[1:], strict=False):
            gap = (event.recorded_at - before.recorded_at).total_seconds()
            if event.cause_kind == "bot":
                waits.append(gap)
                figures.recovered_by_sweep += gap > stall_seconds
            elif event.cause_kind == "timeout":
                turn = (game.context or {}).get("turn_seconds") or 0
                figures.worst_timeout_lateness_s = max(
                    figures.worst_timeout_lateness_s, gap - float(turn)
                )
        if (
            game.status == Game.Status.RUNNING
            and events
            and now - events[-1].recorded_at > timedelta(seconds=LOST_SECONDS)
            and bot_to_act(game) is not None
        ):
            figures.tasks_lost += 1
    waits.sort()
    if waits:
        figures.worst_bot_wait_s = round(waits[-1], 3)
        figures.p99_bot_wait_s = round(waits[max(0, int(0.99 * len(waits)) - 1)], 3)
    figures.worst_timeout_lateness_s = round(figures.worst_timeout_lateness_s, 3)


# -- the embedded shape: make run -------------------------------------------------------------


def soak_embedded(args: argparse.Namespace, figures: Figures) -> None:
    folder = Path(tempfile.mkdtemp(prefix="parlour-soak-"))
    var = folder / "var"
    port = args.port or free_port()
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "DATABASE_URL",
            "POSTGRES_URL",
            "REDIS_URL",
            "CELERY_BROKER_URL",
            "DJANGO_SETTINGS_MODULE",
        )
        and not k.startswith("PARLOUR_")
    }
    env.update(PARLOUR_VAR_DIR=str(var), PORT=str(port), PYTHONPATH=str(ROOT))
    for command in (["migrate", "--noinput"], ["load_demo"]):
        subprocess.run(
            [PYTHON, "manage.py", *command], cwd=ROOT, env=env, check=True, capture_output=True
        )
    log = folder / "devserver.log"
    with log.open("wb") as out:
        launcher = subprocess.Popen(
            [PYTHON, "-m", "parlour.devserver"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def worker_pids() -> list[int]:
        text = log.read_text(errors="replace")
        return [int(p) for p in re.findall(r"worker started \(pid (\d+)\)", text)]

    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while not _answers(url):
            if launcher.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("make run did not start:\n" + log.read_text()[-3000:])
            time.sleep(0.2)
        # The soak reads the same database as the stack (SQLite, read only here).
        os.environ.update(
            DJANGO_SETTINGS_MODULE="parlour.settings",
            PARLOUR_VAR_DIR=str(var),
            DATABASE_URL=f"sqlite:///{var / 'parlour.sqlite3'}",
        )
        for name in ("POSTGRES_URL", "REDIS_URL", "CELERY_BROKER_URL"):
            os.environ.pop(name, None)
        import django

        django.setup()
        _play(args, figures, url, kill=lambda: _kill_embedded(worker_pids, figures))
        text = log.read_text(errors="replace")
        figures.restarts = len(worker_pids()) - 1 + text.count("web server started") - 1
        crashes = text.count(") stopped:")
        figures.unplanned_crashes = crashes - figures.kills
        figures.given_up = text.count("so it is not started again")
        measure(figures, stall_seconds=5.0)
    finally:
        os.kill(launcher.pid, signal.SIGINT)  # Ctrl-C
        try:
            code = launcher.wait(timeout=60)
            figures.notes.append(f"make run stopped on Ctrl-C with exit code {code}")
        except subprocess.TimeoutExpired:
            os.killpg(launcher.pid, signal.SIGKILL)
            launcher.wait()
            figures.notes.append("make run did not stop within 60 s of Ctrl-C: killed")
        figures.notes.append(f"logs in {folder}")


def _kill_embedded(worker_pids: Any, figures: Figures) -> None:
    before = worker_pids()
    os.killpg(before[-1], signal.SIGKILL)
    figures.kills += 1
    deadline = time.monotonic() + 15
    while len(worker_pids()) == len(before) and time.monotonic() < deadline:
        time.sleep(0.1)
    figures.notes.append(
        f"kill {figures.kills}: worker {before[-1]} killed,"
        f" {'restarted' if len(worker_pids()) > len(before) else 'NOT restarted'}"
    )


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=2) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


def _play(
    args: argparse.Namespace, figures: Figures, url: str, *, kill: Any, tick: Any = None
) -> None:
    """Watch for ``minutes``, killing the worker ``kills`` times at even intervals."""
    watcher = Watcher(url, figures)
    watcher.start()
    start = time.monotonic()
    end = start + args.minutes * 60
    kill_at = [start + (i + 1) * (end - start) / (args.kills + 1) for i in range(args.kills)]
    while time.monotonic() < end:
        if kill_at and time.monotonic() >= kill_at[0]:
            kill_at.pop(0)
            kill()
        if tick is not None:
            tick()
        time.sleep(0.5)
    # Let what was under way at the end settle (a killed worker's work is requeued
    # by the sweep after its stall period) before the figures are read.
    time.sleep(8)
    watcher.stopped.set()
    watcher.join(timeout=40)


# -- the production shape: compose's processes --------------------------------------------------


def soak_production(args: argparse.Namespace, figures: Figures) -> None:
    with Stack(
        f"parlour_soak_{os.getpid()}",
        pg_url=args.url,
        redis_url=args.redis,
        cache_db=10,
        broker_db=11,
        sweep_seconds=1.0,
        stall_seconds=5.0,
    ) as stack:
        workers = [
            stack.start_worker("worker-a", beat=False),
            stack.start_worker("worker-b", beat=False),
        ]
        beat = stack.start_beat()
        stack.start_web(2, "asgi", pool=8)
        from tournaments.models import Tournament

        running: list[int] = []
        count = [0]

        def tick() -> None:
            # One tournament of bots at a time, the four games in turn (back to back).
            if running and Tournament.objects.get(pk=running[-1]).status != "finished":
                return
            game = GAMES[count[0] % len(GAMES)]
            size = 3 if game == "give_and_take" else 4
            running.append(bot_tournament(f"s{count[0]}", 12, game, 2, size, 2))
            count[0] += 1

        def kill() -> None:
            target = workers[figures.kills % len(workers)]
            target.kill()
            figures.kills += 1
            time.sleep(1.0)  # compose's restart policy
            stack.restart(target)
            figures.restarts += 1
            figures.notes.append(f"kill {figures.kills}: {target.name} killed and started again")

        _play(args, figures, stack.url, kill=kill, tick=tick)
        for process in [*workers, beat, stack.web]:
            if process is not None and not process.alive():
                figures.unplanned_crashes += 1
                figures.notes.append(f"{process.name} not running at the end: {process.tail(5)}")
        measure(figures, stall_seconds=5.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--shape", choices=["embedded", "production"], default="embedded")
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--kills", type=int, default=3, help="SIGKILLs of the worker")
    parser.add_argument("--port", type=int, default=0, help="embedded: the web server's port")
    parser.add_argument("--url", default=DEFAULT_PG, help="production: PostgreSQL (admin)")
    parser.add_argument("--redis", default=DEFAULT_REDIS, help="production: Redis")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args(argv)
    figures = Figures(args.shape, args.minutes)
    if args.shape == "embedded":
        soak_embedded(args, figures)
    else:
        soak_production(args, figures)
    print(f"\n== soak: {args.shape} shape, {args.minutes:g} minutes, {args.kills} kills ==")
    for name, value in asdict(figures).items():
        if name != "notes":
            print(f"{name:28} {value}")
    for note in figures.notes:
        print(f"  {note}")
    if args.json:
        print(json.dumps(asdict(figures)))
    ok = (
        figures.tasks_lost == 0
        and figures.streams_with_gap == 0
        and figures.answers_5xx == 0
        and figures.unplanned_crashes == 0
        and figures.given_up == 0
        and figures.restarts >= figures.kills
        # make run's live demo: the home page always shows a tournament being played.
        and (args.shape != "embedded" or figures.homes_with_nothing_playing == 0)
    )
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
