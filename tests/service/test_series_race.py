"""The series hooks of one round's tables at once, on the real PostgreSQL (issue 24).

Every table's hook holds its tournament's row ``FOR KEY SHARE`` (not ``FOR UPDATE``), so
the tables of a tournament no longer wait for each other at each game's end; the round's
last tables must still finish it exactly as one would alone.  Here each table of a round
has played its one deal to the end with the hook switched off, and then every table's
hook runs in a process of its own, all started together: the round and the tournament
must be finished, by one of them.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.db import connections, transaction

from tests.service.test_race_postgres import finish, start, start_together, worker_env
from tournaments import sql
from tournaments.models import Round, Table, Tournament

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True, databases=["default", "postgres"]),
]

PG = "postgres"
TABLES = 8

SCRIPT = r"""
import json, sys
import django
django.setup()
from tournaments import play, services
from tournaments.models import Game

command = json.loads(sys.argv[1])
if command["do"] == "setup":
    from tests import factories
    from tournaments.management.commands.play_bots import run_all_bots

    # Each table's deal is played to its end, and its series left for the racers' hooks.
    play.game_ended.disconnect(dispatch_uid="tournaments.services.series.on_game_ended")
    club = factories.club()
    bots = factories.bots(club, 2 * command["tables"])
    night = factories.tournament(
        club, bots, game="old_maid", rounds=1, series=factories.series_of("old_maid", 1),
        table_min=2, table_max=2,
    )
    round_ = factories.begin_round(night)
    run_all_bots(night)
    games = list(Game.objects.filter(table__round=round_).values_list("pk", flat=True))
    over = Game.objects.filter(pk__in=games, status=Game.Status.OVER).count()
    print(json.dumps({"games": games, "over": over, "round": round_.pk}), flush=True)
else:
    game = Game.objects.get(pk=command["game"])  # connected and read before the start
    print("ready", flush=True)
    sys.stdin.readline()
    services.game_over(game)
    print(json.dumps({"done": game.pk}), flush=True)
"""


def _env(tmp_path: Path) -> dict[str, str]:
    # The bots' next moves are queued after each commit: to a broker of the process's own.
    return worker_env(tmp_path) | {
        "CELERY_BROKER_URL": "memory://",
        "CELERY_TASK_ALWAYS_EAGER": "false",
    }


def test_every_table_s_hook_at_once_finishes_the_round_and_the_tournament(
    tmp_path: Path,
) -> None:
    env = _env(tmp_path)
    made: dict[str, Any] = finish(start({"do": "setup", "tables": TABLES}, env, SCRIPT))
    assert len(made["games"]) == TABLES and made["over"] == TABLES, made
    round_ = Round.objects.using(PG).get(pk=made["round"])
    assert round_.status == Round.Status.PLAYING  # no hook has run yet

    racers = [start({"do": "hook", "game": game}, env, SCRIPT) for game in made["games"]]
    outcomes = [finish(racer) for racer in start_together(racers)]

    assert sorted(o["done"] for o in outcomes) == sorted(made["games"])
    tables = Table.objects.using(PG).filter(round_id=round_.pk)
    assert [t.status for t in tables] == [Table.Status.FINISHED] * TABLES
    assert all(t.placings for t in tables)
    round_.refresh_from_db(using=PG)
    assert round_.status == Round.Status.FINISHED and round_.finished_at is not None
    tournament = Tournament.objects.using(PG).get(pk=round_.tournament_id)
    assert tournament.status == Tournament.Status.FINISHED


def test_the_hook_s_lock_lets_other_hooks_in_and_keeps_an_organiser_s_change_out(
    tmp_path: Path,
) -> None:
    """What ``sql.table_tournament_shared`` holds: a second hook's lock is granted at once,
    an organiser's ``FOR UPDATE`` (services.base._lock) is not, until the hook commits."""
    made: dict[str, Any] = finish(start({"do": "setup", "tables": 1}, _env(tmp_path), SCRIPT))
    table = Table.objects.using(PG).get(round_id=made["round"])
    tournament = Round.objects.using(PG).get(pk=made["round"]).tournament_id
    other = _connect()

    def granted(lock: str) -> bool:
        """Whether the other connection gets ``lock`` on the tournament's row now."""
        with other.transaction():
            return (
                other.execute(
                    f"SELECT id FROM tournaments_tournament WHERE id = %s {lock} SKIP LOCKED",
                    [tournament],
                ).fetchone()
                is not None
            )

    try:
        with transaction.atomic(using=PG):
            found = sql.table_tournament_shared(table.pk, PG)
            assert found is not None
            assert (found[0].pk, found[1].pk) == (tournament, made["round"])
            assert granted("FOR KEY SHARE")  # another table's hook
            assert not granted("FOR UPDATE")  # an organiser's change
        assert granted("FOR UPDATE")  # the hook's transaction over: the organiser's turn
    finally:
        other.close()


def test_an_organiser_waiting_for_a_hook_goes_before_the_hooks_that_come_after(
    tmp_path: Path,
) -> None:
    """The tournament's advisory lock queues in order (sql.lock_tournament): a hook that
    comes while an organiser waits for the hooks before it waits for the organiser, so
    tables that keep ending games cannot keep an organiser's change out for ever."""
    made: dict[str, Any] = finish(start({"do": "setup", "tables": 1}, _env(tmp_path), SCRIPT))
    table = Table.objects.using(PG).get(round_id=made["round"])
    tournament = Round.objects.using(PG).get(pk=made["round"]).tournament_id
    organiser, later = _connect(), _connect()
    waiting = threading.Event()
    locked: list[float] = []

    def organiser_change() -> None:
        with organiser.transaction():
            waiting.set()
            organiser.execute(
                "SELECT pg_advisory_xact_lock(%s::integer, %s::integer)",
                [sql.TOURNAMENT_LOCKS, tournament % sql.TOURNAMENT_KEYS],
            )
            locked.append(time.monotonic())

    try:
        with transaction.atomic(using=PG):
            assert sql.table_tournament_shared(table.pk, PG) is not None  # a hook, running
            change = threading.Thread(target=organiser_change)
            change.start()
            waiting.wait(10)
            deadline = time.monotonic() + 10
            while not _waits_for_a_lock(later, organiser) and time.monotonic() < deadline:
                time.sleep(0.02)
            assert not locked, "the organiser went before the running hook"
            with later.transaction():  # a hook that comes now: queued behind the organiser
                (shared,) = later.execute(
                    "SELECT pg_try_advisory_xact_lock_shared(%s::integer, %s::integer)",
                    [sql.TOURNAMENT_LOCKS, tournament % sql.TOURNAMENT_KEYS],
                ).fetchone() or (None,)
            assert shared is False
        change.join(10)
        assert locked, "the organiser never had its turn"
    finally:
        organiser.close()
        later.close()


def _waits_for_a_lock(asking: psycopg.Connection[Any], waiter: psycopg.Connection[Any]) -> bool:
    found = asking.execute(
        "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [waiter.info.backend_pid]
    ).fetchone()
    return found is not None and found[0] == "Lock"


def _connect() -> psycopg.Connection[Any]:
    settings = connections[PG].settings_dict
    return psycopg.connect(
        host=settings["HOST"] or "127.0.0.1",
        port=int(settings["PORT"] or 5432),
        dbname=settings["NAME"],
        user=settings["USER"],
        password=settings.get("PASSWORD") or None,
        autocommit=True,
    )
