"""How long a Give Away match lasts when it is played to its target with no deal limit.

    .venv/bin/python bench/give_away_match.py [--matches 2000] [--target 3] [--seed 2026]

Per table size 2–6: ``--matches`` matches, each dealt from fresh shuffles with the
dealer rotating (``engine.series``), until a player has ``--target`` round wins.
Every Give Away move is forced, so random play is the game itself.  Prints the
deals per match (mean, median, 95th percentile, max), the share of drawn deals
and, for comparison, the share of matches the old hidden cap (10 × target deals)
would have cut off.  Record the figures in docs/rules/give_away.md and
docs/tournaments.md.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import series  # noqa: E402
from engine.play import new_deal, play_random  # noqa: E402
from engine.registry import get_game  # noqa: E402


def match_deals(seats: int, target: int, rng: random.Random) -> tuple[int, int]:
    """The deals of one match played to ``target`` round wins, and how many were drawn."""
    game = get_game("give_away")
    fmt = series.SeriesFormat("first_to", target)
    results: list[dict[str, Any]] = []
    dealer = rng.randrange(seats)
    while not series.is_over(fmt, results, seats):
        played = play_random(game, new_deal(game, seats, rng, dealer), rng)
        results.append(game.outcome(played.state) or {})
        dealer = series.next_dealer(dealer, seats)
    return len(results), sum(1 for r in results if r.get("winner") is None)


def percentile(values: list[int], share: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--target", type=int, default=3)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"Give Away, first to {args.target} round wins, {args.matches} matches per table size")
    print(
        f"{'seats':>5}{'mean':>8}{'median':>8}{'p95':>6}{'max':>6}{'drawn deals':>13}"
        f"{'over old cap':>14}{'seconds':>9}"
    )
    for seats in range(2, 7):
        started = time.perf_counter()
        lengths: list[int] = []
        drawn = 0
        for _ in range(args.matches):
            deals, draws = match_deals(seats, args.target, rng)
            lengths.append(deals)
            drawn += draws
        over_cap = sum(1 for n in lengths if n > 10 * args.target) / len(lengths)
        print(
            f"{seats:>5}{statistics.mean(lengths):>8.1f}{statistics.median(lengths):>8.0f}"
            f"{percentile(lengths, 0.95):>6}{max(lengths):>6}"
            f"{drawn / sum(lengths):>12.1%} {over_cap:>13.1%}"
            f"{time.perf_counter() - started:>9.1f}"
        )


if __name__ == "__main__":
    main()
