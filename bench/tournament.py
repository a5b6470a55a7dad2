"""Tournament speed on one core: seating and standings over 7 rounds of 40, 200 and 1,000 players.

    .venv/bin/python bench/tournament.py [--game old_maid] [--preferred 4] [--rounds 7]

Round 1 is seated at random, rounds 2-7 by each mode (mixing, swiss); table
placings are drawn at random.  Per field size and mode it prints the slowest and
the mean seating time of a round, the slowest standings computation, and the
repeated pairs (``Σ max(0, times shared − 1)``) against seating every round at
random.  Targets: a round of 1,000 seated in under 2 s, standings under 200 ms.
Record the figures in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.registry import get_game  # noqa: E402
from tournaments.scoring import RoundResult, TableResult, standings  # noqa: E402
from tournaments.seating import History, Mode, seat_round  # noqa: E402


def tournament(
    n: int, mode: Mode, low: int, high: int, preferred: int | None, rounds: int, seed: int
) -> tuple[list[float], list[float], int]:
    """Seating times, standings times and repeated pairs of one simulated tournament."""
    rng = random.Random(seed)
    players = [f"player-{i:04d}" for i in range(n)]
    history = History()
    results: list[RoundResult] = []
    seat_times: list[float] = []
    standing_times: list[float] = []
    for number in range(rounds):
        started = time.perf_counter()
        ranking = [s.player for s in standings(results, players)]
        standing_times.append(time.perf_counter() - started)
        started = time.perf_counter()
        seating = seat_round(
            players,
            low,
            high,
            preferred=preferred,
            history=history,
            standings=ranking,
            mode="random" if number == 0 else mode,
            rng=rng,
        )
        seat_times.append(time.perf_counter() - started)
        history.record(seating)
        tables = []
        for table in seating.tables:
            order = list(table)
            rng.shuffle(order)
            tables.append(TableResult(tuple((p,) for p in order)))
        results.append(RoundResult(tuple(tables), seating.byes))
    started = time.perf_counter()
    standings(results, players)
    standing_times.append(time.perf_counter() - started)
    return seat_times, standing_times, history.repeats()


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--game", default="old_maid")
    parser.add_argument("--preferred", type=int, default=4, help="0: no preference")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--sizes", default="40,200,1000")
    args = parser.parse_args()
    game = get_game(args.game)
    preferred = args.preferred or None
    print(
        f"{game.id} ({game.min_seats}-{game.max_seats} seats), preferred {preferred},"
        f" {args.rounds} rounds"
    )
    print(
        f"{'players':>8}{'mode':>8}{'seat max s':>12}{'seat mean s':>13}"
        f"{'standings max ms':>18}{'repeats':>9}{'random':>8}"
    )
    for n in (int(s) for s in args.sizes.split(",")):
        _, _, baseline = tournament(
            n, "random", game.min_seats, game.max_seats, preferred, args.rounds, 1
        )
        for mode in ("mixing", "swiss"):
            seat, stand, repeats = tournament(
                n, mode, game.min_seats, game.max_seats, preferred, args.rounds, 1
            )
            print(
                f"{n:>8}{mode:>8}{max(seat):>12.3f}{sum(seat) / len(seat):>13.3f}"
                f"{1000 * max(stand):>18.1f}{repeats:>9}{baseline:>8}"
            )


if __name__ == "__main__":
    main()
