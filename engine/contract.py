"""The game contract every game module fulfils.

A game is a *decider* in the event-sourcing sense.  Its state is an immutable
value; the only way to change it is an event:

* ``deal(seats, dealer, deck, options)`` returns the first event (``dealt``);
* ``decide(state, seat, action)`` checks an action and returns the events it
  causes, or raises :class:`IllegalAction` with a reason a person can read;
* ``evolve(state, event)`` returns the next state, and ``fold(events)`` folds a
  whole stream.  Folding never draws a random number: every shuffle or blind
  draw is decided outside (by the service, a bot runner or a timeout) and is
  recorded in the event.

Events, actions, views and outcomes are plain JSON-ready dicts.  An event has a
``type`` and a version ``v``.  There are two event types:

``{"type": "dealt", "v": 1, "game": id, "seats": n, "dealer": d, "deck": [...], "options": {...}}``
    the deal, deck in dealing order (CONVENTIONS.md);
``{"type": "move", "v": 1, "seat": s, "action": {...}, "chance": bool}``
    an accepted action, exactly as the portable record (RECORD.md) lists it;
    ``chance`` marks what no seat chose (a server shuffle, a blind draw).

Everything that follows by the rules (a forced discard, turned cards, a trick
gathered) is derived inside ``evolve``, never stored as a separate event.

Two things a game owns besides its rules, because only the game knows them:

* **what a seat may say** (:attr:`Game.requests`): the fields of each action a
  player may send.  :meth:`Game.request` is the one way in for a seat's command,
  from the API, the pages, bots and timeouts alike; it refuses anything else
  before the state is looked at, so no refusal can depend on a hidden card (an
  Old Maid draw names a position, never a card: the server fills it in);
* **what each viewer may see of each event** (:meth:`Game.event_view`), at a
  given point of the game: a declared Give & Take ace is hidden from the other
  seats until its round is revealed, an Old Maid draw's card and a fan's order
  stay with their owner.  Every surface that shows events goes through it.

(Just over 400 lines: one abstract class, :class:`Game`, each of whose methods
documents its part of the contract where it is declared.)
"""

from __future__ import annotations

import json
import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeGuard, TypeVar

from engine.cards import Card, CardError, check_deck
from engine.series import SeriesFormat
from engine.shapes import ActionShape, Shape
from engine.words import Phrase, gettext_noop
from engine.words import said as said  # re-exported (below)

Action = dict[str, Any]
Event = dict[str, Any]
View = dict[str, Any]
Outcome = dict[str, Any]

EVENT_VERSION = 1

S = TypeVar("S")


class IllegalAction(Exception):
    """An action the rules do not allow now; nothing changes.

    ``reason`` says what is wrong in words a player understands (English); ``field``
    names the part of the action at fault when there is one (``"card"``, ``"seat"``).
    Raised with a message marked by :func:`engine.words.gettext_noop` and the values of
    its ``%(name)s`` places (``IllegalAction(gettext_noop("it is seat %(turn)s's turn"),
    "seat", turn=2)``), or with a :class:`~engine.words.Phrase`, it keeps them as
    ``phrase``, which the Django side says in the reader's language.
    """

    def __init__(self, reason: str | Phrase, field: str | None = None, **params: object) -> None:
        self.phrase = reason if isinstance(reason, Phrase) else Phrase(reason, **params)
        self.reason = str(self.phrase)
        super().__init__(self.reason)
        self.field = field


# said(value), how a refusal quotes what was sent, is defined in engine.words, which
# engine.cards can import without a cycle (this module imports that one); it is
# re-exported here, where the rest of the engine and the service import it from.


def is_whole(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a JSON integer: an ``int`` and not a ``bool`` (``true`` is 1 to
    Python, so a record's ``"seat": true`` was replayed as seat 1, found by trying)."""
    return isinstance(value, int) and not isinstance(value, bool)


def action_key(action: Mapping[str, Any]) -> str:
    """The sort key of an action: its canonical JSON text (legal actions are sorted by it)."""
    return json.dumps(action, sort_keys=True, separators=(",", ":"))


def sorted_actions(actions: Iterable[Action]) -> list[Action]:
    """``actions`` in the contract's canonical order."""
    return sorted(actions, key=action_key)


class Game(ABC, Generic[S]):
    """One card game, declared with its metadata and its rules.

    Subclasses set the class attributes and implement the abstract methods; the
    base class provides dealing, folding, the common part of views and the
    record shape of events.
    """

    #: Engine id, as in CONVENTIONS.md and RECORD.md (``"give_away"``).
    id: ClassVar[str]
    #: The name a player reads.
    name: ClassVar[str]
    #: Fewest seats the game is played with.
    min_seats: ClassVar[int]
    #: Most seats the game is played with.
    max_seats: ClassVar[int]
    #: The cards of one deal (the deck before shuffling).
    deck: ClassVar[tuple[Card, ...]]
    #: Whether the game has chance moves after the deal (blind draws, shuffles).
    chance: ClassVar[bool]
    #: Whether several seats may have to act at once.
    simultaneous: ClassVar[bool]
    #: How a series at one table is played and scored unless the organiser says otherwise.
    default_series: ClassVar[SeriesFormat]
    #: Every action type of the game with the JSON shape of its fields, who may send it
    #: and what a move records (:class:`engine.shapes.ActionShape`).  The rules read
    #: :attr:`requests` from it and the API's schema its shapes, so it is said once.
    actions: ClassVar[Mapping[str, ActionShape]] = {}
    #: What a seat may say: each action type a player may send, with the fields it
    #: may name besides ``type``.  Everything else a seat sends is refused unread.
    #: Derived from :attr:`actions` (the action types a seat may send) unless a game
    #: without shapes sets it itself.
    requests: ClassVar[Mapping[str, frozenset[str]]]
    #: The JSON shape of each key of :meth:`table_view` (:mod:`engine.shapes`); the keys
    #: in :attr:`view_optional` are not in every view (a seat's own hand).
    view_shape: ClassVar[Mapping[str, Shape]] = {}
    view_optional: ClassVar[frozenset[str]] = frozenset()
    #: The JSON shape of :meth:`outcome`'s result (RECORD.md), once the game is over.
    result_shape: ClassVar[Shape | None] = None
    #: Words added to the refusal of a request that names a field it may not, by type.
    request_help: ClassVar[Mapping[str, str]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("actions") and "requests" not in cls.__dict__:
            cls.requests = {
                kind: frozenset(shape.fields) for kind, shape in cls.actions.items() if shape.sent
            }

    # -- the deal and the fold ------------------------------------------------

    def deal(
        self,
        seats: int,
        dealer: int,
        deck: Sequence[object],
        options: Mapping[str, Any] | None = None,
    ) -> list[Event]:
        """The events of a new game dealt from ``deck`` (in dealing order) by ``dealer``."""
        if not is_whole(seats) or not self.min_seats <= seats <= self.max_seats:
            raise IllegalAction(
                gettext_noop("%(game)s is played by %(fewest)s to %(most)s players, not %(seats)s"),
                "seats",
                game=Phrase(self.name),
                fewest=self.min_seats,
                most=self.max_seats,
                seats=said(seats),
            )
        if not is_whole(dealer) or not 0 <= dealer < seats:
            raise IllegalAction(
                gettext_noop("the dealer must be a seat from 0 to %(last)s"),
                "dealer",
                last=seats - 1,
            )
        try:
            cards = check_deck(deck, self.deck)
        except CardError as error:
            raise IllegalAction(error.phrase, "deck") from error
        checked = self.check_options(dict(options or {}))
        return [
            {
                "type": "dealt",
                "v": EVENT_VERSION,
                "game": self.id,
                "seats": seats,
                "dealer": dealer,
                "deck": cards,
                "options": checked,
            }
        ]

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        """The game's options, validated; the default game takes none."""
        if options:
            raise IllegalAction(
                gettext_noop("%(game)s takes no options, got %(options)s"),
                "options",
                game=Phrase(self.name),
                options=said(sorted(options)),
            )
        return {}

    def evolve(self, state: S | None, event: Mapping[str, Any]) -> S:
        """The state after ``event``.  The first event of a stream is ``dealt``."""
        kind = event.get("type")
        if kind == "dealt":
            if state is not None:
                raise ValueError("a game is dealt only once")
            return self.start(event["seats"], event["dealer"], event["deck"], event["options"])
        if kind == "move":
            if state is None:
                raise ValueError("a move before the deal")
            return self.apply(state, event["seat"], event["action"])
        raise ValueError(f"unknown event type {kind!r}")

    def fold(self, events: Iterable[Mapping[str, Any]]) -> S:
        """The state after all ``events``, folded from nothing."""
        state: S | None = None
        for event in events:
            state = self.evolve(state, event)
        if state is None:
            raise ValueError("no events to fold")
        return state

    def decide(
        self, state: S, seat: int, action: Mapping[str, Any], *, chance: bool = False
    ) -> list[Event]:
        """The events ``action`` by ``seat`` causes; :class:`IllegalAction` if it is not allowed.

        ``chance=True`` is for outcomes no seat chose (see :meth:`chance_outcomes`
        and the server's shuffles); the service, never a player, sets it.
        """
        if self.outcome(state) is not None:
            raise IllegalAction(gettext_noop("the game is over"))
        if not is_whole(seat) or not 0 <= seat < self.seat_count(state):
            raise IllegalAction(
                gettext_noop("there is no seat %(seat)s at this table"), "seat", seat=said(seat)
            )
        if not isinstance(action, Mapping) or not isinstance(action.get("type"), str):
            raise IllegalAction(gettext_noop('an action is an object with a "type"'), "type")
        canonical = self.check(state, seat, action, chance)
        return [
            {
                "type": "move",
                "v": EVENT_VERSION,
                "seat": seat,
                "action": canonical,
                "chance": chance,
            }
        ]

    # -- what each game implements ------------------------------------------

    @abstractmethod
    def start(self, seats: int, dealer: int, deck: Sequence[Card], options: Mapping[str, Any]) -> S:
        """The state right after the deal (and whatever follows it by the rules)."""

    @abstractmethod
    def apply(self, state: S, seat: int, action: Mapping[str, Any]) -> S:
        """The state after an accepted ``action`` (already checked and canonical)."""

    @abstractmethod
    def check(self, state: S, seat: int, action: Mapping[str, Any], chance: bool) -> Action:
        """``action`` in canonical form if ``seat`` may make it now, else :class:`IllegalAction`."""

    @abstractmethod
    def seat_count(self, state: S) -> int:
        """How many seats the table has."""

    @abstractmethod
    def legal_actions(self, state: S, seat: int) -> list[Action]:
        """Every action ``seat`` may send now, in canonical order (:func:`sorted_actions`).

        Where the choices cannot be listed (an Old Maid fan's every order) one
        representative stands for them and the game's docs say so.
        """

    @abstractmethod
    def to_act(self, state: S) -> list[int]:
        """Seats that may act now (several where the game allows it), ascending."""

    @abstractmethod
    def waiting_for(self, state: S) -> list[int]:
        """Seats the game cannot go on without: they have a clock and a timeout action."""

    def chance_outcomes(self, state: S) -> tuple[int, list[Action]] | None:
        """At a chance node, the seat it happens to and its equally likely outcomes."""
        return None

    def forced_action(self, state: S, seat: int) -> Action | None:
        """The action of ``seat`` when its choice cannot change the game, else ``None``.

        A seat the game waits for whose only legal action is one has it forced.
        A game where every legal action of a seat leads to the same game
        (Give Away: the fitting foundations all have the same top rank)
        overrides this.  The service may play a forced action for the seat as
        the seat's own move; the record is the same.
        """
        if seat not in self.waiting_for(state):
            return None
        legal = self.legal_actions(state, seat)
        return dict(legal[0]) if len(legal) == 1 else None

    def chance_draw(self, state: S, rng: random.Random) -> tuple[int, Action] | None:
        """At a chance node, its seat and one outcome drawn by ``rng``; ``None`` elsewhere.

        The default draws uniformly among :meth:`chance_outcomes`.  A game whose
        outcomes are too many to list (the n! orders of an Old Maid fan
        shuffled after a draw) overrides it.  Whoever drives a game (the
        service, the simulator) draws here and records the outcome as a
        ``chance`` move; the fold itself never draws.
        """
        node = self.chance_outcomes(state)
        if node is None:
            return None
        seat, outcomes = node
        return seat, rng.choice(outcomes)

    @abstractmethod
    def table_view(self, state: S, seat: int | None) -> View:
        """What ``seat`` (``None``: a spectator) sees of the table: hidden cards removed."""

    def full_view(self, state: S) -> View:
        """Everything, hidden cards included (for finished games and replays)."""
        return self.table_view(state, None) | {"hidden": self.hidden(state)}

    @abstractmethod
    def hidden(self, state: S) -> dict[str, Any]:
        """The hidden cards of the table, for the full view.

        Keys ``"seat:<n>"`` hold what seat ``n`` alone may see (its own hand);
        every other key holds what nobody at the table sees (face-down stacks,
        the discard).  The conformance suite checks views against this split.
        """

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The result in RECORD.md's shape once the game is over, else ``None``."""

    @abstractmethod
    def timeout_action(self, state: S, seat: int, rng: random.Random) -> Action:
        """The action ``seat`` gets when its time runs out (a seat in :meth:`waiting_for`).

        Everyone sees it, as a bot's move: it may depend only on what ``seat`` may see
        and ``rng`` (tests/engine/test_bots_hidden.py), apart from what the server fills
        in of a request (an Old Maid draw's card).
        """

    @abstractmethod
    def cards(self, state: S) -> list[Card]:
        """Every card of the deal wherever it is now (hands, piles, discards, out of play)."""

    def resolve(
        self, state: S, seat: int, request: Mapping[str, Any], rng: random.Random
    ) -> tuple[Mapping[str, Any], bool]:
        """Turn a player's request that needs chance into an action and its chance flag.

        The default passes the request through.  Old Maid turns ``{"type":
        "shuffle"}`` into an ``arrange`` drawn by ``rng`` (a chance move).
        """
        return request, False

    # -- what a seat may say, and what a viewer may see ---------------------------------

    def request(
        self, state: S, seat: int, request: Mapping[str, Any], rng: random.Random
    ) -> tuple[Mapping[str, Any], bool]:
        """A seat's request turned into the action to decide, and its chance flag.

        The one way in for a player's command (API, pages, bots, the clock's
        choices all come here).  Only the action types and fields of
        :attr:`requests` are accepted, checked before anything of the state is
        read, so the refusal of a request never depends on a hidden card; then
        :meth:`resolve` fills in what the server decides (the card drawn, a
        shuffle's order).
        """
        kind = request.get("type")
        allowed = self.requests.get(kind) if isinstance(kind, str) else None
        if allowed is None:
            raise IllegalAction(
                gettext_noop(
                    "unknown action type %(type)s: a player of %(game)s may send %(types)s"
                ),
                "type",
                type=said(kind),
                game=Phrase(self.name),
                types=", ".join(said(k) for k in sorted(self.requests)),
            )
        extra = sorted(set(request) - allowed - {"type"})
        if extra:
            named = ", ".join(said(f) for f in sorted(allowed))
            help_ = self.request_help.get(str(kind))
            places = {"type": said(kind), "name": said(extra[0])}
            if named and help_:
                raise IllegalAction(
                    gettext_noop(
                        "a %(type)s names only %(named)s; %(name)s is not a player's to say:"
                        " %(help)s"
                    ),
                    extra[0],
                    named=named,
                    help=Phrase(help_),
                    **places,
                )
            if named:
                raise IllegalAction(
                    gettext_noop(
                        "a %(type)s names only %(named)s; %(name)s is not a player's to say"
                    ),
                    extra[0],
                    named=named,
                    **places,
                )
            if help_:
                raise IllegalAction(
                    gettext_noop(
                        "a %(type)s names only no other field; %(name)s is not a player's to say:"
                        " %(help)s"
                    ),
                    extra[0],
                    help=Phrase(help_),
                    **places,
                )
            raise IllegalAction(
                gettext_noop(
                    "a %(type)s names only no other field; %(name)s is not a player's to say"
                ),
                extra[0],
                **places,
            )
        return self.resolve(state, seat, request, rng)

    def event_view(self, event: Event, before: S | None, now: S, viewer: int | None) -> Event:
        """What ``viewer`` (a seat; ``None`` for a spectator or the organiser) may see of
        ``event`` once the game has reached ``now``; ``before`` is the state the event
        was made in (``None`` for the deal).

        The deal is shown without its deck; a move without the fields
        :meth:`secret_fields` names, which are listed under ``"redacted"``.  This
        is the rule while the game runs: when a finished game's whole log becomes
        public is the service's to say (a duplicate deal waits for its twins).
        """
        if event.get("type") == "dealt":
            return {k: v for k, v in event.items() if k != "deck"}
        if before is None or event.get("type") != "move":
            return dict(event)
        action = event.get("action") or {}
        secret = [
            f
            for f in self.secret_fields(action, event.get("seat"), before, now, viewer)
            if f in action
        ]
        if not secret:
            return dict(event)
        return event | {
            "action": {k: v for k, v in action.items() if k not in secret},
            "redacted": secret,
        }

    def secret_fields(
        self, action: Mapping[str, Any], actor: Any, before: S, now: S, viewer: int | None
    ) -> tuple[str, ...]:
        """The fields of ``action`` (made by ``actor`` at ``before``) that ``viewer`` may not
        see at ``now``.  The default hides nothing: every move of it is public."""
        return ()

    # -- provided --------------------------------------------------------------

    def winners_and_losers(self, outcome: Outcome) -> tuple[list[int], list[int]]:
        """Who won and who lost a deal, from :meth:`outcome`'s result.

        The default reads RECORD.md's three result shapes, the ones the series
        formats score (:mod:`engine.series`): ``places`` (the first group won,
        the last lost), a ``loser`` (nobody won), a ``winner`` (null: a draw).
        """
        if "places" in outcome:
            places = outcome["places"]
            return list(places[0]), list(places[-1]) if len(places) > 1 else []
        if "loser" in outcome:
            return [], [outcome["loser"]]
        winner = outcome.get("winner")
        return ([] if winner is None else [winner]), []

    def is_over(self, state: S) -> bool:
        """Whether the game has ended."""
        return self.outcome(state) is not None

    def view(self, state: S, seat: int | None) -> View:
        """The JSON view of one seat (or a spectator): the table, who acts, what ``seat`` may do."""
        view = {
            "game": self.id,
            "viewer": seat,
            "to_act": self.to_act(state),
            "waiting_for": self.waiting_for(state),
            "legal_actions": [] if seat is None else self.legal_actions(state, seat),
            "outcome": self.outcome(state),
        }
        view.update(self.table_view(state, seat))
        return view
