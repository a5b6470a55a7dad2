"""Every statement of the tournaments app written by hand, in one place.

Each is here because the ORM's compiling of it cost more CPU than the statement
costs the database on the hot paths (bench/floor.py, docs/benchmarks.md, "HTTP
load"), or because the ORM has no word for it.  Each takes the database alias
``using`` so that tests/project/test_sql.py runs every one against SQLite and
PostgreSQL.  (The event store keeps its own statements: events/store.py.)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from functools import cache
from typing import Any, NamedTuple, TypeVar, cast

from django.contrib.auth.models import User
from django.core.management.color import no_style
from django.db import DEFAULT_DB_ALIAS, DatabaseError, connections
from django.db.models import Field, Model

from events.store import Along, Beside, StoredEvent, StreamSet, read_stream_beside, settled_bound
from tournaments.models import (
    AccountNotice,
    ApiToken,
    ClientSeed,
    Game,
    Player,
    Round,
    Table,
    TableSeat,
    Tournament,
)

_M = TypeVar("_M", bound=Model)

#: The key of the advisory lock every creation of a club takes (:func:`lock_club_creation`).
CLUB_CREATION_LOCK = 0x5061726C  # "Parl"
#: The first key of each tournament's advisory lock (the second: its id), :func:`lock_tournament`.
TOURNAMENT_LOCKS = 0x546F7572  # "Tour"
#: The advisory lock class of a club's ratings in one game (:func:`lock_ratings`).
RATINGS_LOCKS = 0x52617465  # "Rate"
#: The first key of each club's advisory lock for its players' names (the second: its id),
#: :func:`lock_player_names`.
PLAYER_NAME_LOCKS = 0x4E616D65  # "Name"
#: The second key is a 32-bit integer: ids beyond it share a key (and wait for each other).
TOURNAMENT_KEYS = 2**31


@cache
def _columns(model: type[Any], alias: str = "") -> str:
    """The model's columns by name, never ``*``: a statement a connection has prepared
    stays valid when a migration adds a column under a running process (PostgreSQL
    refuses to run a prepared ``SELECT *`` whose result's shape changed)."""
    prefix = f"{alias}." if alias else ""
    return ", ".join(f"{prefix}{f.column}" for f in model._meta.concrete_fields)


def _one(query: str, params: Sequence[Any], using: str) -> tuple[Any, ...] | None:
    """The first row ``query`` finds, or ``None``."""
    with connections[using].cursor() as cursor:
        cursor.execute(query, params)
        found = cursor.fetchone()
    return tuple(found) if found is not None else None


def _all(query: str, params: Sequence[Any], using: str) -> list[tuple[Any, ...]]:
    """Every row ``query`` finds."""
    with connections[using].cursor() as cursor:
        cursor.execute(query, params)
        return [tuple(row) for row in cursor.fetchall()]


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


def lock_tournament(tournament: int, using: str = DEFAULT_DB_ALIAS) -> None:
    """Wait for, and hold until the end of the caller's transaction, tournament
    ``tournament``'s advisory lock alone: every organiser's change takes it before it
    locks the tournament's row (``services.base._lock``).

    The series hooks share it (:func:`table_tournament_shared`).  PostgreSQL queues an
    advisory lock's requests in order, so an organiser waits for the hooks running when it
    asks, and the hooks that come after wait for it; a row's ``FOR UPDATE`` waiting behind
    ``FOR KEY SHARE`` holders would let every new hook in first, and could wait as long as
    the tables keep ending games.  SQLite: nothing to do (one write lock).
    """
    connection = connections[using]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_xact_lock(%s::integer, %s::integer)",
                [TOURNAMENT_LOCKS, tournament % TOURNAMENT_KEYS],
            )


def lock_player_names(club: int, using: str = DEFAULT_DB_ALIAS) -> None:
    """Wait for, and hold until the end of the caller's transaction, club ``club``'s lock
    for its players' names: whoever adds or renames a player takes it before asking whether
    a player reads the same (``services.base.same_name_taken``), so that two organisers
    adding «Кате» and "Kate" at once are one after the other, and the second is refused.
    The database's unique constraint catches exact duplicates only.

    Taken before any tournament's lock, the club's row and a new login's row (the desk's
    add-and-register, the sign-up, a player with a new login, ``register --create``): one
    order, no deadlock.  PostgreSQL: an advisory lock (two organisers of one club wait for
    each other, never for another club's).  SQLite: nothing to do (one write lock)."""
    connection = connections[using]
    if not connection.in_atomic_block:
        raise RuntimeError("lock_player_names holds its lock for a transaction: open one first")
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_xact_lock(%s::integer, %s::integer)",
                [PLAYER_NAME_LOCKS, club % TOURNAMENT_KEYS],
            )


def lock_ratings(club: int, game: str, using: str = DEFAULT_DB_ALIAS) -> None:
    """Wait for, and hold until the end of the caller's transaction, the advisory lock of
    ``club``'s ratings in ``game``: their writers one after another (a table finishing, a
    re-rate after a forfeit, ``rate_tables``).  Not the club's row: every write whose
    foreign key names the club (a player added at the desk, a tournament made) checks it
    at its commit (Django's foreign keys are deferred) with a key-share lock, which would
    then wait for a finishing table's hook, and a lock of its own touches nothing else.
    (A review took it for a deadlock with the desk's add-and-register; with the deferred
    check there is none, tests/service/test_desk_rating_race.py.)  SQLite: nothing to do
    (one write lock)."""
    connection = connections[using]
    if connection.vendor == "postgresql":
        key = int.from_bytes(hashlib.sha256(f"{club}:{game}".encode()).digest()[:4], "big")
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_xact_lock(%s::integer, %s::integer)",
                [RATINGS_LOCKS, key - 2**31],
            )


def ping(using: str = DEFAULT_DB_ALIAS) -> None:
    """One round trip to the database (the health check)."""
    with connections[using].cursor() as cursor:
        cursor.execute("SELECT 1")


def game_row(game_id: int, using: str = DEFAULT_DB_ALIAS) -> Game | None:
    """Game ``game_id``'s row, or ``None``.

    Every action and game read starts here: compiling the ORM's
    ``filter(pk=…).first()`` cost several times the query's own round trip.
    """
    query = f"SELECT {_columns(Game)} FROM {Game._meta.db_table} WHERE id = %s"
    found = _one(query, [game_id], using)
    return None if found is None else _instance(Game, found, using)


def _instance(model: type[_M], row: Sequence[Any], using: str, names: tuple[str, ...] = ()) -> _M:
    """An instance of ``model`` from a row of its :func:`_columns` (or of the fields
    ``names`` alone, by their attnames: the others deferred), as the ORM would load it."""
    loaded = [f.attname for f in _fields(model, names)]
    return model.from_db(using, loaded, _converted(model, row, using, names))


@cache
def _fields(model: type[Model], names: tuple[str, ...]) -> tuple[Field[Any, Any], ...]:
    """The fields of a row of ``model``'s :func:`_columns`, or of the fields ``names``."""
    if names:
        return tuple(cast("Field[Any, Any]", model._meta.get_field(n)) for n in names)
    return tuple(model._meta.concrete_fields)


def _converted(
    model: type[Model], row: Sequence[Any], using: str, names: tuple[str, ...] = ()
) -> list[Any]:
    """The values of a row of ``model``'s fields (as :func:`_instance` reads them) as the
    ORM would load them: each through its column's converters (the database's and the
    field's own ``from_db_value``).

    ``model.objects.raw()`` did this for :func:`game_row`, but worked out each column's
    converters for every row: half of the read's CPU (bench/push_move.py, issue 24).
    Here they are worked out once per connection, model and fields.
    """
    connection = connections[using]
    # Kept on the connection object (one per thread): SQLite's converters are bound to
    # it, so a cache outside it would keep every thread's connection alive.
    known: dict[tuple[type[Any], tuple[str, ...]], list[tuple[int, Any, list[Any]]]]
    known = connection.__dict__.setdefault("parlour_converters", {})
    fields = known.get((model, names))
    if fields is None:
        fields = []
        for index, field in enumerate(_fields(model, names)):
            column = field.get_col(model._meta.db_table)
            found = connection.ops.get_db_converters(column) + field.get_db_converters(connection)
            if found:
                fields.append((index, column, found))
        known[(model, names)] = fields
    values = list(row)
    for index, column, found in fields:
        for convert in found:
            values[index] = convert(values[index], column, connection)
    return values


def update_row(row: Model, names: Iterable[str], using: str = DEFAULT_DB_ALIAS) -> None:
    """Write the fields ``names`` of ``row`` (already set on it) to its row.

    Every move writes its game's row, and every deal's end its table's: the ORM's
    ``update()`` and ``save(update_fields=…)`` compiled the statement afresh each time.
    Each value is prepared by its field, as the ORM does.
    """
    query, params = _update(row, {name: getattr(row, name) for name in names}, {}, using)
    with connections[using].cursor() as cursor:
        cursor.execute(query, params)


def update_along(
    row: Model,
    values: Mapping[str, Any],
    expressions: Mapping[str, str] | None = None,
    using: str = DEFAULT_DB_ALIAS,
) -> Along:
    """``row``'s ``UPDATE`` to ``values`` (and the SQL ``expressions`` by name, such as the
    store's :data:`~events.store.LAST_ID`), written only with an append (:class:`Along`)."""
    return Along(*_update(row, values, expressions or {}, using))


def _update(
    row: Model, values: Mapping[str, Any], expressions: Mapping[str, str], using: str
) -> tuple[str, list[Any]]:
    connection = connections[using]
    meta = row._meta
    # Names are a field's name or its attname (``table_id``): get_field takes both.
    fields = [
        (cast("Field[Any, Any]", meta.get_field(name)), value) for name, value in values.items()
    ]
    quote = connection.ops.quote_name
    assignments = [f"{quote(str(f.column))} = %s" for f, _ in fields]
    for name, expression in expressions.items():
        column = cast("Field[Any, Any]", meta.get_field(name)).column
        assignments.append(f"{quote(str(column))} = {expression}")
    params = [f.get_db_prep_save(value, connection) for f, value in fields]
    query = f"UPDATE {meta.db_table} SET {', '.join(assignments)} WHERE {meta.pk.column} = %s"
    return query, [*params, row.pk]


def insert_row(row: Model, using: str = DEFAULT_DB_ALIAS) -> None:
    """Insert ``row``, a new instance whose primary key the database gives, and set it.

    Each deal's end inserts the next game's row: the ORM's ``save()`` compiled the
    ``INSERT`` afresh each time (2.5 % of the web processes' CPU at 32 players, issue 24).
    Each value is what the ORM's ``save()`` writes (``pre_save``: an ``auto_now_add``
    time, a default), prepared by its field.  No ``pre_save``/``post_save`` signal is
    sent: nothing of Parlour's listens for them.
    """
    connection = connections[using]
    meta = row._meta
    pk = meta.pk
    fields = [f for f in meta.concrete_fields if f is not pk]
    names = ", ".join(connection.ops.quote_name(str(f.column)) for f in fields)
    marks = ", ".join(["%s"] * len(fields))
    values = [f.get_db_prep_save(f.pre_save(row, True), connection) for f in fields]
    query = f"INSERT INTO {meta.db_table} ({names}) VALUES ({marks}) RETURNING {pk.column}"
    found = _one(query, values, using)
    assert found is not None  # an INSERT … RETURNING returns its row
    setattr(row, pk.attname, found[0])
    row._state.adding = False
    row._state.db = using


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
    query = f"SELECT id FROM {Player._meta.db_table} WHERE user_id = %s AND id IN ({marks})"
    return {pid for (pid,) in _all(query, [user_id, *player_ids], using)}


def table_seats(table: int, using: str = DEFAULT_DB_ALIAS) -> list[tuple[int, bool, int]]:
    """Each seat of ``table``: its number, whether a bot plays it for its person
    (``autoplay``), and its timeouts in a row (read after every change of a game)."""
    query = (
        f"SELECT seat, autoplay, timeouts_in_a_row FROM {TableSeat._meta.db_table}"
        " WHERE table_id = %s"
    )
    return [(seat, bool(autoplay), count) for seat, autoplay, count in _all(query, [table], using)]


#: A token is live: not revoked, its login active (one parameter: the token's id).
_LIVE_TOKEN = (
    f"SELECT 1 FROM {ApiToken._meta.db_table} t JOIN {User._meta.db_table} u"
    " ON u.id = t.user_id WHERE t.id = %s AND t.revoked_at IS NULL AND u.is_active"
)


def table_for_update(table: int, using: str = DEFAULT_DB_ALIAS) -> Table | None:
    """Table ``table``'s row, locked ``FOR UPDATE`` until the end of the caller's
    transaction on PostgreSQL (the series hook at every game's end), or ``None``."""
    lock = " FOR UPDATE" if connections[using].vendor == "postgresql" else ""
    query = f"SELECT {_columns(Table)} FROM {Table._meta.db_table} WHERE id = %s{lock}"
    found = _one(query, [table], using)
    return None if found is None else _instance(Table, found, using)


class SeatedPlayer(NamedTuple):
    """A seat of a table and who sits there, as a deal needs them."""

    seat: int
    player: int
    name: str
    bot_level: str
    user: int | None
    #: The player's login's client seed (``""``: a bot, no login, or none set).
    client_seed: str


def seated_players(table: int, using: str = DEFAULT_DB_ALIAS) -> list[SeatedPlayer]:
    """Table ``table``'s seats in order, with their players and client seeds (every deal of
    a series reads them: two statements through the ORM)."""
    query = (
        f"SELECT ts.seat, p.id, p.name, p.bot_level, p.user_id, COALESCE(cs.seed, '')"
        f" FROM {TableSeat._meta.db_table} ts JOIN {Player._meta.db_table} p"
        " ON p.id = ts.player_id"
        f" LEFT JOIN {ClientSeed._meta.db_table} cs ON cs.user_id = p.user_id"
        " WHERE ts.table_id = %s ORDER BY ts.seat"
    )
    return [
        SeatedPlayer(int(seat), int(pid), str(name), str(level or ""), user, str(seed))
        for seat, pid, name, level, user, seed in _all(query, [table], using)
    ]


def set_next_commitment(table: int, value: str, using: str = DEFAULT_DB_ALIAS) -> None:
    """Show ``value`` as the commitment of table ``table``'s next deal."""
    with connections[using].cursor() as cursor:
        cursor.execute(
            f"UPDATE {Table._meta.db_table} SET next_commitment = %s WHERE id = %s", [value, table]
        )
        if cursor.rowcount != 1:  # as the ORM's save(update_fields=…) refuses
            raise DatabaseError(f"table {table} is gone: its next commitment was not saved")


def player_users(player_ids: Iterable[int], using: str = DEFAULT_DB_ALIAS) -> dict[int, int]:
    """The login of each of ``player_ids`` that has one (every new deal's feed asks)."""
    wanted = sorted(set(player_ids))
    if not wanted:
        return {}
    marks = ", ".join(["%s"] * len(wanted))
    query = (
        f"SELECT id, user_id FROM {Player._meta.db_table}"
        f" WHERE id IN ({marks}) AND user_id IS NOT NULL"
    )
    return {int(pid): int(user) for pid, user in _all(query, wanted, using)}


def token_is_live(token_id: int, using: str = DEFAULT_DB_ALIAS) -> bool:
    """Whether token ``token_id`` is not revoked and its login is active (the push channel
    asks while it pushes views)."""
    return _one(_LIVE_TOKEN, [token_id], using) is not None


def _joined(expression: str, using: str) -> str:
    """An aggregate of ``expression`` over a subquery's rows: their values in one text,
    comma-separated, in no order (``NULL`` for no rows).  SQLite before 3.44 has no
    ``string_agg``."""
    if connections[using].vendor == "postgresql":
        return f"string_agg(CAST({expression} AS text), ',')"
    return f"group_concat({expression}, ',')"


class CallerGame(NamedTuple):
    """A game's row with what a caller's access to it and its view need, read in one
    statement (:func:`game_for_caller`)."""

    game: Game
    #: The caller's players, in any club (which seat of the game is theirs).
    players: frozenset[int]
    #: Whether the token named is live (``None``: no token named).
    live: bool | None
    #: The table's seats as :func:`table_seats` reads them (``None``: not asked, or no table).
    seats: list[tuple[int, bool, int]] | None
    #: The game's events from the sequence asked for on (``None``: not asked).
    tail: list[StoredEvent] | None = None


def game_for_caller(
    game_id: int,
    user_id: int | None,
    *,
    token_id: int | None = None,
    seats: bool = False,
    tail_from: int | None = None,
    using: str = DEFAULT_DB_ALIAS,
) -> CallerGame | None:
    """Game ``game_id``'s row, the players of login ``user_id`` (none for ``None``), with
    ``token_id`` whether that token is live, with ``seats`` its table's seats and with
    ``tail_from`` its events from that sequence on, in one statement, or ``None`` without
    such a game.

    The push channel's read before every move (the sign-in checked, the mover's seat) and
    before every pushed view (the seat, the seats a bot plays, which the view shows, and
    the events since the fold the process keeps): four round trips in one (issue 24).  A
    login has a player in each club it plays in at most, so the players read do not grow
    with the store; the events are those since the process last folded the game.
    """
    players = (
        f"(SELECT {_joined('p.id', using)} FROM {Player._meta.db_table} p WHERE p.user_id = %s)"
        if user_id is not None
        else "NULL"
    )
    live = f"EXISTS ({_LIVE_TOKEN})" if token_id is not None else "NULL"
    seat = (
        "CAST(ts.seat AS text) || ':' || CASE WHEN ts.autoplay THEN '1' ELSE '0' END"
        " || ':' || CAST(ts.timeouts_in_a_row AS text)"
    )
    table_seats = (
        f"(SELECT {_joined(seat, using)} FROM {TableSeat._meta.db_table} ts"
        " WHERE ts.table_id = g.table_id)"
        if seats
        else "NULL"
    )
    query = (
        f"SELECT {_columns(Game, 'g')}, {players}, {live}, {table_seats}"
        f" FROM {Game._meta.db_table} g WHERE g.id = %s"
    )
    params = [p for p in (user_id, token_id) if p is not None]
    tail = None
    if tail_from is None:
        found = _one(query, [*params, game_id], using)
    else:
        beside = Beside(query, [*params, game_id])
        found, tail = read_stream_beside(
            Game(pk=game_id).stream, beside, from_sequence=tail_from, using=using
        )
    if found is None:
        return None
    game = _instance(Game, found[:-3], using)
    mine, alive, seated = found[-3:]
    return CallerGame(
        game,
        frozenset(int(pid) for pid in mine.split(",")) if mine else frozenset(),
        None if token_id is None else bool(alive),
        _seats_of(seated) if seats and game.table_id is not None else None,
        tail,
    )


def _seats_of(text: str | None) -> list[tuple[int, bool, int]]:
    found = []
    for entry in text.split(",") if text else ():
        seat, autoplay, count = entry.split(":")
        found.append((int(seat), autoplay == "1", int(count)))
    return found


def next_game_of_table(table: int, number: int, using: str = DEFAULT_DB_ALIAS) -> int | None:
    """The id of table ``table``'s game after its ``number``-th in the series, if dealt
    (every seat's view of a finished game names it)."""
    query = (
        f"SELECT id FROM {Game._meta.db_table} WHERE table_id = %s AND number_in_series > %s"
        " ORDER BY number_in_series LIMIT 1"
    )
    found = _one(query, [table, number], using)
    return int(found[0]) if found else None


class TableRound(NamedTuple):
    """What a game's end asks of its table's round (and what decides whether a finished
    game's secrets are shown)."""

    round_status: str
    round_number: int
    tournament: int
    tournament_status: str
    rounds: int
    duplicate_deals: bool
    club: int
    round: int


def table_round(table: int, using: str = DEFAULT_DB_ALIAS) -> TableRound | None:
    """Table ``table``'s round and tournament, as :data:`TableRound`, or ``None``.

    Read at every game's end (is the round over? are its secrets revealed?), and by every
    view of a finished game: the ORM's compiling of the joins cost more than the query.
    """
    query = (
        f"SELECT r.status, r.number, r.tournament_id, t.status, t.rounds, t.duplicate_deals,"
        " t.club_id, r.id"
        f" FROM {Table._meta.db_table} tb"
        f" JOIN {Round._meta.db_table} r ON r.id = tb.round_id"
        f" JOIN {Tournament._meta.db_table} t ON t.id = r.tournament_id"
        " WHERE tb.id = %s"
    )
    found = _one(query, [table], using)
    if found is None:
        return None
    status, number, tournament, tournament_status, rounds, duplicate, club, round_id = found
    return TableRound(
        str(status),
        int(number),
        int(tournament),
        str(tournament_status),
        int(rounds),
        bool(duplicate),
        int(club),
        int(round_id),
    )


def table_tournament_shared(
    table: int, using: str = DEFAULT_DB_ALIAS
) -> tuple[Tournament, Round] | None:
    """Table ``table``'s tournament and round, the tournament's advisory lock
    (:func:`lock_tournament`) shared and its row locked ``FOR KEY SHARE`` until the end of
    the caller's transaction; ``None`` if there is no such table.

    The series hook reads them at every game's end.  Both locks conflict only with an
    organiser's (the advisory lock alone, then the row ``FOR UPDATE``:
    ``services.base._lock``): the hooks of many tables hold them at once, none of them
    waits for another (they did, all the tables of a tournament, while each hook held the
    row ``FOR UPDATE``: issue 24), and no organiser's change runs beside any of them.
    SQLite: no row locks; its transactions hold the database's one write lock.
    """
    connection = connections[using]
    postgres = connection.vendor == "postgresql"
    if postgres:
        # The tournament's advisory lock shared first, in a statement of its own: the
        # read below then sees what an organiser it waited for committed.
        _one(
            f"SELECT pg_advisory_xact_lock_shared(%s::integer, (r.tournament_id %% %s)::integer)"
            f" FROM {Table._meta.db_table} tb JOIN {Round._meta.db_table} r"
            " ON r.id = tb.round_id WHERE tb.id = %s",
            [TOURNAMENT_LOCKS, TOURNAMENT_KEYS, table],
            using,
        )
    lock = " FOR KEY SHARE OF t" if postgres else ""
    query = (
        f"SELECT {_columns(Tournament, 't')}, {_columns(Round, 'r')}"
        f" FROM {Table._meta.db_table} tb"
        f" JOIN {Round._meta.db_table} r ON r.id = tb.round_id"
        f" JOIN {Tournament._meta.db_table} t ON t.id = r.tournament_id"
        f" WHERE tb.id = %s{lock}"
    )
    found = _one(query, [table], using)
    if found is None:
        return None
    split = len(Tournament._meta.concrete_fields)
    return _instance(Tournament, found[:split], using), _instance(Round, found[split:], using)


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


def account_notices_along(rows: Sequence[tuple[int, int, int, int, str]]) -> Along | None:
    """Account notices ``(user, game, seat, sequence, kind)``, written only with an append
    (:class:`Along`), their ``tx`` the database's default (the append's transaction);
    ``None`` without any."""
    if not rows:
        return None
    marks = " UNION ALL ".join(["SELECT %s, %s, %s, %s, %s"] * len(rows))
    return Along(
        f"{_NOTICES} SELECT * FROM ({marks}) AS told WHERE TRUE",
        [value for row in rows for value in row],
    )


_NOTICES = f"INSERT INTO {AccountNotice._meta.db_table} (user_id, game_id, seat, sequence, kind)"


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
    rows = _all(account_notices_statement(using), [user_id, tx, row, limit], using)
    return [
        (int(t), int(i), int(g), int(seat), int(seq), str(kind))
        for t, i, g, seat, seq, kind in rows
    ]


def last_account_position(user_id: int, using: str = DEFAULT_DB_ALIAS) -> tuple[int, int]:
    """The position of login ``user_id``'s newest settled notice (``(0, 0)``: none)."""
    bound = settled_bound(using)
    where = "user_id = %s" + (f" AND tx < {bound}" if bound else "")
    query = (
        f"SELECT tx, id FROM {AccountNotice._meta.db_table}"
        f" WHERE {where} ORDER BY tx DESC, id DESC LIMIT 1"
    )
    found = _one(query, [user_id], using)
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
        f"SELECT {_columns(User, 'u')}, t.id AS parlour_token_id,"
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
