"""A game's state: its stream, its row, and the fold of its events with a per-process cache."""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock
from typing import Any, Literal

from engine.contract import Game as Engine
from engine.registry import get_game
from events import store
from events.store import Conflict, StoredEvent
from tournaments import sql
from tournaments.models import Game

#: Who looks at a game: a seat number, ``None`` for a spectator, or ``"organiser"``.
Viewer = int | None | Literal["organiser"]

STREAM_PREFIX = "game-"


class GameNotOver(Exception):
    """What is shown only after the end (the record, the seed) was asked of a running game."""


class GameNotRevealed(GameNotOver):
    """The same asked of a finished duplicate deal whose twins are still being played."""


def stream_name(game_id: int) -> str:
    """The event stream of game ``game_id``."""
    return f"{STREAM_PREFIX}{game_id}"


# -- the fold and its cache ---------------------------------------------------------


class _StateCache:
    """The folded state of recently used games, per process.

    An entry is trusted only if the stream still holds the very event it was
    folded up to (same sequence, position and time); otherwise the game is
    folded afresh.  Events are immutable, so the rest is a plain continuation.
    """

    def __init__(self, size: int = 2048) -> None:
        self.size = size
        self.entries: OrderedDict[int, tuple[StoredEvent, Any]] = OrderedDict()
        self.lock = Lock()

    def get(self, game_id: int) -> tuple[StoredEvent, Any] | None:
        with self.lock:
            entry = self.entries.get(game_id)
            if entry is not None:
                self.entries.move_to_end(game_id)
            return entry

    def put(self, game_id: int, last: StoredEvent, state: Any) -> None:
        with self.lock:
            self.entries[game_id] = (last, state)
            self.entries.move_to_end(game_id)
            while len(self.entries) > self.size:
                self.entries.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()


_cache = _StateCache()


def _load(game: Game) -> tuple[Engine[Any], Any, int, StoredEvent]:
    """The engine, the state folded to the end of the stream, its sequence and last event."""
    engine = get_game(game.kind)
    stream = game.stream
    cached = _cache.get(game.pk)
    if cached is not None:
        last, state = cached
        tail = store.read_stream(stream, from_sequence=last.sequence)
        if tail and tail[0] == last:
            for event in tail[1:]:
                state = engine.evolve(state, event.payload)
            _cache.put(game.pk, tail[-1], state)
            return engine, state, tail[-1].sequence, tail[-1]
    events = store.read_stream(stream)
    if not events:
        raise Game.DoesNotExist(f"game {game.pk} has no events")
    state = engine.fold(e.payload for e in events)
    _cache.put(game.pk, events[-1], state)
    return engine, state, events[-1].sequence, events[-1]


def load_state(game: Game | int) -> Any:
    """The engine state of ``game`` now (equal to a fresh fold of its events)."""
    return _load(_game(game))[1]


def _fresh(game: Game, sequence: int) -> None:
    """Make sure ``game``'s row is the projection at ``sequence``, the stream's end as read.

    The row was read before the stream; if a commit came in between, the row is
    read again.  A row ahead of the stream read means the stream moved on.
    """
    if game.sequence != sequence:
        game.refresh_from_db()
        if game.sequence != sequence:
            raise Conflict(game.stream, sequence, max(game.sequence, sequence))


def game_row(game_id: int) -> Game | None:
    """Game ``game_id``'s row, or ``None`` (hand-written: :func:`tournaments.sql.game_row`)."""
    return sql.game_row(game_id)


def _game(game: Game | int) -> Game:
    if isinstance(game, Game):
        return game
    found = game_row(game)
    if found is None:
        raise Game.DoesNotExist(f"there is no game {game}")
    return found
