"""A game's state: its stream, its row, and the fold of its events with a per-process cache."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any, Literal

from django.utils.translation import gettext_noop

from engine.contract import Game as Engine
from engine.contract import IllegalAction
from engine.registry import get_game
from events import store
from events.store import Conflict, StoredEvent
from tournaments import sql
from tournaments.models import Game
from tournaments.recent import Recent

#: Who looks at a game: a seat number, ``None`` for a spectator, or ``"organiser"``.
Viewer = int | None | Literal["organiser"]

STREAM_PREFIX = "game-"


class GameNotOver(Exception):
    """What is shown only after the end (the record, the seed) was asked of a running game."""


class GameNotRevealed(GameNotOver):
    """The same asked of a finished duplicate deal whose twins are still being played."""


class GameOver(IllegalAction):
    """An action or a timeout sent to a finished game: nothing more is played in it.

    A refusal of the rules (every caller that handles an illegal action handles this one,
    in the same words), told apart so that the API answers it as it answers anything else
    asked of a finished game: ``409 game-over``, not ``422 illegal-action``.
    """

    def __init__(self, game_id: int) -> None:
        super().__init__(gettext_noop("the game is over"))
        self.game_id = game_id


def stream_name(game_id: int) -> str:
    """The event stream of game ``game_id``."""
    return f"{STREAM_PREFIX}{game_id}"


# -- the fold and its cache ---------------------------------------------------------


class _StateCache:
    """The folded state of recently used games, per process.

    An entry is trusted only if it is of the very event the game's row says is the last
    (same sequence, store id and time recorded: the row is the projection written in each
    append's transaction), or if the stream still holds that event (all of it the same);
    otherwise the game is folded afresh.  Events are immutable, so the rest is a
    plain continuation.  What is kept is a fold of committed events: a command folds its
    stream before it appends (:mod:`tournaments.play.commands`) and keeps the new state
    once it commits; nothing folds a stream after appending to it in the same transaction.
    The time is what tells one timeline from another: a database restored from a backup,
    or failed over to a replica that was behind, gives the ids and sequences of the events
    it lost again, never their times (restart the processes all the same:
    docs/operations.md).
    """

    def __init__(self, size: int = 2048) -> None:
        #: By game id: the last event folded, the state, and when the game was dealt.
        self._kept: Recent[int, tuple[StoredEvent, Any, datetime | None]] = Recent(size)

    def get(self, game_id: int) -> tuple[StoredEvent, Any, datetime | None] | None:
        return self._kept.get(game_id)

    def put(
        self, game_id: int, last: StoredEvent, state: Any, dealt: datetime | None = None
    ) -> None:
        """Keep ``state``, folded up to ``last``, of the game dealt at ``dealt`` (its row's
        ``created_at``: a row of the same id in a database reset since is another game)."""
        self._kept.put(game_id, (last, state, dealt))

    def clear(self) -> None:
        self._kept.clear()


_cache = _StateCache()


def deal_of(game: Game) -> Mapping[str, Any]:
    """The payload of ``game``'s first event, its deal (the deck, the shuffle's seed),
    read from the stream once per process, and not at all in the process that dealt the
    game while it keeps it (:func:`keep_deal`; read-only: it is shared).

    A game's end reads it for the seed it reveals, and every view of the revealed game
    for its deck and seed: three reads of one event at a deal's end (issue 24).  An event
    never changes; the row's ``created_at`` tells a game from another of the same id in a
    database reset or restored since, as for :class:`_StateCache`.
    """
    if game.created_at is None:  # not a row of the database: nothing to tell it by
        return MappingProxyType(store.read_stream(game.stream, limit=1)[0].payload)
    found = _deals.get((game.stream, game.created_at))
    if found is not None:
        return found
    return keep_deal(game, store.read_stream(game.stream, limit=1)[0].payload)


def keep_deal(game: Game, payload: Mapping[str, Any]) -> Mapping[str, Any]:
    """Keep ``payload``, the first event of ``game``'s stream as stored, for
    :func:`deal_of`, and give it back read-only: its deal's commit keeps it, so that the
    game's end in the process that dealt it reads nothing more (issue 24)."""
    kept = MappingProxyType(dict(payload))
    if game.created_at is not None:
        _deals.put((game.stream, game.created_at), kept)
    return kept


#: :func:`deal_of`'s deals, by stream and the time of the deal.
_deals: Recent[tuple[str, datetime], Mapping[str, Any]] = Recent(2048)


def _load(game: Game, *, at_row: bool = False) -> tuple[Engine[Any], Any, int, StoredEvent]:
    """The engine, the state folded to the end of the stream, its sequence and last event.

    ``at_row``: the caller wants the state as of its row ``game``, read just now, or
    checked afterwards (a command's append expects the row's sequence: a commit since
    the row was read is refused as a :class:`Conflict`, never passed).  Then, when this
    process has folded up to the very event the row names (its id, sequence and time),
    that fold is the state, with no read of the stream (issue 24).  Otherwise the stream
    is read from the kept fold on.
    """
    engine = get_game(game.kind)
    stream = game.stream
    cached = _cache.get(game.pk)
    if cached is not None and cached[2] in (None, game.created_at):
        last, state, dealt = cached
        if (
            at_row
            and dealt is not None
            and game.last_event
            and last.position.id == game.last_event
            and last.recorded_at == game.last_event_at
            and last.sequence == game.sequence
            and last.stream == stream
        ):
            return engine, state, last.sequence, last
        tail = store.read_stream(stream, from_sequence=last.sequence)
        moved = _continued(game, engine, cached, tail)
        if moved is not None:
            return engine, moved[0], moved[1].sequence, moved[1]
    events = store.read_stream(stream)
    if not events:
        raise Game.DoesNotExist(f"game {game.pk} has no events")
    state = engine.fold(e.payload for e in events)
    _cache.put(game.pk, events[-1], state, game.created_at)
    return engine, state, events[-1].sequence, events[-1]


def _continued(
    game: Game, engine: Engine[Any], cached: tuple[StoredEvent, Any, datetime | None], tail: Any
) -> tuple[Any, StoredEvent] | None:
    """The kept fold ``cached`` of ``game`` moved on by ``tail``, its stream from the last
    event folded on, and kept (``None``: ``tail`` does not begin with that very event)."""
    last, state, _ = cached
    if not tail or tail[0] != last:
        return None
    for event in tail[1:]:
        state = engine.evolve(state, event.payload)
    _cache.put(game.pk, tail[-1], state, game.created_at)
    return state, tail[-1]


def kept_sequence(game_id: int) -> int | None:
    """The sequence this process has folded game ``game_id`` to, if it keeps its fold: read
    the stream from there on with the game's row (:func:`tournaments.sql.game_for_caller`'s
    ``tail_from``) and give both to :func:`keep_tail`."""
    cached = _cache.get(game_id)
    return None if cached is None else cached[0].sequence


def keep_tail(game: Game, tail: list[StoredEvent]) -> None:
    """Move the fold this process keeps of ``game`` on by ``tail``, its events from
    :func:`kept_sequence` on, read in one statement with the row ``game``: a view as of that
    row (``at_row``) then reads nothing more (issue 24: a pushed view's read, one round trip
    where it was two).  A fold of another game of the same id, or not continued by
    ``tail``, is left as it is (the view reads the stream)."""
    cached = _cache.get(game.pk)
    if cached is not None and cached[2] in (None, game.created_at):
        _continued(game, get_game(game.kind), cached, tail)


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
