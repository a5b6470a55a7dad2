"""What one push-channel move costs the web process, in process (issue 24).

    .venv/bin/python bench/push_move.py [--tables 8] [--moves 2000] [--profile 0]
                                        [--profile-ending]

Creates its own database ``parlour_push_move`` on the local PostgreSQL (dropped at the
end), migrates it, deals a one-round Old Maid tournament of two people a table (a series
of 1,000 deals, as bench/load.py plays), and then plays it as the push channel's clients
do, through :class:`tournaments.api.push.PushConsumer`'s own methods: the seat waited for
sends its move (``act``: the sign-in check, the rates, the game's access, the command,
the answer's view), the other seat is pushed its new view (``view``).  Those are the
parts of a move that run in the web process's shared thread; the event loop's work
(WebSocket framing, the hub, the hand-offs) is not here.

It prints, per kind of move (one that ends a deal, which deals the next, and one that
does not), the median and mean CPU time of the mover's ``act`` and of the other seat's
pushed view, the statements each sends, and PostgreSQL's backend CPU a move (the next
deal's first views aside); after a deal's end, each seat's first view of the next deal
too, as a client following it is pushed one. CPU time,
not latency: the figures hold on a machine busy with other work, unlike bench/load.py's
moves a second.  ``--profile N`` then plays as many moves again under cProfile (timed by
CPU, not by the clock) and prints, over those that do not end a deal (``--profile-ending``:
those that do), the N functions with the most time of their own, and the N of Parlour's
with the most time in all.

It sets up as bench/load.py does (:class:`bench.faults.stack.Stack`, no processes): the
database ``--database`` (default ``parlour_push_move``) made, migrated and dropped, the Redis
databases ``--cache-db`` (15, where the request rates count) and ``--broker-db`` (10)
flushed before and after, so that two runs on one server keep apart.
docs/benchmarks.md ("HTTP load", issue 24) records its figures.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # before bench/, whose engine.py would shadow the package

from bench.faults.stack import Stack  # noqa: E402


@dataclass
class Costs:
    """CPU seconds and statements of each timed part, per kind of move."""

    cpu: dict[str, list[float]] = field(default_factory=dict)
    statements: dict[str, list[int]] = field(default_factory=dict)
    postgres: dict[str, float] = field(default_factory=dict)

    def add(self, part: str, seconds: float, statements: int) -> None:
        self.cpu.setdefault(part, []).append(seconds)
        self.statements.setdefault(part, []).append(statements)


@dataclass
class Seat:
    """A client of one seat: its consumer and the last view it was sent."""

    consumer: Any
    view: dict[str, Any]


class StatementCounter:
    """Counts the statements sent through Django's connection (BEGIN and COMMIT aside).

    Not Django's CaptureQueriesContext: it turns on the debug cursor, whose formatting of
    each statement's SQL would be timed with the move."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, execute: Callable[..., Any], *args: Any) -> Any:
        self.count += 1
        return execute(*args)


def backend_cpu(pid: int) -> float:
    """CPU seconds process ``pid`` (here PostgreSQL's backend) has used (user + system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def consumer_for(user_id: int) -> Any:
    """A push channel's consumer as its ``connect`` leaves it for a token's client."""
    from django.contrib.auth.models import User

    from tournaments.api.push import PushConsumer
    from tournaments.models import ApiToken

    user = User.objects.get(pk=user_id)
    token = ApiToken.objects.filter(user=user).first()
    consumer = PushConsumer()
    consumer.begin({"user": user, "auth": token, "refusal": None, "client": ("127.0.0.1", 0)})
    return consumer


def play(tables: int, moves: int, profile: int, ending_ones: bool = False) -> None:
    from django.db import connection

    from bench.faults.players import choose_action, person_tables

    _, seats = person_tables("push", tables, people_per_table=2, bots_per_table=0, deals=1000)
    games: dict[int, int] = {}
    at: dict[int, list[Seat]] = {}
    for seat in seats:
        games[seat.table] = seat.game
        consumer = consumer_for(seat.user_id)
        frame, _, _ = consumer.view(seat.game, -1)
        at.setdefault(seat.table, []).append(Seat(consumer, frame["view"]))
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = int(cursor.fetchone()[0])

    rng = random.Random(24)
    costs = Costs()
    counter = StatementCounter()
    profiled: pstats.Stats | None = None
    done = warm = 0

    def measured(call: Callable[[], Any]) -> tuple[Any, float, int]:
        """``call()``'s result, the CPU seconds it took and the statements it sent."""
        counter.count = 0
        began = time.process_time()
        result = call()
        return result, time.process_time() - began, counter.count

    def move(table: int) -> bool:
        """The seat waited for moves and the other is pushed its view; False if none could."""
        nonlocal profiled
        game = games[table]
        mover = next((s for s in at[table] if s.view["seat"] in s.view["waiting_for"]), None)
        action = None if mover is None else choose_action(mover.view, rng)
        if mover is None or action is None:
            return False
        others = [s for s in at[table] if s is not mover]
        message = {
            "type": "act",
            "game": game,
            "key": f"k-{rng.getrandbits(64):x}",
            "expected_sequence": mover.view["sequence"],
            "action": action,
        }
        warmed = warm >= 20 * tables
        measuring = warmed and done < moves  # then, with --profile, as many under cProfile
        # CPU time, not wall time: the waits for PostgreSQL and Redis are not this process's cost.
        one = cProfile.Profile(time.process_time) if profile and warmed and not measuring else None
        pg_before = backend_cpu(backend)
        if one is not None:
            one.enable()
        with connection.execute_wrapper(counter):
            answer, act_cpu, act_statements = measured(lambda: mover.consumer.act(game, message))
            pushed = []
            for other in others:
                (frame, _, _), cpu, statements = measured(
                    lambda other=other: other.consumer.view(game, other.view["sequence"])
                )
                pushed.append((cpu, statements))
                if frame is not None:
                    other.view = frame["view"]
        if one is not None:
            one.disable()
        pg = backend_cpu(backend) - pg_before
        mover.view = answer["view"]
        ended = answer["view"]["status"] == "over"
        if measuring:  # else warming up: the process's caches, PostgreSQL's prepared plans
            kind = "ending a deal" if ended else "in a deal"
            costs.add(f"act, {kind}", act_cpu, act_statements)
            for cpu, statements in pushed:
                costs.add(f"view, {kind}", cpu, statements)
            costs.postgres[kind] = costs.postgres.get(kind, 0.0) + pg
        if one is not None and ended == ending_ones:
            profiled = pstats.Stats(one) if profiled is None else profiled.add(one)
        if ended:  # each client follows the next deal and is pushed its first view
            following = answer["view"].get("next_game_id")
            if following:
                games[table] = following
                for seat in at[table]:
                    with connection.execute_wrapper(counter):
                        (frame, _, _), cpu, statements = measured(
                            lambda seat=seat: seat.consumer.view(following, -1)
                        )
                    if measuring:
                        costs.add("view of the next deal", cpu, statements)
                    seat.view = frame["view"]
        return True

    while done < (2 * moves if profile else moves):
        progressed = False
        for table in at:
            if move(table):
                progressed = True
                if warm >= 20 * tables:
                    done += 1
                else:
                    warm += 1
        if not progressed:
            raise SystemExit("no seat could move: the tables are stuck")

    done = min(done, moves)
    print(f"{done} moves at {tables} tables of two (Old Maid), after {warm} to warm up")
    print("part, kind of move          moves   CPU median   CPU mean   statements")
    for part in sorted(costs.cpu):
        values = costs.cpu[part]
        median, mean = statistics.median(values) * 1000, statistics.mean(values) * 1000
        statements = statistics.median(costs.statements[part])
        print(f"{part:<28} {len(values):>5}   {median:7.2f} ms {mean:7.2f} ms   {statements:>5}")
    ending = len(costs.cpu.get("act, ending a deal", []))
    within = len(costs.cpu.get("act, in a deal", []))
    total = sum(sum(v) for v in costs.cpu.values())
    print(
        f"in all: {total / max(done, 1) * 1000:.2f} ms of the web process's CPU a move"
        f" (a deal ends every {done / max(ending, 1):.1f} moves)"
    )
    for kind, count in (("in a deal", within), ("ending a deal", ending)):
        if count:
            pg = costs.postgres.get(kind, 0.0) / count * 1000
            print(f"PostgreSQL's backend, a move {kind}: {pg:.2f} ms")
    if profiled is not None:
        which = "those that end a deal" if ending_ones else "those within a deal"
        print(f"\ncProfile of {moves} more moves, {which}: the {profile} costliest")
        profiled.sort_stats("tottime").print_stats(profile)
        print("and Parlour's own functions by their whole time (what they call included):")
        profiled.sort_stats("cumulative").print_stats(r"/(tournaments|events|engine)/", profile)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    Stack.add_arguments(parser, "parlour_push_move")
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--moves", type=int, default=2000)
    parser.add_argument("--profile", type=int, default=0, help="print the N costliest functions")
    parser.add_argument(
        "--profile-ending", action="store_true", help="profile the moves that end a deal"
    )
    args = parser.parse_args()
    # The load runs' stack, without its processes: the database made, migrated and dropped,
    # the Redis databases flushed, the same settings (throttles counting, never refusing).
    with Stack.from_args(args.database, args):
        play(args.tables, args.moves, args.profile, args.profile_ending)


if __name__ == "__main__":
    main()
