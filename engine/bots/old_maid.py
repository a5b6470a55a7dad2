"""The heuristic bot of Old Maid (:mod:`engine.games.old_maid`).

It decides from its seat's view alone, never the state; the game module does not
know it (a game needs no bot of its own: every game has the random one)."""

from __future__ import annotations

import random

from engine.bots import register_bot
from engine.contract import Action, View


class OldMaidHeuristicBot:
    """Draws at a random position; holding a queen, shuffles its offered fan now and then."""

    level = "heuristic"

    def __init__(self, shuffle_rate: float = 0.3) -> None:
        self.shuffle_rate = shuffle_rate

    def choose(self, view: View, rng: random.Random) -> Action | None:
        me = view["viewer"]
        if me in view["waiting_for"]:
            return {"type": "draw", "index": rng.randrange(view["offered"])}
        hand: list[str] = view.get("hand") or []
        if (
            view["offerer"] == me
            and len(hand) >= 2
            and any(c[0] == "Q" for c in hand)
            and rng.random() < self.shuffle_rate
        ):
            return {"type": "shuffle"}
        return None


register_bot("old_maid", "heuristic", OldMaidHeuristicBot)
