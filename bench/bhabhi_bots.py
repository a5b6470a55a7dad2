"""Bhabhi: the heuristic bot's loss rate against random bots.

One heuristic seat against random bots at every other seat, the heuristic
seat rotating from game to game (game i: seat i mod n), the dealer drawn at
random.  Prints the loss rate with a 95% interval next to the baseline 1/n
(what a seat loses when every seat plays alike), against two kinds of
opponent: the generic random bot (``make_bot("bhabhi", "random")``, which
now and then takes the left hand, 5% of its chances) and a random bot that
never takes a hand (``RandomBot(optional_rate=0)``), so the card play alone
is measured.

    .venv/bin/python bench/bhabhi_bots.py [--games 10000] [--seats 4] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

# The project root first: bench/engine.py would otherwise shadow the engine package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.bots import Bot, RandomBot, make_bot  # noqa: E402
from engine.play import new_deal, play_bots  # noqa: E402
from engine.registry import get_game  # noqa: E402


def measure(games: int, seats: int, seed: int, opponent: Callable[[], Bot]) -> tuple[int, float]:
    """Losses of the heuristic seat over ``games`` games, and the seconds it took."""
    game = get_game("bhabhi")
    rng = random.Random(seed)
    losses = 0
    started = time.perf_counter()
    for i in range(games):
        hero = i % seats
        bots = [make_bot("bhabhi", "heuristic") if s == hero else opponent() for s in range(seats)]
        played = play_bots(game, new_deal(game, seats, rng), bots, rng)
        result = game.outcome(played.state)
        assert result is not None
        losses += result["loser"] == hero
    return losses, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seats", type=int, nargs="+", default=[4])
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    opponents: list[tuple[str, Callable[[], Bot]]] = [
        ("random", lambda: make_bot("bhabhi", "random")),
        ("random (never takes)", lambda: RandomBot(optional_rate=0.0)),
    ]
    for seats in args.seats:
        for label, opponent in opponents:
            losses, seconds = measure(args.games, seats, args.seed, opponent)
            rate = losses / args.games
            half = 1.96 * math.sqrt(rate * (1 - rate) / args.games)
            print(
                f"{seats} players, 1 heuristic vs {seats - 1} {label}, {args.games} games:"
                f" heuristic lost {losses} = {rate:.2%} (95% interval {max(rate - half, 0):.2%}"
                f" to {rate + half:.2%}); baseline 1/{seats} = {1 / seats:.2%}"
                f" [{args.games / seconds:.0f} games/s]"
            )


if __name__ == "__main__":
    main()
