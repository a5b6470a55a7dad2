"""The ``Game`` row: a projection of the game's events, updated by every command and
rebuilt from the events alone by :func:`rebuild_projections`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Any

from django.db import transaction

from engine.contract import Game as Engine
from engine.registry import get_game
from events import store
from events.store import StoredEvent
from tournaments import sql
from tournaments.models import Game
from tournaments.play.context import GameContext
from tournaments.play.state import STREAM_PREFIX


def _deadlines(
    deadlines: Mapping[str, str],
    waiting: Iterable[int],
    event: StoredEvent,
    turn_seconds: int | None,
) -> dict[str, str]:
    """Each waited-for seat's deadline after ``event``.

    A seat's clock starts when it becomes waited for and runs until it is no
    longer waited for (one clock for a whole turn, even of several moves).  The
    clocks the deal starts (the game's first turn) get the deal's
    ``first_turn_grace`` seconds more: time for the players to arrive at the game.
    """
    if turn_seconds is None:
        return {}
    seconds = turn_seconds
    if event.payload.get("type") == "dealt":
        seconds += int((event.payload.get("table") or {}).get("first_turn_grace") or 0)
    due = (event.recorded_at + timedelta(seconds=seconds)).isoformat()
    return {str(s): deadlines.get(str(s), due) for s in waiting}


def _initial_projection(deal: StoredEvent) -> dict[str, Any]:
    payload = deal.payload
    table = payload.get("table") or {}
    shuffle = payload.get("shuffle") or {}
    context = GameContext.parse(table.get("context"))
    return {
        "kind": payload["game"],
        "seats": payload["seats"],
        "dealer": payload["dealer"],
        "options": payload["options"],
        "players": list(table.get("players") or []),
        "turn_seconds": table.get("turn_seconds"),
        "context": table.get("context"),
        "table_id": context.table,
        "number_in_series": context.game_number,
        "commitment": shuffle.get("commitment", ""),
        "seed": "",
        "status": Game.Status.RUNNING,
        "sequence": 0,
        "last_event": 0,
        "last_event_at": None,
        "to_act": [],
        "waiting_for": [],
        "deadlines": {},
        "result": None,
        "created_at": deal.recorded_at,
        "finished_at": None,
    }


#: The fields :func:`_project` advances: all a move changes of its game's row.  A move
#: writes these alone (:func:`tournaments.play.commands._append_and_project`), not the
#: game's every column: the others were set by its deal, and writing them again (the
#: context, the players' names, the options, as JSON) was half of the ``UPDATE``'s cost
#: (issue 24).
MOVED_FIELDS = (
    "sequence",
    "last_event",
    "last_event_at",
    "to_act",
    "waiting_for",
    "deadlines",
    "status",
    "result",
    "finished_at",
    "seed",
)


def _project(
    fields: dict[str, Any],
    engine: Engine[Any],
    steps: Iterable[tuple[StoredEvent, Any]],
    seed: str,
) -> dict[str, Any]:
    """``fields`` advanced over ``steps`` (each event with the state after it): only
    :data:`MOVED_FIELDS` change."""
    fields = dict(fields)
    for event, state in steps:
        waiting = engine.waiting_for(state)
        fields["sequence"] = event.sequence
        fields["last_event"] = event.position.id
        fields["last_event_at"] = event.recorded_at
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


#: The fields only a game's deal sets (:func:`_initial_projection`), which no move changes.
DEALT_FIELDS = (
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
    "created_at",
)

#: Every field of a game's row that is a projection of its events.
PROJECTED_FIELDS = DEALT_FIELDS + MOVED_FIELDS


def _current_fields(game: Game) -> dict[str, Any]:
    return {name: getattr(game, name) for name in PROJECTED_FIELDS}


def _seed_of(deal: Mapping[str, Any]) -> str:
    return str((deal.get("shuffle") or {}).get("seed", ""))


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
    sql.reset_game_ids()
    return count
