"""What a move's writes cost as five round trips against one (issue 24, "What the goal would take").

    .venv/bin/python bench/round_trips.py [--moves 3000]

A move within a deal writes three things in one transaction: its event (the store's
conditional ``INSERT``, as :func:`events.store._insert` writes it), its game's projection
(an ``UPDATE`` of the ten moved columns) and an account notice.  Today that is five round
trips through Django's cursor: ``BEGIN``, the three statements, ``COMMIT``.  This script
times the same writes three ways on the real schema (the database ``--database`` made,
migrated and dropped, as bench/push_move.py does), each ``--moves`` times:

* ``django``: five round trips through Django's cursor, as the game service sends them;
* ``psycopg``: the same five statements on the same connection's psycopg object, prepared;
* ``one``: the three writes as one statement (data-modifying ``WITH`` clauses, the event's
  id written into the projection in the same statement), prepared, in autocommit.

It prints, for each, the CPU time of this process and of PostgreSQL's backend a move, and
the wall time.  Nothing here is the product's code: it measures what a move in one round
trip would save, the first of the things docs/benchmarks.md names, before anyone builds it.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # before bench/, whose engine.py would shadow the package

from bench.faults.stack import Stack  # noqa: E402
from bench.push_move import backend_cpu  # noqa: E402


def statements() -> tuple[str, str, str, str]:
    """The move's ``INSERT`` (the store's own row and columns: :func:`events.store._insert`
    writes it so), ``UPDATE`` and notice's ``INSERT``, and the three as one statement.
    Read once Django is set up (the store's module needs it)."""
    from events.store import _insert_statement

    insert = _insert_statement(1, postgres=True)
    moved = (
        "sequence = %s, last_event = {event}, last_event_at = %s, to_act = %s::jsonb,"
        " waiting_for = %s::jsonb, deadlines = %s::jsonb, status = %s, result = %s::jsonb,"
        " finished_at = %s, seed = %s"
    )
    update = "UPDATE tournaments_game SET " + moved.format(event="%s") + " WHERE id = %s"
    notice = (
        "INSERT INTO tournaments_accountnotice (user_id, game_id, seat, sequence, kind)"
        " VALUES (%s, %s, %s, %s, %s)"
    )
    one = (
        "WITH appended AS (" + insert + "),"
        " moved AS (UPDATE tournaments_game SET "
        + moved.format(event="(SELECT id FROM appended)")
        + " WHERE id = %s AND EXISTS (SELECT 1 FROM appended)),"
        " noticed AS (INSERT INTO tournaments_accountnotice"
        " (user_id, game_id, seat, sequence, kind)"
        " SELECT %s, %s, %s, %s, %s WHERE EXISTS (SELECT 1 FROM appended))"
        " SELECT sequence, id, tx FROM appended"
    )
    return insert, update, notice, one


def move_params(stream: str, sequence: int, game: int, user: int) -> dict[str, list[Any]]:
    """The parameters of move ``sequence`` of ``stream``: a draw, as Old Maid's look."""
    payload = {
        "type": "move",
        "v": 1,
        "seat": sequence % 2,
        "action": {"type": "draw", "index": 0, "card": "7H"},
        "chance": False,
    }
    from events.store import NewEvent, _insert_params

    now = datetime.now(UTC)
    new = [NewEvent("move", payload, "player", "14", 1)]
    event, _ = _insert_params(stream, new, sequence - 1, f"k-{sequence}", "0" * 64, now)
    waited = json.dumps([1 - sequence % 2])
    moved = [sequence, now, waited, waited, "{}", "running", "null", None, ""]
    notice = [user, game, 1 - sequence % 2, sequence, "turn"]
    return {"event": event, "moved": moved, "notice": notice, "game": [game]}


def run(kind: str, moves: int, game: int, user: int) -> tuple[float, float, float]:
    """CPU of this process, of the backend and wall time, each a move, for ``kind``."""
    from django.db import connection, transaction

    INSERT, UPDATE, NOTICE, ONE = statements()
    connection.ensure_connection()
    raw = connection.connection
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = int(cursor.fetchone()[0])
    stream = f"bench-{kind}-{time.monotonic_ns()}"

    def django_move(p: dict[str, list[Any]]) -> None:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(INSERT, p["event"])
            (_, event, _) = cursor.fetchone()
            moved = p["moved"]
            cursor.execute(UPDATE, [moved[0], event, *moved[1:], *p["game"]])
            cursor.execute(NOTICE, p["notice"])

    def psycopg_move(p: dict[str, list[Any]]) -> None:
        with raw.transaction(), raw.cursor() as cursor:
            cursor.execute(INSERT, p["event"], prepare=True)
            (_, event, _) = cursor.fetchone()
            moved = p["moved"]
            cursor.execute(UPDATE, [moved[0], event, *moved[1:], *p["game"]], prepare=True)
            cursor.execute(NOTICE, p["notice"], prepare=True)

    def one_move(p: dict[str, list[Any]]) -> None:
        with raw.cursor() as cursor:
            params = [*p["event"], *p["moved"], *p["game"], *p["notice"]]
            cursor.execute(ONE, params, prepare=True)
            assert cursor.fetchone() is not None

    move: Callable[[dict[str, list[Any]]], None] = {
        "django": django_move,
        "psycopg": psycopg_move,
        "one": one_move,
    }[kind]
    warm = 100
    for sequence in range(1, warm + 1):
        move(move_params(stream, sequence, game, user))
    cpu, pg, wall = time.process_time(), backend_cpu(backend), time.perf_counter()
    for sequence in range(warm + 1, warm + moves + 1):
        move(move_params(stream, sequence, game, user))
    cpu, pg, wall = (
        time.process_time() - cpu,
        backend_cpu(backend) - pg,
        time.perf_counter() - wall,
    )
    return cpu / moves, pg / moves, wall / moves


def measure(moves: int, rounds: int) -> None:
    from django.contrib.auth.models import User
    from django.db import connection

    from tournaments.models import Game

    user = User.objects.create(username="round-trips")
    game = Game.objects.create(kind="old_maid", seats=2, dealer=0)
    assert connection.get_autocommit()
    results: dict[str, list[tuple[float, float, float]]] = {}
    for _ in range(rounds):  # interleaved, so that the machine's drift falls on all three
        for kind in ("django", "psycopg", "one"):
            results.setdefault(kind, []).append(run(kind, moves, game.pk, user.pk))
    print(f"{moves} moves a run, {rounds} runs of each, interleaved; CPU time a move")
    print("writes as                         this process   PostgreSQL's backend   wall")
    names = {
        "django": "five round trips, Django's cursor",
        "psycopg": "five round trips, psycopg",
        "one": "one statement, psycopg",
    }
    for kind, runs in results.items():
        cells = [" / ".join(f"{r[i] * 1000:.3f}" for r in runs) for i in range(3)]
        print(f"{names[kind]:<34}{cells[0]:>16} ms {cells[1]:>20} ms {cells[2]:>16} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    Stack.add_arguments(parser, "parlour_round_trips")
    parser.add_argument("--moves", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with Stack.from_args(args.database, args):
        measure(args.moves, args.rounds)


if __name__ == "__main__":
    main()
