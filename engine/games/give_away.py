"""Give Away with shared foundations, played in turns (seed 000, CONVENTIONS.md).

Every player's cards form one face-down personal stack with its top card face
up.  Four shared foundations are built A → K by rank alone.  On their turn a
player must play their face-up card while it fits some foundation (choosing the
foundation when several fit), turning the next card of their stack after each
play; when it does not fit they pass.  Playing the face-up card with an empty
stack wins the round at once.  A full circle of passes (as many consecutive
passes as players) is a deadlock: the fewest cards left (face down plus face
up) wins, a tie for the fewest is a draw.

The state keeps each seat's dealt cards as one fixed tuple (bottom first) and
the index of its face-up card in it: the cards below the index are the
face-down stack, the cards above it are already on the foundations.  A play
is then one integer decrement and one foundation tuple grown by a card.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import ACE_LOW_VALUE, Card, CardError, full_deck, parse_card
from engine.contract import Action, Game, IllegalAction, Outcome, View, said
from engine.registry import register
from engine.series import SeriesFormat
from engine.shapes import (
    BOOLEAN,
    CARD,
    COUNT,
    SEAT,
    ActionShape,
    described,
    list_of,
    nullable,
    record,
)
from engine.words import Either, Phrase, gettext_noop

#: Foundation slots on the table.
FOUNDATIONS = 4
#: Foundation size (= rank value of its top) a card needs under it: A → 0, 2 → 1 … K → 12.
_NEEDS: dict[Card, int] = {c: ACE_LOW_VALUE[c[0]] - 1 for c in full_deck()}
#: Rank letters by ace-low value (1 = A … 13 = K), for messages.
_RANK_BY_VALUE: dict[int, str] = {v: r for r, v in ACE_LOW_VALUE.items()}
_PLAY_KEYS = frozenset(("type", "card", "foundation"))


@dataclass(frozen=True, slots=True)
class GiveAwayState:
    """A Give Away deal in progress (or over)."""

    #: Number of seats.
    seats: int
    #: The dealer's seat.
    dealer: int
    #: Each seat's dealt cards, first dealt (bottom of the stack) first; never changes.
    dealt: tuple[tuple[Card, ...], ...]
    #: Index in ``dealt[s]`` of seat ``s``'s face-up card; ``dealt[s][:top[s]]`` is the
    #: face-down stack (its last card the next to turn); -1: no face-up card (the winner).
    top: tuple[int, ...]
    #: The four foundations, ace first; a foundation's size is its top's rank value.
    foundations: tuple[tuple[Card, ...], ...]
    #: Whose turn it is.
    turn: int
    #: Consecutive passes since a card last moved.
    passes: int
    #: The round's winner once decided (``None`` while running or after a drawn deadlock).
    winner: int | None = None
    #: Whether the round is over.
    over: bool = False
    #: Each seat's cards left (face down plus face up) when the round ended in deadlock.
    counts: tuple[int, ...] | None = None

    def face_up(self, seat: int) -> Card | None:
        """Seat's face-up card, ``None`` only for the winner."""
        i = self.top[seat]
        return self.dealt[seat][i] if i >= 0 else None

    def fitting(self, seat: int) -> list[int]:
        """The foundations seat's face-up card fits now, lowest slot first."""
        i = self.top[seat]
        if i < 0:
            return []
        need = _NEEDS[self.dealt[seat][i]]
        return [k for k, f in enumerate(self.foundations) if len(f) == need]


def _a_rank(value: int) -> Phrase:
    """'a 6', 'an 8' for a rank value."""
    letter = _RANK_BY_VALUE[value]
    if letter in "8A":
        return Phrase(gettext_noop("an %(rank)s"), rank=letter)
    return Phrase(gettext_noop("a %(rank)s"), rank=letter)


class GiveAway(Game[GiveAwayState]):
    """Give Away, shared foundations, turn-based."""

    id = "give_away"
    name = gettext_noop("Give Away")
    min_seats = 2
    max_seats = 6
    deck = full_deck()
    chance = False
    simultaneous = False
    default_series = SeriesFormat("first_to", 3)
    actions = {
        "play": ActionShape(
            {"card": CARD, "foundation": described(COUNT, "The foundation's index, 0 first.")},
            description="Play the face-up card onto a foundation it fits.",
        ),
        "pass": ActionShape(description="Pass: the face-up card fits no foundation."),
    }
    view_shape = {
        "seats": COUNT,
        "dealer": SEAT,
        "turn": nullable(described(SEAT, "The seat on turn (null once over).")),
        "passes": described(COUNT, "Passes in a row so far."),
        "face_up": described(
            list_of(nullable(CARD)), "Each seat's face-up card (null: the seat has none left)."
        ),
        "stack_sizes": described(list_of(COUNT), "Each seat's face-down cards."),
        "foundations": list_of(record({"top": nullable(CARD), "size": COUNT})),
    }
    result_shape = record(
        {
            "winner": nullable(SEAT),
            "deadlock": BOOLEAN,
            "counts": described(list_of(COUNT), "A deadlock: each seat's cards left."),
        },
        optional=("deadlock", "counts"),
    )

    # -- the rules -----------------------------------------------------------

    def start(
        self, seats: int, dealer: int, deck: Sequence[Card], options: Mapping[str, Any]
    ) -> GiveAwayState:
        # deal_round_robin gives seat s the cards at positions (s - dealer - 1) mod n,
        # every n-th; slicing builds the same stacks without a per-card loop.
        cards = tuple(deck)
        hands = tuple(cards[(s - dealer - 1) % seats :: seats] for s in range(seats))
        return GiveAwayState(
            seats=seats,
            dealer=dealer,
            dealt=hands,
            top=tuple(len(h) - 1 for h in hands),
            foundations=((),) * FOUNDATIONS,
            turn=(dealer + 1) % seats,
            passes=0,
        )

    def apply(self, state: GiveAwayState, seat: int, action: Mapping[str, Any]) -> GiveAwayState:
        if action["type"] == "pass":
            passes = state.passes + 1
            n = state.seats
            if passes < n:
                return GiveAwayState(
                    n,
                    state.dealer,
                    state.dealt,
                    state.top,
                    state.foundations,
                    (seat + 1) % n,
                    passes,
                )
            counts = tuple(i + 1 for i in state.top)
            least = min(counts)
            smallest = [s for s, c in enumerate(counts) if c == least]
            return GiveAwayState(
                n,
                state.dealer,
                state.dealt,
                state.top,
                state.foundations,
                seat,
                passes,
                smallest[0] if len(smallest) == 1 else None,
                True,
                counts,
            )
        k = action["foundation"]
        foundations = state.foundations
        grown = foundations[:k] + (foundations[k] + (action["card"],),) + foundations[k + 1 :]
        top = state.top
        i = top[seat]
        tops = top[:seat] + (i - 1,) + top[seat + 1 :]
        if i == 0:
            return GiveAwayState(
                state.seats, state.dealer, state.dealt, tops, grown, seat, 0, seat, True
            )
        return GiveAwayState(state.seats, state.dealer, state.dealt, tops, grown, seat, 0)

    def check(
        self, state: GiveAwayState, seat: int, action: Mapping[str, Any], chance: bool
    ) -> Action:
        if chance:
            raise IllegalAction(gettext_noop("Give Away has no chance moves after the deal"))
        if seat != state.turn:
            raise IllegalAction(
                gettext_noop("it is seat %(turn)s's turn, not seat %(seat)s's"),
                "seat",
                turn=state.turn,
                seat=seat,
            )
        kind = action["type"]
        up = state.face_up(seat)
        assert up is not None  # only the winner lacks one, and the game is then over
        fits = state.fitting(seat)
        if kind == "pass":
            extra = sorted(set(action) - {"type"})
            if extra:
                raise IllegalAction(
                    gettext_noop("a pass has no other fields, got %(fields)s"),
                    extra[0],
                    fields=", ".join(map(said, extra)),
                )
            if fits:
                raise IllegalAction(
                    gettext_noop(
                        "you must play your face-up %(card)s: it fits foundation %(slots)s"
                    ),
                    "type",
                    card=up,
                    slots=Either(fits),
                )
            return {"type": "pass"}
        if kind != "play":
            raise IllegalAction(
                gettext_noop('unknown action type %(type)s: Give Away has "play" and "pass"'),
                "type",
                type=said(kind),
            )
        extra = sorted(set(action) - _PLAY_KEYS)
        if extra:
            raise IllegalAction(
                gettext_noop(
                    'a play has only "type", "card" and "foundation", got also %(fields)s'
                ),
                extra[0],
                fields=", ".join(map(said, extra)),
            )
        if "card" not in action:
            raise IllegalAction(gettext_noop("a play names the card: your face-up card"), "card")
        try:
            card = parse_card(action["card"])
        except CardError as error:
            raise IllegalAction(error.phrase, "card") from error
        if card != up:
            raise IllegalAction(
                gettext_noop("you may play only your own face-up card %(up)s, not %(card)s"),
                "card",
                up=up,
                card=card,
            )
        if "foundation" not in action:
            raise IllegalAction(
                gettext_noop("a play names the foundation slot (0 to 3)"), "foundation"
            )
        k = action["foundation"]
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < FOUNDATIONS:
            raise IllegalAction(
                gettext_noop("a foundation is a slot number from 0 to %(last)s, not %(slot)s"),
                "foundation",
                last=FOUNDATIONS - 1,
                slot=said(k),
            )
        if k not in fits:
            raise IllegalAction(self._misfit_reason(state, card, k, fits), "foundation")
        return {"type": "play", "card": card, "foundation": k}

    @staticmethod
    def _misfit_reason(state: GiveAwayState, card: Card, k: int, fits: list[int]) -> Phrase:
        pile = state.foundations[k]
        if not pile:
            why = Phrase(
                gettext_noop(
                    "only an ace starts an empty foundation, and foundation %(k)s is empty"
                ),
                k=k,
            )
        elif len(pile) == 13:
            why = Phrase(
                gettext_noop("foundation %(k)s is complete: nothing goes on its king"), k=k
            )
        else:
            why = Phrase(
                gettext_noop("%(card)s cannot go on %(top)s: foundation %(k)s takes %(next)s next"),
                card=card,
                top=pile[-1],
                k=k,
                next=_a_rank(len(pile) + 1),
            )
        if fits:
            return Phrase(
                gettext_noop("%(why)s; %(card)s fits foundation %(slots)s"),
                why=why,
                card=card,
                slots=Either(fits),
            )
        return Phrase(
            gettext_noop("%(why)s; %(card)s fits no foundation now, so you must pass"),
            why=why,
            card=card,
        )

    def seat_count(self, state: GiveAwayState) -> int:
        return state.seats

    def legal_actions(self, state: GiveAwayState, seat: int) -> list[Action]:
        # Already in canonical order: plays sort by foundation (one digit) before the pass.
        if state.over or seat != state.turn:
            return []
        i = state.top[seat]
        card = state.dealt[seat][i]
        need = _NEEDS[card]
        plays: list[Action] = [
            {"type": "play", "card": card, "foundation": k}
            for k, f in enumerate(state.foundations)
            if len(f) == need
        ]
        return plays or [{"type": "pass"}]

    def forced_action(self, state: GiveAwayState, seat: int) -> Action | None:
        """Every move is forced: the face-up card must be played if it fits, else a pass.

        Which fitting foundation takes it cannot change the game (every fitting
        foundation has the same top rank, and suits do not count), so the first
        in canonical order stands for all.
        """
        legal = self.legal_actions(state, seat)
        return dict(legal[0]) if legal else None

    def to_act(self, state: GiveAwayState) -> list[int]:
        return [] if state.over else [state.turn]

    def waiting_for(self, state: GiveAwayState) -> list[int]:
        return [] if state.over else [state.turn]

    def outcome(self, state: GiveAwayState) -> Outcome | None:
        if not state.over:
            return None
        if state.counts is None:
            return {"winner": state.winner}
        return {"winner": state.winner, "deadlock": True, "counts": list(state.counts)}

    def timeout_action(self, state: GiveAwayState, seat: int, rng: random.Random) -> Action:
        if state.over or seat != state.turn:
            raise IllegalAction(
                gettext_noop("seat %(seat)s is not on turn, so it has no clock"), seat=seat
            )
        fits = state.fitting(seat)
        if fits:
            return {"type": "play", "card": state.face_up(seat), "foundation": fits[0]}
        return {"type": "pass"}

    def cards(self, state: GiveAwayState) -> list[Card]:
        held = [c for s, d in enumerate(state.dealt) for c in d[: state.top[s] + 1]]
        return held + [c for f in state.foundations for c in f]

    # -- views ----------------------------------------------------------------

    def table_view(self, state: GiveAwayState, seat: int | None) -> View:
        # Nobody may look into a stack, their own included: every seat sees what a
        # spectator sees.
        return {
            "seats": state.seats,
            "dealer": state.dealer,
            "turn": None if state.over else state.turn,
            "passes": state.passes,
            "face_up": [state.face_up(s) for s in range(state.seats)],
            "stack_sizes": [max(i, 0) for i in state.top],
            "foundations": [
                {"top": f[-1] if f else None, "size": len(f)} for f in state.foundations
            ],
        }

    def hidden(self, state: GiveAwayState) -> dict[str, Any]:
        return {
            "stacks": [list(d[: max(i, 0)]) for d, i in zip(state.dealt, state.top, strict=True)]
        }


GAME = register(GiveAway())
