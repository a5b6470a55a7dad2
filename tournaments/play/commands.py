"""The game service's commands: deal or import a game, act, time out, resolve chance.

Each command loads the stream, folds it, lets the engine ``decide`` and appends the
events at the sequence the caller saw (a stale one is a :class:`Conflict`, never an
overwrite).  Chance moves are drawn from :data:`tournaments.play.randomness.source`
(the operating system's secure generator unless a test puts a seeded one there), and
a chance node left by a move is resolved at once in the same transaction.

When a move ends a game played at a table, :data:`game_ended` is sent inside the
transaction (the tournament's series hook listens: tournaments/services/series.py);
:data:`game_changed` is sent after every commit that changed a game.  This module is
a little over 400 lines: it is the one place where events are decided and appended,
and its helpers make sense only together.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db import transaction
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
    shuffle_contributions,
)
from engine.fairness import canonical_order as _canonical_order
from engine.record import import_record as _import_record
from engine.registry import get_game
from events import store
from events.store import Conflict, NewEvent, StoredEvent
from tournaments.models import Game
from tournaments.play import keys, randomness
from tournaments.play.projection import (
    _current_fields,
    _initial_projection,
    _project,
    _save_projection,
    _seed_of,
)
from tournaments.play.state import _cache, _fresh, _game, _load, stream_name

#: ``game``, the game's row as that change left it (a copy: receivers may keep it).
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
        dealer = randomness.source.randbelow(seats)
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
        seed = randomness.source.new_seed()
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
        rng = randomness.source.generator()
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
        game_ended.send(sender=Game, game=game)
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
