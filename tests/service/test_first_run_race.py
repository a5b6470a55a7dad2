"""The first run is serialised (issue 20): processes submitting it at the same moment on the
real PostgreSQL — and ``create_club`` racing with it — make one first club and organiser."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from tests.service.test_race_postgres import finish, start, start_together, worker_env
from tournaments.models import Club

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True, databases=["default", "postgres"]),
]

PG = "postgres"

RACER = r"""
import json, sys
import django
django.setup()
from django.db import connection
from tournaments import services

command = json.loads(sys.argv[1])
connection.ensure_connection()  # connected before the start signal
print("ready", flush=True)
sys.stdin.readline()
name, username = command["name"], command["username"]
try:
    if command["do"] == "first_run":
        club, user = services.first_run(name, username, "a long club night")
    else:
        club, user = services.create_club_with_organiser(name, username, "a long club night")
    print(json.dumps({"club": club.pk, "user": user.get_username()}), flush=True)
except services.ServiceError as error:
    print(json.dumps({"refused": error.message}), flush=True)
"""


def _race(commands: list[dict[str, Any]], env: dict[str, str]) -> list[dict[str, Any]]:
    racers = start_together([start(command, env, RACER) for command in commands])
    return [finish(r) | {"do": c["do"]} for r, c in zip(racers, commands, strict=True)]


def test_eight_first_runs_at_once_make_one_club_and_one_organiser(tmp_path: Path) -> None:
    commands = [
        {"do": "first_run", "name": f"Club {n}", "username": f"founder{n}"} for n in range(8)
    ]
    outcomes = _race(commands, worker_env(tmp_path))
    made = [o for o in outcomes if "club" in o]
    assert len(made) == 1, outcomes
    assert all("set up already" in o["refused"] for o in outcomes if o not in made), outcomes
    club = Club.objects.using(PG).get()
    assert club.pk == made[0]["club"]
    assert [u.username for u in club.organisers.all()] == [made[0]["user"]]
    assert User.objects.using(PG).count() == 1, "a refused first run left a login behind"


def test_a_first_run_racing_create_club_never_makes_a_second_first_club(
    tmp_path: Path,
) -> None:
    commands = [
        {"do": do, "name": f"{do} {n}", "username": f"{do}{n}"}
        for n in range(4)
        for do in ("first_run", "create_club")
    ]
    outcomes = _race(commands, worker_env(tmp_path))
    welcomed = [o for o in outcomes if o["do"] == "first_run" and "club" in o]
    assert len(welcomed) <= 1, outcomes
    created = [o for o in outcomes if o["do"] == "create_club"]
    assert all("club" in o for o in created), outcomes  # the terminal may always add a club
    clubs = list(Club.objects.using(PG).order_by("pk").values_list("pk", flat=True))
    assert len(clubs) == len(created) + len(welcomed)
    if welcomed:  # a first run only ever makes the install's very first club
        assert welcomed[0]["club"] == clubs[0], outcomes
