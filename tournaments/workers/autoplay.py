"""Bot seats: who plays by bot, and one bot move at a time through the game service.

A seat is played by a bot when its player is a bot (recorded in the game's
context at the deal) or when a person's seat was handed to a bot after
repeated timeouts (:attr:`TableSeat.autoplay`).  A bot decides from its seat's
view alone, exactly what a person at that seat would see.

:func:`play_bot_move` is idempotent: it names the sequence it expects, so a
call that is late (a person or another worker moved first) changes nothing.
Celery tasks call it; tests and commands may call :func:`run_bots` directly.

*Forced moves* of people are played here too (:func:`play_forced_move`): when
the game waits for a person's seat whose move cannot change the game (every
Give Away move; a seat with one legal action, :meth:`engine.contract.Game.forced_action`),
the server makes it as that seat's own move, cause ``seat``/``forced``, unless the
person turned this off (:attr:`Player.play_forced_moves`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from django.db import transaction

from engine.bots import make_bot
from engine.registry import get_game
from tournaments import sql
from tournaments.models import Game, Player, Registration, Round, TableSeat, Tournament
from tournaments.play import (
    ActionResult,
    Conflict,
    IdempotencyKeyReused,
    game_row,
    game_view,
    keys,
    load_state,
    randomness,
    submit_action,
)
from tournaments.play.context import GameContext, table_id_of
from tournaments.services import ServiceError, begin_round, start_round

#: The level that plays a person's seat handed to a bot.
AUTOPLAY_LEVEL = "heuristic"

#: The cause id of a person's forced move played by the server (cause kind ``seat``).
FORCED_CAUSE_ID = "forced"


def _context_bots(game: Game) -> dict[int, str]:
    return GameContext.of(game).bots()


#: Inside :func:`seats_read_once`: each table's seats as that block first read them after
#: a change of its game, by (table, the game's sequence then).
_seats_read: ContextVar[dict[tuple[int, int], list[tuple[int, bool, int]]] | None] = ContextVar(
    "parlour_seats_read", default=None
)


def table_seats(table: int, at: int | None = None) -> list[tuple[int, bool, int]]:
    """Each seat of ``table``: its number, whether a bot plays it for its person
    (``autoplay``), and its timeouts in a row.

    Read after every change of a game, so by hand (:func:`tournaments.sql.table_seats`).
    ``at``: the sequence of the game they are read for; inside :func:`seats_read_once`,
    they are read once for each sequence.
    """
    read = _seats_read.get()
    if read is None or at is None:
        return sql.table_seats(table)
    if (table, at) not in read:
        read[(table, at)] = sql.table_seats(table)
    return read[(table, at)]


def note_seats(table: int, at: int, seats: list[tuple[int, bool, int]]) -> None:
    """Inside :func:`seats_read_once`: ``table``'s seats as the caller has just read them
    (with its game's row at sequence ``at``, :func:`tournaments.sql.game_for_caller`)."""
    read = _seats_read.get()
    if read is not None:
        read.setdefault((table, at), seats)


@contextmanager
def seats_read_once() -> Iterator[None]:
    """Within the block, each table's seats are read once for each sequence of its game
    (issue 24: a move's handler after its commit reads them to queue the bots, and its
    answer's view, of the same sequence, to show who plays by bot).  A later change of the
    game reads them afresh: a bot's move played at once after the commit
    (``CELERY_TASK_ALWAYS_EAGER``), or another request's hand-over, is never answered with
    seats read before it.  A block within a block is the outer one (the push channel's
    views of a move's change, built before the move is answered, read them with it).
    """
    if _seats_read.get() is not None:
        yield
        return
    token = _seats_read.set({})
    try:
        yield
    finally:
        _seats_read.reset(token)


def bot_seats(game: Game, handed: Iterable[int] | None = None) -> dict[int, str]:
    """Seats of ``game`` played by a bot, with the bot's level.

    ``handed``: the table's seats handed to a bot (``TableSeat.autoplay``), if the
    caller has just read them; otherwise they are read here.
    """
    seats = _context_bots(game)
    table = table_id_of(game)
    if table is not None:
        if handed is None:
            handed = [seat for seat, autoplay, _ in table_seats(table, game.sequence) if autoplay]
        for seat in handed:
            seats.setdefault(seat, AUTOPLAY_LEVEL)
    return seats


def bot_seats_of(games: Iterable[Game]) -> dict[int, dict[int, str]]:
    """:func:`bot_seats` of many games (by game id), with one query for all their tables."""
    games = list(games)
    tables = {t for t in (table_id_of(g) for g in games) if t is not None}
    handed: dict[int, list[int]] = {}
    if tables:
        rows = TableSeat.objects.filter(table_id__in=tables, autoplay=True)
        for table, seat in rows.values_list("table_id", "seat"):
            handed.setdefault(table, []).append(seat)
    found: dict[int, dict[int, str]] = {}
    for game in games:
        seats = _context_bots(game)
        for seat in handed.get(table_id_of(game) or -1, []):
            seats.setdefault(seat, AUTOPLAY_LEVEL)
        found[game.pk] = seats
    return found


def bot_to_act(game: Game, bots: dict[int, str] | None = None) -> bool:
    """Whether a bot seat may act in ``game`` now (the cheap test before queueing a bot move)."""
    if game.is_over:
        return False
    bots = bot_seats(game) if bots is None else bots
    return any(seat in bots for seat in game.to_act)


def next_bot_move(game: Game) -> tuple[int, str, dict[str, Any]] | None:
    """The bot move the game has now (seat, level, action), or ``None`` if no bot is to act.

    Bots not waited for are asked first whether they take an optional action
    (Bhabhi's taking of a hand); then the waited-for bot seat acts.
    """
    if game.is_over:
        return None
    bots = bot_seats(game)
    if not bots:
        return None
    engine = get_game(game.kind)
    state = load_state(game)
    waiting = engine.waiting_for(state)
    to_act = engine.to_act(state)
    rng = randomness.source.seeded_generator()
    optional = [s for s in sorted(bots) if s in to_act and s not in waiting]
    for seat in [*optional, *[s for s in waiting if s in bots]]:
        view = game_view(game, seat, state=state)
        action = make_bot(game.kind, bots[seat]).choose(view, rng)
        if action is not None:
            return seat, bots[seat], dict(action)
    return None


def play_bot_move(game_id: int, expected_sequence: int) -> ActionResult | None:
    """One bot move in game ``game_id`` if it is still at ``expected_sequence``.

    Returns ``None`` when there is nothing to do: the game moved on, is over,
    or no bot is to act.  Never raises for a lost race.
    """

    def pick(game: Game) -> tuple[int, dict[str, Any], str, str] | None:
        move = next_bot_move(game)
        return None if move is None else (move[0], move[2], "bot", move[1])

    return _automatic_move(game_id, expected_sequence, "bot", pick)


def _automatic_move(
    game_id: int,
    expected_sequence: int,
    kind: str,
    pick: Callable[[Game], tuple[int, dict[str, Any], str, str] | None],
) -> ActionResult | None:
    """The move ``pick`` chooses (seat, action, cause kind and id) in game ``game_id`` if it
    is still at ``expected_sequence``, submitted once per sequence and seat (the key names
    ``kind``); ``None`` when there is nothing to do or the race is lost."""
    game = game_row(game_id)
    if game is None or game.sequence != expected_sequence:
        return None
    picked = pick(game)
    if picked is None:
        return None
    seat, action, cause_kind, cause_id = picked
    try:
        return submit_action(
            game,
            seat,
            action,
            expected_sequence=expected_sequence,
            idempotency_key=keys.automatic_key(kind, game_id, expected_sequence, seat),
            cause_kind=cause_kind,
            cause_id=cause_id,
        )
    except (Conflict, IdempotencyKeyReused):
        return None


def _plays_forced_moves(game: Game, seat: int) -> bool:
    """Whether the player at ``seat`` lets the server play their forced moves (default yes).

    Only a tournament seat has a player; a standalone game's seats are left alone.
    """
    player = GameContext.of(game).seat(seat).player
    if player is None:
        return False  # a game outside a tournament: no player to have the preference
    found = Player.objects.filter(pk=player).values_list("play_forced_moves", flat=True).first()
    return True if found is None else bool(found)


def next_forced_move(
    game: Game, state: Any = None, bots: dict[int, str] | None = None
) -> tuple[int, dict[str, Any]] | None:
    """The forced move of a person's seat the game waits for now (seat, action), or ``None``.

    Bot seats are left to their bots.  ``state``: the game's state at
    ``game.sequence`` when the caller has it (else it is loaded).
    """
    if game.is_over:
        return None
    bots = bot_seats(game) if bots is None else bots
    people = [s for s in game.waiting_for or [] if s not in bots]
    if not people:
        return None
    engine = get_game(game.kind)
    state = load_state(game) if state is None else state
    for seat in people:
        action = engine.forced_action(state, seat)
        if action is not None and _plays_forced_moves(game, seat):
            return seat, action
    return None


def play_forced_move(game_id: int, expected_sequence: int) -> ActionResult | None:
    """Play a person's forced move in game ``game_id`` if it is still at ``expected_sequence``.

    Returns ``None`` when there is nothing to do (the game moved on, is over, no
    forced move, the person turned them off).  Never raises for a lost race.
    """

    def pick(game: Game) -> tuple[int, dict[str, Any], str, str] | None:
        move = next_forced_move(game)
        return None if move is None else (move[0], move[1], "seat", FORCED_CAUSE_ID)

    return _automatic_move(game_id, expected_sequence, "forced", pick)


def run_bots(game_id: int, limit: int = 100_000) -> int:
    """Play bot moves in game ``game_id`` until a person must act or the game ends; the count."""
    moves = 0
    while moves < limit:
        game = Game.objects.get(pk=game_id)
        if play_bot_move(game_id, game.sequence) is None:
            return moves
        moves += 1
    return moves


# -- tournaments of bots -------------------------------------------------------------------


def bots_only(tournament: Tournament) -> bool:
    """Whether every player still in ``tournament`` is a bot (and there is one at least)."""
    active = Registration.objects.filter(tournament=tournament, dropped_after__isnull=True)
    return active.exists() and not active.filter(player__bot_level="").exists()


def advance_bot_tournament(tournament_id: int) -> Round | None:
    """Start and begin the next round of a tournament of bots whose last round finished.

    A tournament of bots only plays on its own: once the organiser has begun
    its first round, each finished round is followed by the next (every bot
    checked in) until the last.  Returns the new round, or ``None`` when there
    is nothing to do: a person plays, a round is still seated or playing, the
    tournament has not begun or is over.  One transaction: a call repeated or
    run twice at once starts one round.
    """
    with transaction.atomic():
        sql.lock_tournament(tournament_id)  # as every organiser's change (services.base._lock)
        tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
        if tournament is None or tournament.status != Tournament.Status.RUNNING:
            return None
        last = Round.objects.filter(tournament=tournament).order_by("number").last()
        if last is None or last.status != Round.Status.FINISHED:
            return None
        if last.number >= tournament.rounds or not bots_only(tournament):
            return None
        try:
            return begin_round(start_round(tournament, auto_check_in=True))
        except ServiceError:
            return None


def bot_tournaments_to_advance() -> list[int]:
    """Running tournaments of bots whose last round finished before their last round."""
    found = []
    for tournament in Tournament.objects.filter(status=Tournament.Status.RUNNING):
        last = Round.objects.filter(tournament=tournament).order_by("number").last()
        if (
            last is not None
            and last.status == Round.Status.FINISHED
            and last.number < tournament.rounds
            and bots_only(tournament)
        ):
            found.append(tournament.pk)
    return found
