"""Can an Old Maid player follow the queen from the log?  Loss rates with and without the shuffle.

    .venv/bin/python bench/old_maid_tracking.py [--games 20000] [--seed 2026]

Two players.  Seat 0 is the *tracker*: it follows what the log tells it under the
old rule (a drawn card goes to the end of the drawer's fan and stays there):
when the other seat draws the queen from it, the queen is last in that fan, and
every later card it hands over or takes back moves the queen's position from
the end by one.  When it draws, it avoids that position.  It cannot see the
order of a shuffled fan (the log hides it), so under the current rule — the
server shuffles the drawer's fan after every draw (CONVENTIONS.md) — it keeps
avoiding where the queen *would* be.  Seat 1 draws at random; nobody arranges
their own fan.

Four runs of ``--games`` games each: fans shuffled after each draw or not (the
old rule), seat 0 tracking or drawing at random.  Prints seat 0's loss rate with
its 95 % interval.  Record the figures in docs/benchmarks.md and
docs/rules/old_maid.md.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.cards import Card  # noqa: E402
from engine.games.old_maid import GAME, OldMaidState  # noqa: E402
from engine.play import new_deal  # noqa: E402

TRACKER, OTHER = 0, 1


def _apply(state: OldMaidState, seat: int, action: dict[str, object], chance: bool) -> OldMaidState:
    for event in GAME.decide(state, seat, action, chance=chance):
        state = GAME.evolve(state, event)
    return state


def tracker_loses(rng: random.Random, *, shuffled: bool, tracking: bool) -> bool:
    """Play one two-player game; whether seat 0 (the tracker) lost it."""
    state = GAME.fold(new_deal(GAME, 2, rng))
    # The cards the other seat took from the tracker after the queen, in fan order
    # under the old rule; None while the tracker has no position for the queen.
    after: list[Card] | None = None
    while state.loser is None:
        if shuffled:
            node = GAME.chance_draw(state, rng)
            if node is not None:
                state = _apply(state, node[0], node[1], True)
                continue
        offerer, drawer = state.offerer, state.drawer
        assert offerer is not None and drawer is not None
        fan = state.hands[offerer]
        if drawer == TRACKER:
            queen = None if after is None else len(fan) - 1 - len(after)
            choices = [i for i in range(len(fan)) if i != queen] or [0]
            index = rng.choice(choices) if tracking else rng.randrange(len(fan))
            if after is not None and queen is not None:
                if index == queen:
                    after = None
                elif index > queen:
                    del after[index - queen - 1]
        else:
            index = rng.randrange(len(fan))
            card = fan[index]  # the tracker's own card: it knows what it gave
            if card[0] == "Q":
                after = []
            elif after is not None:
                match = next((c for c in state.hands[OTHER] if c[0] == card[0]), None)
                if match is None:
                    after.append(card)
                elif match in after:  # the pair is public: its other card leaves the fan
                    after.remove(match)
        state = _apply(state, drawer, {"type": "draw", "index": index}, False)
    return state.loser == TRACKER


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    print(f"Old Maid, 2 players, {args.games} games per run; seat 0's loss rate")
    print(f"{'fans':<26}{'seat 0 draws':<16}{'loss rate':>10}{'95 % interval':>18}{'s':>6}")
    for shuffled in (False, True):
        for tracking in (False, True):
            rng = random.Random(args.seed)
            started = time.perf_counter()
            lost = sum(
                tracker_loses(rng, shuffled=shuffled, tracking=tracking) for _ in range(args.games)
            )
            rate = lost / args.games
            half = 1.96 * math.sqrt(rate * (1 - rate) / args.games)
            print(
                f"{'shuffled after each draw' if shuffled else 'never shuffled (old rule)':<26}"
                f"{'avoiding the queen' if tracking else 'at random':<16}{rate:>10.1%}"
                f"{f'{rate - half:.1%} – {rate + half:.1%}':>18}"
                f"{time.perf_counter() - started:>6.1f}"
            )


if __name__ == "__main__":
    main()
