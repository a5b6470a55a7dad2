"""Old Maid (``old_maid``): 51 cards (Q♣ removed), 2–6 players.

The seed is ``001_d3c6eb1bdf016f98.txt``; the open points are settled in
CONVENTIONS.md and restated in ``docs/rules/old_maid.md``.

* Every hand is a *fan* with an order: the order the cards were dealt, a drawn
  card going to the end.  Then, if the drawer still holds two or more cards,
  their fan is shuffled: a chance node (:meth:`OldMaid.chance_draw`) whose
  outcome is an ``arrange`` with ``chance=True``, so that no card's position
  can be followed from the log (the seed: all cards "equally available").
* After the deal every pair is discarded at once (public).  From three of a
  rank the card dealt first stays; four of a rank go entirely.  Players left
  with no cards are out at once (the first group of the result's ``out``).
* The dealer (or, when out, the next active player after the dealer) offers
  their fan to the next active player on the left.  The drawer picks a
  position (``{"type": "draw", "index": i}``); the card goes to the end of
  their fan and a pair it makes is discarded at once.  Then the drawer offers
  (or, when the drawer went out, the next active player after them).
* Any player still holding cards may rearrange their own fan at any time
  (``{"type": "arrange", "order": [...]}``); a server shuffle is the same
  action with ``chance=True``, produced by :meth:`OldMaid.resolve` from the
  request ``{"type": "shuffle"}``.
* The game ends when one player alone holds cards (the odd queen): they lose.

Legal actions: the drawer's draws at every index (without ``"card"``: the
drawer cannot know it) and, for every seat holding cards, ONE representative
``arrange``: the fan sorted by rank (2 … A) then suit (S H D C).  Any other
permutation of the seat's own fan is accepted too.

(Over 400 lines, on purpose: one module per game owns all of the game's facts,
its rules, metadata and what each viewer may see, as OpenSpiel's games do.)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import RANKS, SUITS, Card, CardError, deal_round_robin, old_maid_deck, parse_card
from engine.contract import Action, Game, IllegalAction, Outcome, View, said, sorted_actions
from engine.registry import register
from engine.series import SeriesFormat
from engine.shapes import (
    BOOLEAN,
    CARD,
    COUNT,
    SEAT,
    SEAT_GROUPS,
    ActionShape,
    described,
    list_of,
    nullable,
    record,
)
from engine.words import gettext_noop

_SORT_KEY: dict[Card, int] = {
    r + s: i * len(SUITS) + j for i, r in enumerate(RANKS) for j, s in enumerate(SUITS)
}

Fan = tuple[Card, ...]
#: A discarded pair: (seat, card, card).
Pair = tuple[int, Card, Card]


@dataclass(frozen=True, slots=True)
class OldMaidState:
    """An Old Maid table.

    ``hands`` are the fans in order; ``discards`` every discarded pair in the
    order it was discarded, the first ``opening`` of them from the opening
    discard; ``out`` the groups gone out so far; ``offerer``/``drawer`` the
    current offer (``None`` once the game is over, when ``loser`` is set);
    ``shuffle_due`` the seat whose fan the server shuffles now (after its draw).
    """

    seats: int
    dealer: int
    hands: tuple[Fan, ...]
    discards: tuple[Pair, ...]
    opening: int
    out: tuple[tuple[int, ...], ...]
    offerer: int | None
    drawer: int | None
    loser: int | None
    shuffle_due: int | None = None


def canonical_order(fan: Sequence[Card]) -> list[Card]:
    """``fan`` sorted by rank (2 … A) then suit (S H D C): the representative arrange."""
    return sorted(fan, key=_SORT_KEY.__getitem__)


def opening_discard(seat: int, hand: Sequence[Card]) -> tuple[Fan, list[Pair]]:
    """The fan left after discarding every pair from ``hand``, and the pairs discarded.

    Two of a rank go; of three the card dealt first stays; four go as two pairs
    (first and second dealt, third and fourth).  Pairs are listed in the order
    they complete in the dealt hand; the kept cards keep their dealt order.
    """
    counts: dict[str, int] = {}
    for card in hand:
        counts[card[0]] = counts.get(card[0], 0) + 1
    seen: dict[str, int] = {}
    waiting: dict[str, Card] = {}
    kept: list[Card] = []
    pairs: list[Pair] = []
    for card in hand:
        r = card[0]
        n = seen.get(r, 0) + 1
        seen[r] = n
        if counts[r] == 1 or (counts[r] == 3 and n == 1):
            kept.append(card)
        elif r in waiting:
            pairs.append((seat, waiting.pop(r), card))
        else:
            waiting[r] = card
    return tuple(kept), pairs


def _next_active(hands: Sequence[Fan], seat: int) -> int | None:
    """The next seat clockwise after ``seat`` that still holds cards (never ``seat`` itself)."""
    n = len(hands)
    for k in range(1, n):
        other = (seat + k) % n
        if hands[other]:
            return other
    return None


def _settle(
    state_seats: int,
    dealer: int,
    hands: tuple[Fan, ...],
    discards: tuple[Pair, ...],
    opening: int,
    out: tuple[tuple[int, ...], ...],
    offerer: int | None,
    shuffle_due: int | None = None,
) -> OldMaidState:
    """The state with the next offer (from ``offerer`` if set) or the loser when over."""
    active = [s for s in range(state_seats) if hands[s]]
    if len(active) <= 1:
        # One card is odd in the whole deck, so someone always holds it.
        loser = active[0] if active else None
        return OldMaidState(state_seats, dealer, hands, discards, opening, out, None, None, loser)
    if offerer is None or not hands[offerer]:
        raise AssertionError("the offerer must hold cards")
    drawer = _next_active(hands, offerer)
    return OldMaidState(
        state_seats, dealer, hands, discards, opening, out, offerer, drawer, None, shuffle_due
    )


class OldMaid(Game[OldMaidState]):
    """Old Maid with 51 cards for 2 to 6 players."""

    id = "old_maid"
    name = gettext_noop("Old Maid")
    min_seats = 2
    max_seats = 6
    deck = old_maid_deck()
    # The shuffle after a draw is a chance node drawn by chance_draw (a fan's
    # n! orders are not listed: chance_outcomes stays None); the server's
    # shuffles are arranges recorded with "chance": true.
    chance = True
    simultaneous = False
    default_series = SeriesFormat("losses", 5)
    # A draw names a position, never a card: the drawer cannot know it, and a request
    # naming one would let them ask "is this the queen?" (the server fills it in).
    actions = {
        "draw": ActionShape(
            {"index": described(COUNT, "The position in the offered fan, 0 first.")},
            filled={"card": CARD},
            secret=frozenset({"card"}),
            description="Draw the card at a position of the offered fan (the server says"
            " which card it was, to you alone).",
        ),
        "arrange": ActionShape(
            {"order": described(list_of(CARD), "Your whole fan, in the new order.")},
            secret=frozenset({"order"}),
            description="Put your own fan in an order of your choosing.",
        ),
        "shuffle": ActionShape(
            recorded=False,
            description="Have the server shuffle your fan (recorded as a chance arrange).",
        ),
    }
    view_shape = {
        "seats": COUNT,
        "dealer": SEAT,
        "fan_sizes": described(list_of(COUNT), "How many cards each seat holds."),
        "offerer": nullable(described(SEAT, "The seat offering its fan.")),
        "drawer": nullable(described(SEAT, "The seat drawing from it.")),
        "offered": nullable(described(COUNT, "How many cards the offered fan holds.")),
        "discards": list_of(
            record({"seat": SEAT, "cards": list_of(CARD, length=2), "opening": BOOLEAN})
        ),
        "out": described(SEAT_GROUPS, "The seats out of cards, in the order they went out."),
        "hand": described(list_of(CARD), "Your own fan, in its order (a seat's view only)."),
    }
    view_optional = frozenset({"hand"})
    result_shape = record({"loser": SEAT, "out": SEAT_GROUPS})
    request_help = {
        "draw": gettext_noop(
            'a draw names the position only ({"type": "draw", "index": i}):'
            " you cannot know the card you draw, so do not send one"
        )
    }

    def secret_fields(
        self,
        action: Mapping[str, Any],
        actor: Any,
        before: OldMaidState,
        now: OldMaidState,
        viewer: int | None,
    ) -> tuple[str, ...]:
        """The card a draw took and the order of an arranged fan stay with the fan's
        new owner."""
        if viewer == actor:
            return ()
        return {"draw": ("card",), "arrange": ("order",)}.get(str(action.get("type")), ())

    # -- the deal and the moves -------------------------------------------

    def start(
        self, seats: int, dealer: int, deck: Sequence[Card], options: Mapping[str, Any]
    ) -> OldMaidState:
        dealt = deal_round_robin(deck, seats, dealer)
        hands: list[Fan] = []
        discards: list[Pair] = []
        for seat, hand in enumerate(dealt):
            kept, pairs = opening_discard(seat, hand)
            hands.append(kept)
            discards.extend(pairs)
        emptied = tuple(s for s in range(seats) if not hands[s])
        out = (emptied,) if emptied else ()
        fans = tuple(hands)
        offerer: int | None = dealer if fans[dealer] else _next_active(fans, dealer)
        return _settle(seats, dealer, fans, tuple(discards), len(discards), out, offerer)

    def apply(self, state: OldMaidState, seat: int, action: Mapping[str, Any]) -> OldMaidState:
        if action["type"] == "arrange":
            hands = list(state.hands)
            hands[seat] = tuple(action["order"])
            return OldMaidState(
                state.seats,
                state.dealer,
                tuple(hands),
                state.discards,
                state.opening,
                state.out,
                state.offerer,
                state.drawer,
                state.loser,
                None if seat == state.shuffle_due else state.shuffle_due,
            )
        # A draw.
        offerer, drawer = state.offerer, state.drawer
        assert offerer is not None and drawer is not None
        index: int = action["index"]
        fan = state.hands[offerer]
        card = fan[index]
        hands = list(state.hands)
        hands[offerer] = fan[:index] + fan[index + 1 :]
        mine = state.hands[drawer]
        discards = state.discards
        r = card[0]
        for i, held in enumerate(mine):
            if held[0] == r:
                hands[drawer] = mine[:i] + mine[i + 1 :]
                discards = discards + ((drawer, held, card),)
                break
        else:
            hands[drawer] = mine + (card,)
        fans = tuple(hands)
        gone = tuple(s for s in sorted((offerer, drawer)) if not fans[s])
        out = state.out + (gone,) if gone else state.out
        nxt = drawer if fans[drawer] else _next_active(fans, drawer)
        # A fan of one card has one order: nothing to shuffle.
        due = drawer if len(fans[drawer]) >= 2 else None
        return _settle(state.seats, state.dealer, fans, discards, state.opening, out, nxt, due)

    def check(
        self, state: OldMaidState, seat: int, action: Mapping[str, Any], chance: bool
    ) -> Action:
        if state.loser is not None or state.drawer is None:
            raise IllegalAction(gettext_noop("the game is over"))
        kind = action.get("type")
        if kind == "draw":
            return self._check_draw(state, seat, action, chance)
        if kind == "arrange":
            return self._check_arrange(state, seat, action)
        if kind == "shuffle":
            if not state.hands[seat]:
                raise IllegalAction(
                    gettext_noop("seat %(seat)s is out and has no fan to shuffle"),
                    "seat",
                    seat=seat,
                )
            raise IllegalAction(
                gettext_noop('a "shuffle" is a request: the server turns it into an "arrange"'),
                "type",
            )
        raise IllegalAction(
            gettext_noop('unknown action type %(type)s: Old Maid knows "draw" and "arrange"'),
            "type",
            type=said(kind),
        )

    def _check_draw(
        self, state: OldMaidState, seat: int, action: Mapping[str, Any], chance: bool
    ) -> Action:
        extra = sorted(set(action) - {"type", "index", "card"})
        if extra:
            raise IllegalAction(
                gettext_noop("a draw has only an index (and a card), not %(fields)s"),
                extra[0],
                fields=", ".join(map(said, extra)),
            )
        if chance:
            raise IllegalAction(gettext_noop("a draw is the drawer's choice, not a chance outcome"))
        offerer, drawer = state.offerer, state.drawer
        assert offerer is not None and drawer is not None
        if seat != drawer:
            raise IllegalAction(
                gettext_noop(
                    "seat %(offerer)s offers its fan to seat %(drawer)s, not to seat %(seat)s"
                ),
                "seat",
                offerer=offerer,
                drawer=drawer,
                seat=seat,
            )
        fan = state.hands[offerer]
        index = action.get("index")
        if not isinstance(index, int) or isinstance(index, bool):
            raise IllegalAction(
                gettext_noop("the index is a whole number from 0 to %(last)s, not %(index)s"),
                "index",
                last=len(fan) - 1,
                index=said(index),
            )
        if not 0 <= index < len(fan):
            raise IllegalAction(
                gettext_noop(
                    "seat %(offerer)s offers %(count)s cards: choose a position"
                    " from 0 to %(last)s, not %(index)s"
                ),
                "index",
                offerer=offerer,
                count=len(fan),
                last=len(fan) - 1,
                index=index,
            )
        card = fan[index]
        claimed = action.get("card")
        if claimed is not None:
            try:
                code = parse_card(claimed)
            except CardError as error:
                raise IllegalAction(error.phrase, "card") from error
            if code != card:
                raise IllegalAction(
                    gettext_noop("the card at position %(index)s is not %(card)s"),
                    "card",
                    index=index,
                    card=code,
                )
        return {"type": "draw", "index": index, "card": card}

    def _check_arrange(self, state: OldMaidState, seat: int, action: Mapping[str, Any]) -> Action:
        extra = sorted(set(action) - {"type", "order"})
        if extra:
            raise IllegalAction(
                gettext_noop("an arrange has only an order, not %(fields)s"),
                extra[0],
                fields=", ".join(map(said, extra)),
            )
        fan = state.hands[seat]
        if not fan:
            raise IllegalAction(
                gettext_noop("seat %(seat)s is out and has no fan to arrange"), "seat", seat=seat
            )
        order = action.get("order")
        if not isinstance(order, list | tuple):
            raise IllegalAction(
                gettext_noop("the order is a list of the cards of your fan"), "order"
            )
        try:
            cards = [parse_card(c) for c in order]
        except CardError as error:
            raise IllegalAction(error.phrase, "order") from error
        if sorted(cards) != sorted(fan):
            raise IllegalAction(
                gettext_noop(
                    "the order must list each card of your fan once: %(count)s cards,"
                    " your own (%(given)s given)"
                ),
                "order",
                count=len(fan),
                given=len(cards),
            )
        return {"type": "arrange", "order": cards}

    def resolve(
        self, state: OldMaidState, seat: int, request: Mapping[str, Any], rng: random.Random
    ) -> tuple[Mapping[str, Any], bool]:
        """``{"type": "shuffle"}`` becomes an ``arrange`` in an order drawn by ``rng`` (chance)."""
        if (
            request.get("type") == "shuffle"
            and len(request) == 1
            and state.loser is None
            and isinstance(seat, int)
            and 0 <= seat < state.seats
            and state.hands[seat]
        ):
            order = list(state.hands[seat])
            rng.shuffle(order)
            return {"type": "arrange", "order": order}, True
        return request, False

    def chance_draw(self, state: OldMaidState, rng: random.Random) -> tuple[int, Action] | None:
        """After a draw, the drawer's fan in an order drawn by ``rng`` (a chance ``arrange``).

        A record from before this rule, with a draw and no shuffle after it,
        still replays: the next draw or the seat's own arrange settles the node.
        """
        seat = state.shuffle_due
        if seat is None or state.loser is not None:
            return None
        order = list(state.hands[seat])
        rng.shuffle(order)
        return seat, {"type": "arrange", "order": order}

    # -- who acts -----------------------------------------------------------

    def seat_count(self, state: OldMaidState) -> int:
        return state.seats

    def legal_actions(self, state: OldMaidState, seat: int) -> list[Action]:
        """Draws at every index for the drawer; one representative arrange for a seat with cards.

        The representative arrange is the fan sorted by rank (2 … A) then suit
        (S H D C); every permutation of the seat's own fan is accepted.
        """
        if state.loser is not None or state.offerer is None:
            return []
        actions: list[Action] = []
        if seat == state.drawer:
            actions.extend(
                {"type": "draw", "index": i} for i in range(len(state.hands[state.offerer]))
            )
        fan = state.hands[seat]
        if fan:
            actions.append({"type": "arrange", "order": canonical_order(fan)})
        return sorted_actions(actions)

    def to_act(self, state: OldMaidState) -> list[int]:
        if state.loser is not None:
            return []
        return [s for s in range(state.seats) if state.hands[s]]

    def waiting_for(self, state: OldMaidState) -> list[int]:
        return [] if state.drawer is None else [state.drawer]

    def timeout_action(self, state: OldMaidState, seat: int, rng: random.Random) -> Action:
        """A draw at a uniformly random position of the offered fan."""
        if state.drawer is None or state.offerer is None or seat != state.drawer:
            raise IllegalAction(
                gettext_noop("seat %(seat)s is not being waited for"), "seat", seat=seat
            )
        fan = state.hands[state.offerer]
        index = rng.randrange(len(fan))
        return {"type": "draw", "index": index, "card": fan[index]}

    # -- what is seen -------------------------------------------------------

    def table_view(self, state: OldMaidState, seat: int | None) -> View:
        view: View = {
            "seats": state.seats,
            "dealer": state.dealer,
            "fan_sizes": [len(h) for h in state.hands],
            "offerer": state.offerer,
            "drawer": state.drawer,
            "offered": None if state.offerer is None else len(state.hands[state.offerer]),
            "discards": [
                {"seat": s, "cards": [a, b], "opening": i < state.opening}
                for i, (s, a, b) in enumerate(state.discards)
            ],
            "out": [list(g) for g in state.out],
        }
        if seat is not None:
            view["hand"] = list(state.hands[seat])
        return view

    def hidden(self, state: OldMaidState) -> dict[str, Any]:
        """Every fan in order, keyed ``"seat:<n>"`` (its owner sees it; nobody else does)."""
        return {f"seat:{s}": list(h) for s, h in enumerate(state.hands)}

    def outcome(self, state: OldMaidState) -> Outcome | None:
        if state.loser is None:
            return None
        return {"loser": state.loser, "out": [list(g) for g in state.out]}

    def cards(self, state: OldMaidState) -> list[Card]:
        result = [c for h in state.hands for c in h]
        for _, a, b in state.discards:
            result.append(a)
            result.append(b)
        return result


GAME = register(OldMaid())
