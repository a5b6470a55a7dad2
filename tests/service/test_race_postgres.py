"""Races on the real PostgreSQL: separate processes through the real service.

The processes are plain ``python -c`` children pointed (by ``DATABASE_URL``) at
the test database pytest-django created for the ``postgres`` alias.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

import pytest
from django.conf import settings
from django.db import connections

from engine.registry import get_game
from events.store import Position, StoredEvent, read_all, read_stream
from tournaments.models import Game

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.django_db(transaction=True, databases=["default", "postgres"]),
]

ROOT = Path(__file__).resolve().parents[2]
PG = "postgres"

WORKER = r"""
import json, random, sys
import django
django.setup()
from tournaments import play as service
from tournaments.play import Conflict
from tournaments.models import Game
from engine.registry import get_game

command = json.loads(sys.argv[1])
if command["do"] == "create":
    game = service.create_game(command["kind"], command["seats"])
    print(json.dumps({"id": game.pk}), flush=True)
elif command["do"] == "race":
    service.load_state(command["game"])  # connected and folded before the start
    print("ready", flush=True)
    sys.stdin.readline()
    try:
        result = service.submit_action(
            command["game"], command["seat"], command["action"],
            expected_sequence=command["expected"], idempotency_key=command.get("key"),
        )
        print(json.dumps({"accepted": result.sequence, "replayed": result.replayed}), flush=True)
    except Conflict as conflict:
        print(json.dumps({"conflict": conflict.current_sequence}), flush=True)
elif command["do"] == "play":
    rng = random.Random(command["seed"])
    for kind in command["kinds"]:
        game = service.create_game(kind, command["seats"])
        engine = get_game(kind)
        while not game.is_over:
            state = service.load_state(game)
            seat = rng.choice(game.waiting_for or game.to_act)
            action = rng.choice(engine.legal_actions(state, seat))
            service.submit_action(game.pk, seat, action, expected_sequence=game.sequence)
            game.refresh_from_db()
    print(json.dumps({"done": True}), flush=True)
"""


def worker_env(tmp_path: Path) -> dict[str, str]:
    name = connections[PG].settings_dict["NAME"]
    url = urlunparse(urlparse(str(settings.POSTGRES_URL))._replace(path=f"/{name}"))
    env = {k: v for k, v in os.environ.items() if k != "PARLOUR_TEST_BOTH_BACKENDS"}
    env.update(
        DATABASE_URL=url,
        DJANGO_SETTINGS_MODULE="parlour.settings",
        PYTHONPATH=str(ROOT),
        PARLOUR_VAR_DIR=str(tmp_path / "var"),
    )
    return env


def start(
    command: dict[str, Any], env: dict[str, str], script: str = WORKER
) -> subprocess.Popen[str]:
    """A child running ``script`` with ``command`` (JSON) as its argument."""
    return subprocess.Popen(
        [sys.executable, "-c", script, json.dumps(command)],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = process.communicate(timeout=120)
    assert process.returncode == 0, err
    return dict(json.loads(out.strip().splitlines()[-1]))


def create(kind: str, seats: int, env: dict[str, str]) -> int:
    return int(finish(start({"do": "create", "kind": kind, "seats": seats}, env))["id"])


def race(game_id: int, env: dict[str, str], key: str | None) -> tuple[list[dict[str, Any]], int]:
    """16 processes send the one legal action of the seat on turn at the same sequence."""
    events = read_stream(f"game-{game_id}", using=PG)
    engine = get_game("give_away")
    state = engine.fold(e.payload for e in events)
    seat = engine.waiting_for(state)[0]
    action = engine.legal_actions(state, seat)[0]
    command = {
        "do": "race",
        "game": game_id,
        "seat": seat,
        "action": action,
        "expected": len(events),
        "key": key,
    }
    racers = start_together([start(command, env) for _ in range(16)])
    return [finish(r) for r in racers], len(events)


def start_together(racers: list[subprocess.Popen[str]]) -> list[subprocess.Popen[str]]:
    """Once every racer has said "ready", the start signal to all of them."""
    for racer in racers:
        assert racer.stdout is not None and racer.stdout.readline().strip() == "ready"
    for racer in racers:  # the start signal, as close together as a parent can give it
        assert racer.stdin is not None
        racer.stdin.write("go\n")
        racer.stdin.flush()
    return racers


def assert_consistent(game_id: int) -> list[StoredEvent]:
    events = read_stream(f"game-{game_id}", using=PG)
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))
    game = Game.objects.using(PG).get(pk=game_id)
    assert game.sequence == len(events)
    engine = get_game(game.kind)
    fresh = engine.fold(e.payload for e in events)
    assert game.to_act == engine.to_act(fresh) and game.result == engine.outcome(fresh)
    return events


def test_sixteen_processes_acting_at_one_sequence_exactly_one_is_accepted(
    tmp_path: Path,
) -> None:
    env = worker_env(tmp_path)
    game_id = create("give_away", 4, env)
    for round_ in range(2):
        outcomes, expected = race(game_id, env, key=None)
        accepted = [o for o in outcomes if "accepted" in o]
        conflicts = [o for o in outcomes if "conflict" in o]
        assert len(accepted) == 1, outcomes
        assert len(conflicts) == 15
        assert all(c["conflict"] == accepted[0]["accepted"] for c in conflicts)
        events = assert_consistent(game_id)
        assert len(events) == expected + 1, round_


def test_sixteen_retries_of_one_command_store_it_once(tmp_path: Path) -> None:
    env = worker_env(tmp_path)
    game_id = create("give_away", 3, env)
    outcomes, expected = race(game_id, env, key="the-same-command")
    assert sum(1 for o in outcomes if o.get("replayed") is False) == 1, outcomes
    # The others get the first outcome, whichever way they lost: the key found
    # before deciding, the insert colliding, or the stream found moved on.
    assert sum(1 for o in outcomes if o.get("replayed") is True) == 15, outcomes
    assert {o["accepted"] for o in outcomes} == {expected + 1}
    assert len(assert_consistent(game_id)) == expected + 1


def test_a_follower_of_the_global_position_misses_nothing_while_games_run(
    tmp_path: Path,
) -> None:
    env = worker_env(tmp_path)
    kinds = ["give_away", "old_maid", "bhabhi", "give_and_take"]
    players = [
        start({"do": "play", "seed": n, "seats": 3, "kinds": kinds[n % 4 :] + kinds[: n % 4]}, env)
        for n in range(8)
    ]
    seen: list[StoredEvent] = []
    position: Position | None = None
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        running = any(p.poll() is None for p in players)
        page = read_all(position, limit=200, using=PG)
        seen += page
        if page:
            position = page[-1].position
        elif not running:
            break
        else:
            time.sleep(0.005)
    for player in players:
        assert finish(player) == {"done": True}
    keys = [(e.stream, e.sequence) for e in seen]
    assert len(keys) == len(set(keys)), "an event was read twice"
    with connections[PG].cursor() as cursor:
        cursor.execute("SELECT stream, sequence FROM events_event")
        stored = set(cursor.fetchall())
    assert set(keys) == stored, "the follower missed events"
    games = Game.objects.using(PG).all()
    assert games.count() == 8 * 4 and all(g.is_over for g in games)
    for game in games:
        mine = [e for e in seen if e.stream == game.stream]
        assert [e.sequence for e in mine] == list(range(1, game.sequence + 1))
        engine = get_game(game.kind)
        assert engine.outcome(engine.fold(e.payload for e in mine)) == game.result
