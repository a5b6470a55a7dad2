"""Give & Take (``give_and_take``), 2–4 players: the seed 004 and CONVENTIONS.md.

Every player has a left and a right pile, face down.  After the deal the piles
between neighbours change owners (seat ``s``'s left pile with seat ``s+1``'s
right pile).  In each round every active player turns the top card of both
piles face up at once; aces are declared 1 or 14 before anything is revealed.
The *right duet* of seat ``s`` is the top face-up card of its right pile and
that of its right neighbour's (the previous active seat's) left pile; the
unique smallest difference captures every face-up card on the table and puts
them face down under one of the capturer's piles.  A tie leaves everything
face up for the next capture.  A player whose pile has no face-down card at the
start of a round runs out: a lone player out on one pile takes the reserve,
otherwise those who ran out leave the game.  The first out wins; the last one
left loses.

State layout: pile ``2*s`` is seat ``s``'s left pile, ``2*s + 1`` its right
pile.  ``down`` holds each pile's face-down cards bottom first (the last item is
the top, turned next); ``up`` holds its face-up cards in the order they were
turned (the last item is the top of the pile).  The reserve is kept top first.

(Over 400 lines, on purpose: one module per game owns all of the game's facts,
its rules, metadata and what each viewer may see, as OpenSpiel's games do.)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from engine.cards import Card, full_deck
from engine.contract import (
    Action,
    Game,
    IllegalAction,
    Outcome,
    View,
    is_whole,
    said,
    sorted_actions,
)
from engine.registry import register
from engine.series import SeriesFormat
from engine.shapes import (
    BOOLEAN,
    CARD,
    COUNT,
    INTEGER,
    SEAT,
    SEAT_GROUPS,
    ActionShape,
    Shape,
    described,
    list_of,
    nullable,
    one_of_values,
    record,
)
from engine.words import gettext_noop

Phase = Literal["declare", "place", "over"]

SIDES: tuple[str, str] = ("left", "right")
SIDE_INDEX: dict[str, int] = {"left": 0, "right": 1}
ACE_VALUES: tuple[int, int] = (1, 14)

#: Face values; the ace has none of its own (its owner declares 1 or 14).
VALUE: dict[str, int] = {
    "2": 2,
    "3": 3,
    "4": 4,
    "5": 5,
    "6": 6,
    "7": 7,
    "8": 8,
    "9": 9,
    "T": 10,
    "J": 11,
    "Q": 12,
    "K": 13,
}


def pile_size(seats: int) -> int:
    """Cards dealt onto each pile: ⌊52 / 2n⌋."""
    return 52 // (2 * seats)


#: One revealed right duet: (seat, right neighbour, seat's right-pile card, the
#: neighbour's left-pile card, their values, the difference).
Duet = tuple[int, int, Card, Card, int, int, int]


def _duet_json(duet: Duet, on_table: bool, active: tuple[int, ...]) -> dict[str, Any]:
    """A duet for the view; its cards only while they lie face up (else null)."""
    seat, neighbour, right, left, rv, lv, diff = duet
    return {
        "seat": seat,
        "neighbour": neighbour,
        "cards": [
            right if on_table and seat in active else None,
            left if on_table and neighbour in active else None,
        ],
        "values": [rv, lv],
        "difference": diff,
    }


#: One of a seat's two piles in the view: face-down count, face-up cards (top last; an
#: undeclared ace of another seat is null), the declared value of its ace.
_PILE: Shape = record(
    {
        "down": COUNT,
        "up": list_of(nullable(CARD)),
        "declared": nullable(one_of_values(*ACE_VALUES)),
    }
)


@dataclass(frozen=True, slots=True)
class GiveAndTakeState:
    """The whole table (see the module docstring for the pile layout)."""

    seats: int
    dealer: int
    #: Face-down cards of each pile, bottom first (pile ``2s`` left, ``2s+1`` right).
    down: tuple[tuple[Card, ...], ...]
    #: Face-up cards of each pile in the order they were turned (last = top).
    up: tuple[tuple[Card, ...], ...]
    #: The reserve, top first.
    reserve: tuple[Card, ...]
    #: Seats still in the game, ascending (clockwise).
    active: tuple[int, ...]
    #: ``declare``: aces of the current round await their values (new cards unrevealed);
    #: ``place``: the capturer chooses a pile; ``over``: the game has ended.
    phase: Phase
    #: Rounds turned so far (the current round's number).
    round: int
    #: Piles whose freshly turned ace has not been declared yet, ascending.
    pending: tuple[int, ...]
    #: The declared value of each pile's top ace this round (``None``: not an ace / not yet).
    declared: tuple[int | None, ...]
    #: The seat that must place its capture (phase ``place``).
    capturer: int | None
    #: The duets of the last revealed round and that round's number (0: none yet).
    duets: tuple[Duet, ...]
    duets_round: int
    #: The seat that captured most recently.
    last_capturer: int | None
    #: Seats going out, one group per moment, in order.
    out: tuple[tuple[int, ...], ...]
    #: Places decided so far, first place first (groups share a place).
    places: tuple[tuple[int, ...], ...]
    #: The cards each seat held when it went out (they left play).
    gone: tuple[tuple[Card, ...], ...]
    #: The seat that took the reserve, if any.
    reserve_taker: int | None


def _held(state: GiveAndTakeState, seat: int) -> int:
    i = 2 * seat
    return len(state.down[i]) + len(state.down[i + 1]) + len(state.up[i]) + len(state.up[i + 1])


def _rank_group(counts: Mapping[int, int]) -> list[tuple[int, ...]]:
    """Seats going out together, more cards first, equal counts sharing a place."""
    groups: list[tuple[int, ...]] = []
    for count in sorted(set(counts.values()), reverse=True):
        groups.append(tuple(sorted(s for s, c in counts.items() if c == count)))
    return groups


def _gather(
    active: tuple[int, ...], capturer: int, up: Sequence[tuple[Card, ...]]
) -> tuple[Card, ...]:
    """Seat by seat clockwise from the capturer, left pile then right, oldest card first."""
    k = active.index(capturer)
    packet: tuple[Card, ...] = ()
    for s in active[k:] + active[:k]:
        packet += up[2 * s] + up[2 * s + 1]
    return packet


class _Table:
    """A mutable working copy of a state, for the automatic part of one event."""

    __slots__ = (
        "state",
        "down",
        "up",
        "reserve",
        "active",
        "phase",
        "round",
        "pending",
        "declared",
        "capturer",
        "duets",
        "duets_round",
        "last_capturer",
        "out",
        "places",
        "gone",
        "reserve_taker",
    )

    def __init__(self, state: GiveAndTakeState) -> None:
        self.state = state
        self.down = list(state.down)
        self.up = list(state.up)
        self.reserve = state.reserve
        self.active = state.active
        self.phase: Phase = state.phase
        self.round = state.round
        self.pending = state.pending
        self.declared = list(state.declared)
        self.capturer = state.capturer
        self.duets = state.duets
        self.duets_round = state.duets_round
        self.last_capturer = state.last_capturer
        self.out = state.out
        self.places = state.places
        self.gone = state.gone
        self.reserve_taker = state.reserve_taker

    def freeze(self) -> GiveAndTakeState:
        # Positional: the field order of GiveAndTakeState (faster than keywords).
        return GiveAndTakeState(
            self.state.seats,
            self.state.dealer,
            tuple(self.down),
            tuple(self.up),
            self.reserve,
            self.active,
            self.phase,
            self.round,
            self.pending,
            tuple(self.declared),
            self.capturer,
            self.duets,
            self.duets_round,
            self.last_capturer,
            self.out,
            self.places,
            self.gone,
            self.reserve_taker,
        )

    def play_on(self) -> None:
        """Turn rounds until a seat must act (an ace, a capture) or the game ends."""
        while True:
            self.run_out()
            if self.phase == "over":
                return
            self.turn()
            if self.pending:
                return
            self.reveal()
            if self.capturer is not None:
                return

    def held(self, seat: int) -> int:
        i = 2 * seat
        down, up = self.down, self.up
        return len(down[i]) + len(down[i + 1]) + len(up[i]) + len(up[i + 1])

    def run_out(self) -> None:
        """The start-of-round check: the reserve for a lone player, or going out."""
        down = self.down
        ran = [s for s in self.active if not down[2 * s] or not down[2 * s + 1]]
        if not ran:
            return
        if len(ran) == 1 and self.reserve:
            seat = ran[0]
            left, right = down[2 * seat], down[2 * seat + 1]
            if bool(left) != bool(right):
                down[2 * seat + (1 if left else 0)] = tuple(reversed(self.reserve))
                self.reserve = ()
                self.reserve_taker = seat
                return
        counts = {s: self.held(s) for s in ran}
        gone = list(self.gone)
        up = self.up
        for s in ran:
            gone[s] = down[2 * s] + up[2 * s] + down[2 * s + 1] + up[2 * s + 1]
            down[2 * s] = down[2 * s + 1] = up[2 * s] = up[2 * s + 1] = ()
        self.gone = tuple(gone)
        self.active = tuple(s for s in self.active if s not in counts)
        self.out += (tuple(ran),)
        self.places += tuple(_rank_group(counts))
        if len(self.active) <= 1:
            if self.active:
                self.places += (self.active,)
            self.phase = "over"

    def turn(self) -> None:
        """Every active player turns the top card of both piles; aces await declaration."""
        down, up = self.down, self.up
        pending: list[int] = []
        for s in self.active:
            for i in (2 * s, 2 * s + 1):
                pile = down[i]
                card = pile[-1]
                down[i] = pile[:-1]
                up[i] = up[i] + (card,)
                if card[0] == "A":
                    pending.append(i)
        self.round += 1
        self.pending = tuple(pending)
        self.declared = [None] * len(down)
        self.phase = "declare"
        self.capturer = None

    def reveal(self) -> None:
        """Every declaration is in: the duets, and a capturer unless the smallest ties."""
        active, up, declared = self.active, self.up, self.declared
        duets: list[Duet] = []
        smallest = 99
        best: list[int] = []
        for k, s in enumerate(active):
            r = active[k - 1]
            right = up[2 * s + 1][-1]
            left = up[2 * r][-1]
            rv = declared[2 * s + 1] or 14 if right[0] == "A" else VALUE[right[0]]
            lv = declared[2 * r] or 14 if left[0] == "A" else VALUE[left[0]]
            diff = rv - lv if rv > lv else lv - rv
            duets.append((s, r, right, left, rv, lv, diff))
            if diff < smallest:
                smallest, best = diff, [s]
            elif diff == smallest:
                best.append(s)
        self.duets = tuple(duets)
        self.duets_round = self.round
        if len(best) == 1:
            self.capturer = self.last_capturer = best[0]
            self.phase = "place"
        else:
            self.capturer = None
            self.phase = "declare"


class GiveAndTake(Game[GiveAndTakeState]):
    """Give & Take: simultaneous rounds of duets, captures and a race to run out."""

    id: ClassVar[str] = "give_and_take"
    name: ClassVar[str] = gettext_noop("Give & Take")
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 4
    deck: ClassVar[tuple[Card, ...]] = full_deck()
    chance: ClassVar[bool] = False
    simultaneous: ClassVar[bool] = True
    default_series: ClassVar[SeriesFormat] = SeriesFormat("place_points", 3)
    actions: ClassVar[Mapping[str, ActionShape]] = {
        "declare_ace": ActionShape(
            {"pile": one_of_values(*SIDES), "value": one_of_values(*ACE_VALUES)},
            secret=frozenset({"pile", "value"}),
            description="Say what your freshly turned ace on a pile counts: 1 or 14.",
        ),
        "place_capture": ActionShape(
            {"pile": one_of_values(*SIDES)},
            description="Put the cards you captured under one of your face-down piles.",
        ),
    }
    view_shape: ClassVar[Mapping[str, Shape]] = {
        "seats": COUNT,
        "dealer": SEAT,
        "round": described(COUNT, "The round within the deal (cards turned so far)."),
        "phase": one_of_values("declare", "place", "over"),
        "piles": list_of(
            record(
                {
                    "seat": SEAT,
                    "active": BOOLEAN,
                    "cards": described(COUNT, "Cards the seat holds (or won, once out)."),
                    **{side: _PILE for side in SIDES},
                }
            )
        ),
        "reserve": described(COUNT, "Cards left in the reserve."),
        "reserve_taker": nullable(SEAT),
        "active": list_of(SEAT),
        "out": SEAT_GROUPS,
        "pending": described(list_of(SEAT), "Seats with an ace to declare."),
        "my_pending": described(
            list_of(one_of_values(*SIDES)), "Your piles whose ace you have to declare."
        ),
        "duets": list_of(
            record(
                {
                    "seat": SEAT,
                    "neighbour": SEAT,
                    "cards": list_of(nullable(CARD), length=2),
                    "values": list_of(INTEGER, length=2),
                    "difference": INTEGER,
                }
            )
        ),
        "duets_round": COUNT,
        "capturer": nullable(SEAT),
        "captured": list_of(CARD),
        "last_capturer": nullable(SEAT),
    }
    result_shape: ClassVar[Shape | None] = record({"places": SEAT_GROUPS})

    def secret_fields(
        self,
        action: Mapping[str, Any],
        actor: Any,
        before: GiveAndTakeState,
        now: GiveAndTakeState,
        viewer: int | None,
    ) -> tuple[str, ...]:
        """An ace declaration (which pile, which value) is its owner's until the round it
        was made in is revealed: declarations of one round are made without seeing the
        others' (CONVENTIONS.md)."""
        if action.get("type") != "declare_ace" or viewer == actor:
            return ()
        revealed = now.round != before.round or now.phase != "declare"
        return () if revealed else ("pile", "value")

    # -- the deal and the automatic part ------------------------------------------

    def start(
        self, seats: int, dealer: int, deck: Sequence[Card], options: Mapping[str, Any]
    ) -> GiveAndTakeState:
        size = pile_size(seats)
        dealt = 2 * seats * size
        piles: list[list[Card]] = [[] for _ in range(2 * seats)]
        for i in range(dealt):
            seat = (dealer + 1 + i // 2) % seats
            piles[2 * seat + i % 2].append(deck[i])
        # The exchange: seat s's left pile goes to s+1 (as its right pile) and
        # seat s+1's right pile comes to s (as its left pile).
        down: list[tuple[Card, ...]] = [()] * (2 * seats)
        for s in range(seats):
            down[2 * s] = tuple(piles[2 * ((s + 1) % seats) + 1])
            down[2 * s + 1] = tuple(piles[2 * ((s - 1) % seats)])
        state = GiveAndTakeState(
            seats=seats,
            dealer=dealer,
            down=tuple(down),
            up=((),) * (2 * seats),
            reserve=tuple(deck[dealt:]),
            active=tuple(range(seats)),
            phase="declare",
            round=0,
            pending=(),
            declared=(None,) * (2 * seats),
            capturer=None,
            duets=(),
            duets_round=0,
            last_capturer=None,
            out=(),
            places=(),
            gone=((),) * seats,
            reserve_taker=None,
        )
        table = _Table(state)
        table.play_on()
        return table.freeze()

    def gathered(self, state: GiveAndTakeState) -> tuple[Card, ...]:
        """The captured cards in gathering order (the first ends nearest the packet's top)."""
        if state.capturer is None:
            return ()
        return _gather(state.active, state.capturer, state.up)

    # -- actions ------------------------------------------------------------------------

    def apply(
        self, state: GiveAndTakeState, seat: int, action: Mapping[str, Any]
    ) -> GiveAndTakeState:
        table = _Table(state)
        if action["type"] == "declare_ace":
            i = 2 * seat + SIDE_INDEX[action["pile"]]
            table.declared[i] = action["value"]
            table.pending = tuple(p for p in state.pending if p != i)
            if not table.pending:
                table.reveal()
                if table.capturer is None:
                    table.play_on()
            return table.freeze()
        # place_capture
        packet = _gather(state.active, seat, state.up)
        target = 2 * seat + SIDE_INDEX[action["pile"]]
        table.down[target] = tuple(reversed(packet)) + table.down[target]
        for s in state.active:
            table.up[2 * s] = table.up[2 * s + 1] = ()
        table.capturer = None
        table.play_on()
        return table.freeze()

    def check(
        self, state: GiveAndTakeState, seat: int, action: Mapping[str, Any], chance: bool
    ) -> Action:
        if chance:
            raise IllegalAction(
                gettext_noop("nothing in Give & Take happens by chance after the deal"), "chance"
            )
        kind = action["type"]
        if kind == "declare_ace":
            _only_keys(action, ("type", "pile", "value"))
            pile = _pile(action)
            value = action.get("value")
            # 14.0 == 14 to Python; JSON's 14.0 is no value RECORD.md gives (found by trying).
            if not is_whole(value) or value not in ACE_VALUES:
                raise IllegalAction(
                    gettext_noop("an ace counts 1 or 14, not %(value)s"), "value", value=said(value)
                )
            self._seat_in(state, seat)
            if state.phase != "declare" or not state.pending:
                raise IllegalAction(gettext_noop("there is no ace to declare now"), "type")
            i = 2 * seat + SIDE_INDEX[pile]
            if i not in state.pending:
                mine = [SIDES[p % 2] for p in state.pending if p // 2 == seat]
                if not mine:
                    waiting = self.waiting_for(state)
                    if not waiting:
                        raise IllegalAction(
                            gettext_noop("you have no ace to declare; waiting for nobody"), "pile"
                        )
                    raise IllegalAction(
                        gettext_noop("you have no ace to declare; waiting for seat %(seats)s"),
                        "pile",
                        seats=", ".join(str(s) for s in waiting),
                    )
                if pile == "left":
                    raise IllegalAction(
                        gettext_noop(
                            "you have no undeclared ace on your left pile;"
                            " declare the ace on your right pile"
                        ),
                        "pile",
                    )
                raise IllegalAction(
                    gettext_noop(
                        "you have no undeclared ace on your right pile;"
                        " declare the ace on your left pile"
                    ),
                    "pile",
                )
            return {"type": "declare_ace", "pile": pile, "value": int(value)}
        if kind == "place_capture":
            _only_keys(action, ("type", "pile"))
            pile = _pile(action)
            self._seat_in(state, seat)
            if state.phase != "place" or state.capturer is None:
                raise IllegalAction(gettext_noop("there is no capture to place now"), "type")
            if state.capturer != seat:
                raise IllegalAction(
                    gettext_noop(
                        "seat %(capturer)s captured, not seat %(seat)s; only they place the cards"
                    ),
                    "seat",
                    capturer=state.capturer,
                    seat=seat,
                )
            return {"type": "place_capture", "pile": pile}
        raise IllegalAction(
            gettext_noop(
                "unknown action type %(type)s; Give & Take has declare_ace and place_capture"
            ),
            "type",
            type=said(kind),
        )

    def _seat_in(self, state: GiveAndTakeState, seat: int) -> None:
        if seat not in state.active:
            raise IllegalAction(gettext_noop("seat %(seat)s is out of the game"), "seat", seat=seat)

    def seat_count(self, state: GiveAndTakeState) -> int:
        return state.seats

    def legal_actions(self, state: GiveAndTakeState, seat: int) -> list[Action]:
        if state.phase == "declare":
            return sorted_actions(
                {"type": "declare_ace", "pile": SIDES[p % 2], "value": v}
                for p in state.pending
                if p // 2 == seat
                for v in ACE_VALUES
            )
        if state.phase == "place" and state.capturer == seat:
            return sorted_actions({"type": "place_capture", "pile": side} for side in SIDES)
        return []

    def to_act(self, state: GiveAndTakeState) -> list[int]:
        return self.waiting_for(state)

    def waiting_for(self, state: GiveAndTakeState) -> list[int]:
        if state.phase == "declare":
            return sorted({p // 2 for p in state.pending})
        if state.phase == "place" and state.capturer is not None:
            return [state.capturer]
        return []

    def timeout_action(self, state: GiveAndTakeState, seat: int, rng: random.Random) -> Action:
        if state.phase == "declare":
            for p in state.pending:
                if p // 2 == seat:
                    return {"type": "declare_ace", "pile": SIDES[p % 2], "value": 14}
        elif state.phase == "place" and state.capturer == seat:
            left, right = len(state.down[2 * seat]), len(state.down[2 * seat + 1])
            return {"type": "place_capture", "pile": "right" if right > left else "left"}
        raise ValueError(f"seat {seat} has nothing to do now")

    # -- views and results ----------------------------------------------------------------

    def table_view(self, state: GiveAndTakeState, seat: int | None) -> View:
        unrevealed = state.phase == "declare"
        active = state.active
        piles: list[dict[str, Any]] = []
        for s in range(state.seats):
            entry: dict[str, Any] = {
                "seat": s,
                "active": s in active,
                "cards": _held(state, s) if s in active else len(state.gone[s]),
            }
            hide = unrevealed and s != seat and s in active
            for side in (0, 1):
                i = 2 * s + side
                up: list[Card | None] = list(state.up[i])
                if hide and up:
                    up[-1] = None
                entry[SIDES[side]] = {
                    "down": len(state.down[i]),
                    "up": up,
                    "declared": None if hide else state.declared[i],
                }
            piles.append(entry)
        # The last revealed round's duet cards are shown while they still lie face up:
        # until its capture is placed (after a tie they stay) or their owner goes out.
        # Afterwards only the seats, values and differences remain.
        diffs = [d[6] for d in state.duets]
        on_table = state.phase == "place" or (bool(diffs) and diffs.count(min(diffs)) > 1)
        pending_seats = sorted({p // 2 for p in state.pending}) if unrevealed else []
        view: View = {
            "seats": state.seats,
            "dealer": state.dealer,
            "round": state.round,
            "phase": state.phase,
            "piles": piles,
            "reserve": len(state.reserve),
            "reserve_taker": state.reserve_taker,
            "active": list(active),
            "out": [list(g) for g in state.out],
            "pending": pending_seats,
            "my_pending": (
                [SIDES[p % 2] for p in state.pending if p // 2 == seat]
                if unrevealed and seat is not None
                else []
            ),
            "duets": [_duet_json(d, on_table, active) for d in state.duets],
            "duets_round": state.duets_round,
            "capturer": state.capturer,
            "captured": list(self.gathered(state)),
            "last_capturer": state.last_capturer,
        }
        return view

    def hidden(self, state: GiveAndTakeState) -> dict[str, Any]:
        """Face-down piles (top first), the reserve (top first), cards out of play, and
        under ``"seat:<s>"`` the cards seat ``s`` turned this round while they are unrevealed
        (their owner sees them, nobody else does) with the values it declared so far."""
        hidden: dict[str, Any] = {
            "piles": [
                {SIDES[side]: list(reversed(state.down[2 * s + side])) for side in (0, 1)}
                for s in range(state.seats)
            ],
            "reserve": list(state.reserve),
            "out_of_play": [list(g) for g in state.gone],
        }
        if state.phase == "declare":
            for s in state.active:
                hidden[f"seat:{s}"] = {
                    "unrevealed": [state.up[2 * s][-1], state.up[2 * s + 1][-1]],
                    "declared": [state.declared[2 * s], state.declared[2 * s + 1]],
                }
        return hidden

    def outcome(self, state: GiveAndTakeState) -> Outcome | None:
        if state.phase != "over":
            return None
        return {"places": [list(g) for g in state.places]}

    def cards(self, state: GiveAndTakeState) -> list[Card]:
        result: list[Card] = list(state.reserve)
        for pile in state.down:
            result.extend(pile)
        for pile in state.up:
            result.extend(pile)
        for held in state.gone:
            result.extend(held)
        return result


def _only_keys(action: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    extra = sorted(k for k in action if k not in allowed)
    if extra:
        raise IllegalAction(
            gettext_noop("unexpected field(s) %(fields)s in %(type)s: it takes only %(allowed)s"),
            extra[0],
            fields=", ".join(map(said, extra)),
            type=said(action["type"]),
            allowed=", ".join(map(said, allowed)),
        )


def _pile(action: Mapping[str, Any]) -> str:
    pile = action.get("pile")
    if not isinstance(pile, str) or pile not in SIDE_INDEX:
        raise IllegalAction(
            gettext_noop('the pile is "left" or "right", not %(pile)s'), "pile", pile=said(pile)
        )
    return str(pile)


GAME = register(GiveAndTake())
