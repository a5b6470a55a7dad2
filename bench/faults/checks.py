"""What the fault runs check, and one fault run from start to report.

:func:`check_store` proves what the fault runs promise: every acknowledged
action is in the store once, every stream is gap-free and replays legally, and
the projections rebuilt from the events equal the live ones.  :func:`run_fault`
is the whole run the scripts beside this file share, each with its own fault.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))

from bench.faults.players import bot_tournament, person_tables, run_players  # noqa: E402
from bench.faults.stack import DEFAULT_PG, DEFAULT_REDIS, Process, Stack  # noqa: E402

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
    #: When the fault first struck (``time.monotonic()``), noted by :meth:`strike`.
    struck_at: float | None = None

    def note(self, text: str) -> None:
        stamp = time.strftime("%H:%M:%S")
        self.notes.append(f"{stamp} {text}")
        print(f"{stamp} {text}", flush=True)

    def strike(self, text: str) -> None:
        """Note the fault striking (the first time: when it struck)."""
        if self.struck_at is None:
            self.struck_at = time.monotonic()
        self.note(text)


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
    and a bot (``--deals`` each, 30 by default: still playing when the fault strikes)
    whose people play through the API on
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
    parser.add_argument(
        "--deals",
        type=int,
        default=30,
        help="deals a people's table plays (enough for the people to be playing when the"
        " fault strikes, a few seconds in)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the database")
    parser.add_argument(
        "--outage", type=float, default=2.0, help="seconds a restarted service stays down"
    )
    parser.add_argument(
        "--transport",
        choices=["http", "ws"],
        default="http",
        help="how the people play: the REST API (http) or the push channel (ws, a WebSocket each)",
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
        people, seats = person_tables(name, args.tables, deals=args.deals)
        run.note(
            f"started: {len(seats)} people's tables ({args.transport}) and a tournament of 12 bots"
        )
        failed: list[BaseException] = []

        def strike() -> None:
            try:
                inject(run)
            except BaseException as error:  # noqa: BLE001 - reported below
                failed.append(error)
                run.note(f"the fault itself failed: {error!r}")

        thread = threading.Thread(target=strike, daemon=True)
        thread.start()
        record, wall, _ = run_players(stack.url, seats, 240.0, poll=0.02, transport=args.transport)
        people_done = time.monotonic()
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
        # A fault that struck after the people's last move tested only the bots: their
        # tables must still have been playing (more --deals if not).
        struck = run.struck_at
        checks.insert(
            0,
            Check(
                "the fault struck while the people played",
                struck is not None and struck < people_done,
                "it did not strike"
                if struck is None
                else f"{people_done - struck:+.1f} s before their last move",
            ),
        )
        if failed:
            checks.append(Check("the fault was injected", False, repr(failed[0])))
        # A worker that logged Celery's "Unrecoverable error" is going down even while its
        # process lingers (kombu's crash at a Redis restart: docs/operations.md).
        dead = [process for process in workers if not process.alive() or process.crashed()]
        for process in dead:
            why = process.crashed() or process.tail(5)
            run.note(f"{process.name} is down or going down: {why}")
        checks.append(
            Check(
                "the workers and beat are still running",
                not dead,
                ", ".join(f"{p.name} {'stopped' if p in dead else 'running'}" for p in workers),
            )
        )
        return report(f"fault run: {name}", checks, run.notes)
