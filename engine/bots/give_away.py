"""The heuristic bot of Give Away (:mod:`engine.games.give_away`).

It decides from its seat's view alone, never the state; the game module does not
know it (a game needs no bot of its own: every game has the random one)."""

from __future__ import annotations

import random

from engine.bots import register_bot
from engine.contract import Action, View
from engine.games.give_away import _NEEDS


class GiveAwayHeuristicBot:
    """Plays the forced move; when several foundations fit, the lowest-numbered one.

    Every foundation a card fits has the same top rank (the card's rank minus
    one; for an ace, empty), so whichever is chosen the table afterwards holds
    the same multiset of foundation tops: the choice never changes what anyone
    can play later, and no slot is better for the others or for oneself.  The
    bot therefore keeps the table tidy (aces fill slots left to right) by taking
    the lowest-numbered fitting slot, the same as the timeout action.  It reads
    only the view's face-up card and foundation sizes.
    """

    level = "heuristic"

    def choose(self, view: View, rng: random.Random) -> Action | None:
        seat = view["viewer"]
        if seat is None or seat not in view["waiting_for"]:
            return None
        card = view["face_up"][seat]
        need = _NEEDS[card]
        for k, f in enumerate(view["foundations"]):
            if f["size"] == need:
                return {"type": "play", "card": card, "foundation": k}
        return {"type": "pass"}


register_bot("give_away", "heuristic", GiveAwayHeuristicBot)
