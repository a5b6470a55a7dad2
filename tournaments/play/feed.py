"""A login's account feed: which of their games started, wait for them, or finished.

Every change of a game (:func:`tournaments.play.commands._append_and_project`) writes, in
its own transaction, one :class:`~tournaments.models.AccountNotice` per seat played by
a login that it concerns:

* ``started``: the deal, for every seated login;
* ``turn``: the game now waits for that seat (written after every change that leaves
  it waited for: the sequence to act at changed);
* ``finished``: the game is over, for every seated login.

A reader asks for a login's notices after the position of the last one it got
(:func:`notices_after`): one range of the ``(user, tx, id)`` index, whatever the
size of the store or of other logins' feeds.  The account stream
(``GET /api/v1/stream/events``) sends them; a page telling a player that their
game has started can ask the same.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from events.store import Position
from tournaments import sql
from tournaments.models import AccountNotice, Game
from tournaments.play.context import GameContext
from tournaments.recent import Recent

Kind = AccountNotice.Kind


@dataclass(frozen=True)
class Notice:
    """One line of a login's feed."""

    #: Where it stands in the login's feed: ``(tx, id)``, as the store's events.
    position: Position
    game_id: int
    seat: int
    #: The game's sequence right after the change it tells of.
    sequence: int
    kind: str


#: Tournament games' seat logins, per process (the 4,096 most recent): a
#: player's login cannot change while they sit at a table in play
#: (:class:`~tournaments.models.SeatedLoginChange`), so a move needs no query for them.
#: Keyed by the game's id and the time of its deal: an id given back by a transaction
#: rolled back (SQLite reuses them) names another game.
_known: Recent[tuple[int, Any], dict[int, int]] = Recent(4096)


def seat_users(game: Game) -> dict[int, int]:
    """The login playing each of ``game``'s seats, where a login plays it (bots and
    people without a login have none)."""
    key = (game.pk, game.created_at)
    if game.table_id is not None:
        found = _known.get(key)
        if found is not None:
            return found
    ids = GameContext.of(game).seat_player_ids()
    users = sql.player_users(pid for pid in ids if pid is not None)
    seats = {seat: users[pid] for seat, pid in enumerate(ids) if pid in users and seat < game.seats}
    if game.table_id is not None:
        _known.put(key, seats)
    return seats


def notices_of(
    game: Game, *, dealt: bool, ended: bool, logins: Mapping[int, int] | None = None
) -> list[tuple[int, int, int, int, str]]:
    """The notices ``(user, game, seat, sequence, kind)`` of a change that left ``game``'s
    row as it is: written with the change's append
    (:func:`tournaments.sql.account_notices_along`).  ``logins``: the login playing each
    seat, where the caller has just read them (a table's next deal, with its seated
    players: issue 24, a statement fewer a deal); kept as :func:`seat_users` reads them."""
    if logins is not None and game.table_id is not None:
        _known.put((game.pk, game.created_at), dict(logins))
    users = seat_users(game)
    notices: list[tuple[int, int, int, int, str]] = []
    for seat, user in sorted(users.items()):
        kinds = []
        if dealt:
            kinds.append(Kind.STARTED)
        if ended:
            kinds.append(Kind.FINISHED)
        elif not game.is_over and seat in (game.waiting_for or []):
            kinds.append(Kind.TURN)
        notices.extend((user, game.pk, seat, game.sequence, str(kind)) for kind in kinds)
    return notices


def told(notices: Iterable[tuple[int, int, int, int, str]]) -> set[int]:
    """The logins ``notices`` tell."""
    return {user for user, *_ in notices}


def notices_after(user_id: int, after: Position, *, limit: int = 500) -> list[Notice]:
    """Login ``user_id``'s notices after ``after`` (the position of one they got), oldest
    first, at most ``limit``: one range of the feed's ``(user, tx, id)`` index.  On
    PostgreSQL a notice comes once every older transaction has finished, so that a
    reader never passes one committed late (as the store's global order, docs/store.md).
    """
    rows = sql.account_notices_after(user_id, after.tx, after.id, limit)
    return [
        Notice(Position(tx, row), game, seat, seq, kind) for tx, row, game, seat, seq, kind in rows
    ]


def last_position(user_id: int) -> Position:
    """The position of login ``user_id``'s newest notice (:data:`START` for none): where a
    new reader of the feed starts."""
    return Position(*sql.last_account_position(user_id))


def running_games(user_id: int) -> list[tuple[int, int]]:
    """``(game id, seat)`` of every running game login ``user_id`` plays, oldest first:
    the feed's ``started`` notices (the ``(user, kind, game)`` index) of games not over."""
    rows = (
        AccountNotice.objects.filter(
            user_id=user_id, kind=Kind.STARTED, game__status=Game.Status.RUNNING
        )
        .order_by("game_id")
        .values_list("game_id", "seat")
    )
    return [(int(game), int(seat)) for game, seat in rows]


__all__ = [
    "Kind",
    "Notice",
    "last_position",
    "notices_after",
    "notices_of",
    "running_games",
    "told",
]
