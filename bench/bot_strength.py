"""Each game's heuristic bot against random play: win rates per game and table size.

    .venv/bin/python bench/bot_strength.py [--games 2000] [--seed 2026]

Per game and table size, ``--games`` games with one ``heuristic`` seat (seat 0;
the dealer is drawn each game) and every other seat ``random``
(``engine.play.play_bots``), then the same with every seat ``random``.  Prints
seat 0's rate of the game's good result, against what chance gives:

* Give Away: round wins (a deadlock may be drawn: nobody wins);
* Old Maid, Bhabhi: games *not* lost (one loser per game);
* Give & Take: first places, a shared first place counting its share.

For Give & Take it also prints how many games ended with every player out at
the same moment (then the most cards on one's piles ranks first), with all
seats heuristic and with all seats random.  Record the figures in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.bots import make_bot  # noqa: E402
from engine.play import new_deal, play_bots  # noqa: E402
from engine.registry import all_games  # noqa: E402


def good(game_id: str, outcome: dict[str, Any], seat: int) -> float:
    """Seat's share of the game's good result (see the module's docstring)."""
    if game_id == "give_away":
        return 1.0 if outcome.get("winner") == seat else 0.0
    if "loser" in outcome:
        return 0.0 if outcome["loser"] == seat else 1.0
    first = outcome["places"][0]
    return 1.0 / len(first) if seat in first else 0.0


def rate(game: Any, seats: int, levels: list[str], games: int, rng: random.Random) -> float:
    total = 0.0
    for _ in range(games):
        bots = [make_bot(game.id, level) for level in levels]
        played = play_bots(game, new_deal(game, seats, rng), bots, rng)
        total += good(game.id, game.outcome(played.state), 0)
    return total / games


def all_out_together(game: Any, seats: int, level: str, games: int, rng: random.Random) -> float:
    """The share of games, every seat playing ``level``, in which all went out at once."""
    together = 0
    for _ in range(games):
        bots = [make_bot(game.id, level) for _ in range(seats)]
        out = play_bots(game, new_deal(game, seats, rng), bots, rng).state.out
        together += len(out) == 1 and len(out[0]) == seats
    return together / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    print(f"seat 0 heuristic, the others random; {args.games} games per row")
    print(f"{'game':<15}{'seats':>6}{'heuristic':>11}{'random':>9}{'chance':>8}{'s':>6}")
    for game in all_games():
        for seats in range(game.min_seats, game.max_seats + 1):
            rng = random.Random(args.seed)
            started = time.perf_counter()
            others = ["random"] * (seats - 1)
            strong = rate(game, seats, ["heuristic", *others], args.games, rng)
            plain = rate(game, seats, ["random", *others], args.games, rng)
            chance = (1 / seats) if game.id != "old_maid" and game.id != "bhabhi" else 1 - 1 / seats
            print(
                f"{game.id:<15}{seats:>6}{strong:>11.1%}{plain:>9.1%}"
                f"{'' if game.id == 'give_away' else f'{chance:.1%}':>8}"
                f"{time.perf_counter() - started:>6.1f}"
            )
    print("Give & Take: games in which every player went out at the same moment")
    game = next(g for g in all_games() if g.id == "give_and_take")
    for seats in range(game.min_seats, game.max_seats + 1):
        rng = random.Random(args.seed)
        shares = [
            all_out_together(game, seats, lv, args.games, rng) for lv in ("heuristic", "random")
        ]
        print(f"{seats} seats: all heuristic {shares[0]:.1%}, all random {shares[1]:.1%}")


if __name__ == "__main__":
    main()
