"""Turn clocks: deadlines that ran out, timeouts, and seats handed to a bot and taken back.

Every seat a game waits for has a deadline in the game's projection
(:attr:`Game.deadlines <tournaments.models.Game.deadlines>`, kept by
:mod:`tournaments.play` from ``turn_seconds``).  When it passes, the engine's
timeout action is applied for the seat as an event caused by the timeout
(:func:`fire_timeout`).  Two paths get there:

* the fast path: after every commit that changes a game, a ``timeout`` task is
  queued with ``eta`` = the deadline (:mod:`tournaments.workers.tasks`);
* the safety net: :func:`sweep`, run by celery beat every
  ``PARLOUR_SWEEP_SECONDS``, finds expired deadlines in the database and
  applies them, and queues again the move of a bot that should have acted but
  did not (its task was lost with a worker or with Redis).

Both are idempotent: a timeout names the sequence it expects and its
idempotency key is ``timeout-<seat>-<sequence>``, so a timeout fired twice, or
overtaken by the player's own move, changes nothing.

At a tournament table, timeouts in a row are counted on the
:class:`~tournaments.models.TableSeat`; after the tournament's
``timeouts_to_bot`` of them the seat is handed to a bot
(:attr:`TableSeat.autoplay`).  The player's own action resets the count;
:func:`take_back_seat` gives the seat back to the player.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from django.conf import settings
from django.core.cache import cache
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext

from events import store
from events.models import Event
from tournaments.models import Game, TableSeat
from tournaments.play import (
    ActionResult,
    Conflict,
    IdempotencyKeyReused,
    IllegalAction,
    apply_timeout,
    game_row,
    stream_name,
)
from tournaments.play.context import table_id_of
from tournaments.services import ServiceError, is_organiser
from tournaments.services.forfeits import record_timeout_forfeit
from tournaments.workers.autoplay import bot_seats_of, bot_tournaments_to_advance

log = logging.getLogger(__name__)

__all__ = [
    "SweepReport",
    "deadline_of",
    "expired_deadlines",
    "fire_timeout",
    "hand_to_bot",
    "note_own_actions",
    "stalled_bot_games",
    "sweep",
    "table_seat",
    "take_back_seat",
]


class TaskQueue(Protocol):
    """What the clock queues: the Celery tasks (tournaments/workers/tasks.py installs
    itself with :func:`use_queue` when imported; the clock never imports the tasks)."""

    def bot_move(self, game_id: int, sequence: int) -> None: ...

    def advance_tournament(self, tournament_id: int) -> None: ...

    def dispatch(self, game: Game) -> None: ...


_queue: TaskQueue | None = None


def use_queue(queue: TaskQueue) -> None:
    """Queue the clock's work with ``queue`` from now on."""
    global _queue
    _queue = queue


def _tasks() -> TaskQueue:
    if _queue is None:
        raise RuntimeError("no task queue: import tournaments.workers.tasks (apps.ready does)")
    return _queue


#: Causes of an event that count as the player's own action (resetting timeouts in a row).
OWN_CAUSES = frozenset({"seat", "player"})


def deadline_of(game: Game, seat: int) -> datetime | None:
    """When ``seat``'s time in ``game`` runs out, or ``None`` if its clock is not running."""
    due = (game.deadlines or {}).get(str(seat))
    return datetime.fromisoformat(due) if due else None


# -- timeouts ------------------------------------------------------------------------


def fire_timeout(
    game_id: int, seat: int, expected_sequence: int, *, now: datetime | None = None
) -> ActionResult | None:
    """Apply ``seat``'s timeout in game ``game_id`` if it is due and the game is still there.

    Returns ``None``, changing nothing, when the game moved on from
    ``expected_sequence``, is over, no longer waits for ``seat``, or its
    deadline is still ahead of ``now``; also when the same timeout was already
    applied (a duplicate).  At a tournament table the timeout is counted, in
    the same transaction, and may hand the seat to a bot.
    """
    game = game_row(game_id)
    if game is None or game.is_over or game.sequence != expected_sequence:
        return None
    due = deadline_of(game, seat)
    if due is None or (now or timezone.now()) < due:
        return None
    try:
        with transaction.atomic():
            result = apply_timeout(game_id, seat, expected_sequence, now=now)
            if result.replayed:
                return None
            _count_timeout(game, seat, expected_sequence)
    except (Conflict, IllegalAction, IdempotencyKeyReused):
        return None
    return result


def _last_own_or_timeout(stream: str, seat: int, before: int | None = None) -> str | None:
    """The cause of ``seat``'s last own action or timeout in ``stream`` (up to ``before``)."""
    for event in reversed(store.read_stream(stream)):
        if before is not None and event.sequence > before:
            continue
        if event.payload.get("seat") != seat:
            continue
        if event.cause_kind in OWN_CAUSES or event.cause_kind == "timeout":
            return event.cause_kind
    return None


def _count_timeout(game: Game, seat: int, expected_sequence: int) -> None:
    """Count a timeout at ``game``'s table seat; at the tournament's limit, hand it to a bot."""
    table = table_id_of(game)
    if table is None:
        return
    row = (
        TableSeat.objects.select_for_update()
        .select_related("table__round__tournament")
        .filter(table_id=table, seat=seat)
        .first()
    )
    if row is None:
        return
    if _last_own_or_timeout(game.stream, seat, before=expected_sequence) in OWN_CAUSES:
        row.timeouts_in_a_row = 0  # the player acted since the last timeout
    row.timeouts_in_a_row += 1
    limit = row.table.round.tournament.timeouts_to_bot
    fields = ["timeouts_in_a_row"]
    if limit and row.timeouts_in_a_row >= limit and not row.autoplay:
        row.autoplay = True
        fields.append("autoplay")
        log.info("table %s seat %s handed to a bot after %s timeouts", table, seat, limit)
        # The no-show rule: a series the clock handed to a bot counts as last place.
        record_timeout_forfeit(row)
    row.save(update_fields=fields)


def note_own_actions(game: Game, counted: Iterable[int] | None = None) -> int:
    """Reset timeouts in a row of the seats of ``game``'s table whose player acted since.

    Called after each commit that changed the game; returns how many seats
    were reset.  ``counted``: the table's seats with timeouts in a row, if the
    caller has just read them (each is checked again under a lock).
    """
    table = table_id_of(game)
    if table is None:
        return 0
    if counted is None:
        counted = TableSeat.objects.filter(table_id=table, timeouts_in_a_row__gt=0).values_list(
            "seat", flat=True
        )
    reset = 0
    for seat in counted:
        with transaction.atomic():
            row = TableSeat.objects.select_for_update().get(table_id=table, seat=seat)
            if row.timeouts_in_a_row and _last_own_or_timeout(game.stream, seat) in OWN_CAUSES:
                row.timeouts_in_a_row = 0
                row.save(update_fields=["timeouts_in_a_row"])
                reset += 1
    return reset


def expired_deadlines(now: datetime | None = None) -> list[tuple[int, int, int]]:
    """``(game id, seat, sequence)`` of every running game's deadline passed by ``now``."""
    now = now or timezone.now()
    found = []
    running = Game.objects.filter(status=Game.Status.RUNNING, turn_seconds__isnull=False)
    for game_id, sequence, deadlines in running.values_list("id", "sequence", "deadlines"):
        for seat, due in (deadlines or {}).items():
            if datetime.fromisoformat(due) <= now:
                found.append((game_id, int(seat), sequence))
    return sorted(found, key=lambda found: (found[0], found[1]))


# -- stalled bots -------------------------------------------------------------------


def stalled_bot_games(quiet_since: datetime) -> list[tuple[int, int]]:
    """``(game id, sequence)`` of running games waiting for a bot, quiet since ``quiet_since``.

    Such a game lost its bot task (a worker died holding it, or the broker lost
    it): nothing else would move it.
    """
    running = list(
        Game.objects.filter(status=Game.Status.RUNNING).only(
            "id", "sequence", "context", "table", "waiting_for", "status"
        )
    )
    bots = bot_seats_of(running)
    waiting = [g for g in running if any(s in bots[g.pk] for s in g.waiting_for)]
    stalled: list[tuple[int, int]] = []
    for chunk in _chunks(waiting, 200):
        last = Q()
        for game in chunk:
            last |= Q(stream=stream_name(game.pk), sequence=game.sequence)
        times = dict(Event.objects.filter(last).values_list("stream", "recorded_at"))
        for game in chunk:
            at = times.get(stream_name(game.pk))
            if at is not None and at <= quiet_since:
                stalled.append((game.pk, game.sequence))
    return stalled


def _chunks(items: list[Game], size: int) -> Iterable[list[Game]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


# -- the sweep ----------------------------------------------------------------------


@dataclass
class SweepReport:
    """What one sweep did."""

    #: Timeouts applied: ``(game id, seat, sequence before)``.
    timeouts: list[tuple[int, int, int]] = field(default_factory=list)
    #: Bot moves queued again: ``(game id, sequence)``.
    requeued: list[tuple[int, int]] = field(default_factory=list)
    #: Tournaments of bots whose next round was queued to begin.
    advanced: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"timeouts": self.timeouts, "requeued": self.requeued, "advanced": self.advanced}


def sweep(now: datetime | None = None) -> SweepReport:
    """Apply every expired deadline, queue again stalled bots' moves and bot tournaments' rounds.

    Run by celery beat every ``PARLOUR_SWEEP_SECONDS``: a deadline is kept in
    the database, so it is applied even if its queued task was lost.  A stalled
    bot's move is queued at most once per ``PARLOUR_BOT_STALL_SECONDS`` (noted in
    the cache), so a busy queue is not flooded with copies.
    """
    queue = _tasks()
    report = SweepReport()
    for game_id, seat, sequence in expired_deadlines(now):
        if fire_timeout(game_id, seat, sequence, now=now) is not None:
            report.timeouts.append((game_id, seat, sequence))
    stall = float(settings.PARLOUR_BOT_STALL_SECONDS)
    quiet = stall + float(settings.PARLOUR_BOT_THINK_SECONDS)
    for game_id, sequence in stalled_bot_games((now or timezone.now()) - timedelta(seconds=quiet)):
        if cache.add(f"parlour:requeued:{game_id}:{sequence}", 1, timeout=max(1, round(stall))):
            queue.bot_move(game_id, sequence)
            report.requeued.append((game_id, sequence))
    for tournament in bot_tournaments_to_advance():
        if cache.add(f"parlour:advance:{tournament}", 1, timeout=max(1, round(stall))):
            queue.advance_tournament(tournament)
            report.advanced.append(tournament)
    if report.timeouts or report.requeued or report.advanced:
        log.info("sweep: %s", report.as_dict())
    return report


# -- seats handed to a bot and taken back ---------------------------------------------


def table_seat(target: TableSeat | Game | int, seat: int | None = None) -> TableSeat:
    """The table seat ``target`` names: a :class:`TableSeat`, or a game (or its id) and a seat.

    Raises :class:`~tournaments.services.ServiceError` saying what is missing.
    """
    if isinstance(target, TableSeat):
        return target
    if seat is None:
        raise ServiceError(gettext("name the seat of the game: seat=<number>"), "seat")
    game = target if isinstance(target, Game) else game_row(target)
    if game is None:
        raise ServiceError(
            gettext("there is no game %(game)s: give the id of a tournament game")
            % {"game": target},
            "game",
        )
    table = table_id_of(game)
    if table is None:
        raise ServiceError(
            gettext("game %(game)s is not played at a tournament table: its seats have no players")
            % {"game": game.pk},
            "game",
        )
    row = TableSeat.objects.filter(table_id=table, seat=seat).first()
    if row is None:
        raise ServiceError(
            gettext("game %(game)s has no seat %(seat)s: seats are 0..%(last)s")
            % {"game": game.pk, "seat": seat, "last": game.seats - 1},
            "seat",
        )
    return row


def _may_change(row: TableSeat, user: Any) -> bool:
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    player = row.player
    if player.user_id is not None and player.user_id == user.pk:
        return True
    return is_organiser(user, player.club)


def hand_to_bot(
    target: TableSeat | Game | int, user: Any = None, *, seat: int | None = None
) -> TableSeat:
    """Hand a table seat to a bot (the autoplay level) until the player takes it back.

    ``user`` is the player or an organiser of the club; ``None`` is the system
    itself (repeated timeouts).  If the bot is to act now, its move is queued
    after the commit.  Raises :class:`PermissionDenied` for anyone else.
    """
    with transaction.atomic():
        row = TableSeat.objects.select_for_update().get(pk=table_seat(target, seat).pk)
        if user is not None and not _may_change(row, user):
            raise PermissionDenied(
                gettext("only %(name)s or an organiser of the club may hand this seat to a bot")
                % {"name": row.player.name}
            )
        if not row.autoplay:
            row.autoplay = True
            row.save(update_fields=["autoplay"])
        table = row.table_id
        transaction.on_commit(lambda: _wake_table(table))
    return row


def take_back_seat(
    target: TableSeat | Game | int, user: Any, *, seat: int | None = None
) -> TableSeat:
    """Give a seat played by a bot back to its player, timeouts in a row reset to 0.

    ``user`` must be the seat's player (the login linked to the player) or an
    organiser of the club: anyone else gets :class:`PermissionDenied` and nothing
    changes.  A bot move already queued for the seat then finds the seat is
    no longer a bot's and does nothing.  A seat whose player is a bot by level
    (not handed over) cannot be taken back (:class:`PermissionDenied` too).
    """
    with transaction.atomic():
        row = (
            TableSeat.objects.select_for_update()
            .select_related("player__club")
            .get(pk=table_seat(target, seat).pk)
        )
        if row.player.is_bot:
            raise PermissionDenied(
                gettext("%(name)s is a bot: nobody can take the seat back")
                % {"name": row.player.name}
            )
        if not _may_change(row, user):
            raise PermissionDenied(
                gettext(
                    "only %(name)s (logged in) or an organiser of the club may take this seat back"
                )
                % {"name": row.player.name}
            )
        row.autoplay = False
        row.timeouts_in_a_row = 0
        row.save(update_fields=["autoplay", "timeouts_in_a_row"])
    return row


def _wake_table(table: int) -> None:
    """Queue a bot move for the running game of ``table`` if a bot is to act there."""
    queue = _tasks()
    running = Game.objects.filter(status=Game.Status.RUNNING).filter(
        Q(table_id=table) | Q(context__table=table)
    )
    for game in running:
        queue.dispatch(game)
