"""Celery tasks: bot moves, turn timeouts and the sweep; the receiver that queues them.

After every commit that changes a game, :mod:`tournaments.play` sends
``game_changed`` (``game_id``, ``sequence``); :func:`on_game_changed` (connected
in :meth:`TournamentsConfig.ready <tournaments.apps.TournamentsConfig.ready>`)
then queues

* :func:`bot_move` ``(game_id, sequence)`` if a bot seat may act, with
  ``countdown`` = ``PARLOUR_BOT_THINK_SECONDS`` so people can watch bot games;
* :func:`forced_move` ``(game_id, sequence)`` if the game waits for a person's
  seat whose move is forced (:func:`tournaments.workers.autoplay.next_forced_move`), with
  ``countdown`` = ``PARLOUR_FORCED_MOVE_SECONDS``: the short pause that lets the
  people at the table follow each move on their pages;
* :func:`timeout` ``(game_id, seat, sequence)`` with ``eta`` = the deadline, for
  each person's seat with a running clock.

Every task carries the game and the sequence it expects: delivered twice, late,
or overtaken by a person's move, it changes nothing.  A bot move that leads to
another bot move needs no chaining here: its own commit sends ``game_changed``
again.  :func:`sweep` (celery beat) is the safety net for lost tasks
(:mod:`tournaments.workers.clock`).
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime, timedelta
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from tournaments import sql
from tournaments.models import Game, Round, Tournament
from tournaments.play import game_row
from tournaments.play.context import table_id_of
from tournaments.workers.autoplay import (
    advance_bot_tournament,
    bot_seats,
    bot_to_act,
    next_forced_move,
    play_bot_move,
    play_forced_move,
    table_seats,
)
from tournaments.workers.clock import deadline_of, fire_timeout, note_own_actions, use_queue
from tournaments.workers.clock import sweep as run_sweep

log = logging.getLogger(__name__)

#: Database errors worth retrying (a restart, a lost connection, SQLite's lock).
RETRY_ON = (OperationalError, InterfaceError)
#: Every task's name: the one it had when this module was ``tournaments.tasks``, so that
#: a message queued before an upgrade is still found (tests/workers/test_task_names.py).
TASK_NAMES = frozenset(
    f"tournaments.tasks.{name}"
    for name in (
        "bot_move",
        "forced_move",
        "timeout",
        "advance_tournament",
        "sweep",
        "keep_demo_live",
    )
)
# Any: shared_task's options are keywords of several types.  Celery's backoff is in
# whole seconds (it reads a factor below 1 as 1): retries wait up to 1, 2, 4, 8, 16 s,
# jittered, while the database or the broker is away.
RETRY: dict[str, Any] = {
    "autoretry_for": RETRY_ON,
    "max_retries": 5,
    "retry_backoff": 1,
    "retry_jitter": True,
}

#: A timeout task that arrives this close before its deadline waits for it;
#: one that arrives earlier is queued again for the deadline.
EARLY_WAIT_SECONDS = 2.0


@shared_task(name="tournaments.tasks.bot_move", **RETRY)
def bot_move(game_id: int, expected_sequence: int) -> int | None:
    """One bot move in game ``game_id`` if it is still at ``expected_sequence``.

    Returns the new sequence, or ``None`` when there was nothing to do (the game
    moved on, is over, no bot is to act, or this task is a duplicate).
    """
    result = play_bot_move(game_id, expected_sequence)
    return None if result is None or result.replayed else result.sequence


@shared_task(name="tournaments.tasks.forced_move", **RETRY)
def forced_move(game_id: int, expected_sequence: int) -> int | None:
    """A person's forced move in game ``game_id`` if it is still at ``expected_sequence``.

    Returns the new sequence, or ``None`` when there was nothing to do.
    """
    result = play_forced_move(game_id, expected_sequence)
    return None if result is None or result.replayed else result.sequence


@shared_task(name="tournaments.tasks.timeout", bind=True, **RETRY)
def timeout(self: Any, game_id: int, seat: int, expected_sequence: int) -> int | None:
    """Apply ``seat``'s timeout in game ``game_id`` at its deadline, if at ``expected_sequence``.

    A task that runs a little before the deadline (clock jitter) waits for it;
    one that runs well before it is queued again with ``eta`` = the deadline.
    Returns the new sequence or ``None`` (nothing to do).
    """
    game = game_row(game_id)
    if game is None or game.is_over or game.sequence != expected_sequence:
        return None
    due = deadline_of(game, seat)
    if due is None:
        return None
    early = (due - timezone.now()).total_seconds()
    if early > EARLY_WAIT_SECONDS:
        self.apply_async((game_id, seat, expected_sequence), eta=held_until(due))
        return None
    if early > 0:
        time.sleep(early + 0.001)
    result = fire_timeout(game_id, seat, expected_sequence)
    return None if result is None else result.sequence


@shared_task(name="tournaments.tasks.advance_tournament", **RETRY)
def advance_tournament(tournament_id: int) -> int | None:
    """Begin the next round of a tournament of bots whose round just finished; its number."""
    round_ = advance_bot_tournament(tournament_id)
    return None if round_ is None else round_.number


@shared_task(name="tournaments.tasks.sweep", **RETRY)
def sweep() -> dict[str, Any]:
    """Apply expired deadlines and queue stalled bots' moves again (celery beat runs it)."""
    return run_sweep().as_dict()


@shared_task(name="tournaments.tasks.keep_demo_live", **RETRY)
def keep_demo_live() -> int | None:
    """Begin the next demo tournament when it is due (beat, with ``PARLOUR_DEMO_LIVE``)."""
    from tournaments.demo import keep_demo_live as keep

    tournament = keep()
    return None if tournament is None else tournament.pk


# -- queueing after a commit ------------------------------------------------------------


def dispatch(game: Game, bots: dict[int, str] | None = None, state: Any = None) -> list[str]:
    """Queue what ``game`` needs now: a bot move or a person's forced move, and a timeout
    per person's running clock.

    ``state``: the game's state at ``game.sequence`` if the caller has it.

    Returns what was queued (for logs and tests).  Under
    ``CELERY_TASK_ALWAYS_EAGER`` (no worker) bot moves run at once and no
    timeout is queued: with no worker there is no clock either.
    """
    queued: list[str] = []
    if game.is_over:
        tournament = _finished_round_of(game)
        if tournament is not None:
            advance_tournament.apply_async((tournament,))
            queued.append(f"advance_tournament({tournament})")
        return queued
    bots = bot_seats(game) if bots is None else bots
    if bot_to_act(game, bots):
        think = float(settings.PARLOUR_BOT_THINK_SECONDS)
        bot_move.apply_async((game.pk, game.sequence), countdown=think if think > 0 else None)
        queued.append(f"bot_move({game.pk}, {game.sequence})")
    if next_forced_move(game, state, bots) is not None:
        pause = float(settings.PARLOUR_FORCED_MOVE_SECONDS)
        forced_move.apply_async((game.pk, game.sequence), countdown=pause if pause > 0 else None)
        queued.append(f"forced_move({game.pk}, {game.sequence})")
    if bot_move.app.conf.task_always_eager:
        return queued
    for key in sorted(game.deadlines or {}, key=int):
        seat = int(key)
        if seat in bots:
            continue  # a bot acts at once; the sweep still enforces its clock
        due = deadline_of(game, seat)
        timeout.apply_async((game.pk, seat, game.sequence), eta=held_until(due))
        queued.append(f"timeout({game.pk}, {seat}, {game.sequence})")
    return queued


def _finished_round_of(game: Game) -> int | None:
    """The tournament whose round ``game``'s end finished, if the tournament goes on."""
    if game.table_id is None:
        return None
    row = sql.table_round(game.table_id)
    if row is None or row.round_status != Round.Status.FINISHED:
        return None
    if row.tournament_status != Tournament.Status.RUNNING or row.round_number >= row.rounds:
        return None
    return row.tournament


def held_until(due: datetime | None) -> datetime | None:
    """When a timeout task due at ``due`` is to run: then, or sooner, to be queued again
    (``None``: at once).

    A Redis broker gives a task held unacknowledged past its visibility timeout to another
    worker: a deadline further off than that (a turn of a day, which a tournament may have)
    would be delivered again and again while it waits.  A task queued sooner finds itself
    early and queues itself again (:func:`timeout`), each time within the timeout.
    """
    options = getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", None) or {}
    visible = options.get("visibility_timeout")
    if visible is None or due is None:
        return due
    return min(due, timezone.now() + timedelta(seconds=float(visible) / 2))


_eager = threading.local()


def on_game_changed(
    sender: Any,
    game_id: int,
    sequence: int,
    game: Game | None = None,
    state: Any = None,
    **kwargs: Any,
) -> None:
    """Receiver of ``game_changed``: reset counted timeouts and queue the game's tasks.

    Runs after the commit in whatever process made it (web, worker, command).
    Never raises: the change is committed already, and if the broker cannot be
    reached the sweep finds the work in the database.
    """
    if bot_move.app.conf.task_always_eager:
        # Eager tasks run inside this receiver and commit, which sends the
        # signal again: queue it here and play the chain in a loop, not a
        # recursion as deep as the game is long.
        pending: list[tuple[int, int, Game | None, Any]] | None = getattr(_eager, "pending", None)
        if pending is not None:
            pending.append((game_id, sequence, game, state))
            return
        _eager.pending = pending = [(game_id, sequence, game, state)]
        try:
            while pending:
                _handle(*pending.pop(0))
        finally:
            _eager.pending = None
        return
    _handle(game_id, sequence, game, state)


def _handle(game_id: int, sequence: int, row: Game | None = None, state: Any = None) -> None:
    try:
        # The row the change left (sent with the signal) saves reading it again; a
        # task queued from it that a later change overtook does nothing (it names
        # the sequence it expects).
        game = row if row is not None else game_row(game_id)
        if game is None or game.sequence != sequence:
            return  # gone, or moved on: the later change's signal takes over
        table = table_id_of(game)
        seats = table_seats(table, sequence) if table is not None else []
        note_own_actions(game, counted=[seat for seat, _, count in seats if count])
        dispatch(
            game,
            bots=bot_seats(game, handed=[seat for seat, bot, _ in seats if bot]),
            state=state if row is not None else None,
        )
    except (DatabaseError, BrokerError) as error:
        log.warning("game %s at %s: not queued (%s); the sweep sees it", game_id, sequence, error)
    except Exception:
        log.exception("game %s at %s: queueing failed; the sweep sees it", game_id, sequence)


class _CeleryQueue:
    """The clock's :class:`~tournaments.workers.clock.TaskQueue`: these tasks."""

    def bot_move(self, game_id: int, sequence: int) -> None:
        bot_move.apply_async((game_id, sequence))

    def advance_tournament(self, tournament_id: int) -> None:
        advance_tournament.apply_async((tournament_id,))

    def dispatch(self, game: Game) -> None:
        dispatch(game)


use_queue(_CeleryQueue())
