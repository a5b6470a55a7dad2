"""Bhabhi / Getaway, the Punjabi variant (seed 003, CONVENTIONS.md).

3–8 players, all 52 cards dealt, ace high, no trumps.  Trick 1 is led with
A♠ by its holder; everyone plays one card (a spade when they can) and the
whole trick goes face down to the discard.  In later tricks a player who can
follow must; a player who cannot plays any card (a *tochoo*) and the trick
stops at once: the highest card of the led suit picks every card of it up and
leads next.  A trick everyone followed goes to the discard and its highest
card leads next.  When a trick ends, players with empty hands are out, except
the lead holder whose last card won a clean trick: they draw one card blindly
from the old discard (a chance move) and must lead it.  Between tricks any
active player may take the whole hand of their next active player on the left
(who is then out).  The last player left in the game loses.

The state is one frozen value of tuples.  ``phase`` says where the deal is:

``lead``   between tricks: ``leader`` must lead (``must_lead`` when forced);
           every active seat may ``take_left``;
``trick``  a trick is running: ``turn`` must play;
``draw``   the lead holder's hand is empty after a clean trick: the chance
           move ``draw_discard`` is due, the trick still on the table;
``over``   ``loser`` lost.

(Over 400 lines, on purpose: one module per game owns all of the game's facts,
its rules, metadata and what each viewer may see, as OpenSpiel's games do.)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import (
    ACE_HIGH_VALUE,
    SUITS,
    Card,
    CardError,
    deal_round_robin,
    full_deck,
    parse_card,
)
from engine.contract import Action, Game, IllegalAction, Outcome, View, said, sorted_actions
from engine.registry import register
from engine.series import SeriesFormat
from engine.shapes import (
    BOOLEAN,
    CARD,
    COUNT,
    SEAT,
    SEAT_GROUPS,
    SUIT,
    ActionShape,
    described,
    list_of,
    nullable,
    one_of_values,
    record,
)
from engine.words import Phrase, gettext_noop

LEAD = "lead"
TRICK = "trick"
DRAW = "draw"
OVER = "over"

#: The card that leads trick 1.
ACE_OF_SPADES: Card = "AS"
SUIT_NAMES: dict[str, str] = {
    "S": gettext_noop("spades"),
    "H": gettext_noop("hearts"),
    "D": gettext_noop("diamonds"),
    "C": gettext_noop("clubs"),
}
_SUIT_ORDER: dict[str, int] = {s: i for i, s in enumerate(SUITS)}
_VALUE: dict[Card, int] = {c: ACE_HIGH_VALUE[c[0]] for c in full_deck()}
#: Sort key of a card: suit (S H D C), then rank low to high (hands as shown).
_HAND_KEY: dict[Card, tuple[int, int]] = {c: (_SUIT_ORDER[c[1]], _VALUE[c]) for c in full_deck()}
#: Sort key for "the lowest card": rank first, then suit S H D C (the timeout's choice).
_LOW_KEY: dict[Card, tuple[int, int]] = {c: (_VALUE[c], _SUIT_ORDER[c[1]]) for c in full_deck()}
_TAKE_LEFT: Action = {"type": "take_left"}


@dataclass(frozen=True, slots=True)
class BhabhiState:
    """A Bhabhi deal in progress (or over)."""

    #: Number of seats.
    seats: int
    #: The dealer's seat.
    dealer: int
    #: Each seat's hand (order carries no meaning; views sort it).
    hands: tuple[tuple[Card, ...], ...]
    #: Whether each seat is still in the game (has not gone out).
    active: tuple[bool, ...]
    #: Groups of seats in the order they went out.
    out: tuple[tuple[int, ...], ...]
    #: The face-down discard pile.
    discard: tuple[Card, ...]
    #: The trick on the table, ``(seat, card)`` in playing order, the lead first.
    trick: tuple[tuple[int, Card], ...]
    #: Number of the trick running or about to be led (1 = the A♠ trick).
    trick_number: int
    #: The lead holder (``lead``/``draw``) or the leader of the running trick.
    leader: int
    #: The seat to play in a running trick, else ``None``.
    turn: int | None
    #: ``lead``, ``trick``, ``draw`` or ``over``.
    phase: str
    #: The card the next lead must be (A♠ before trick 1, or a card drawn blind).
    must_lead: Card | None
    #: The loser once the game is over.
    loser: int | None = None

    def next_active(self, seat: int) -> int:
        """The next active seat clockwise after ``seat`` (``seat`` itself if alone)."""
        n = self.seats
        active = self.active
        s = (seat + 1) % n
        while not active[s]:
            s = (s + 1) % n
        return s

    def led_suit(self) -> str | None:
        """The suit of the running trick's lead, ``None`` when no trick is on the table."""
        return self.trick[0][1][1] if self.trick else None

    def active_seats(self) -> list[int]:
        """The seats still in the game, ascending."""
        return [s for s in range(self.seats) if self.active[s]]


def _remove(hand: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    i = hand.index(card)
    return hand[:i] + hand[i + 1 :]


def _card_list(cards: Sequence[Card]) -> str:
    return ", ".join(sorted(cards, key=_HAND_KEY.__getitem__))


class Bhabhi(Game[BhabhiState]):
    """Bhabhi / Getaway, Punjabi variant: the highest card of the led suit picks up."""

    id = "bhabhi"
    name = gettext_noop("Bhabhi / Getaway")
    min_seats = 3
    max_seats = 8
    deck = full_deck()
    chance = True
    simultaneous = True
    default_series = SeriesFormat("losses", 5)
    # The blind draw from the discard is the server's (a chance move), never a seat's.
    actions = {
        "play": ActionShape({"card": CARD}, description="Play a card to the trick."),
        "take_left": ActionShape(
            description="Lead nothing: take the hand of the seat on your left instead."
        ),
        "draw_discard": ActionShape(
            {"card": CARD},
            sent=False,
            secret=frozenset({"card"}),
            description="The server's blind draw from the discard for the leader (chance).",
        ),
    }
    view_shape = {
        "seats": COUNT,
        "dealer": SEAT,
        "phase": one_of_values(LEAD, TRICK, DRAW, OVER),
        "trick_number": COUNT,
        "first_trick": BOOLEAN,
        "leader": SEAT,
        "turn": nullable(SEAT),
        "trick": list_of(record({"seat": SEAT, "card": CARD})),
        "led_suit": nullable(SUIT),
        "must_lead": nullable(
            described(CARD, "The card the leader must lead (shown to the leader only).")
        ),
        "lead_forced": BOOLEAN,
        "hand_sizes": list_of(COUNT),
        "active": described(list_of(SEAT), "The seats still holding cards."),
        "out": SEAT_GROUPS,
        "discard_size": COUNT,
        "loser": nullable(SEAT),
        "hand": described(list_of(CARD), "Your own hand, sorted (a seat's view only)."),
    }
    view_optional = frozenset({"hand"})
    result_shape = record({"loser": SEAT, "out": SEAT_GROUPS})

    def secret_fields(
        self,
        action: Mapping[str, Any],
        actor: Any,
        before: BhabhiState,
        now: BhabhiState,
        viewer: int | None,
    ) -> tuple[str, ...]:
        """The card drawn blindly from the discard is the drawer's until they lead it."""
        return ("card",) if action.get("type") == "draw_discard" and viewer != actor else ()

    # -- the rules -----------------------------------------------------------

    def start(
        self, seats: int, dealer: int, deck: Sequence[Card], options: Mapping[str, Any]
    ) -> BhabhiState:
        hands = tuple(tuple(h) for h in deal_round_robin(deck, seats, dealer))
        holder = next(s for s, h in enumerate(hands) if ACE_OF_SPADES in h)
        return BhabhiState(
            seats=seats,
            dealer=dealer,
            hands=hands,
            active=(True,) * seats,
            out=(),
            discard=(),
            trick=(),
            trick_number=1,
            leader=holder,
            turn=None,
            phase=LEAD,
            must_lead=ACE_OF_SPADES,
        )

    def apply(self, state: BhabhiState, seat: int, action: Mapping[str, Any]) -> BhabhiState:
        kind = action["type"]
        if kind == "play":
            return self._play(state, seat, action["card"])
        if kind == "take_left":
            return self._take_left(state, seat)
        return self._draw(state, action["card"])

    def _play(self, state: BhabhiState, seat: int, card: Card) -> BhabhiState:
        hands = list(state.hands)
        hands[seat] = _remove(hands[seat], card)
        trick = state.trick + ((seat, card),)
        nxt = state.next_active(seat)
        if state.phase == LEAD:
            return BhabhiState(
                state.seats,
                state.dealer,
                tuple(hands),
                state.active,
                state.out,
                state.discard,
                trick,
                state.trick_number,
                seat,
                nxt,
                TRICK,
                None,
            )
        led = trick[0][1][1]
        if state.trick_number > 1 and card[1] != led:
            return self._pick_up(state, hands, trick)
        if nxt == state.leader:
            return self._clean(state, hands, trick)
        return BhabhiState(
            state.seats,
            state.dealer,
            tuple(hands),
            state.active,
            state.out,
            state.discard,
            trick,
            state.trick_number,
            state.leader,
            nxt,
            TRICK,
            None,
        )

    @staticmethod
    def _top(trick: tuple[tuple[int, Card], ...]) -> int:
        """The seat of the highest card of the led suit."""
        led = trick[0][1][1]
        best_seat, best = trick[0][0], _VALUE[trick[0][1]]
        for s, c in trick[1:]:
            if c[1] == led and _VALUE[c] > best:
                best_seat, best = s, _VALUE[c]
        return best_seat

    def _pick_up(
        self, state: BhabhiState, hands: list[tuple[Card, ...]], trick: tuple[tuple[int, Card], ...]
    ) -> BhabhiState:
        """A tochoo ended the trick: its highest led card picks every card of it up."""
        picker = self._top(trick)
        hands[picker] = hands[picker] + tuple(c for _, c in trick)
        return self._after_trick(state, hands, picker, state.discard)

    def _clean(
        self, state: BhabhiState, hands: list[tuple[Card, ...]], trick: tuple[tuple[int, Card], ...]
    ) -> BhabhiState:
        """Everyone played (followed, or trick 1): the trick goes to the discard."""
        winner = self._top(trick)
        if hands[winner]:
            return self._after_trick(
                state, hands, winner, state.discard + tuple(c for _, c in trick)
            )
        # The winner's last card won a clean trick: a blind draw, unless nobody else is left.
        active = list(state.active)
        gone = tuple(s for s in range(state.seats) if active[s] and s != winner and not hands[s])
        for s in gone:
            active[s] = False
        out = state.out + (gone,) if gone else state.out
        if not any(active[s] for s in range(state.seats) if s != winner):
            return BhabhiState(
                state.seats,
                state.dealer,
                tuple(hands),
                tuple(active),
                out,
                state.discard + tuple(c for _, c in trick),
                (),
                state.trick_number + 1,
                winner,
                None,
                OVER,
                None,
                winner,
            )
        return BhabhiState(
            state.seats,
            state.dealer,
            tuple(hands),
            tuple(active),
            out,
            state.discard,
            trick,
            state.trick_number,
            winner,
            None,
            DRAW,
            None,
        )

    def _after_trick(
        self,
        state: BhabhiState,
        hands: list[tuple[Card, ...]],
        leader: int,
        discard: tuple[Card, ...],
    ) -> BhabhiState:
        """The trick is gathered and ``leader`` (with cards) leads next: empty hands go out."""
        active = state.active
        out = state.out
        gone = tuple(s for s in range(state.seats) if active[s] and not hands[s])
        if gone:
            flags = list(active)
            for s in gone:
                flags[s] = False
            active = tuple(flags)
            out = out + (gone,)
        over = sum(active) == 1
        return BhabhiState(
            state.seats,
            state.dealer,
            tuple(hands),
            active,
            out,
            discard,
            (),
            state.trick_number + 1,
            leader,
            None,
            OVER if over else LEAD,
            None,
            leader if over else None,
        )

    def _draw(self, state: BhabhiState, card: Card) -> BhabhiState:
        """The lead holder drew ``card`` blindly from the old discard; the trick is discarded."""
        hands = list(state.hands)
        hands[state.leader] = (card,)
        return BhabhiState(
            state.seats,
            state.dealer,
            tuple(hands),
            state.active,
            state.out,
            _remove(state.discard, card) + tuple(c for _, c in state.trick),
            (),
            state.trick_number + 1,
            state.leader,
            None,
            LEAD,
            card,
        )

    def _take_left(self, state: BhabhiState, seat: int) -> BhabhiState:
        victim = state.next_active(seat)
        hands = list(state.hands)
        hands[seat] = hands[seat] + hands[victim]
        hands[victim] = ()
        active = list(state.active)
        active[victim] = False
        leader = seat if state.leader == victim else state.leader
        over = sum(active) == 1
        return BhabhiState(
            state.seats,
            state.dealer,
            tuple(hands),
            tuple(active),
            state.out + ((victim,),),
            state.discard,
            (),
            state.trick_number,
            leader,
            None,
            OVER if over else LEAD,
            None if over else state.must_lead,
            seat if over else None,
        )

    # -- checking actions ------------------------------------------------------

    def check(
        self, state: BhabhiState, seat: int, action: Mapping[str, Any], chance: bool
    ) -> Action:
        kind = action.get("type")
        if kind == "draw_discard":
            return self._check_draw(state, seat, action, chance)
        if chance:
            raise IllegalAction(
                gettext_noop("only the blind draw from the discard is a chance move"), "type"
            )
        if kind == "play":
            return self._check_play(state, seat, action)
        if kind == "take_left":
            _no_extra(action, ("type",))
            if state.phase == DRAW:
                raise IllegalAction(
                    gettext_noop(
                        "seat %(seat)s must first draw a card blindly from the discard;"
                        " no hand can be taken before that"
                    ),
                    seat=state.leader,
                )
            if not state.active[seat]:
                raise IllegalAction(gettext_noop("you are out of the game"), "seat")
            if state.phase == TRICK:
                raise IllegalAction(
                    gettext_noop(
                        "you may take the left hand only between tricks, not during a trick"
                    )
                )
            return dict(_TAKE_LEFT)
        raise IllegalAction(
            gettext_noop("unknown action type %(type)s: Bhabhi's actions are play and take_left"),
            "type",
            type=said(kind),
        )

    def _check_play(self, state: BhabhiState, seat: int, action: Mapping[str, Any]) -> Action:
        _no_extra(action, ("type", "card"))
        if "card" not in action:
            raise IllegalAction(gettext_noop('a play needs a "card"'), "card")
        try:
            card = parse_card(action["card"])
        except CardError as error:
            raise IllegalAction(error.phrase, "card") from error
        if state.phase == DRAW:
            raise IllegalAction(
                gettext_noop("seat %(seat)s must first draw a card blindly from the discard"),
                seat=state.leader,
            )
        if not state.active[seat]:
            raise IllegalAction(gettext_noop("you are out of the game"), "seat")
        hand = state.hands[seat]
        if state.phase == LEAD:
            if seat != state.leader:
                raise IllegalAction(
                    gettext_noop("it is seat %(leader)s's lead, not seat %(seat)s's"),
                    "seat",
                    leader=state.leader,
                    seat=seat,
                )
            if card not in hand:
                raise IllegalAction(gettext_noop("you do not hold %(card)s"), "card", card=card)
            must = state.must_lead
            if must is not None and card != must:
                if state.trick_number == 1:
                    raise IllegalAction(
                        gettext_noop("you must lead %(card)s to the first trick"), "card", card=must
                    )
                raise IllegalAction(
                    gettext_noop("you must lead %(card)s, the card you drew from the discard"),
                    "card",
                    card=must,
                )
            return {"type": "play", "card": card}
        if seat != state.turn:
            raise IllegalAction(
                gettext_noop("it is seat %(turn)s's turn, not seat %(seat)s's"),
                "seat",
                turn=state.turn,
                seat=seat,
            )
        if card not in hand:
            raise IllegalAction(gettext_noop("you do not hold %(card)s"), "card", card=card)
        led = state.trick[0][1][1]
        if card[1] != led:
            same = [c for c in hand if c[1] == led]
            if same:
                if state.trick_number == 1:
                    raise IllegalAction(
                        gettext_noop(
                            "you must play a spade to the first trick: you hold %(cards)s"
                        ),
                        "card",
                        cards=_card_list(same),
                    )
                raise IllegalAction(
                    gettext_noop("you must follow %(suit)s: you hold %(cards)s"),
                    "card",
                    suit=Phrase(SUIT_NAMES[led]),
                    cards=_card_list(same),
                )
        return {"type": "play", "card": card}

    def _check_draw(
        self, state: BhabhiState, seat: int, action: Mapping[str, Any], chance: bool
    ) -> Action:
        if not chance:
            raise IllegalAction(
                gettext_noop(
                    "the blind draw from the discard is made by the server, not by a player"
                ),
                "type",
            )
        _no_extra(action, ("type", "card"))
        if state.phase != DRAW:
            raise IllegalAction(gettext_noop("no blind draw from the discard is due now"), "type")
        if seat != state.leader:
            raise IllegalAction(
                gettext_noop("the blind draw is seat %(leader)s's, not seat %(seat)s's"),
                "seat",
                leader=state.leader,
                seat=seat,
            )
        try:
            card = parse_card(action.get("card"))
        except CardError as error:
            raise IllegalAction(error.phrase, "card") from error
        if card not in state.discard:
            raise IllegalAction(
                gettext_noop("%(card)s is not in the old discard pile"), "card", card=card
            )
        return {"type": "draw_discard", "card": card}

    # -- who acts ----------------------------------------------------------------

    def seat_count(self, state: BhabhiState) -> int:
        return state.seats

    def _plays(self, state: BhabhiState, seat: int) -> list[Card]:
        """The cards ``seat`` may play now (empty when it is not theirs to play)."""
        phase = state.phase
        if phase == LEAD:
            if seat != state.leader:
                return []
            if state.must_lead is not None:
                return [state.must_lead]
            return list(state.hands[seat])
        if phase != TRICK or seat != state.turn:
            return []
        hand = state.hands[seat]
        led = state.trick[0][1][1]
        same = [c for c in hand if c[1] == led]
        return same or list(hand)

    def legal_actions(self, state: BhabhiState, seat: int) -> list[Action]:
        if state.phase in (DRAW, OVER) or not state.active[seat]:
            return []
        actions: list[Action] = [{"type": "play", "card": c} for c in self._plays(state, seat)]
        if state.phase == LEAD:
            actions.append(dict(_TAKE_LEFT))
        return sorted_actions(actions)

    def to_act(self, state: BhabhiState) -> list[int]:
        if state.phase == LEAD:
            return state.active_seats()
        if state.phase == TRICK:
            assert state.turn is not None
            return [state.turn]
        return []

    def waiting_for(self, state: BhabhiState) -> list[int]:
        if state.phase == LEAD:
            return [state.leader]
        if state.phase == TRICK:
            assert state.turn is not None
            return [state.turn]
        return []

    def chance_outcomes(self, state: BhabhiState) -> tuple[int, list[Action]] | None:
        if state.phase != DRAW:
            return None
        return state.leader, [{"type": "draw_discard", "card": c} for c in sorted(state.discard)]

    def timeout_action(self, state: BhabhiState, seat: int, rng: random.Random) -> Action:
        plays = self._plays(state, seat)
        if not plays:
            raise ValueError(f"seat {seat} has no card to play now")
        return {"type": "play", "card": min(plays, key=_LOW_KEY.__getitem__)}

    # -- views and results -----------------------------------------------------

    def table_view(self, state: BhabhiState, seat: int | None) -> View:
        first = state.trick_number == 1
        lead_forced = state.phase == LEAD and state.must_lead is not None
        # The forced card is in the lead holder's hand: only they see it named (before
        # trick 1 everyone knows it is A♠, from ``first_trick`` and ``lead_forced``).
        must_lead = state.must_lead if lead_forced and seat == state.leader else None
        view: View = {
            "seats": state.seats,
            "dealer": state.dealer,
            "phase": state.phase,
            "trick_number": state.trick_number,
            "first_trick": first,
            "leader": state.leader,
            "turn": state.turn,
            "trick": [{"seat": s, "card": c} for s, c in state.trick],
            "led_suit": state.led_suit(),
            "must_lead": must_lead,
            "lead_forced": lead_forced,
            "hand_sizes": [len(h) for h in state.hands],
            "active": state.active_seats(),
            "out": [list(g) for g in state.out],
            "discard_size": len(state.discard),
            "loser": state.loser,
        }
        if seat is not None:
            view["hand"] = sorted(state.hands[seat], key=_HAND_KEY.__getitem__)
        return view

    def hidden(self, state: BhabhiState) -> dict[str, Any]:
        """Every hand keyed ``"seat:<n>"`` (its owner sees it) and the face-down discard."""
        hidden: dict[str, Any] = {
            f"seat:{s}": sorted(h, key=_HAND_KEY.__getitem__) for s, h in enumerate(state.hands)
        }
        hidden["discard"] = sorted(state.discard, key=_HAND_KEY.__getitem__)
        return hidden

    def outcome(self, state: BhabhiState) -> Outcome | None:
        if state.phase != OVER:
            return None
        return {"loser": state.loser, "out": [list(g) for g in state.out]}

    def cards(self, state: BhabhiState) -> list[Card]:
        cards = [c for h in state.hands for c in h]
        cards.extend(state.discard)
        cards.extend(c for _, c in state.trick)
        return cards


def _no_extra(action: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    extra = sorted(k for k in action if k not in allowed)
    if extra:
        raise IllegalAction(
            gettext_noop("unexpected field(s) %(fields)s in a %(type)s action"),
            str(extra[0]),
            fields=", ".join(map(str, extra)),
            type=action.get("type"),
        )


GAME = register(Bhabhi())
