"""Engine speed on one core: complete random games per second and events folded per second.

    .venv/bin/python bench/engine.py [--seconds 3] [--seats 4]

Per registered game: random games are played with ``engine.play.play_random``
(legal actions drawn uniformly) for about ``--seconds``; then the events of
those games are folded again from scratch, and events per second reported.
Record the figures in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.play import new_deal, play_random  # noqa: E402
from engine.registry import all_games  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--seats", type=int, default=4)
    args = parser.parse_args()
    print(
        f"{'game':<15}{'seats':>6}{'games/s':>10}{'moves/game':>12}{'events folded/s':>17}"
        f"{'fold ms/game':>14}"
    )
    for game in all_games():
        seats = min(max(args.seats, game.min_seats), game.max_seats)
        rng = random.Random(2026)
        played = []
        started = time.perf_counter()
        while time.perf_counter() - started < args.seconds:
            played.append(play_random(game, new_deal(game, seats, rng), rng).events)
        games_per_s = len(played) / (time.perf_counter() - started)
        events = sum(len(e) for e in played)
        started = time.perf_counter()
        for stream in played:
            game.fold(stream)
        fold_s = time.perf_counter() - started
        print(
            f"{game.id:<15}{seats:>6}{games_per_s:>10.0f}{events / len(played) - 1:>12.1f}"
            f"{events / fold_s:>17.0f}{1000 * fold_s / len(played):>14.3f}"
        )


if __name__ == "__main__":
    main()
