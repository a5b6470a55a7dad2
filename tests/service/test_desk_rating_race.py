"""The desk's add-and-register while a table's series ends and rates its players, on the
real PostgreSQL (tournaments/services/ratings.py, ``sql.lock_ratings``).

The finishing table's hook holds its tournament's lock (shared) while it rates the table;
registering the new player waits for that lock (exclusive).  Both must succeed, neither
deadlocked nor failed, and the kept ratings must be what the games' events fold to.

The two are made to overlap, not left to chance: the hook's child stops just before it rates
the table until the desk's child, its player added (not committed), waits for the
tournament's lock; then the hook goes on.  Children, as in test_series_race.py: the services
use the ``default`` database, which they point at the ``postgres`` alias's test database.

(Django makes PostgreSQL's foreign keys ``DEFERRABLE INITIALLY DEFERRED``: the player's row
takes its key-share lock on the club's row at the desk's commit, not at the insert, so while
the desk waits here the club's row is not locked, and the club-row lock the ratings' writers
held before ``lock_ratings`` passes this test too.)
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.service.test_race_postgres import finish, start, worker_env
from tests.service.test_series_race import _connect
from tournaments.models import Registration, Round, Table, Tournament

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True, databases=["default", "postgres"]),
]

PG = "postgres"

SCRIPT = r"""
import json, sys
import django
django.setup()
from django.db import connection
from tournaments import play, services
from tournaments.models import Game, Tournament

command = json.loads(sys.argv[1])
if command["do"] == "setup":
    from tests import factories
    from tournaments.management.commands.play_bots import run_all_bots

    # Round 1's one table plays its one deal to the end, its series left for the hook below;
    # a second round remains, so that the tournament still takes a late entry.
    play.game_ended.disconnect(dispatch_uid="tournaments.services.series.on_game_ended")
    club = factories.club()
    night = factories.tournament(
        club, factories.bots(club, 2), game="old_maid", rounds=2,
        series=factories.series_of("old_maid", 1), table_min=2, table_max=2,
    )
    round_ = factories.begin_round(night)
    run_all_bots(night)
    game = Game.objects.get(table__round=round_)
    print(json.dumps({"game": game.pk, "over": game.is_over, "tournament": night.pk}), flush=True)
elif command["do"] == "hook":
    from tournaments.services import ratings

    rate = ratings.rate_table

    def held(*args, **kwargs):
        print("holding", flush=True)  # the tournament's lock shared, the table's row locked
        sys.stdin.readline()
        rate(*args, **kwargs)

    ratings.rate_table = held
    services.game_over(Game.objects.get(pk=command["game"]))
    print(json.dumps({"rated": True}), flush=True)
elif command["do"] == "desk":
    from tournaments.services import desk

    register = desk.register

    def announced(*args, **kwargs):
        with connection.cursor() as cursor:  # the player's row inserted, not yet committed
            cursor.execute("SELECT pg_backend_pid()")
            print(json.dumps({"added": cursor.fetchone()[0]}), flush=True)
        return register(*args, **kwargs)

    desk.register = announced
    player = desk.add_and_register(Tournament.objects.get(pk=command["tournament"]), "Late Lou")
    print(json.dumps({"player": player.pk}), flush=True)
else:
    from tournaments.standings import club_ratings

    night = Tournament.objects.get(pk=command["tournament"])
    kept, folded = (
        {p: [r.mu, r.sigma] for p, r in club_ratings(night.club, night.game, from_events=f).items()}
        for f in (False, True)
    )
    print(json.dumps({"kept": kept, "folded": folded}), flush=True)
"""


def test_adding_and_registering_a_player_while_a_table_is_rated_both_succeed(
    tmp_path: Path,
) -> None:
    env = worker_env(tmp_path)
    made: dict[str, Any] = finish(start({"do": "setup"}, env, SCRIPT))
    assert made["over"], made

    hook = start({"do": "hook", "game": made["game"]}, env, SCRIPT)
    assert hook.stdout is not None and hook.stdout.readline().strip() == "holding"
    desk = start({"do": "desk", "tournament": made["tournament"]}, env, SCRIPT)
    assert desk.stdout is not None
    _wait_until_waiting_for_a_lock(int(json.loads(desk.stdout.readline())["added"]))
    assert hook.stdin is not None
    hook.stdin.write("go\n")
    hook.stdin.flush()

    assert finish(hook) == {"rated": True}
    player = finish(desk)["player"]

    registration = Registration.objects.using(PG).get(player_id=player)
    assert registration.tournament_id == made["tournament"] and registration.from_round == 2
    table = Table.objects.using(PG).get(games__pk=made["game"])
    assert table.status == Table.Status.FINISHED
    assert Round.objects.using(PG).get(pk=table.round_id).status == Round.Status.FINISHED
    tournament = Tournament.objects.using(PG).get(pk=made["tournament"])
    assert tournament.status == Tournament.Status.RUNNING
    ratings = finish(start({"do": "check", "tournament": made["tournament"]}, env, SCRIPT))
    assert len(ratings["kept"]) == 2, ratings  # the table's two players, rated once
    assert ratings["kept"] == ratings["folded"]


def _wait_until_waiting_for_a_lock(pid: int) -> None:
    """Until backend ``pid`` waits for a lock (the desk's register for the tournament's)."""
    watcher = _connect()
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            found = watcher.execute(
                "SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid]
            ).fetchone()
            if found is not None and found[0] == "Lock":
                return
            time.sleep(0.02)
        raise AssertionError(f"backend {pid} never waited for the tournament's lock")
    finally:
        watcher.close()
