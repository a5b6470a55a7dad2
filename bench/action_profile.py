"""Where an action's time goes, layer by layer: the profile ``bench/load.py`` prints.

Each layer of the action path (the API view, the service, the store's append, the
projection, the views) is wrapped with a clock that counts its exclusive time, and
``--profile-requests`` actions are made in this process against the load run's
database, so that the table in docs/benchmarks.md says what each layer costs.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # before bench/, whose engine.py would shadow the package

from bench.faults.players import (  # noqa: E402
    choose_action,
    person_tables,
)
from bench.faults.stack import percentile  # noqa: E402


class LayerClock:
    """Exclusive time per layer of the action path: each wrapped function's own time, less
    the time spent in wrapped functions it called (so nothing is counted twice)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.stack: list[list[float]] = []
        self.undo: list[tuple[Any, str, Any]] = []

    def wrap(self, owner: Any, name: str, label: str) -> None:
        original = owner.__dict__[name] if isinstance(owner, type) else getattr(owner, name)
        clock = self

        def timed(*args: Any, **kwargs: Any) -> Any:
            clock.stack.append([time.perf_counter(), 0.0])
            try:
                return original(*args, **kwargs)
            finally:
                began, inner = clock.stack.pop()
                elapsed = time.perf_counter() - began
                clock.seconds[label] = clock.seconds.get(label, 0.0) + elapsed - inner
                if clock.stack:
                    clock.stack[-1][1] += elapsed

        setattr(owner, name, timed)
        self.undo.append((owner, name, original))

    def restore(self) -> None:
        for owner, name, original in reversed(self.undo):
            setattr(owner, name, original)
        self.undo.clear()


def layer_clock() -> LayerClock:
    """Wrap the functions that mark each layer of the action path."""
    from django.db.backends.base.base import BaseDatabaseWrapper
    from rest_framework.renderers import JSONRenderer
    from rest_framework.views import APIView

    from engine.contract import Game as Engine
    from engine.registry import all_games
    from events import store
    from tournaments import play
    from tournaments.api.authentication import BearerTokenAuthentication
    from tournaments.api.views import games as game_views
    from tournaments.play import commands

    clock = LayerClock()
    clock.wrap(BearerTokenAuthentication, "authenticate", "token authentication")
    clock.wrap(APIView, "check_throttles", "throttles (counts in the Redis cache)")
    clock.wrap(game_views, "game_access", "game access (game row, seat, club)")
    clock.wrap(play, "submit_action", "service: the rest (game row, key lookup)")
    clock.wrap(commands, "_load", "service: load + fold")
    clock.wrap(Engine, "decide", "service: engine decide (+ chance)")
    clock.wrap(Engine, "resolve", "service: engine decide (+ chance)")
    for engine in all_games():
        if "resolve" in type(engine).__dict__:
            clock.wrap(type(engine), "resolve", "service: engine decide (+ chance)")
    clock.wrap(store, "append", "service: store append (INSERT)")
    clock.wrap(commands, "_append_and_project", "service: projection and notices (+ series hook)")
    clock.wrap(BaseDatabaseWrapper, "commit", "service: COMMIT")
    clock.wrap(
        BaseDatabaseWrapper,
        "run_and_clear_commit_hooks",
        "after commit: signal, Celery publish",
    )
    clock.wrap(game_views, "view_of", "response: the new view")
    clock.wrap(JSONRenderer, "render", "response: JSON rendering")
    return clock


ORDER = [
    "token authentication",
    "throttles (counts in the Redis cache)",
    "game access (game row, seat, club)",
    "service: load + fold",
    "service: engine decide (+ chance)",
    "service: store append (INSERT)",
    "service: projection (+ series hook)",
    "service: COMMIT",
    "service: the rest (game row, key lookup)",
    "after commit: signal, Celery publish",
    "response: the new view",
    "response: JSON rendering",
    "HTTP/Django/DRF machinery (the rest)",
]


def profile_actions(requests: int, tables: int) -> tuple[list[tuple[str, float, float]], float]:
    """Time ``requests`` action POSTs in this process per layer: (label, ms/request, %).

    Then profiles as many again under cProfile and prints the functions with the most
    time of their own (the .prof file is kept for pstats or snakeviz).
    """
    from django.test import Client

    _, seats = person_tables("prof", tables)
    client = Client(HTTP_HOST="127.0.0.1")
    rng = random.Random(5)
    games = {s.table: s.game for s in seats}
    clock = layer_clock()
    profiler = cProfile.Profile()
    walls: list[float] = []
    done = 0
    deadline = time.monotonic() + 300
    last_progress = time.monotonic()
    while done < 2 * requests and time.monotonic() < deadline:
        if time.monotonic() - last_progress > 30:
            print("the profile stopped: no action accepted for 30 s (are the bots moving?)")
            break
        progressed = False
        for seat in seats:
            auth = {"HTTP_AUTHORIZATION": f"Bearer {seat.token}"}
            answer = client.get(f"/api/v1/games/{games[seat.table]}", **auth)
            if answer.status_code != 200:
                continue
            view = answer.json()
            if view["status"] == "over":
                answer = client.get(f"/api/v1/tables/{seat.table}", **auth)
                if answer.status_code == 200:
                    found = answer.json()["games"]
                    games[seat.table] = max(found, key=lambda g: g["game_number"])["id"]
                continue
            action = choose_action(view, rng) if view["seat"] in view["waiting_for"] else None
            if action is None:
                continue
            body = {"action": action, "expected_sequence": view["sequence"]}
            timing = done < requests
            if timing:
                clock.stack.clear()
                clock.stack.append([time.perf_counter(), 0.0])
            else:
                clock.restore()
                profiler.enable()
            response = client.post(
                f"/api/v1/games/{games[seat.table]}/actions",
                body,
                content_type="application/json",
                HTTP_IDEMPOTENCY_KEY=f"prof-{done}-{rng.random()}",
                **auth,
            )
            if timing:
                began, inner = clock.stack.pop()
                elapsed = time.perf_counter() - began
                walls.append(elapsed * 1000)
                label = ORDER[-1]
                clock.seconds[label] = clock.seconds.get(label, 0.0) + elapsed - inner
            else:
                profiler.disable()
            if response.status_code == 200:
                done += 1
                progressed = True
                last_progress = time.monotonic()
            if done >= 2 * requests:
                break
        if not progressed:
            time.sleep(0.005)  # the bots' moves, in the worker
    clock.restore()
    timed = max(len(walls), 1)  # every timed POST, accepted or a conflict
    total = sum(clock.seconds.values())
    shown = [
        (
            label,
            clock.seconds.get(label, 0.0) / timed * 1000,
            clock.seconds.get(label, 0.0) / total * 100,
        )
        for label in ORDER
    ]
    path = Path(f"/tmp/parlour-load-{os.getpid()}.prof")
    profiler.dump_stats(path)
    print(f"cProfile of {max(done - requests, 0)} more POSTs: {path}; most time of their own:")
    pstats.Stats(str(path)).sort_stats("tottime").print_stats(12)
    print(f"timed POSTs in process: median {percentile(walls, 0.5):.1f} ms, {len(walls)} POSTs")
    return shown, total / timed * 1000
