"""The heuristic bot of Give & Take (:mod:`engine.games.give_and_take`).

It decides from its seat's view alone, never the state; the game module does not
know it (a game needs no bot of its own: every game has the random one)."""

from __future__ import annotations

import random

from engine.bots import register_bot
from engine.cards import full_deck
from engine.contract import Action, View
from engine.games.give_and_take import ACE_VALUES, SIDES, VALUE


class GiveAndTakeHeuristicBot:
    """Plays never to run out later than anyone: captures go under its longer pile.

    * A capture goes under the pile with *more* face-down cards (left on a tie):
      every pile shrinks by one card a round, so its shorter pile runs out no
      later than anyone's.  This is the choice that matters (docs/rules/
      give_and_take.md gives measurements): with this bot at every seat all
      players run out on the same round, and the most cards then ranks first,
      so the cards a capture brings end up counting *for* the capturer.
    * An ace on its right pile is in its own right duet.  The neighbour's card is
      still hidden at declaration time, so the bot takes the value (1 or 14) with
      the *larger* expected difference over every card it cannot see (an unseen
      ace counting 1 or 14 evenly): a large difference does not capture (a rule
      from when capturing was thought a setback; the ace values matter little).
    * An ace on its left pile is in its left neighbour's right duet: it takes the
      value with the *smaller* expected difference, so that the neighbour rather
      than itself is likely to capture.

    It decides from the view alone (its own pile counts and the face-up cards).
    """

    level = "heuristic"

    def choose(self, view: View, rng: random.Random) -> Action | None:
        legal: list[Action] = view["legal_actions"]
        if not legal:
            return None
        if legal[0]["type"] == "place_capture":
            mine = view["piles"][view["viewer"]]
            left, right = mine["left"]["down"], mine["right"]["down"]
            return {"type": "place_capture", "pile": "right" if right > left else "left"}
        pile = legal[0]["pile"]
        seen = {c for p in view["piles"] for side in SIDES for c in p[side]["up"] if c}
        values: list[float] = []
        for c in full_deck():
            if c not in seen:
                values.extend((1.0, 14.0) if c[0] == "A" else (float(VALUE[c[0]]),) * 2)

        def expected(v: int) -> float:
            return sum(abs(v - x) for x in values) / max(len(values), 1)

        if pile == "right":
            value = max(ACE_VALUES, key=lambda v: (expected(v), v))
        else:
            value = min(ACE_VALUES, key=lambda v: (expected(v), -v))
        return {"type": "declare_ace", "pile": pile, "value": value}


register_bot("give_and_take", "heuristic", GiveAndTakeHeuristicBot)
