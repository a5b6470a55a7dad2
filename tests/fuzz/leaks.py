"""The leak check: random games played through the API, every byte each viewer receives searched.

Used by tests/fuzz/test_hidden_information.py (a seeded, small run) and bench/leaks.py
(hundreds of games).  It does not trust the service's redaction: what a viewer may
not see is computed from the engine's full state (``hidden(state)``) and the stored
events alone, then searched for in every response that viewer gets.

Viewers: every seat (its token on the API, its login on the pages), an anonymous
caller, a club player without a seat and the club's organiser.  Surfaces: the game
view, its long-poll, its events, its record (refused while the game runs), its
stream, the table, the tournament, the tournament's stream, and the pages a viewer
can open (game, replay, table, tournament, a seat's play page) with their
fragments, in the language each viewer's browser asks for (English, or Russian: the
card names and sentences looked for are in both, ``WORDS`` and :func:`spoken_names`).
Each step every viewer reads ``per_step`` of those surfaces, in turn,
so over a game each viewer reads each of them many times; at a step with a secret
that lasts only a step or two (a pending declaration, a blind draw not yet led)
every viewer reads every surface that shows the moves (events, streams, the pages'
fragments with their logs); the acting seat's answer to its move is searched too (every
other move is sent over the push channel, the rest over HTTP); and every frame pushed to
each viewer's follow of the game, held open while it is played (:class:`HeldFollows`: a
move made in this process is pushed from its own fold), is searched after each move, on
PostgreSQL (the follows read in threads of their own while the game is played, which the
tests' in-memory SQLite, one database shared through table locks, refuses: "database table
is locked"; CI and ``bench/leaks.py`` run on PostgreSQL).

The secrets of a viewer at a step (while the game runs):

* **cards**: hidden from the viewer now (``hidden(state)``: other seats' parts and
  the parts nobody sees) and never known to it: a card is known once it was in the
  viewer's engine view without being hidden from it, or once a move played it face
  up out of its mover's hand;
* **the deck** in dealing order and **the shuffle's seed**;
* **orders**: another seat's Old Maid fan in its order (the current fans, and the
  order each ``arrange`` of another seat named);
* **draws**: a ``draw`` (Old Maid) or ``draw_discard`` (Bhabhi) of another seat that
  shows its card while the viewer has never seen that card;
* **declarations**: a Give & Take ``declare_ace`` of another seat in the round not
  yet revealed: any object of it showing ``pile`` or ``value``, a pile of that seat
  showing a declared value, the page's sentence or badge telling it.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from html import escape, unescape
from typing import Any

from asgiref.testing import ApplicationCommunicator
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client

from engine.registry import get_game
from events.store import read_stream
from tests.factories import FuzzTable, fuzz_club, fuzz_table
from tests.fuzz.conftest import assert_problem, deterministic
from tournaments.models import Player

CARD = re.compile(r"[2-9TJQKA][SHDC]")
RANKS = {
    "A": "ace",
    "K": "king",
    "Q": "queen",
    "J": "jack",
    "T": "ten",
    "9": "nine",
    "8": "eight",
    "7": "seven",
    "6": "six",
    "5": "five",
    "4": "four",
    "3": "three",
    "2": "two",
}
SUITS = {"S": ("spades", "♠"), "H": ("hearts", "♥"), "D": ("diamonds", "♦"), "C": ("clubs", "♣")}
#: Every seat count of every game.
SEAT_COUNTS = {
    "give_away": range(2, 7),
    "old_maid": range(2, 7),
    "bhabhi": range(3, 9),
    "give_and_take": range(2, 5),
}
#: A card's name in Russian, in any case («дама», «даму», «дамы», «дамой» червей): each rank's
#: stem and each suit's genitive plural, written here rather than read from the catalog.
RANK_STEMS_RU = {
    "A": "туз",
    "K": "корол",
    "Q": "дам",
    "J": "валет",
    "T": "десятк",
    "9": "девятк",
    "8": "восьм[её]рк",
    "7": "сем[её]рк",
    "6": "шест[её]рк",
    "5": "пят[её]рк",
    "4": "четв[её]рк",
    "3": "тройк",
    "2": "двойк",
}
SUITS_RU = {"S": "пик", "H": "червей", "D": "бубен", "C": "треф"}


@dataclass(frozen=True)
class Words:
    """The sentences of a page's language that would tell a secret."""

    #: The log's sentence of a draw that names its card (Old Maid's from the offered fan, or
    #: from a named player's fan; Bhabhi's blind draw): (who, card).
    drawn: re.Pattern[str]
    #: A badge of a declared value beside a card still shown face down.
    hidden_badge: re.Pattern[str]
    #: The log's sentence of a declaration, and the words for its piles.
    declared: str
    piles: dict[str, str]


#: The leak check reads the pages in each of these languages (Accept-Language).
WORDS = {
    "en": Words(
        drawn=re.compile(
            r'<li value="\d+">([^<]*?) draws (?:card \d+ of [^<]*?|blind from the discard pile):'
            r' <span class="card[^>]*data-card="(\w\w)"'
        ),
        hidden_badge=re.compile(
            r'aria-label="a card just turned, not yet revealed"></span>\s*<span class="badge"'
        ),
        declared="{who} counts the ace on their {pile} pile as {value}",
        piles={"left": "left", "right": "right"},
    ),
    "ru": Words(
        drawn=re.compile(
            r'<li value="\d+">([^<]*?) (?:тянет карту № \d+ из [^<]*?'
            r'|вслепую тянет карту из сброса): <span class="card[^>]*data-card="(\w\w)"'
        ),
        hidden_badge=re.compile(
            r'aria-label="карта только что перевёрнута, ещё не открыта"></span>\s*'
            r'<span class="badge"'
        ),
        declared="{who} объявляет туза на своей {pile} стопке за {value}",
        piles={"left": "левой", "right": "правой"},
    ),
}


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def cards_in(value: Any) -> set[str]:
    return {s for s in strings(value) if CARD.fullmatch(s)}


def lists_in(value: Any) -> Iterator[list[Any]]:
    if isinstance(value, list):
        yield value
        for item in value:
            yield from lists_in(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from lists_in(item)


def dicts_in(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from dicts_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from dicts_in(item)


def card_forms(card: str) -> list[str]:
    """The ways a card is written in a response: its code, its spoken name (English or
    Russian, in any case), rank and symbol."""
    _suit, symbol = SUITS[card[1]]
    rank = "10" if card[0] == "T" else card[0]
    return [
        rf"(?<![A-Za-z0-9]){card}(?![A-Za-z0-9])",
        *spoken_names(card).values(),
        rf"(?<![A-Za-z0-9]){re.escape(rank + symbol)}",
    ]


def spoken_names(card: str) -> dict[str, str]:
    """A pattern of the card's spoken name in each language of the pages."""
    return {
        "en": re.escape(f"{RANKS[card[0]]} of {SUITS[card[1]][0]}"),
        "ru": rf"(?<!\w){RANK_STEMS_RU[card[0]]}\w* {SUITS_RU[card[1]]}(?!\w)",
    }


@dataclass
class Declaration:
    sequence: int
    seat: int
    pile: str
    value: int


@dataclass
class Secret:
    """What one viewer may not see now."""

    viewer: int | None
    cards: set[str] = field(default_factory=set)
    known: set[str] = field(default_factory=set)
    orders: list[list[str]] = field(default_factory=list)
    pending: list[Declaration] = field(default_factory=list)
    #: Declarations of other seats already revealed: their sentences may be shown.
    revealed: list[Declaration] = field(default_factory=list)
    #: (drawer, card) of draws by other seats (not from this viewer) whose card they hold still.
    draws: list[tuple[int, str]] = field(default_factory=list)
    #: Whether a Bhabhi blind draw is among them (it lasts until its card is led).
    blind: bool = False

    def __bool__(self) -> bool:
        return bool(self.cards or self.orders or self.pending or self.draws)

    @property
    def fleeting(self) -> bool:
        """A secret that lasts a step or two: a pending declaration, a blind draw not led."""
        return bool(self.pending or self.blind)


class Secrets:
    """What each viewer may not see, from the engine and the stored events alone."""

    def __init__(self, table: FuzzTable) -> None:
        self.table = table
        self.game = table.game.pk
        self.known: dict[int | None, set[str]] = {}
        self.state: Any = None
        self.sequence = 0
        self.deal: dict[str, Any] = {}
        #: (seat, order) of every Old Maid arrangement.
        self.arranged: list[tuple[int, list[str]]] = []
        #: Give & Take declarations of the round being declared, and of earlier rounds.
        self.declaring: list[Declaration] = []
        self.declared: list[Declaration] = []
        #: (drawer, seat drawn from, card) of every Old Maid draw and Bhabhi blind draw.
        self.drawn: list[tuple[int, int | None, str]] = []

    def update(self, until: int | None = None) -> dict[int | None, Secret]:
        """Fold the stream's new events (up to the sequence ``until``, if given); each viewer's
        secrets then (``None``: a spectator).

        After each event, a viewer knows what its engine view shows that is not
        hidden from it; and a card a move names becomes known to everyone when the
        move took it out of the mover's own hand (played face up, even when the same
        move gathers it face down, or into a hand, as a Bhabhi trick can).  A card a
        move takes from elsewhere (an Old Maid draw, a Bhabhi blind draw) or keeps
        in the mover's hand (an Old Maid arrangement) stays private.
        """
        game = self.table.refresh()
        engine = get_game(game.kind)
        viewers: list[int | None] = [*range(game.seats), None]
        for event in read_stream(game.stream, from_sequence=self.sequence + 1):
            if until is not None and event.sequence > until:
                break
            payload = event.payload
            action = payload.get("action") or {}
            mover = f"seat:{payload.get('seat')}"
            before = cards_in(engine.hidden(self.state).get(mover)) if self.state else set()
            round_before = getattr(self.state, "round", None)
            previous = self.state
            self.state = engine.evolve(self.state, payload)
            self.sequence = event.sequence
            if event.sequence == 1:
                self.deal = payload
            if action.get("type") == "arrange":
                self.arranged.append((payload["seat"], list(action["order"])))
            if action.get("type") == "draw_discard":
                self.drawn.append((payload["seat"], None, action["card"]))
            if action.get("type") == "draw" and previous is not None:
                self.drawn.append((payload["seat"], previous.offerer, action["card"]))
            if action.get("type") == "declare_ace":
                self.declaring.append(
                    Declaration(event.sequence, payload["seat"], action["pile"], action["value"])
                )
            # By the rules a round's declarations are revealed together, when the round is
            # decided: the game has left the declaring phase, or gone on to another round.
            if self.declaring and (
                getattr(self.state, "phase", None) != "declare"
                or getattr(self.state, "round", None) != round_before
            ):
                self.declared += self.declaring
                self.declaring = []
            hidden = engine.hidden(self.state)
            # Cards the move took out of the mover's own hand were played face up.
            played = cards_in(action) & (before - cards_in(hidden.get(mover)))
            for viewer in viewers:
                unseen = self.unseen(hidden, viewer)
                shown = cards_in(engine.view(self.state, viewer))
                self.known.setdefault(viewer, set()).update((shown - unseen) | played)
        hidden = engine.hidden(self.state)
        secrets = {}
        for viewer in viewers:
            # An order arranged earlier is stale once all its cards are known to the viewer
            # (drawn into its own hand, discarded face up): then it tells nothing.
            orders = [
                order
                for seat, order in self.arranged
                if seat != viewer and not set(order) <= self.known[viewer]
            ]
            if game.kind == "old_maid":
                orders += [list(fan) for key, fan in hidden.items() if key != f"seat:{viewer}"]
            secrets[viewer] = Secret(
                viewer,
                cards=self.unseen(hidden, viewer) - self.known[viewer],
                known=set(self.known[viewer]),
                orders=[o for o in orders if len(o) >= 2],
                pending=[d for d in self.declaring if d.seat != viewer],
                revealed=[d for d in self.declared if d.seat != viewer],
                # Which card a seat drew stays its own (and its victim's) while it holds it.
                draws=[
                    (seat, card)
                    for seat, victim, card in self.drawn
                    if viewer not in (seat, victim) and card in hidden.get(f"seat:{seat}", ())
                ],
                blind=any(
                    victim is None and seat != viewer and card in hidden.get(f"seat:{seat}", ())
                    for seat, victim, card in self.drawn
                ),
            )
        return secrets

    @staticmethod
    def unseen(hidden: dict[str, Any], viewer: int | None) -> set[str]:
        return {
            c for key, part in hidden.items() if key != f"seat:{viewer}" for c in cards_in(part)
        }

    @property
    def seed(self) -> str:
        return str((self.deal.get("shuffle") or {}).get("seed", ""))


@dataclass
class Viewer:
    """One caller: a seat or none, its token for the API, its logged-in client for pages."""

    name: str
    seat: int | None
    token: str | None
    client: Client
    #: The language the viewer's browser asks for (the pages', and the API's problems').
    language: str = "en"

    def get(self, path: str) -> Any:
        headers = {"Accept-Language": self.language}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        return self.client.get(path, headers=headers)


@dataclass
class Tally:
    """What a run checked, and every leak it found."""

    games: int = 0
    steps: int = 0
    responses: int = 0
    bytes: int = 0
    guarded: int = 0
    #: Steps with a fleeting secret (every surface read by every viewer).
    fleeting: int = 0
    #: Sentences of draws naming their card found on pages (a viewer's own draws, or
    #: draws of cards it has seen): the language's pattern finds what it looks for.
    draws_told: int = 0
    #: Sentences of revealed Give & Take declarations found on pages (likewise).
    declarations_told: int = 0
    hits: list[str] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.games += other.games
        self.steps += other.steps
        self.responses += other.responses
        self.bytes += other.bytes
        self.guarded += other.guarded
        self.fleeting += other.fleeting
        self.draws_told += other.draws_told
        self.declarations_told += other.declarations_told
        self.hits += other.hits


def sse_data(text: str) -> list[Any]:
    return [
        json.loads(line[len("data: ") :]) for line in text.splitlines() if line.startswith("data: ")
    ]


class Checker:
    """Searches one response for one viewer's secrets; counts what it read."""

    def __init__(
        self, secrets: Secrets, tally: Tally, names: list[str], language: str = "en"
    ) -> None:
        self.secrets = secrets
        self.tally = tally
        self.names = names
        self.words = WORDS[language]

    def hit(self, what: str, found: str) -> None:
        self.tally.hits.append(f"{what}: {found}")

    def check(self, what: str, text: str, body: Any, secret: Secret, *, html: bool) -> None:
        """``text``: every byte received, decoded; ``body``: its JSON (None for a page)."""
        self.tally.responses += 1
        self.tally.bytes += len(text.encode())
        seed = self.secrets.seed
        if seed and seed in text:
            self.hit(what, "the shuffle's seed")
        if secret.cards:
            pattern = re.compile("|".join(f for c in sorted(secret.cards) for f in card_forms(c)))
            for found in sorted({m.group(0) for m in pattern.finditer(text)}):
                self.hit(what, f"the hidden card {found!r}")
        if html:
            self.check_page(what, text, secret)
        if body is None:
            return
        deck = list(self.secrets.deal.get("deck") or [])
        # The viewer's own arrangements are its own: one of them may, by chance, list the
        # cards another seat now holds in that same order.
        own = {
            id((item.get("payload") or item)["action"].get("order"))
            for item in dicts_in(body)
            if isinstance((item.get("payload") or item).get("action"), dict)
            and (item.get("payload") or item).get("seat") == secret.viewer
        }
        for listed in lists_in(body):
            if deck and listed == deck:
                self.hit(what, "the deck in dealing order")
            if listed in secret.orders and id(listed) not in own:
                self.hit(what, f"another seat's fan in its order {listed}")
        pending = {d.sequence for d in secret.pending}
        pending_seats = {d.seat for d in secret.pending}
        pending_piles = {(d.seat, d.pile) for d in secret.pending}
        objects = list(dicts_in(body))
        # An event's payload is judged with its envelope (which says its sequence).
        enveloped = {id(d["payload"]) for d in objects if isinstance(d.get("payload"), dict)}
        for item in objects:
            if id(item) not in enveloped:
                self.check_object(what, item, secret, pending, pending_seats, pending_piles)

    def check_object(
        self,
        what: str,
        item: dict[str, Any],
        secret: Secret,
        pending: set[int],
        pending_seats: set[int],
        pending_piles: set[tuple[int, str]],
    ) -> None:
        payload = item.get("payload") if isinstance(item.get("payload"), dict) else None
        event = payload if payload is not None else item
        action = event.get("action")
        seat = event.get("seat")
        if isinstance(action, dict) and seat != secret.viewer:
            kind = action.get("type")
            card = action.get("card")
            if (
                kind in ("draw", "draw_discard")
                and card is not None
                and (card not in secret.known or (seat, card) in secret.draws)
            ):
                self.hit(what, f"seat {seat}'s {kind} of {card!r}")
            # In an event's envelope its sequence says which declaration it is; elsewhere
            # any declaration of a seat with one pending is taken for the pending one.
            is_pending = (
                item.get("sequence") in pending if payload is not None else seat in pending_seats
            )
            if kind == "declare_ace" and {"pile", "value"} & set(action) and is_pending:
                self.hit(what, f"seat {seat}'s pending declaration {action}")
        # A Give & Take pile of the view: {"seat": s, "left": {"declared": v, ...}, ...}.
        for side in ("left", "right"):
            pile = item.get(side)
            if (
                isinstance(pile, dict)
                and pile.get("declared") is not None
                and (seat, side) in pending_piles
            ):
                self.hit(what, f"seat {seat}'s pending {side} declaration {pile['declared']}")

    def told(self, declaration: Declaration) -> str:
        """The log's sentence of ``declaration``, as a page writes it."""
        return escape(
            self.words.declared.format(
                who=self.names[declaration.seat],
                pile=self.words.piles[declaration.pile],
                value=declaration.value,
            )
        )

    def check_page(self, what: str, text: str, secret: Secret) -> None:
        for who, card in self.words.drawn.findall(text):
            self.tally.draws_told += 1
            drawer = self.names.index(unescape(who)) if unescape(who) in self.names else None
            if (drawer, card) in secret.draws:
                self.hit(what, f"the sentence of {who}'s draw of {card!r}")
        if self.words.hidden_badge.search(text):
            self.hit(what, "a declared value beside a card still face down")
        for r in secret.revealed:
            self.tally.declarations_told += self.told(r) in text
        for d in secret.pending:
            told = self.told(d)
            public = sum(
                1 for r in secret.revealed if (r.seat, r.pile, r.value) == (d.seat, d.pile, d.value)
            )
            if len(re.findall(re.escape(told) + r"(?!\d)", text)) > public:
                self.hit(what, f"the sentence {told!r} of a pending declaration")


#: The push channel (tournaments/api/push.py): the view frame it pushes on a follow.
PUSH = "ws:/api/v1/ws follow"


def push_scope(viewer: Viewer) -> dict[str, Any]:
    """The handshake of ``viewer``'s WebSocket to the push channel."""
    headers = [(b"accept-language", viewer.language.encode()), (b"host", b"testserver")]
    if viewer.token:
        headers.append((b"authorization", f"Bearer {viewer.token}".encode()))
    return {"type": "websocket", "path": "/api/v1/ws", "headers": headers, "subprotocols": []}


def pushed(game_id: int, viewer: Viewer, act: dict[str, Any] | None = None) -> list[Any]:
    """Every frame the push channel sends ``viewer``, through the ASGI application in this
    process: its hello, then the view of game ``game_id`` it follows, or (given ``act``, the
    ``act`` message's other fields) the answer to its move sent over the channel."""
    from parlour.asgi import application

    scope = push_scope(viewer)
    message = {"type": "follow", "game": game_id}
    if act is not None:
        message = {"type": "act", "game": game_id, **act}

    async def talk_once() -> list[Any]:
        # channels.testing's WebsocketCommunicator, without the daphne it imports.
        talk = ApplicationCommunicator(application, scope)
        await talk.send_input({"type": "websocket.connect"})
        assert (await talk.receive_output(10))["type"] == "websocket.accept"
        try:
            frames = [json.loads((await talk.receive_output(10))["text"])]
            await talk.send_input({"type": "websocket.receive", "text": json.dumps(message)})
            frames.append(json.loads((await talk.receive_output(10))["text"]))
            return frames
        finally:
            await talk.send_input({"type": "websocket.disconnect", "code": 1000})
            await talk.wait(10)

    return asyncio.run(talk_once())


class HeldFollows:
    """Every viewer's follow of a game over the push channel, held open while the game is
    played, in an event loop of its own (a thread): a move made in this process is pushed
    to them from its own fold (tournaments/api/push.py, ``on_game_changed``), every frame
    searched as any response is."""

    def __init__(self, game_id: int, viewers: list[Viewer]) -> None:
        self.game_id = game_id
        self.started = threading.Event()
        self.thread = threading.Thread(target=asyncio.run, args=(self._main(),), daemon=True)
        self.thread.start()
        assert self.started.wait(10), "the follows' event loop did not start"
        self.talks = {viewer.name: self._run(self._open(viewer)) for viewer in viewers}

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.stop = asyncio.Event()
        self.started.set()
        await self.stop.wait()

    def _run(self, work: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(30)

    async def _open(self, viewer: Viewer) -> ApplicationCommunicator:
        from parlour.asgi import application

        talk = ApplicationCommunicator(application, push_scope(viewer))
        await talk.send_input({"type": "websocket.connect"})
        assert (await talk.receive_output(10))["type"] == "websocket.accept"
        message = {"type": "follow", "game": self.game_id}
        await talk.send_input({"type": "websocket.receive", "text": json.dumps(message)})
        return talk

    def frames(self, viewer: Viewer, sequence: int) -> list[dict[str, Any]]:
        """The frames pushed to ``viewer`` since the last call, up to its view at ``sequence``."""
        return list(self._run(self._until(self.talks[viewer.name], sequence)))

    @staticmethod
    async def _until(talk: ApplicationCommunicator, sequence: int) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        while True:
            frame = json.loads((await talk.receive_output(10))["text"])
            found.append(frame)
            assert frame["type"] in ("hello", "view"), frame
            if frame["type"] == "view" and frame["sequence"] >= sequence:
                return found

    def close(self) -> None:
        for talk in self.talks.values():
            self._run(talk.send_input({"type": "websocket.disconnect", "code": 1000}))
            self._run(talk.wait(10))
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(30)


def check_held(
    checker: Checker,
    follows: HeldFollows,
    viewers: list[Viewer],
    sequence: int,
    secret: dict[int | None, Secret],
    what: str,
) -> None:
    """Search every frame each viewer's held follow was pushed, up to ``sequence``."""
    for viewer in viewers:
        frames = follows.frames(viewer, sequence)
        checker.check(
            f"{what}, {viewer.name}: {HELD}",
            "\n".join(json.dumps(f, ensure_ascii=False) for f in frames),
            frames,
            secret[viewer.seat],
            html=False,
        )


#: The push channel's follow held open while the game is played.
HELD = "ws:/api/v1/ws follow held"


def surfaces(table: FuzzTable, viewer: Viewer) -> list[str]:
    game = table.game
    tournament = table.tournament.pk
    paths = [
        f"/api/v1/games/{game.pk}",
        f"/api/v1/games/{game.pk}?after={max(0, game.sequence - 2)}&wait=0",
        f"/api/v1/games/{game.pk}/events?limit=500",
        f"/api/v1/games/{game.pk}/record",
        f"/api/v1/games/{game.pk}/stream?timeout=0.001",
        f"/api/v1/games/{game.pk}/stream?timeout=0.001&view=true",
        f"/api/v1/tables/{game.table_id}",
        f"/api/v1/tournaments/{tournament}",
        f"/api/v1/tournaments/{tournament}/stream?timeout=0.001",
        f"/games/{game.pk}/",
        f"/games/{game.pk}/?fragment=1",
        f"/games/{game.pk}/replay",
        f"/tables/{game.table_id}/",
        f"/tables/{game.table_id}/?fragment=1",
        f"/tournaments/{tournament}/",
        f"/tournaments/{tournament}/?fragment=1",
        PUSH,
    ]
    if viewer.seat is not None:
        paths += [f"/games/{game.pk}/play", f"/games/{game.pk}/play?fragment=1"]
        # The account stream: the seat's running games, each with the seat's view.
        paths.append("/api/v1/stream/events?timeout=0.001")
    return paths


def read(checker: Checker, table: FuzzTable, viewer: Viewer, path: str, secret: Secret) -> None:
    """Fetch ``path`` as ``viewer`` and search all of it."""
    game = table.game
    what = f"{game.kind}/{game.seats} #{game.pk} at {game.sequence}, {viewer.name}: {path}"
    if path == PUSH:
        frames = pushed(game.pk, viewer)
        assert [f["type"] for f in frames] == ["hello", "view"], (what, frames)
        checker.check(
            what,
            "\n".join(json.dumps(f, ensure_ascii=False) for f in frames),
            frames,
            secret,
            html=False,
        )
        return
    response = viewer.get(path)
    if getattr(response, "streaming", False):
        text = b"".join(response.streaming_content).decode()
        assert response.status_code == 200, (what, response.status_code)
        frames = sse_data(text)
        # Other games of the tournament are over: public, and dealt from other decks.
        ours = [f for f in frames if f.get("game_id", game.pk) == game.pk]
        if len(ours) < len(frames):
            text = "\n".join(json.dumps(f, ensure_ascii=False) for f in ours)
        checker.check(what, text, ours, secret, html=False)
        return
    text = response.content.decode()
    if path.endswith("/record"):
        problem = assert_problem(response, what)
        assert problem["status"] == 409, (what, problem)
        checker.check(what, text, problem, secret, html=False)
        return
    if path.endswith("/replay"):
        assert response.status_code == 409, (what, response.status_code)
        checker.check(what, text, None, secret, html=True)
        return
    assert response.status_code == 200, (what, response.status_code, text[:300])
    if path.startswith("/api/"):
        body = response.json()
        if path.startswith("/api/v1/tables/"):
            # The series' earlier games are over: public, and dealt from other decks.
            body["games"] = [g for g in body["games"] if g["id"] == game.pk]
            text = json.dumps(body)
        checker.check(what, text, body, secret, html=False)
    else:
        checker.check(what, text, None, secret, html=True)


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    actions = view["legal_actions"]
    if view["game"] == "old_maid" and rng.random() < 0.2:
        return {"type": "shuffle"}  # a chance move: its order is hidden from the others
    if view["game"] == "old_maid" and rng.random() < 0.1:
        arrange = [a for a in actions if a["type"] == "arrange"]
        if arrange:  # a chosen order: hidden from the others
            order = list(arrange[0]["order"])
            rng.shuffle(order)
            return {"type": "arrange", "order": order}
    moving = [a for a in actions if a["type"] != "arrange"] or actions
    if rng.random() < 0.9:  # Bhabhi's taking of a hand ends games early: keep it rare
        moving = [a for a in moving if a["type"] != "take_left"] or moving
    return dict(rng.choice(moving))


def viewers_of(table: FuzzTable, tokens: dict[int, str], language: str = "en") -> list[Viewer]:
    """Every seat, an anonymous caller, the bystander and the organiser, each logged in;
    ``tokens``: each seated player's token, by player; each reads in ``language``."""
    game = table.game
    found: list[Viewer] = []
    for seat, entry in enumerate(game.context["seats"]):
        user = Player.objects.get(pk=entry["player"]).user
        assert user is not None
        client = Client()
        client.force_login(user)
        found.append(Viewer(f"seat {seat}", seat, tokens[entry["player"]], client, language))
    found.append(Viewer("anonymous", None, None, Client(), language))
    club = table.tournament.club
    bystander = Player.objects.get(club=club, name="Bystander").user
    organiser = club.organisers.first()
    for name, user, token in (
        ("bystander", bystander, table.bystander),
        ("organiser", organiser, table.organiser),
    ):
        assert isinstance(user, User)
        client = Client()
        client.force_login(user)
        found.append(Viewer(name, None, token, client, language))
    return found


def play_game(
    kind: str, seats: int, seed: int, per_step: int = 1, stride: int = 1, language: str = "en"
) -> Tally:
    """Play one random game of ``kind`` at ``seats`` through the API, checking as it goes.

    Every ``stride`` steps (staggered by viewer) each viewer reads ``per_step`` surfaces,
    asking for ``language``.  The deals, chance moves, seating and choices all come from
    ``seed``.
    """
    held: list[HeldFollows] = []
    with deterministic(zlib.crc32(f"{kind}-{seats}-{seed}".encode())):
        try:
            return _play_game(kind, seats, seed, per_step, stride, language, held)
        finally:
            for follows in held:
                follows.close()


def _play_game(
    kind: str,
    seats: int,
    seed: int,
    per_step: int,
    stride: int,
    language: str,
    held: list[HeldFollows],
) -> Tally:
    tally = Tally(games=1)
    rng = random.Random(f"{kind}-{seats}-{seed}")
    table = fuzz_table(kind, seats, club=fuzz_club(max(4, seats)), rng=rng)
    secrets = Secrets(table)
    checker = Checker(secrets, tally, list(table.game.players), language)
    seated = table.game.context["seats"]
    tokens = {
        entry["player"]: token for entry, token in zip(seated, table.seat_tokens, strict=True)
    }
    viewers = viewers_of(table, tokens, language)
    holding = connection.vendor == "postgresql"  # see the module's docstring
    if holding:
        held.append(HeldFollows(table.game.pk, viewers))
    step = 0
    while not table.current().is_over:
        assert step < 3000, "the game should have ended"
        if table.game.pk != secrets.game:
            # A drawn game does not count in a series: the table deals its next game.
            secrets = Secrets(table)
            checker = Checker(secrets, tally, list(table.game.players), language)
            viewers = viewers_of(table, tokens, language)
            if holding:
                held.pop().close()
                held.append(HeldFollows(table.game.pk, viewers))
        secret = secrets.update()
        # Every viewer's held follow: what it was pushed up to now, this step's move's view
        # from the move's own fold included.
        what = f"{kind}/{seats} #{table.game.pk} at {table.game.sequence}"
        if holding:
            check_held(checker, held[-1], viewers, table.game.sequence, secret, what)
        tally.guarded += any(bool(s) for s in secret.values())
        # A secret that lasts a step or two is looked for wherever moves are shown, by everyone.
        fleeting = any(s.fleeting for s in secret.values())
        tally.fleeting += fleeting
        for index, viewer in enumerate(viewers):
            mine = surfaces(table, viewer)
            if fleeting:
                for path in mine:
                    if (
                        path.endswith("/events?limit=500")
                        or "stream" in path
                        or "fragment" in path
                        or path == PUSH
                    ):
                        read(checker, table, viewer, path, secret[viewer.seat])
                continue
            if (step + index) % stride:
                continue
            for k in range(per_step):
                # Each viewer walks its surfaces in turn, from its own starting point.
                path = mine[((step // stride) * per_step + k + 3 * index) % len(mine)]
                read(checker, table, viewer, path, secret[viewer.seat])
        # One seat the game waits for (or that may act) acts, through the API.
        game = table.game
        seat = rng.choice(game.waiting_for or game.to_act)
        actor = viewers[seat]
        view = actor.get(f"/api/v1/games/{game.pk}").json()
        move = {"action": choose(view, rng), "expected_sequence": view["sequence"]}
        # Every other move is sent over the push channel, whose answer is searched the same way.
        if step % 2:
            frames = pushed(game.pk, actor, act={"key": f"s{step}", **move})
            assert [f["type"] for f in frames] == ["hello", "acted"], frames
            body: Any = frames
            text = "\n".join(json.dumps(f, ensure_ascii=False) for f in frames)
            how = "over the push channel"
        else:
            response = actor.client.post(
                f"/api/v1/games/{game.pk}/actions",
                move,
                content_type="application/json",
                headers={"Authorization": f"Bearer {actor.token}", "Idempotency-Key": f"s{step}"},
            )
            assert response.status_code == 200, response.content[:300]
            body, text = response.json(), response.content.decode()
            how = "over HTTP"
        if not table.refresh().is_over:
            after = secrets.update()
            what = f"{kind}/{seats} #{game.pk}: seat {seat}'s answer to its move {how}"
            checker.check(what, text, body, after[seat], html=False)
        step += 1
    tally.steps = step
    # Over: the record, the seed and the deck are public now (the checks look in the right
    # places: what they search for is there once it may be).
    game = table.game
    record = Client().get(f"/api/v1/games/{game.pk}/record")
    assert record.status_code == 200, record.content[:300]
    assert secrets.seed and secrets.seed in record.content.decode()
    assert record.json()["deck"] == list(secrets.deal["deck"])
    # The card names searched for are the ones the pages write in this language: the
    # replay, public now, names every card of the deck (a dealt hand on it).
    replay = viewers[-1].get(f"/games/{game.pk}/replay").content.decode()
    named = [c for c in secrets.deal["deck"] if re.search(spoken_names(c)[language], replay)]
    assert named, f"no card of the deck is named on the {language} replay page"
    return tally
