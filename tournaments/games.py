"""The game service: games as event streams, one use case per function.

Every game is the stream ``game-<id>`` in the event store (:mod:`events.store`);
its first event is the deal, the rest are moves.  The use cases:

* :func:`create_game` deals a new game, from a provably fair shuffle
  (:mod:`engine.fairness`) or from a given deck, and :func:`import_game` stores
  a portable record as a game;
* :func:`submit_action`, :func:`apply_timeout` and :func:`apply_chance` load
  the stream, fold it, let the engine ``decide`` and append the events at the
  sequence the caller saw (a stale one is a :class:`Conflict`, never an
  overwrite); chance moves (Old Maid's shuffles, Bhabhi's blind draw, a
  timeout's random draw) are drawn here with a secure generator, and a chance
  node left by a move is resolved at once in the same transaction, so nobody
  ever waits at one;
* :func:`game_view`, :func:`game_events` and :func:`export_record` show a game
  as a seat, a spectator or the organiser may see it.  What a viewer may see of
  each event is the game's to say (:meth:`engine.contract.Game.event_view`);
  the service adds only its own secrets: the deck and the shuffle's seed.  Once
  the game is *revealed* everything is public: at its end, or, for a duplicate
  deal, when its round has finished (no twin dealt from the same deck is still
  being played, none is still to be dealt);
* :func:`rebuild_projections` recomputes every :class:`~tournaments.models.Game`
  row from the events alone.

Each use case runs in one transaction; listeners of :data:`game_changed` hear
of a change only after it has committed.
"""

from __future__ import annotations

import copy
import random
import secrets
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from threading import Lock
from typing import Any, Literal

from django.core.management.color import no_style
from django.db import connection, transaction
from django.dispatch import Signal
from django.utils import timezone

from engine.contract import Event, IllegalAction
from engine.contract import Game as Engine
from engine.fairness import (
    ALGORITHM,
    ALGORITHM_WITH_CLIENTS,
    check_shuffle,
    commitment,
    derive_deck,
    mix_seed,
    new_seed,
    shuffle_contributions,
)
from engine.fairness import canonical_order as _canonical_order
from engine.record import export_record as _export_record
from engine.record import import_record as _import_record
from engine.registry import get_game
from events import store
from events.store import Conflict, IdempotencyKeyReused, NewEvent, StoredEvent
from tournaments.models import Game, Round, Table

__all__ = [
    "ActionResult",
    "Conflict",
    "GameNotOver",
    "GameNotRevealed",
    "IdempotencyKeyReused",
    "IllegalAction",
    "Viewer",
    "apply_chance",
    "apply_timeout",
    "create_game",
    "export_record",
    "game_changed",
    "game_events",
    "game_view",
    "is_revealed",
    "import_game",
    "load_state",
    "rebuild_projections",
    "stream_name",
    "submit_action",
]

#: Sent after a commit that changed a game: ``game_id``, its new ``sequence`` and
#: ``game``, the game's row as that change left it (a copy: receivers may keep it).
game_changed = Signal()

#: Who looks at a game: a seat number, ``None`` for a spectator, or ``"organiser"``.
Viewer = int | None | Literal["organiser"]

STREAM_PREFIX = "game-"


class GameNotOver(Exception):
    """What is shown only after the end (the record, the seed) was asked of a running game."""


class GameNotRevealed(GameNotOver):
    """The same asked of a finished duplicate deal whose twins are still being played."""


@dataclass(frozen=True)
class ActionResult:
    """The outcome of a command: the events it appended (or, replayed, appended the first time)."""

    game_id: int
    events: tuple[StoredEvent, ...]
    replayed: bool
    #: The engine state right after the command, when it appended just now (``None``
    #: when replayed): the caller can show the new view without folding again.
    state: Any = field(default=None, compare=False, repr=False)

    @property
    def sequence(self) -> int:
        """The sequence of the last event of the command."""
        return self.events[-1].sequence

    @property
    def payloads(self) -> list[dict[str, Any]]:
        return [e.payload for e in self.events]


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
    """Game ``game_id``'s row, or ``None``.

    Every action and game read starts here: a raw query, because compiling the
    ORM's ``filter(pk=…).first()`` cost several times the query's own round trip
    on our machines (bench/floor.py, docs/benchmarks.md).
    """
    for game in Game.objects.raw(f"SELECT * FROM {Game._meta.db_table} WHERE id = %s", [game_id]):
        return game
    return None


def _game(game: Game | int) -> Game:
    if isinstance(game, Game):
        return game
    found = game_row(game)
    if found is None:
        raise Game.DoesNotExist(f"there is no game {game}")
    return found


# -- projections ----------------------------------------------------------------------


def _deadlines(
    deadlines: Mapping[str, str],
    waiting: Iterable[int],
    event: StoredEvent,
    turn_seconds: int | None,
) -> dict[str, str]:
    """Each waited-for seat's deadline after ``event``.

    A seat's clock starts when it becomes waited for and runs until it is no
    longer waited for (one clock for a whole turn, even of several moves).
    """
    if turn_seconds is None:
        return {}
    due = (event.recorded_at + timedelta(seconds=turn_seconds)).isoformat()
    return {str(s): deadlines.get(str(s), due) for s in waiting}


def _initial_projection(deal: StoredEvent) -> dict[str, Any]:
    payload = deal.payload
    table = payload.get("table") or {}
    shuffle = payload.get("shuffle") or {}
    return {
        "kind": payload["game"],
        "seats": payload["seats"],
        "dealer": payload["dealer"],
        "options": payload["options"],
        "players": list(table.get("players") or []),
        "turn_seconds": table.get("turn_seconds"),
        "context": table.get("context"),
        "table_id": _context_int(table.get("context"), "table"),
        "number_in_series": _context_int(table.get("context"), "game_number"),
        "commitment": shuffle.get("commitment", ""),
        "seed": "",
        "status": Game.Status.RUNNING,
        "sequence": 0,
        "to_act": [],
        "waiting_for": [],
        "deadlines": {},
        "result": None,
        "created_at": deal.recorded_at,
        "finished_at": None,
    }


def _context_int(context: Any, key: str) -> int | None:
    """An id the creator put in the game's context (a tournament table, a game number)."""
    value = context.get(key) if isinstance(context, Mapping) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _project(
    fields: dict[str, Any],
    engine: Engine[Any],
    steps: Iterable[tuple[StoredEvent, Any]],
    seed: str,
) -> dict[str, Any]:
    """``fields`` advanced over ``steps`` (each event with the state after it)."""
    fields = dict(fields)
    for event, state in steps:
        waiting = engine.waiting_for(state)
        fields["sequence"] = event.sequence
        fields["to_act"] = engine.to_act(state)
        fields["waiting_for"] = waiting
        fields["deadlines"] = _deadlines(
            fields["deadlines"], waiting, event, fields["turn_seconds"]
        )
        outcome = engine.outcome(state)
        if outcome is not None and fields["status"] != Game.Status.OVER:
            fields["status"] = Game.Status.OVER
            fields["result"] = outcome
            fields["finished_at"] = event.recorded_at
            fields["seed"] = seed
    return fields


PROJECTED_FIELDS = (
    "kind",
    "seats",
    "dealer",
    "options",
    "players",
    "turn_seconds",
    "context",
    "table_id",
    "number_in_series",
    "commitment",
    "seed",
    "status",
    "sequence",
    "to_act",
    "waiting_for",
    "deadlines",
    "result",
    "created_at",
    "finished_at",
)


def _current_fields(game: Game) -> dict[str, Any]:
    return {name: getattr(game, name) for name in PROJECTED_FIELDS}


def _seed_of(deal: Mapping[str, Any]) -> str:
    return str((deal.get("shuffle") or {}).get("seed", ""))


def _save_projection(game: Game, fields: dict[str, Any]) -> None:
    """Set ``fields`` on ``game`` and write them to its row.

    Every action writes the row, so the ``UPDATE`` is written by hand: the ORM's
    ``update()`` compiled it afresh each time, at more CPU than the statement
    costs the database (docs/benchmarks.md, "HTTP load").  Each value is prepared
    by its field, as ``update()`` does.
    """
    for name, value in fields.items():
        setattr(game, name, value)
    columns = [Game._meta.get_field(name) for name in fields]
    assignments = ", ".join(f"{connection.ops.quote_name(f.column)} = %s" for f in columns)
    values = [f.get_db_prep_save(getattr(game, f.attname), connection) for f in columns]
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Game._meta.db_table} SET {assignments} WHERE id = %s", [*values, game.pk]
        )


def rebuild_projections() -> int:
    """Recompute every game's row from its events alone; the number of games rebuilt."""
    count = 0
    for stream in store.streams(STREAM_PREFIX):
        suffix = stream[len(STREAM_PREFIX) :]
        if not suffix.isdecimal():
            continue
        with transaction.atomic():
            # Lock the row before reading the stream: a command committing
            # meanwhile then writes its newer projection after ours, not before.
            list(Game.objects.select_for_update().filter(pk=int(suffix)).values_list("pk"))
            events = store.read_stream(stream)
            engine = get_game(events[0].payload["game"])
            fields = _initial_projection(events[0])
            state: Any = None
            steps = []
            for event in events:
                state = engine.evolve(state, event.payload)
                steps.append((event, state))
            fields = _project(fields, engine, steps, _seed_of(events[0].payload))
            Game.objects.update_or_create(pk=int(suffix), defaults=fields)
        count += 1
    # Rows were created with explicit ids: move PostgreSQL's id sequence past them.
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), [Game]):
            cursor.execute(sql)
    return count


# -- creating games -------------------------------------------------------------------


def create_game(
    kind: str,
    seats: int,
    *,
    dealer: int | None = None,
    players: Sequence[str] | None = None,
    options: Mapping[str, Any] | None = None,
    deck: Sequence[str] | None = None,
    turn_seconds: int | None = None,
    context: Any = None,
    cause_kind: str = "organiser",
    cause_id: str = "",
    server_seed: bytes | None = None,
    client_seeds: Sequence[str] = (),
    nonce: int = 0,
) -> Game:
    """Deal a new game of ``kind`` at ``seats`` seats and store it.

    Without ``deck`` the deck is derived from a fresh secret seed
    (:mod:`engine.fairness`): only the seed's commitment is shown until the
    game ends.  With ``server_seed`` (one committed before the deal) the deck
    derives from it mixed with the players' ``client_seeds`` and ``nonce``
    (:func:`engine.fairness.mix_seed`, docs/fairness.md).  ``dealer`` defaults
    to a seat drawn by a secure generator.
    Raises ``KeyError`` for an unknown game and :class:`IllegalAction` for bad
    seats, dealer, deck or options.
    """
    engine = get_game(kind)
    if not isinstance(seats, int) or isinstance(seats, bool) or seats < 1:
        raise IllegalAction(f"seats is a number of players, not {seats!r}", "seats")
    if dealer is None:
        dealer = secrets.randbelow(seats)
    shuffle: dict[str, str] | None = None
    if deck is None and server_seed is not None:
        contributions = list(client_seeds)
        mixed = mix_seed(server_seed, contributions, nonce)
        deck = derive_deck(mixed, _canonical_order(engine.deck))
        shuffle = {
            "algorithm": ALGORITHM_WITH_CLIENTS,
            "commitment": commitment(server_seed),
            "seed": server_seed.hex(),
            "client_seeds": contributions,
            "nonce": nonce,
        }
    elif deck is None:
        seed = new_seed()
        deck = derive_deck(seed, _canonical_order(engine.deck))
        shuffle = {"algorithm": ALGORITHM, "commitment": commitment(seed), "seed": seed.hex()}
    names = _players(players, seats)
    if turn_seconds is not None and (
        not isinstance(turn_seconds, int) or isinstance(turn_seconds, bool) or turn_seconds < 1
    ):
        raise IllegalAction(
            f"turn_seconds is a positive number, not {turn_seconds!r}", "turn_seconds"
        )
    dealt = engine.deal(seats, dealer, deck, options)
    extra: dict[str, Any] = {
        "table": {"players": names, "turn_seconds": turn_seconds, "context": context}
    }
    if shuffle is not None:
        extra["shuffle"] = shuffle
    first = dealt[0] | extra
    return _store_new_game(engine, [first, *dealt[1:]], cause_kind, cause_id)


def import_game(record: Mapping[str, Any], *, context: Any = None) -> Game:
    """Store the game of a portable record (RECORD.md), every move checked.

    Raises :class:`engine.record.RecordError` for a record that does not hold
    and :class:`engine.fairness.FairnessError` for a revealed shuffle that
    does not match its commitment or the deck.
    """
    events = _import_record(record)
    shuffle = record.get("shuffle")
    extra: dict[str, Any] = {
        "table": {"players": list(record["players"]), "turn_seconds": None, "context": context}
    }
    if isinstance(shuffle, Mapping) and shuffle.get("commitment"):
        client_seeds, nonce = shuffle_contributions(shuffle)
        if shuffle.get("seed"):
            check_shuffle(
                record["deck"],
                commitment_hex=str(shuffle["commitment"]),
                seed=str(shuffle["seed"]),
                cards=get_game(record["game"]).deck,
                client_seeds=client_seeds,
                nonce=nonce,
            )
        extra["shuffle"] = {
            "algorithm": ALGORITHM if client_seeds is None else ALGORITHM_WITH_CLIENTS,
            "commitment": str(shuffle["commitment"]),
            **({"seed": str(shuffle["seed"])} if shuffle.get("seed") else {}),
            **({} if client_seeds is None else {"client_seeds": client_seeds, "nonce": nonce}),
        }
    engine = get_game(record["game"])
    return _store_new_game(
        engine, [events[0] | extra, *events[1:]], "system", "import", resolve_chance=False
    )


def _players(players: Sequence[str] | None, seats: int) -> list[str]:
    if players is None:
        return [f"Seat {s}" for s in range(seats)]
    names = [str(p) for p in players]
    if len(names) != seats:
        raise IllegalAction(f"players names {seats} seats, got {len(names)} names", "players")
    return names


def _store_new_game(
    engine: Engine[Any],
    events: list[Event],
    cause_kind: str,
    cause_id: str,
    *,
    resolve_chance: bool = True,
) -> Game:
    with transaction.atomic():
        deal = events[0]
        game = Game.objects.create(
            kind=engine.id, seats=deal["seats"], dealer=deal["dealer"], options=deal["options"]
        )
        state = engine.fold(events)
        new = [NewEvent(e["type"], e, cause_kind, cause_id, e.get("v", 1)) for e in events]
        if resolve_chance:
            chance, state = _chance_events(engine, state)
            new += chance
        appended = store.append(game.stream, new, expected_sequence=0)
        _after_append(game, engine, appended.events, None)
    return game


# -- commands -----------------------------------------------------------------------------


def submit_action(
    game_id: Game | int,
    seat: int,
    action: Mapping[str, Any],
    *,
    expected_sequence: int,
    idempotency_key: str | None = None,
    cause_kind: str = "seat",
    cause_id: str = "",
) -> ActionResult:
    """Make ``action`` for ``seat`` of game ``game_id``, seen at ``expected_sequence``.

    ``game_id`` may be the game's row the caller has just read (it is read again
    only if the stream has moved past it); the row then holds the new projection.

    Raises :class:`IllegalAction` (nothing changes), :class:`Conflict` (the game
    moved on: its ``current_sequence`` says where to) or
    :class:`IdempotencyKeyReused`.  A retry with the same ``idempotency_key``
    returns the first outcome, ``replayed``.
    """
    return _command(
        game_id,
        "action",
        seat,
        action,
        expected_sequence,
        idempotency_key,
        cause_kind,
        cause_id or (str(seat) if cause_kind == "seat" else ""),
    )


def apply_timeout(
    game_id: int,
    seat: int,
    expected_sequence: int,
    *,
    idempotency_key: str | None = None,
    now: datetime | None = None,
    force: bool = False,
) -> ActionResult:
    """Act for ``seat``, whose time ran out, as the engine's timeout rule says.

    The seat must be waited for and (unless ``force``) its deadline passed by
    ``now``.  The default idempotency key is ``timeout-<seat>-<expected>``, so
    two sweeps firing the same timeout store it once.
    """
    if idempotency_key is None:
        idempotency_key = f"timeout-{seat}-{expected_sequence}"
    check: Callable[[Game], None] | None = None
    if not force:

        def check(game: Game) -> None:
            due = game.deadlines.get(str(seat))
            if due is None:
                raise IllegalAction(f"seat {seat} has no clock running", "seat")
            if (now or timezone.now()) < datetime.fromisoformat(due):
                raise IllegalAction(f"seat {seat}'s time runs until {due}", "seat")

    return _command(
        game_id,
        "timeout",
        seat,
        {},
        expected_sequence,
        idempotency_key,
        "timeout",
        str(seat),
        check=check,
    )


def apply_chance(game_id: int) -> ActionResult | None:
    """Resolve a chance node the game is left at (never after our own appends); ``None`` if none."""
    with transaction.atomic():
        game = Game.objects.get(pk=game_id)
        engine, state, current, _ = _load(game)
        if engine.is_over(state) or engine.chance_draw(state, random.SystemRandom()) is None:
            return None
        _fresh(game, current)
        events, _ = _chance_events(engine, state)
        appended = store.append(game.stream, events, expected_sequence=current)
        _after_append(game, engine, appended.events, state)
    return ActionResult(game.pk, appended.events, False)


def _command(
    game: Game | int,
    kind: str,
    seat: int,
    action: Mapping[str, Any],
    expected: int,
    key: str | None,
    cause_kind: str,
    cause_id: str,
    *,
    check: Callable[[Game], None] | None = None,
) -> ActionResult:
    if cause_kind not in store.CAUSE_KINDS:
        raise ValueError(f"cause_kind is one of {sorted(store.CAUSE_KINDS)}, not {cause_kind!r}")
    if not isinstance(action, Mapping):
        raise IllegalAction('an action is an object with a "type"', "type")
    digest = store.command_hash(
        {"command": kind, "seat": seat, "action": dict(action), "expected_sequence": expected}
    )
    game_id = game.pk if isinstance(game, Game) else game
    try:
        return _decide_and_append(
            game, kind, seat, action, expected, key, digest, cause_kind, cause_id, check
        )
    except Conflict:
        # A retry racing its own original: the original won; answer with its outcome.
        if key is not None:
            found = store.find_command(stream_name(game_id), key, digest)
            if found is not None:
                return ActionResult(game_id, found.events, True)
        raise


def _decide_and_append(
    game_or_id: Game | int,
    kind: str,
    seat: int,
    action: Mapping[str, Any],
    expected: int,
    key: str | None,
    digest: str,
    cause_kind: str,
    cause_id: str,
    check: Callable[[Game], None] | None,
) -> ActionResult:
    with transaction.atomic():
        game = _game(game_or_id)
        if key is not None:
            found = store.find_command(game.stream, key, digest)
            if found is not None:
                return ActionResult(game.pk, found.events, True)
        engine, state, current, _ = _load(game)
        if current != expected:
            raise Conflict(game.stream, expected, current)
        _fresh(game, current)
        if check is not None:
            check(game)
        rng = random.SystemRandom()
        if engine.is_over(state):
            raise IllegalAction("the game is over")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < game.seats:
            raise IllegalAction(f"there is no seat {seat!r} at this table", "seat")
        if kind == "timeout":
            if seat not in engine.waiting_for(state):
                raise IllegalAction(f"seat {seat} is not being waited for", "seat")
            try:
                request: Mapping[str, Any] = engine.timeout_action(state, seat, rng)
            except ValueError as error:
                raise IllegalAction(str(error), "seat") from error
            chance = False
        else:
            request, chance = engine.request(state, seat, action, rng)
        decided = engine.decide(state, seat, request, chance=chance)
        before = state
        for event in decided:
            state = engine.evolve(state, event)
        new = [NewEvent(e["type"], e, cause_kind, cause_id, e.get("v", 1)) for e in decided]
        follow, state = _chance_events(engine, state)
        appended = store.append(
            game.stream,
            new + follow,
            expected_sequence=expected,
            idempotency_key=key,
            command_hash=digest,
        )
        if appended.replayed:  # the original committed while we decided
            return ActionResult(game.pk, appended.events, True)
        _after_append(game, engine, appended.events, before)
    return ActionResult(game.pk, appended.events, False, state)


def _chance_events(engine: Engine[Any], state: Any) -> tuple[list[NewEvent], Any]:
    """The chance outcomes due at ``state``, drawn securely, and the state after them."""
    rng = random.SystemRandom()
    events: list[NewEvent] = []
    for _ in range(10_000):
        node = None if engine.is_over(state) else engine.chance_draw(state, rng)
        if node is None:
            return events, state
        seat, outcome = node
        for event in engine.decide(state, seat, outcome, chance=True):
            state = engine.evolve(state, event)
            events.append(NewEvent(event["type"], event, "system", "chance", event.get("v", 1)))
    raise RuntimeError(f"{engine.id}: chance nodes without end")


def _after_append(
    game: Game, engine: Engine[Any], events: Sequence[StoredEvent], before: Any
) -> None:
    """Update the projection from the appended events; notify and cache after the commit."""
    steps = []
    state = before
    for event in events:
        state = engine.evolve(state, event.payload)
        steps.append((event, state))
    if before is None:
        deal = events[0]
        fields = _initial_projection(deal)
        seed = _seed_of(deal.payload)
    else:
        fields = _current_fields(game)
        seed = (
            _seed_of(store.read_stream(game.stream, limit=1)[0].payload)
            if any(engine.is_over(s) for _, s in steps)
            else ""
        )
    fields = _project(fields, engine, steps, seed)
    _save_projection(game, fields)
    if (
        fields["status"] == Game.Status.OVER
        and game.table_id is not None
        and any(engine.is_over(s) for _, s in steps)
    ):
        # The table's series goes on (or ends) in the same transaction as the
        # move that ended this game: a series can never be left without its
        # next game.
        from tournaments.services import game_over

        game_over(game)
    game_id, last, sequence = game.pk, events[-1], events[-1].sequence
    # The receivers get a copy of the row as this change left it, so that they need
    # not read it again (the caller may go on changing its own instance).
    row = copy.copy(game)
    transaction.on_commit(lambda: _cache.put(game_id, last, state))
    transaction.on_commit(
        lambda: game_changed.send(
            sender=Game, game_id=game_id, sequence=sequence, game=row, state=state
        )
    )


# -- what people see -------------------------------------------------------------------------


def _seat_of(viewer: Viewer, seats: int) -> int | None:
    if viewer is None or viewer == "organiser":
        return None
    if isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer < seats:
        return viewer
    raise ValueError(f"a viewer is a seat 0..{seats - 1}, None or 'organiser', not {viewer!r}")


def game_view(game: Game | int, viewer: Viewer, *, state: Any = None) -> dict[str, Any]:
    """The game as ``viewer`` may see it: the engine's view plus the service's facts.

    While the game runs a seat sees its own view, a spectator and the
    organiser the spectator's view; once it is revealed (:func:`is_revealed`)
    everyone also sees the hidden cards, the deck and the shuffle's seed.  A
    finished game not yet revealed says so (``"revealed": false``).  ``state``: the game's state
    at ``game.sequence`` when the caller has it (a command's
    :attr:`ActionResult.state` with the row it updated, or :func:`load_state`):
    the view is built from it without reading the stream again.
    """
    game = _game(game)
    seat = _seat_of(viewer, game.seats)
    if state is not None:
        engine, sequence = get_game(game.kind), game.sequence
    else:
        engine, state, sequence, _ = _load(game)
        if game.sequence != sequence:
            game.refresh_from_db()
    view = engine.view(state, seat)
    over = engine.is_over(state)
    revealed = over and is_revealed(game)
    deal = store.read_stream(game.stream, limit=1)[0].payload if revealed else None
    view.update(
        {
            "game_id": game.pk,
            "role": "organiser"
            if viewer == "organiser"
            else ("spectator" if seat is None else "seat"),
            "status": Game.Status.OVER if over else Game.Status.RUNNING,
            "sequence": sequence,
            "players": list(game.players),
            "turn_seconds": game.turn_seconds,
            "deadlines": dict(game.deadlines) if not over else {},
            "commitment": game.commitment,
            "revealed": revealed,
        }
    )
    if deal is not None:
        view["hidden"] = engine.hidden(state)
        view["deck"] = list(deal["deck"])
        view["seed"] = _seed_of(deal)
    return view


def is_revealed(game: Game) -> bool:
    """Whether a finished game's secrets are public: its deck, hidden cards, seed, whole log
    and record.

    At the end, except for a duplicate deal: the other tables of its round play the
    same decks, so it waits until the round has finished (every table's series
    over, so no twin is still running or still to be dealt).
    """
    if game.status != Game.Status.OVER:
        return False
    if game.table_id is None:
        return True
    row = (
        Table.objects.filter(pk=game.table_id)
        .values_list("round__tournament__duplicate_deals", "round__status")
        .first()
    )
    return row is None or not row[0] or row[1] == Round.Status.FINISHED


def shown_event(
    engine: Engine[Any], payload: dict[str, Any], before: Any, now: Any, seat: int | None
) -> dict[str, Any]:
    """What ``seat`` (``None``: a spectator or the organiser) may see of ``payload`` while the
    game is not revealed: the game's own rule, and the deal without its shuffle's seed."""
    shown = engine.event_view(payload, before, now, seat)
    shuffle = shown.get("shuffle")
    if payload.get("type") == "dealt" and isinstance(shuffle, Mapping):
        shown["shuffle"] = {k: v for k, v in shuffle.items() if k != "seed"}
    return shown


def game_events(
    game: Game | int, viewer: Viewer, *, from_sequence: int = 1
) -> list[dict[str, Any]]:
    """The game's events from ``from_sequence`` as ``viewer`` may see them.

    Until the game is revealed (:func:`is_revealed`) each event goes through
    :func:`shown_event` with the state it was made in and the state now (the
    organiser sees what a spectator sees); afterwards every event is shown whole.
    """
    game = _game(game)
    seat = _seat_of(viewer, game.seats)
    engine = get_game(game.kind)
    events = store.read_stream(game.stream)
    states: list[Any] = []
    state: Any = None
    for event in events:
        state = engine.evolve(state, event.payload)
        states.append(state)
    revealed = bool(events) and engine.is_over(state) and is_revealed(game)
    shown = []
    for index, event in enumerate(events):
        if event.sequence < from_sequence:
            continue
        before = states[index - 1] if index else None
        payload = (
            event.payload if revealed else shown_event(engine, event.payload, before, state, seat)
        )
        shown.append(
            {
                "sequence": event.sequence,
                "type": event.type,
                "version": event.version,
                "payload": payload,
                "cause": {"kind": event.cause_kind, "id": event.cause_id},
                "recorded_at": event.recorded_at.isoformat(),
            }
        )
    return shown


def stored_payload_as_spectator(stream: str, sequence: int, payload: Any) -> Any:
    """An event of the store as a spectator may see it now (the admin's event page).

    A game's event goes through :func:`game_events`.  Another stream's event that
    holds a secret seed (a round's duplicate-deal seed, a table's committed seed of
    its next deal) shows it only once what it deals is revealed: the round finished,
    that game revealed.  A seed of any other kind is never shown here.
    """
    if stream.startswith(STREAM_PREFIX) and stream[len(STREAM_PREFIX) :].isdecimal():
        game = game_row(int(stream[len(STREAM_PREFIX) :]))
        if game is None:
            return payload
        shown = game_events(game, None, from_sequence=sequence)
        return shown[0]["payload"] if shown else payload
    if not isinstance(payload, Mapping) or "seed" not in payload:
        return payload
    if payload.get("type") == "round_seed":
        public = Round.objects.filter(
            tournament_id=payload.get("tournament"),
            number=payload.get("round"),
            status=Round.Status.FINISHED,
        ).exists()
    elif payload.get("type") == "table_seed" and stream.split("-", 1)[-1].isdecimal():
        dealt = Game.objects.filter(
            table_id=int(stream.split("-", 1)[1]), number_in_series=payload.get("game_number")
        ).first()
        public = dealt is not None and is_revealed(dealt)
    else:
        public = False
    if public:
        return payload
    return {k: v for k, v in payload.items() if k != "seed"} | {"redacted": ["seed"]}


def export_record(game: Game | int) -> dict[str, Any]:
    """The portable record (RECORD.md) of a finished game, with the revealed seed.

    Raises :class:`GameNotOver` while the game runs, :class:`GameNotRevealed` while
    the twins of a duplicate deal are played: the record holds the deck.
    """
    game = _game(game)
    events = [e.payload for e in store.read_stream(game.stream)]
    engine = get_game(game.kind)
    if not engine.is_over(engine.fold(events)):
        raise GameNotOver(f"game {game.pk} is still running: its record is shown after the end")
    if not is_revealed(game):
        raise GameNotRevealed(
            f"game {game.pk} was dealt from a duplicate deck that other tables of its round"
            " are still playing: its record is shown when they finish"
        )
    shuffle = events[0].get("shuffle")
    reveal = None
    if shuffle:
        reveal = {"commitment": shuffle["commitment"]}
        if shuffle.get("seed"):
            reveal["seed"] = shuffle["seed"]
        if "client_seeds" in shuffle:
            # What the deck derives from besides the seed (docs/fairness.md).
            reveal |= {
                "algorithm": shuffle["algorithm"],
                "client_seeds": shuffle["client_seeds"],
                "nonce": shuffle["nonce"],
            }
    return _export_record(events, players=list(game.players), shuffle=reveal)
