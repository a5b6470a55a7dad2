"""The heuristic bot of Bhabhi (:mod:`engine.games.bhabhi`).

It decides from its seat's view alone, never the state; the game module does not
know it (a game needs no bot of its own: every game has the random one)."""

from __future__ import annotations

import random
from math import prod

from engine.bots import register_bot
from engine.cards import SUITS, Card
from engine.contract import Action, View
from engine.games.bhabhi import _LOW_KEY, _VALUE


def _p_void(unseen: int, of_suit: int, size: int) -> float:
    """Chance that a hand of ``size`` cards drawn from ``unseen`` cards misses all ``of_suit``."""
    if of_suit <= 0:
        return 1.0
    if size > unseen - of_suit:
        return 0.0
    return prod((unseen - of_suit - i) / (unseen - i) for i in range(size))


class BhabhiHeuristicBot:
    """Plays from its own view: shed high cards where the trick looks clean, duck otherwise.

    * Trick 1 goes to the discard whatever happens: dump the highest card
      allowed (the highest spade, or with no spade the highest card).
    * Following suit: when every later player is likely to follow (or nobody
      plays after us) shed the highest card of the suit; when a tochoo looks
      likely play the highest card *below* the current top (ducking), and if
      every card beats it, the lowest (so a later player may overtake).
    * Tochoo (no card of the led suit): give away the highest card, from the
      shortest suit on equal rank (it is the card most likely to pick up a
      trick later, and it becomes the picker's problem).
    * Leading: pick the suit the others are least likely to be void in (the
      chance is estimated from hand sizes and the unseen cards of the suit);
      lead its highest card when the trick looks clean, its lowest otherwise.
    * Never takes the left hand: it only adds cards to the taker's hand, and
      with two players left it loses the game on the spot.

    The bot keeps no memory: it estimates from the view alone (hand sizes,
    its own hand, the cards on the table, the discard size).
    """

    level = "heuristic"

    #: Chance of a clean trick above which a high card is shed.
    clean_enough = 0.55

    def choose(self, view: View, rng: random.Random) -> Action | None:
        me = view["viewer"]
        if me not in view["waiting_for"]:
            return None  # the only optional action is take_left: never taken
        plays = [a["card"] for a in view["legal_actions"] if a["type"] == "play"]
        if not plays:
            return None
        if len(plays) == 1:
            return {"type": "play", "card": plays[0]}
        hand: list[Card] = view["hand"]
        if view["first_trick"]:
            return {"type": "play", "card": max(plays, key=_LOW_KEY.__getitem__)}
        trick = view["trick"]
        if not trick:
            return {"type": "play", "card": self._lead(view, hand)}
        led = view["led_suit"]
        if plays[0][1] != led:
            return {"type": "play", "card": self._tochoo(hand)}
        return {"type": "play", "card": self._follow(view, hand, plays)}

    # A player after us in the running trick, in order.
    @staticmethod
    def _after(view: View, me: int) -> list[int]:
        active: list[int] = view["active"]
        leader: int = view["leader"]
        order = sorted(active, key=lambda s: (s - leader) % view["seats"])
        return order[order.index(me) + 1 :]

    @staticmethod
    def _p_clean(view: View, hand: list[Card], suit: str, players: list[int]) -> float:
        sizes: list[int] = view["hand_sizes"]
        me = view["viewer"]
        on_table = sum(1 for t in view["trick"] if t["card"][1] == suit)
        mine = sum(1 for c in hand if c[1] == suit)
        others = sum(sizes[s] for s in view["active"] if s != me)
        unseen = others + view["discard_size"]
        of_suit = 13 - mine - on_table
        return prod(1.0 - _p_void(unseen, of_suit, sizes[s]) for s in players)

    def _lead(self, view: View, hand: list[Card]) -> Card:
        me = view["viewer"]
        others = [s for s in view["active"] if s != me]
        best: tuple[float, int, str] | None = None
        for suit in {c[1] for c in hand}:
            p = self._p_clean(view, hand, suit, others)
            count = sum(1 for c in hand if c[1] == suit)
            key = (p, -count, suit)
            if best is None or key > best:
                best = key
        assert best is not None
        p, _, suit = best
        cards = sorted((c for c in hand if c[1] == suit), key=_VALUE.__getitem__)
        if len(hand) == 1:
            return cards[0]
        return cards[-1] if p >= self.clean_enough else cards[0]

    @staticmethod
    def _tochoo(hand: list[Card]) -> Card:
        counts = {s: sum(1 for c in hand if c[1] == s) for s in SUITS}
        return max(hand, key=lambda c: (_VALUE[c], -counts[c[1]]))

    def _follow(self, view: View, hand: list[Card], plays: list[Card]) -> Card:
        me = view["viewer"]
        led = view["led_suit"]
        top = max(_VALUE[t["card"]] for t in view["trick"] if t["card"][1] == led)
        plays = sorted(plays, key=_VALUE.__getitem__)
        below = [c for c in plays if _VALUE[c] < top]
        after = self._after(view, me)
        if not after:
            # The trick will be clean: our card is the last one.
            return plays[-1]
        p = self._p_clean(view, hand, led, after)
        if p >= self.clean_enough and len(hand) > 2:
            return plays[-1]
        if below:
            return below[-1]
        return plays[0]


register_bot("bhabhi", "heuristic", BhabhiHeuristicBot)
