"""The game service's commands on a game dealt (:mod:`~tournaments.play.deals`): act,
time out, resolve chance.

Each command loads the stream, folds it, lets the engine ``decide`` and appends the
events at the sequence the caller saw (a stale one is a :class:`Conflict`, never an
overwrite).  Chance moves are drawn from :data:`tournaments.play.randomness.source`
(the operating system's secure generator unless a test puts a seeded one there), and
a chance node left by a move is resolved at once in the same transaction.

When a move ends a game played at a table, :data:`game_ended` is sent inside the
transaction (the tournament's series hook listens: tournaments/services/series.py);
:data:`game_changed` is sent after every commit that changed a game.
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext_noop

from engine.contract import Game as Engine
from engine.contract import IllegalAction, said
from events import store
from events.store import LAST_ID, START, AppendResult, Conflict, NewEvent, StoredEvent
from tournaments import sql
from tournaments.models import Game
from tournaments.play import feed, keys, randomness
from tournaments.play.projection import (
    MOVED_FIELDS,
    _current_fields,
    _initial_projection,
    _project,
    _seed_of,
)
from tournaments.play.state import (
    GameOver,
    _cache,
    _fresh,
    _game,
    _load,
    deal_of,
    keep_deal,
    stream_name,
)

#: ``game``, the game's row as that change left it (a copy: receivers may keep it);
#: ``users``, the logins whose account feed it wrote to (:mod:`tournaments.play.feed`).
game_changed = Signal()

#: Sent inside the transaction of the move that ended a game played at a table
#: (``game``: its row, already projected as over).  The tournament's series hook
#: receives it and deals the next game in that same transaction.
game_ended = Signal()


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
        idempotency_key = keys.timeout_key(seat, expected_sequence)
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
        if (
            engine.is_over(state)
            or engine.chance_draw(state, randomness.source.generator()) is None
        ):
            return None
        _fresh(game, current)
        events, _ = _chance_events(engine, state)
        try:
            with transaction.atomic():  # a collision rolls back this block alone
                appended, _ = _append_and_project(game, engine, events, state, current)
        except store.Collided as collided:
            raise _refused(collided) from None
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
        raise IllegalAction(gettext_noop('an action is an object with a "type"'), "type")
    digest = store.command_hash(
        {"command": kind, "seat": seat, "action": dict(action), "expected_sequence": expected}
    )
    game_id = game.pk if isinstance(game, Game) else game
    try:
        try:
            return _decide_and_append(
                game, kind, seat, action, expected, key, digest, cause_kind, cause_id, check
            )
        except store.Collided as collided:
            # The append met a move committed meanwhile, or its key used before: the
            # move's transaction is rolled back (its append took no savepoint, issue 24),
            # and the answer is what a refused append gives.  (Another stream's append
            # in the same transaction, the series hook's, answers for that stream, as
            # an append with its savepoint did.)
            raise _refused(collided, key, digest) from None
    except (Conflict, IllegalAction):
        # The key is looked up only for a command refused (issue 24: a statement fewer for
        # every move made).  A retry of a command that was stored comes back refused: its
        # game moved on (a Conflict) or, read before that commit, the append found the
        # stream moved and looked the key up itself.  A key used for another command
        # answers as reused, not as the refusal of the command it now names.
        if key is not None:
            found = store.find_command(stream_name(game_id), key, digest)
            if found is not None:
                return ActionResult(game_id, found.events, True)
        raise


def _refused(collided: store.Collided, key: str | None = None, digest: str = "") -> Exception:
    """What a collision is answered with once its block is rolled back: a
    :class:`Conflict` where the stream moved on (a command with a key is then looked up:
    :func:`_command`); where it did not, :class:`~events.store.IdempotencyKeyReused` if the
    key was used before for another command, otherwise the collision itself (a write along
    the append failed, not the append: never a conflict to retry, key or no key)."""
    current = store.stream_sequence(collided.stream)
    if current != collided.expected:
        return Conflict(collided.stream, collided.expected, current)
    if key is not None and store.find_command(collided.stream, key, digest) is not None:
        return Conflict(collided.stream, collided.expected, current)  # answered as its replay
    return collided


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
    # Read and decided outside a transaction: the append is made only at the sequence the
    # state was folded to (a commit since is a Conflict), and the row read is the
    # projection at that sequence (_fresh).
    game = _game(game_or_id)
    engine, state, current, _ = _load(game, at_row=expected == game.sequence)
    if current != expected:
        raise Conflict(game.stream, expected, current)
    _fresh(game, current)
    if check is not None:
        check(game)
    rng = randomness.source.generator()
    if engine.is_over(state):
        raise GameOver(game.pk)
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < game.seats:
        raise IllegalAction(
            gettext_noop("there is no seat %(seat)s at this table"), "seat", seat=said(seat)
        )
    if kind == "timeout":
        if seat not in engine.waiting_for(state):
            raise IllegalAction(
                gettext_noop("seat %(seat)s is not being waited for"), "seat", seat=seat
            )
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
    # A move that ends the deal: the table's series hook deals the next in its transaction.
    # In a caller's transaction (a timeout fired by the sweep), a block of its own: a
    # collision rolls back that savepoint alone, and the caller's transaction goes on.
    block = engine.is_over(state) or transaction.get_connection().in_atomic_block
    with transaction.atomic() if block else contextlib.nullcontext():
        appended, after = _append_and_project(
            game, engine, new + follow, before, expected, key=key, digest=digest
        )
    if appended.replayed:  # the original committed while we decided
        return ActionResult(game.pk, appended.events, True)
    return ActionResult(game.pk, appended.events, False, after)


def _chance_events(engine: Engine[Any], state: Any) -> tuple[list[NewEvent], Any]:
    """The chance outcomes due at ``state``, drawn securely, and the state after them."""
    rng = randomness.source.generator()
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


def _append_and_project(
    game: Game,
    engine: Engine[Any],
    events: Sequence[NewEvent],
    before: Any,
    expected: int,
    *,
    key: str | None = None,
    digest: str = "",
    logins: Mapping[int, int] | None = None,
) -> tuple[AppendResult, Any]:
    """Append ``events`` to ``game``'s stream at ``expected`` (``before``: the state there,
    ``None`` for its deal) with the row's projection and the account notices as writes
    along (:class:`events.store.Along`): on PostgreSQL one statement, which in autocommit
    mode is its own transaction (issue 24); the state after them.

    The projection is derived before the append from the events as they will be stored
    (the append's time; the last event's id, which only the insert gives, is the store's
    :data:`~events.store.LAST_ID`), and ``game`` takes it only once they are.  A change
    that ends a game played at a table sends :data:`game_ended` (the series hook deals the
    next game) and must be made in a transaction, so that the hook's writes are in it.
    Nothing is written for a replay (``replayed``, and the state ``None``).  ``logins``:
    the login playing each seat, if the caller has them (:func:`feed.notices_of`).
    """
    now = timezone.now()
    steps = []
    state = before
    for offset, new in enumerate(events):
        # The payload as the store keeps it (its JSON): the state kept and sent after the
        # commit is then the fold a fresh read of the stream gives.
        payload = json.loads(json.dumps(new.payload))
        state = engine.evolve(state, payload)
        stored = StoredEvent(
            game.stream,
            expected + 1 + offset,
            new.type,
            new.version,
            payload,
            new.cause_kind,
            new.cause_id,
            now,
            None,
            START,
        )
        steps.append((stored, state))
    dealt = before is None
    over = engine.is_over(state)
    if dealt:
        fields = _initial_projection(steps[0][0])
        seed = _seed_of(events[0].payload)
    else:
        fields = _current_fields(game)
        seed = _seed_of(deal_of(game)) if over else ""
    fields = _project(fields, engine, steps, seed)
    ended = over and game.status != Game.Status.OVER
    if ended and game.table_id is not None and not transaction.get_connection().in_atomic_block:
        raise RuntimeError("a change that ends a table's game is made in a transaction")
    written = {
        name: value
        for name, value in fields.items()
        if (dealt or name in MOVED_FIELDS) and name != "last_event"
    }
    moved = copy.copy(game)
    for name, value in written.items():
        setattr(moved, name, value)
    notices = feed.notices_of(moved, dealt=dealt, ended=ended, logins=logins)
    along = [sql.update_along(game, written, {"last_event": LAST_ID})]
    told = sql.account_notices_along(notices)
    if told is not None:
        along.append(told)
    appended = store.append(
        game.stream,
        events,
        expected_sequence=expected,
        idempotency_key=key,
        command_hash=digest,
        savepoint=False,  # in a transaction, a collision ends it: _command answers it
        along=along,
        at=now,
    )
    if appended.replayed:
        return appended, None
    for name, value in written.items():
        setattr(game, name, value)
    game.last_event = appended.events[-1].position.id
    if ended and game.table_id is not None:
        # The table's series goes on (or ends) in the same transaction as the move that
        # ended this game: a series can never be left without its next game.
        game_ended.send(sender=Game, game=game)
    deal = steps[0][0].payload if dealt else None
    _when_committed(game, appended.events, state, feed.told(notices), deal)
    return appended, state


def _when_committed(
    game: Game,
    events: Sequence[StoredEvent],
    state: Any,
    told: set[int],
    deal: Mapping[str, Any] | None = None,
) -> None:
    """After the commit of a change that left ``game``'s row as it is and the game at
    ``state``: the fold kept (and ``deal``, the stream's first event as stored, if the
    change dealt the game), and :data:`game_changed` sent (at once in autocommit mode)."""
    game_id, last, sequence = game.pk, events[-1], events[-1].sequence
    # The receivers get a copy of the row as this change left it, so that they need
    # not read it again (the caller may go on changing its own instance).
    row = copy.copy(game)
    dealt = game.created_at
    transaction.on_commit(lambda: _cache.put(game_id, last, state, dealt))
    if deal is not None:
        transaction.on_commit(lambda: keep_deal(row, deal))
    transaction.on_commit(
        lambda: game_changed.send(
            sender=Game, game_id=game_id, sequence=sequence, game=row, state=state, users=told
        )
    )
