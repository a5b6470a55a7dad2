"""The heuristic bot of Old Maid (:mod:`engine.games.old_maid`).

It decides from its seat's view alone, never the state; the game module does not
know it (a game needs no bot of its own: every game has the random one)."""

from __future__ import annotations

import random

from engine.bots import register_bot
from engine.contract import Action, View


class OldMaidHeuristicBot:
    """Draws at a random position, and never rearranges its own fan.

    Nothing better exists: the offered fan is shuffled after each draw (CONVENTIONS.md).
    It used to shuffle its fan now and then while it held a queen: a public event that
    told every spectator who held the odd queen (211 of 246 such shuffles, over 68
    games, were the loser's), and, made while a person was choosing a card, turned
    their draw into a conflict (found by trying).  A bot's public moves may depend only
    on what is public.
    """

    level = "heuristic"

    def choose(self, view: View, rng: random.Random) -> Action | None:
        if view["viewer"] in view["waiting_for"]:
            return {"type": "draw", "index": rng.randrange(view["offered"])}
        return None


register_bot("old_maid", "heuristic", OldMaidHeuristicBot)
