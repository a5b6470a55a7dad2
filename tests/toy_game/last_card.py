"""Last Card: a toy game for the tests, the engine part of a game.

The whole deck lies face down in one pile.  In turn, starting left of the dealer,
each seat takes 1, 2 or 3 cards from the top of the pile into its own hand, which
only it sees.  Whoever takes the last card loses.  No chance move, nothing
simultaneous; a seat whose time runs out takes one card.

The result has the ``loser`` shape (RECORD.md), so the ``losses`` series scores it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import Card, full_deck
from engine.contract import Action, Game, IllegalAction, Outcome, View, sorted_actions
from engine.series import SeriesFormat

#: The most cards one turn may take.
MOST = 3


@dataclass(frozen=True)
class LastCardState:
    seats: int
    dealer: int
    #: The face-down pile, top first.
    pile: tuple[Card, ...]
    #: What each seat has taken, in the order taken.
    hands: tuple[tuple[Card, ...], ...]
    turn: int
    loser: int | None = None


class LastCard(Game[LastCardState]):
    id = "last_card"
    name = "Last Card"
    min_seats = 2
    max_seats = 4
    deck = full_deck()
    chance = False
    simultaneous = False
    default_series = SeriesFormat("losses", 3)
    requests = {"take": frozenset({"count"})}

    def start(
        self, seats: int, dealer: int, deck: Sequence[Card], options: Mapping[str, Any]
    ) -> LastCardState:
        return LastCardState(seats, dealer, tuple(deck), ((),) * seats, (dealer + 1) % seats)

    def apply(self, state: LastCardState, seat: int, action: Mapping[str, Any]) -> LastCardState:
        count = action["count"]
        taken, pile = state.pile[:count], state.pile[count:]
        hands = tuple(h + taken if s == seat else h for s, h in enumerate(state.hands))
        if not pile:
            return LastCardState(state.seats, state.dealer, pile, hands, seat, loser=seat)
        return LastCardState(state.seats, state.dealer, pile, hands, (seat + 1) % state.seats)

    def check(
        self, state: LastCardState, seat: int, action: Mapping[str, Any], chance: bool
    ) -> Action:
        if chance:
            raise IllegalAction("Last Card has no chance moves")
        if action.get("type") != "take":
            raise IllegalAction(f"unknown action type {action.get('type')!r}", "type")
        if set(action) != {"type", "count"}:
            raise IllegalAction('a take names only its "count"', "count")
        if seat != state.turn:
            raise IllegalAction(f"it is seat {state.turn}'s turn", "seat")
        count = action["count"]
        most = min(MOST, len(state.pile))
        if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= most:
            raise IllegalAction(f"take 1 to {most} cards, not {count!r}", "count")
        return {"type": "take", "count": count}

    def seat_count(self, state: LastCardState) -> int:
        return state.seats

    def legal_actions(self, state: LastCardState, seat: int) -> list[Action]:
        if state.loser is not None or seat != state.turn:
            return []
        most = min(MOST, len(state.pile))
        return sorted_actions({"type": "take", "count": n} for n in range(1, most + 1))

    def to_act(self, state: LastCardState) -> list[int]:
        return [] if state.loser is not None else [state.turn]

    def waiting_for(self, state: LastCardState) -> list[int]:
        return self.to_act(state)

    def table_view(self, state: LastCardState, seat: int | None) -> View:
        view: View = {
            "seats": state.seats,
            "dealer": state.dealer,
            "turn": state.turn,
            "pile_size": len(state.pile),
            "hand_sizes": [len(h) for h in state.hands],
        }
        if seat is not None:
            view["hand"] = list(state.hands[seat])
        return view

    def hidden(self, state: LastCardState) -> dict[str, Any]:
        hidden: dict[str, Any] = {f"seat:{s}": list(h) for s, h in enumerate(state.hands)}
        hidden["pile"] = list(state.pile)
        return hidden

    def outcome(self, state: LastCardState) -> Outcome | None:
        return None if state.loser is None else {"loser": state.loser}

    def timeout_action(self, state: LastCardState, seat: int, rng: random.Random) -> Action:
        return {"type": "take", "count": 1}

    def cards(self, state: LastCardState) -> list[Card]:
        return [*state.pile, *(c for h in state.hands for c in h)]


#: The one instance; a built-in game would end ``GAME = register(LastCard())``.
GAME = LastCard()
