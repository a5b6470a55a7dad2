"""Live streams as Server-Sent Events: one per game, one per tournament, one per login.

A stream polls the event store (every ``PARLOUR_STREAM_POLL_SECONDS``) and
sends each new event as::

    id: <sequence (game) or global position "tx.id" (tournament)>
    event: <dealt | move>
    data: <the event as GET /games/{id}/events shows it to the caller>

redacted for the caller exactly like the events endpoint (it calls the same
:func:`tournaments.play.game_events`).  A client that reconnects with
``Last-Event-ID`` (browsers' ``EventSource`` do it by themselves) or
``?last_event_id=`` goes on after that event.  A stream ends after a bounded
time (``?timeout=`` seconds, at most ``PARLOUR_STREAM_SECONDS``) — reconnect to
go on — or with an ``end`` event when its game (tournament) is over.  A
comment line keeps idle connections open.

The account stream (:class:`AccountFeed`, ``GET /stream/events``) sends a login's
feed instead (:mod:`tournaments.play.feed`): ``id`` a notice's id, ``event``
``started``, ``turn`` or ``finished``, ``data`` the game's id and the seat's view.
It is read through the feed's per-login index and woken on the login's channel.

The same feed runs as a plain generator under WSGI (``runserver``, gunicorn
sync workers) and as an async generator under ASGI (uvicorn workers): Django
would otherwise buffer the whole stream before sending it.

Under WSGI a stream keeps its thread and reads every ``PARLOUR_STREAM_POLL_SECONDS``.
Under ASGI it holds no thread and no database connection between reads: it waits
on the process's notification hub (:mod:`tournaments.api.waiting`) for its game's
(its tournament's known games') next change, reads in one of the event loop's shared
threads, and
reads anyway every :data:`tournaments.api.waiting.RECHECK_SECONDS` in case a
notification was lost (every ``PARLOUR_STREAM_POLL_SECONDS`` while the hub is not
subscribed: no Redis, or Redis down).

(Over 400 lines: the game, tournament and account streams are one mechanism -- the
frame format, the resumable position, the bounded time, the WSGI and ASGI loops and
the shared reading of a finished tournament -- with three small feeds on top.)
"""

from __future__ import annotations

import bisect
import json
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any, Protocol

from django.conf import settings
from django.core.handlers.asgi import ASGIRequest
from django.http import HttpRequest, StreamingHttpResponse

from events.models import Event
from events.store import Position, StreamSet, read_all
from parlour.db import release_pooled_connections
from tournaments import sql
from tournaments.api import waiting
from tournaments.api.capacity import Slots, releasing
from tournaments.api.views.games import view_of
from tournaments.models import Game, Round, Table, Tournament
from tournaments.play import Viewer, feed, game_events, game_row, stream_name
from tournaments.services.access import GameAccess, game_access
from tournaments.workers import notify

#: Seconds between keep-alive comments on an idle stream.
HEARTBEAT_SECONDS = 15.0
#: Events read from the store per query while catching up.
BATCH = 500
#: What a browser waits before reconnecting, in milliseconds.
RETRY_MS = 1000


def frame(data: Any, *, event_id: str | None = None, event: str | None = None) -> bytes:
    """One Server-Sent Event."""
    lines = []
    if event_id is not None:
        lines.append(f"id: {event_id}")
    if event is not None:
        lines.append(f"event: {event}")
    lines.append("data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    return ("\n".join(lines) + "\n\n").encode("utf-8")


def comment(text: str) -> bytes:
    return f": {text}\n\n".encode()


class Feed(Protocol):
    def start(self) -> list[bytes]: ...

    def channels(self) -> list[str]:
        """The notification channels that announce new events (:mod:`tournaments.api.waiting`),
        as far as the last poll knows."""
        ...

    def poll(self) -> tuple[list[bytes], bool]:
        """New frames, and whether the stream is finished."""
        ...


class GameFeed:
    """The events of one game after ``after`` (a sequence), for ``access``'s viewer; with
    ``with_view``, each poll's last event carries the viewer's view after it (``view``,
    what ``GET /games/{id}`` answers them) and the ones before it ``"view": null``."""

    def __init__(self, access: GameAccess, after: int, *, with_view: bool = False) -> None:
        self.game_id = access.game.pk
        self.access = access
        self.viewer = access.viewer
        self.after = after
        self.with_view = with_view

    def start(self) -> list[bytes]:
        return [f"retry: {RETRY_MS}\n\n".encode()]

    def channels(self) -> list[str]:
        return [notify.channel(self.game_id)]

    def poll(self) -> tuple[list[bytes], bool]:
        game = game_row(self.game_id)
        if game is None:
            return [], True
        frames: list[bytes] = []
        if game.sequence > self.after:
            view = None
            if self.with_view:
                # The view first, and no event past it: the last frame's view is the state
                # that frame's event left (a move committed meanwhile comes next poll).
                view = view_of(GameAccess(game, self.access.seat, self.access.organiser))
            shown_events = [
                shown
                for shown in game_events(game, self.viewer, from_sequence=self.after + 1)
                if view is None or shown["sequence"] <= view["sequence"]
            ]
            for index, shown in enumerate(shown_events):
                if self.with_view:
                    last = index == len(shown_events) - 1
                    shown = shown | {"view": view if last else None}
                frames.append(frame(shown, event_id=str(shown["sequence"]), event=shown["type"]))
                self.after = shown["sequence"]
        if game.is_over and self.after >= game.sequence:
            frames.append(
                frame(
                    {"game_id": game.pk, "status": game.status, "sequence": game.sequence},
                    event="end",
                )
            )
            return frames, True
        return frames, False


class AccountFeed:
    """A login's account feed (:mod:`tournaments.play.feed`) after position ``after``: each of
    their games that starts, waits for them, or finishes, with the game's id and their
    seat's current view.  ``after`` ``None`` (a new follower): first every running game of
    theirs (a ``started`` frame each, ``turn`` too where it waits for them), then the
    notices from then on.

    A ``turn`` whose game moved on since is not sent: a later notice tells of the game as
    it is now (or none is due, the seat no longer waited for); a bot acts on a ``turn``
    frame's view and never on a stale one.
    """

    def __init__(self, user_id: int, after: Position | None) -> None:
        self.user_id = user_id
        self.after = after

    def start(self) -> list[bytes]:
        return [f"retry: {RETRY_MS}\n\n".encode()]

    def channels(self) -> list[str]:
        return [notify.user_channel(self.user_id)]

    def poll(self) -> tuple[list[bytes], bool]:
        if self.after is None:
            return self._first(), False
        frames: list[bytes] = []
        while True:
            batch = feed.notices_after(self.user_id, self.after, limit=BATCH)
            if not batch:
                break
            games = Game.objects.in_bulk({n.game_id for n in batch})
            # A game's newest turn notice of the batch: the only one that may be current.
            newest_turn = {n.game_id: n.position for n in batch if n.kind == feed.Kind.TURN}
            views: dict[int, dict[str, Any]] = {}
            for notice in batch:
                game = games.get(notice.game_id)
                if game is None:
                    continue
                if notice.kind == feed.Kind.TURN and (
                    newest_turn[game.pk] != notice.position or not _current(notice, game)
                ):
                    continue
                if game.pk not in views:
                    views[game.pk] = view_of(GameAccess(game, notice.seat, organiser=False))
                frames.append(self._frame(notice.position, notice.kind, game.pk, views[game.pk]))
            self.after = batch[-1].position
            if len(batch) < BATCH:
                break
        return frames, False

    def _first(self) -> list[bytes]:
        """Every running game of the login, as of its newest notice (read first: a game
        started after it comes again as a notice, none is missed)."""
        self.after = feed.last_position(self.user_id)
        running = feed.running_games(self.user_id)
        games = Game.objects.in_bulk([pk for pk, _ in running])
        frames: list[bytes] = []
        for pk, seat in running:
            game = games.get(pk)
            if game is None or game.is_over:
                continue
            view = view_of(GameAccess(game, seat, organiser=False))
            frames.append(self._frame(self.after, feed.Kind.STARTED, pk, view))
            if seat in (game.waiting_for or []):
                frames.append(self._frame(self.after, feed.Kind.TURN, pk, view))
        return frames

    @staticmethod
    def _frame(position: Position, kind: str, game_id: int, view: dict[str, Any]) -> bytes:
        return frame({"game_id": game_id, "view": view}, event_id=str(position), event=kind)


def _current(notice: feed.Notice, game: Game) -> bool:
    """Whether a ``turn`` notice still tells of the game as it is: not moved on, not over."""
    return (
        notice.sequence == game.sequence
        and not game.is_over
        and notice.seat in (game.waiting_for or [])
    )


def position_after(last_event_id: str) -> Position | None:
    """Where a tournament stream resumes: the store position a ``Last-Event-ID`` names
    (``tx.id``), ``None`` for an empty one; ``ValueError`` saying why for another text."""
    return Position.parse(last_event_id) if last_event_id else None


class TournamentFeed:
    """The events of a tournament's games after a global position, each game's redacted for the
    caller (their seat in games where they sit, a spectator's view elsewhere)."""

    def __init__(self, tournament_id: int, user: Any, after: Position | None) -> None:
        self.tournament_id = tournament_id
        self.user = user
        self.after = after
        self.viewers: dict[int, Viewer] = {}
        #: The last sequence sent (or passed on resuming) per game stream.
        self.sent: dict[str, int] = {}
        #: The ids of the tournament's games seen so far.
        self.known: set[int] = set()
        #: The games refused to this caller (a duplicate round's, while it runs), by id,
        #: with their table: checked again only once its round has finished (_unhide).
        self.hidden: dict[int, int] = {}

    def start(self) -> list[bytes]:
        return [f"retry: {RETRY_MS}\n\n".encode()]

    def channels(self) -> list[str]:
        """The channels of the games seen so far (their deals and moves announce the next
        game of a series too: it is dealt with the last move of the one before)."""
        return [notify.channel(pk) for pk in sorted(self.known)]

    def _games(self) -> dict[str, Game]:
        games = Game.objects.filter(table__round__tournament_id=self.tournament_id)
        found = {g.stream: g for g in games}
        self.known.update(g.pk for g in found.values())
        return found

    def _streams(self) -> StreamSet:
        """The tournament's game streams, as a query read with the events themselves: a game
        dealt in the same transaction as another game's last move is known exactly when its
        deal is visible (reading the games first could pass its deal unknown)."""
        return sql.tournament_game_streams(self.tournament_id)

    def _viewer(self, game: Game) -> tuple[bool, Viewer]:
        """Whether the caller may see ``game`` now, and as whom.  A tournament's game is
        seen by anyone, but for a duplicate deal while its round runs
        (:func:`tournaments.play.views.twin_hidden`): its events are left out for
        everyone but its players and the organisers who play in no table of the round,
        until the round has ended (:meth:`_unhide`); its later events are sent then."""
        if game.pk in self.hidden:
            return False, None
        if game.pk not in self.viewers:
            access = game_access(self.user, game)
            if access is None:
                if game.table_id is not None:
                    self.hidden[game.pk] = game.table_id
                return False, None
            self.viewers[game.pk] = access.viewer
        return True, self.viewers[game.pk]

    def _unhide(self) -> None:
        """Forget the refusals of games whose round has finished since (one read a poll,
        while some are kept): their later events are sent, and their access read again."""
        if not self.hidden:
            return
        ended = set(
            Table.objects.filter(
                pk__in=set(self.hidden.values()), round__status=Round.Status.FINISHED
            ).values_list("pk", flat=True)
        )
        self.hidden = {g: t for g, t in self.hidden.items() if t not in ended}

    def _first_position(self, streams: list[str]) -> Position | None:
        """Just before the first event of the tournament's games (no need to read earlier)."""
        first = (
            Event.objects.filter(stream__in=streams, sequence=1)
            .order_by("tx", "id")
            .values_list("tx", "id")
            .first()
        )
        return None if first is None else Position(int(first[0]), int(first[1]) - 1)

    def poll(self) -> tuple[list[bytes], bool]:
        self._unhide()
        games = self._games()
        if games and self._anonymous() and self._finished():
            whole = _finished_streams.get(self.tournament_id, games)
            if whole is None:
                whole = self._whole(games)
            if whole is not None:
                return whole.after(self.after), True
        return self._poll(games)

    def _anonymous(self) -> bool:
        """A caller without a login: a spectator of every game, with no query to say so."""
        return self.user is None or not self.user.is_authenticated

    def _whole(self, games: dict[str, Game]) -> _WholeStream | None:
        """A finished tournament's whole public stream, read once and kept by
        :data:`_finished_streams` (``None`` if its last events are not visible yet)."""
        feed = TournamentFeed(self.tournament_id, None, None)
        found: list[tuple[Position, bytes]] = []
        while True:
            frames, done = feed._poll(games, positions=found)
            if done:
                whole = _WholeStream(found, frames[-1])
                _finished_streams.put(self.tournament_id, games, whole)
                return whole
            if not frames:
                return None

    def _poll(
        self, games: dict[str, Game], positions: list[tuple[Position, bytes]] | None = None
    ) -> tuple[list[bytes], bool]:
        """The frames after :attr:`after` (each also put in ``positions`` with its place)."""
        if self.after is None:
            if not games:
                return [], self._finished()
            self.after = self._first_position(sorted(games))
            if self.after is None:
                return [], False
        frames: list[bytes] = []
        while True:
            batch = read_all(self.after, limit=BATCH, within=self._streams())
            if any(e.stream not in games for e in batch):
                games = self._games()  # a game dealt since: its row committed with its deal
            wanted = batch
            by_stream: dict[str, list[Any]] = {}
            for event in wanted:
                by_stream.setdefault(event.stream, []).append(event)
            shown: dict[tuple[str, int], dict[str, Any]] = {}
            for stream, events in by_stream.items():
                game = games[stream]
                visible, viewer = self._viewer(game)
                if not visible:
                    continue
                sequences = {e.sequence for e in events}
                for item in game_events(game, viewer, from_sequence=min(sequences)):
                    if item["sequence"] in sequences:
                        shown[(stream, item["sequence"])] = item
            for event in wanted:
                if (event.stream, event.sequence) not in shown:
                    continue  # a hidden duplicate deal's
                game = games[event.stream]
                data = {"game_id": game.pk, "position": str(event.position)}
                data.update(shown[(event.stream, event.sequence)])
                frames.append(frame(data, event_id=str(event.position), event=event.type))
                if positions is not None:
                    positions.append((event.position, frames[-1]))
            for event in batch:
                self.sent[event.stream] = event.sequence
            if batch:
                self.after = batch[-1].position
            if len(batch) < BATCH:
                break
        if not frames and self._finished() and self._caught_up(games):
            frames.append(
                frame({"tournament": self.tournament_id, "status": "finished"}, event="end")
            )
            return frames, True
        return frames, False

    def _finished(self) -> bool:
        return Tournament.objects.filter(
            pk=self.tournament_id, status=Tournament.Status.FINISHED
        ).exists()

    def _caught_up(self, games: dict[str, Game]) -> bool:
        """Every game over and its last event passed: sent, or at or before the position a
        client resumed from."""
        if not all(g.is_over for g in games.values()) or self.after is None:
            return False
        for stream, game in games.items():
            if self.sent.get(stream, 0) >= game.sequence:
                continue
            final = (
                Event.objects.filter(stream=stream, sequence=game.sequence)
                .values_list("tx", "id")
                .first()
            )
            if final is None or Position(int(final[0]), int(final[1])) > self.after:
                return False
        return True


@dataclass(frozen=True)
class _WholeStream:
    """A finished tournament's whole stream as an anonymous caller sees it: its frames in
    order with their positions, and its ``end`` frame."""

    frames: list[tuple[Position, bytes]]
    end: bytes

    def after(self, position: Position | None) -> list[bytes]:
        """The stream after ``position`` (from the start for ``None``), ended, as one chunk."""
        start = 0
        if position is not None:
            start = bisect.bisect_right(self.frames, position, key=lambda item: item[0])
        return [b"".join(f for _, f in self.frames[start:]) + self.end]

    @property
    def size(self) -> int:
        return sum(len(f) for _, f in self.frames) + len(self.end)


class _FinishedStreams:
    """The whole public streams of finished tournaments, per process, at most
    :data:`FINISHED_STREAMS_BYTES` of them (the least recently used go first).

    A finished tournament's stream no longer changes: its games are over, every one
    revealed (its rounds finished), and its events immutable; so anonymous readers
    from its start, each of whom cost a read and a redaction of every event (16
    such loops took both cores: bench/abuse.py, attack b), share one reading.  Each
    entry is keyed by the games' ids and sequences too, so an event appended after
    all (a correction) is a new entry, never a stale answer; their commitments and
    creation times too, so that ids used again (SQLite after a rolled-back test) are
    another entry.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: OrderedDict[tuple[Any, ...], _WholeStream] = OrderedDict()

    @staticmethod
    def _key(tournament_id: int, games: dict[str, Game]) -> tuple[Any, ...]:
        return tournament_id, tuple(
            sorted((g.pk, g.sequence, g.commitment, str(g.created_at)) for g in games.values())
        )

    def get(self, tournament_id: int, games: dict[str, Game]) -> _WholeStream | None:
        key = self._key(tournament_id, games)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def put(self, tournament_id: int, games: dict[str, Game], whole: _WholeStream) -> None:
        if whole.size > FINISHED_STREAMS_BYTES:
            return
        with self._lock:
            self._entries[self._key(tournament_id, games)] = whole
            while sum(w.size for w in self._entries.values()) > FINISHED_STREAMS_BYTES:
                self._entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


#: Bytes of finished tournaments' streams each process keeps (:class:`_FinishedStreams`).
FINISHED_STREAMS_BYTES = 32_000_000
_finished_streams = _FinishedStreams()


def stream_response(
    request: HttpRequest, feed: Feed, timeout: float, slots: Slots | None = None
) -> StreamingHttpResponse:
    """The streaming response for ``feed``: an async generator under ASGI, a plain one else;
    the caller's ``slots`` (:mod:`tournaments.api.capacity`) go back when it closes."""
    poll = float(settings.PARLOUR_STREAM_POLL_SECONDS)
    content: Iterator[bytes] | AsyncIterator[bytes]
    if isinstance(request, ASGIRequest):
        content = _async_frames(feed, timeout, poll)
    else:
        content = _sync_frames(feed, timeout, poll)
    if slots is not None:
        content = releasing(content, slots)
    response = StreamingHttpResponse(content, content_type="text/event-stream; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: do not buffer the stream
    return response


def _poll_then_release(feed: Feed) -> tuple[list[bytes], bool]:
    """``feed.poll()``; then, with a pool (DATABASE_POOL_SIZE), the connection goes back to
    it while the stream sleeps: an open stream must not hold one of the few for minutes."""
    try:
        return feed.poll()
    finally:
        release_pooled_connections()


def _sync_frames(feed: Feed, timeout: float, poll: float) -> Iterator[bytes]:
    deadline = time.monotonic() + timeout
    quiet_since = time.monotonic()
    # The database connection is the request's: Django closes it when the response
    # is closed (request_finished), after the last frame.
    yield from feed.start()
    while True:
        frames, done = _poll_then_release(feed)
        if frames:
            quiet_since = time.monotonic()
            yield b"".join(frames)  # one write for a poll's frames, not one each
        if done:
            return
        now = time.monotonic()
        if now >= deadline:
            yield comment("time is up: reconnect with Last-Event-ID to go on")
            return
        if now - quiet_since >= HEARTBEAT_SECONDS:
            quiet_since = now
            yield comment("keep-alive")
        time.sleep(min(poll, max(deadline - now, 0.0)))


async def _async_frames(feed: Feed, timeout: float, poll: float) -> AsyncIterator[bytes]:
    """The feed under ASGI: between reads it awaits the hub and holds nothing; each read
    runs in a shared thread and gives its connection back (:func:`waiting.run_sync`)."""
    deadline = time.monotonic() + timeout
    quiet_since = time.monotonic()
    for chunk in feed.start():  # no database
        yield chunk
    # Registered before the first read: a change committed from now on wakes us.
    with waiting.listening(feed.channels()) as (waiter, hub):
        while True:
            frames, done = await waiting.run_sync(feed.poll)
            if frames:
                quiet_since = time.monotonic()
                # One ASGI message for a poll's frames: a message each cost the
                # server more than reading them (500 of them from a stream's start).
                yield b"".join(frames)
            if done:
                return
            now = time.monotonic()
            if now >= deadline:
                yield comment("time is up: reconnect with Last-Event-ID to go on")
                return
            if now - quiet_since >= HEARTBEAT_SECONDS:
                quiet_since = now
                yield comment("keep-alive")
            if hub is not None and (new := set(feed.channels()) - waiter.channels):
                # Channels the poll found (a tournament's new game): registered, then read
                # once more, so that nothing committed since that poll goes unannounced.
                hub.register(waiter, new)
                continue
            await waiter.wait(
                min(
                    waiting.recheck_seconds(hub, poll),
                    deadline - now,
                    HEARTBEAT_SECONDS - (now - quiet_since),
                )
            )


__all__ = [
    "AccountFeed",
    "GameFeed",
    "Position",
    "TournamentFeed",
    "frame",
    "stream_name",
    "stream_response",
]
