"""Every statement of the tournaments app written by hand, in one place.

Each is here because the ORM's compiling of it cost more CPU than the statement
costs the database on the hot paths (bench/floor.py, docs/benchmarks.md, "HTTP
load"), or because the ORM has no word for it.  Each takes the database alias
``using`` so that tests/project/test_sql.py runs every one against SQLite and
PostgreSQL.  (The event store keeps its own statements: events/store.py.)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any, cast

from django.contrib.auth.models import User
from django.core.management.color import no_style
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Field

from events.store import StreamSet, settled_bound
from tournaments.models import AccountNotice, ApiToken, Game, Player, Round, Table, TableSeat

#: The key of the advisory lock every creation of a club takes (:func:`lock_club_creation`).
CLUB_CREATION_LOCK = 0x5061726C  # "Parl"


def lock_club_creation(using: str = DEFAULT_DB_ALIAS) -> None:
    """Wait for, and hold until the end of the caller's transaction, the one lock every
    creation of a club takes, so that the first run's "is the install empty?" and its
    creation are one step (issue 20: two first runs at once made two clubs).

    PostgreSQL: a transaction-scoped advisory lock (there is no row to lock in an empty
    install; any role may take one).  SQLite: nothing to do, every transaction begins
    IMMEDIATE (parlour/settings.py), holding the database's one write lock already.
    """
    connection = connections[using]
    if not connection.in_atomic_block:
        raise RuntimeError("lock_club_creation holds its lock for a transaction: open one first")
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [CLUB_CREATION_LOCK])


def ping(using: str = DEFAULT_DB_ALIAS) -> None:
    """One round trip to the database (the health check)."""
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT 1")


def game_row(game_id: int, using: str = DEFAULT_DB_ALIAS) -> Game | None:
    """Game ``game_id``'s row, or ``None``.

    Every action and game read starts here: compiling the ORM's
    ``filter(pk=…).first()`` cost several times the query's own round trip.
    """
    query = f"SELECT * FROM {Game._meta.db_table} WHERE id = %s"
    for game in Game.objects.using(using).raw(query, [game_id]):
        return game
    return None


def update_game(game: Game, names: Iterable[str], using: str = DEFAULT_DB_ALIAS) -> None:
    """Write the fields ``names`` of ``game`` (already set on it) to its row.

    Every action writes the row; the ORM's ``update()`` compiled it afresh each
    time.  Each value is prepared by its field, as ``update()`` does.
    """
    connection = connections[using]
    # Projected names are a field's name or its attname (``table_id``): get_field takes both.
    columns = [cast("Field[Any, Any]", Game._meta.get_field(name)) for name in names]
    assignments = ", ".join(f"{connection.ops.quote_name(str(f.column))} = %s" for f in columns)
    values = [f.get_db_prep_save(getattr(game, f.attname), connection) for f in columns]
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Game._meta.db_table} SET {assignments} WHERE id = %s", [*values, game.pk]
        )


def reset_game_ids(using: str = DEFAULT_DB_ALIAS) -> None:
    """Move the database's id sequence of games past rows created with explicit ids."""
    connection = connections[using]
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), [Game]):
            cursor.execute(statement)


def players_of_user(
    user_id: int, player_ids: Sequence[int], using: str = DEFAULT_DB_ALIAS
) -> set[int]:
    """Which of ``player_ids`` are played by login ``user_id`` (every seated request asks)."""
    if not player_ids:
        return set()
    marks = ", ".join(["%s"] * len(player_ids))
    with connections[using].cursor() as cursor:
        cursor.execute(
            f"SELECT id FROM {Player._meta.db_table} WHERE user_id = %s AND id IN ({marks})",
            [user_id, *player_ids],
        )
        return {pid for (pid,) in cursor.fetchall()}


def table_seats(table: int, using: str = DEFAULT_DB_ALIAS) -> list[tuple[int, bool, int]]:
    """Each seat of ``table``: its number, whether a bot plays it for its person
    (``autoplay``), and its timeouts in a row (read after every change of a game)."""
    with connections[using].cursor() as cursor:
        cursor.execute(
            f"SELECT seat, autoplay, timeouts_in_a_row FROM {TableSeat._meta.db_table}"
            " WHERE table_id = %s",
            [table],
        )
        return [(seat, bool(autoplay), count) for seat, autoplay, count in cursor.fetchall()]


def tournament_game_streams(tournament_id: int) -> StreamSet:
    """The game streams of tournament ``tournament_id``, as a query the store reads in the
    same statement as the events: a game dealt in the same transaction as another game's
    last move is known exactly when its deal is visible (reading the games first could
    pass its deal unknown)."""
    return StreamSet(
        f"SELECT 'game-' || CAST(g.id AS TEXT) FROM {Game._meta.db_table} g"
        f" JOIN {Table._meta.db_table} t ON g.table_id = t.id"
        f" JOIN {Round._meta.db_table} r ON t.round_id = r.id WHERE r.tournament_id = %s",
        (tournament_id,),
    )


#: A notice of the account feed: (tx, id, game id, seat, sequence, kind).
NoticeRow = tuple[int, int, int, int, int, str]


def account_notices_statement(using: str = DEFAULT_DB_ALIAS) -> str:
    """The statement of :func:`account_notices_after` (parameters: user, tx, id, limit)."""
    bound = settled_bound(using)
    where = "user_id = %s AND (tx, id) > (%s, %s)" + (f" AND tx < {bound}" if bound else "")
    return (
        f"SELECT tx, id, game_id, seat, sequence, kind FROM {AccountNotice._meta.db_table}"
        f" WHERE {where} ORDER BY tx, id LIMIT %s"
    )


def account_notices_after(
    user_id: int, tx: int, row: int, limit: int, using: str = DEFAULT_DB_ALIAS
) -> list[NoticeRow]:
    """Login ``user_id``'s notices after position ``(tx, row)``, in order, at most ``limit``:
    one range of the ``(user, tx, id)`` index, and on PostgreSQL only those of settled
    transactions (:func:`events.store.settled_bound`), so that none committing late is
    ever passed."""
    with connections[using].cursor() as cursor:
        cursor.execute(account_notices_statement(using), [user_id, tx, row, limit])
        return [
            (int(t), int(i), int(g), int(seat), int(seq), str(kind))
            for t, i, g, seat, seq, kind in cursor.fetchall()
        ]


def last_account_position(user_id: int, using: str = DEFAULT_DB_ALIAS) -> tuple[int, int]:
    """The position of login ``user_id``'s newest settled notice (``(0, 0)``: none)."""
    bound = settled_bound(using)
    where = "user_id = %s" + (f" AND tx < {bound}" if bound else "")
    with connections[using].cursor() as cursor:
        cursor.execute(
            f"SELECT tx, id FROM {AccountNotice._meta.db_table}"
            f" WHERE {where} ORDER BY tx DESC, id DESC LIMIT 1",
            [user_id],
        )
        found = cursor.fetchone()
    return (int(found[0]), int(found[1])) if found else (0, 0)


def token_owner(
    key_hash: str, stale_before: datetime, using: str = DEFAULT_DB_ALIAS
) -> tuple[User, ApiToken, bool] | None:
    """The active user of the live token with ``key_hash``, the token (only its id and
    user loaded), and whether its ``last_used_at`` is before ``stale_before``.

    Every API request with a token comes through here: the ORM's compiling of the
    equivalent ``select_related`` query cost more CPU than the rest of the
    authentication.
    """
    connection = connections[using]
    users: Any = User.objects.using(using).raw(
        f"SELECT u.*, t.id AS parlour_token_id,"
        f" (t.last_used_at IS NULL OR t.last_used_at < %s) AS parlour_token_stale"
        f" FROM {ApiToken._meta.db_table} t JOIN {User._meta.db_table} u ON u.id = t.user_id"
        f" WHERE t.key_hash = %s AND t.revoked_at IS NULL AND u.is_active",
        [connection.ops.adapt_datetimefield_value(stale_before), key_hash],
    )
    for user in users:
        token = ApiToken.from_db(using, ["id", "user_id"], [user.parlour_token_id, user.pk])
        token.user = user
        return user, token, bool(user.parlour_token_stale)
    return None
