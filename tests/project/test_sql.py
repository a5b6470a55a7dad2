"""Every hand-written statement of tournaments/sql.py, run against SQLite and PostgreSQL
(the ``store_alias`` fixture: one alias per backend)."""

from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest
from django.contrib.auth.models import User
from django.db import DatabaseError, connections, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from events import store
from events.store import LAST_ID, NewEvent, append, read_all
from tournaments import sql
from tournaments.models import (
    AccountNotice,
    ApiToken,
    ClientSeed,
    Club,
    Game,
    Player,
    Round,
    Table,
    TableSeat,
    Tournament,
)

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", "sqlite", "postgres"])


def _game(alias: str, **fields: object) -> Game:
    return Game.objects.using(alias).create(kind="give_away", seats=2, dealer=0, **fields)


def test_ping_answers(store_alias: str) -> None:
    sql.ping(store_alias)


def test_game_row_reads_the_row_or_none(store_alias: str) -> None:
    game = _game(store_alias, players=["a", "b"], context={"tournament": 3})
    found = sql.game_row(game.pk, store_alias)
    assert found is not None
    assert (found.pk, found.players, found.context) == (game.pk, ["a", "b"], {"tournament": 3})
    assert sql.game_row(game.pk + 1000, store_alias) is None


def test_update_row_writes_the_fields_named(store_alias: str) -> None:
    game = _game(store_alias)
    _, _, table = _seated(store_alias)
    game.sequence, game.deadlines, game.status = 7, {"1": "soon"}, Game.Status.OVER
    game.table_id = table.pk  # named by its attname, as the projection names it
    game.players = ["not", "written"]
    sql.update_row(game, ["sequence", "deadlines", "status", "table_id"], store_alias)
    row = Game.objects.using(store_alias).get(pk=game.pk)
    assert (row.sequence, row.deadlines, row.status, row.table_id, row.players) == (
        7,
        {"1": "soon"},
        Game.Status.OVER,
        table.pk,
        [],
    )


def test_insert_row_writes_what_the_orm_writes_and_sets_the_id(store_alias: str) -> None:
    made = _game(store_alias, players=["a", "b"], options={"x": 1})
    game = Game(kind="give_away", seats=2, dealer=0, players=["a", "b"], options={"x": 1})
    sql.insert_row(game, store_alias)
    assert game.pk is not None and game.pk > made.pk and not game._state.adding
    fields = [f.attname for f in Game._meta.concrete_fields if f.attname != "id"]
    ours, theirs = Game.objects.using(store_alias).in_bulk([game.pk, made.pk]).values()
    assert [getattr(ours, f) for f in fields] == [getattr(theirs, f) for f in fields]
    club = Club(name="Club", slug="club-insert")
    sql.insert_row(club, store_alias)  # its auto_now_add time set, as save() sets it
    assert club.created_at is not None
    assert Club.objects.using(store_alias).get(pk=club.pk).created_at == club.created_at


def test_reset_game_ids_moves_past_an_explicit_id(store_alias: str) -> None:
    Game.objects.using(store_alias).create(pk=5000, kind="give_away", seats=2, dealer=0)
    sql.reset_game_ids(store_alias)
    assert _game(store_alias).pk > 5000


def _seated(alias: str) -> tuple[User, list[Player], Table]:
    user = User.objects.db_manager(alias).create_user("ann")
    club = Club.objects.using(alias).create(name="C", slug="c")
    mine = Player.objects.using(alias).create(club=club, name="Ann", user=user)
    other = Player.objects.using(alias).create(club=club, name="Bob")
    tournament = Tournament.objects.using(alias).create(
        club=club, name="T", game="give_away", rounds=1, series={}, table_min=2, table_max=2
    )
    round_ = Round.objects.using(alias).create(tournament=tournament, number=1)
    table = Table.objects.using(alias).create(round=round_, number=1)
    TableSeat.objects.using(alias).create(table=table, seat=0, player=other)
    TableSeat.objects.using(alias).create(
        table=table, seat=1, player=mine, autoplay=True, timeouts_in_a_row=2
    )
    return user, [mine, other], table


def test_players_of_user_are_those_of_the_login(store_alias: str) -> None:
    user, (mine, other), _ = _seated(store_alias)
    ids = [other.pk, mine.pk, 9999]
    assert sql.players_of_user(user.pk, ids, store_alias) == {mine.pk}
    assert sql.players_of_user(user.pk, [], store_alias) == set()


def test_table_seats_reads_each_seat(store_alias: str) -> None:
    _, _, table = _seated(store_alias)
    assert sorted(sql.table_seats(table.pk, store_alias)) == [(0, False, 0), (1, True, 2)]


def test_seated_players_are_the_seats_in_order_with_their_players_and_client_seeds(
    store_alias: str,
) -> None:
    user, (mine, other), table = _seated(store_alias)
    Player.objects.using(store_alias).filter(pk=other.pk).update(bot_level="heuristic")
    assert sql.seated_players(table.pk, store_alias) == [
        sql.SeatedPlayer(0, other.pk, "Bob", "heuristic", None, ""),
        sql.SeatedPlayer(1, mine.pk, "Ann", "", user.pk, ""),  # a login without a seed
    ]
    ClientSeed.objects.using(store_alias).create(user=user, seed="mine")
    assert sql.seated_players(table.pk, store_alias)[1].client_seed == "mine"
    assert sql.seated_players(table.pk + 1000, store_alias) == []


def test_table_for_update_and_its_next_commitment(store_alias: str) -> None:
    _, _, table = _seated(store_alias)
    sql.set_next_commitment(table.pk, "c" * 64, store_alias)
    with transaction.atomic(using=store_alias):
        found = sql.table_for_update(table.pk, store_alias)
        assert sql.table_for_update(table.pk + 1000, store_alias) is None
    assert found is not None
    fields = Table._meta.concrete_fields
    again = Table.objects.using(store_alias).get(pk=table.pk)
    assert again.next_commitment == "c" * 64
    assert [getattr(found, f.attname) for f in fields] == [
        getattr(again, f.attname) for f in fields
    ]
    with pytest.raises(DatabaseError):
        sql.set_next_commitment(table.pk + 1000, "c" * 64, store_alias)


def test_player_users_are_the_logins_of_the_players_that_have_one(store_alias: str) -> None:
    user, (mine, other), _ = _seated(store_alias)
    assert sql.player_users([other.pk, mine.pk, mine.pk, 9999], store_alias) == {mine.pk: user.pk}
    assert sql.player_users([], store_alias) == {}


def test_next_game_of_table_is_the_next_dealt_in_its_series(store_alias: str) -> None:
    _, _, table = _seated(store_alias)
    first = _game(store_alias, table=table, number_in_series=1)
    assert sql.next_game_of_table(table.pk, 1, store_alias) is None
    third = _game(store_alias, table=table, number_in_series=3)
    second = _game(store_alias, table=table, number_in_series=2)
    _game(store_alias, number_in_series=2)  # another table's
    assert sql.next_game_of_table(table.pk, 1, store_alias) == second.pk
    assert sql.next_game_of_table(table.pk, 2, store_alias) == third.pk
    assert first.pk < third.pk < second.pk


def test_table_round_reads_the_table_s_round_and_tournament(store_alias: str) -> None:
    _, _, table = _seated(store_alias)
    round_ = Round.objects.using(store_alias).get(pk=table.round_id)
    assert sql.table_round(table.pk, store_alias) == (
        Round.Status.SEATED,
        1,
        round_.tournament_id,
        Tournament.Status.REGISTRATION,
        1,
        False,
        Tournament.objects.using(store_alias).get(pk=round_.tournament_id).club_id,
        round_.pk,
    )
    assert sql.table_round(table.pk + 1000, store_alias) is None


def test_table_tournament_shared_reads_the_rows_as_the_orm_does(store_alias: str) -> None:
    _, _, table = _seated(store_alias)
    round_ = Round.objects.using(store_alias).get(pk=table.round_id)
    tournament = Tournament.objects.using(store_alias).get(pk=round_.tournament_id)
    with transaction.atomic(using=store_alias):
        found = sql.table_tournament_shared(table.pk, store_alias)
        assert sql.table_tournament_shared(table.pk + 1000, store_alias) is None
    assert found is not None
    for loaded, row in zip(found, (tournament, round_), strict=True):
        fields = type(row)._meta.concrete_fields
        assert [getattr(loaded, f.attname) for f in fields] == [
            getattr(row, f.attname) for f in fields
        ]


def test_token_is_live_until_revoked_or_its_login_is_inactive(store_alias: str) -> None:
    user = User.objects.db_manager(store_alias).create_user("ann")
    token = ApiToken.objects.using(store_alias).create(user=user, prefix="p", key_hash="h" * 64)
    assert sql.token_is_live(token.pk, store_alias)
    assert not sql.token_is_live(token.pk + 1000, store_alias)
    User.objects.using(store_alias).filter(pk=user.pk).update(is_active=False)
    assert not sql.token_is_live(token.pk, store_alias)
    User.objects.using(store_alias).filter(pk=user.pk).update(is_active=True)
    ApiToken.objects.using(store_alias).filter(pk=token.pk).update(revoked_at=timezone.now())
    assert not sql.token_is_live(token.pk, store_alias)


def test_game_for_caller_reads_the_row_the_players_the_token_and_the_seats_in_one_statement(
    store_alias: str,
) -> None:
    user, (mine, _), table = _seated(store_alias)
    elsewhere = Club.objects.using(store_alias).create(name="D", slug="d")
    also = Player.objects.using(store_alias).create(club=elsewhere, name="Ann", user=user)
    game = _game(store_alias, table=table)
    token = ApiToken.objects.using(store_alias).create(user=user, prefix="p", key_hash="h" * 64)
    connection = connections[store_alias]
    with CaptureQueriesContext(connection) as captured:
        found = sql.game_for_caller(
            game.pk, user.pk, token_id=token.pk, seats=True, using=store_alias
        )
    assert len(captured) == 1 and found is not None
    fields = Game._meta.concrete_fields
    assert [getattr(found.game, f.attname) for f in fields] == [
        getattr(game, f.attname) for f in fields
    ]
    assert found.players == {mine.pk, also.pk}
    assert found.live is True
    assert found.seats is not None and sorted(found.seats) == [(0, False, 0), (1, True, 2)]
    assert sorted(found.seats) == sorted(sql.table_seats(table.pk, store_alias))

    # Only what is asked; nobody's players for an anonymous caller.
    plain = sql.game_for_caller(game.pk, None, using=store_alias)
    assert plain is not None and plain.game == found.game
    assert (plain.players, plain.live, plain.seats) == (frozenset(), None, None)
    other = User.objects.db_manager(store_alias).create_user("bob")
    assert sql.game_for_caller(game.pk, other.pk, using=store_alias).players == frozenset()  # type: ignore[union-attr]
    # A game at no table has no seats; no game, no answer.
    lone = _game(store_alias)
    assert sql.game_for_caller(lone.pk, user.pk, seats=True, using=store_alias).seats is None  # type: ignore[union-attr]
    assert (
        sql.game_for_caller(game.pk + 1000, user.pk, token_id=token.pk, using=store_alias) is None
    )

    # The token's life: a revoked token, or an unknown one, is not live.
    stale = sql.game_for_caller(game.pk, user.pk, token_id=token.pk + 1000, using=store_alias)
    assert stale is not None and stale.live is False
    ApiToken.objects.using(store_alias).filter(pk=token.pk).update(revoked_at=timezone.now())
    revoked = sql.game_for_caller(game.pk, user.pk, token_id=token.pk, using=store_alias)
    assert revoked is not None and revoked.live is False


def test_token_owner_finds_the_live_token_and_says_if_it_is_stale(store_alias: str) -> None:
    user = User.objects.db_manager(store_alias).create_user("ann")
    now = timezone.now()
    token = ApiToken.objects.using(store_alias).create(
        user=user, prefix="p", key_hash="h" * 64, last_used_at=now - timedelta(minutes=5)
    )
    found = sql.token_owner("h" * 64, now - timedelta(minutes=1), store_alias)
    assert found is not None
    owner, loaded, stale = found
    assert (owner.pk, loaded.pk, loaded.user_id, stale) == (user.pk, token.pk, user.pk, True)
    found = sql.token_owner("h" * 64, now - timedelta(minutes=10), store_alias)
    assert found is not None and found[2] is False
    assert sql.token_owner("x" * 64, now, store_alias) is None
    ApiToken.objects.using(store_alias).filter(pk=token.pk).update(revoked_at=now)
    assert sql.token_owner("h" * 64, now, store_alias) is None


def test_tournament_game_streams_names_the_games_of_its_tables(store_alias: str) -> None:
    _, _, table = _seated(store_alias)
    mine = _game(store_alias, table=table)
    _game(store_alias)  # a game outside any tournament
    streams = sql.tournament_game_streams(table.round.tournament_id)
    with connections[store_alias].cursor() as cursor:
        cursor.execute(streams.sql, list(streams.params))
        assert [name for (name,) in cursor.fetchall()] == [f"game-{mine.pk}"]
    append(f"game-{mine.pk}", [NewEvent("x", {"n": 1})], expected_sequence=0, using=store_alias)
    append("game-999999", [NewEvent("x", {"n": 2})], expected_sequence=0, using=store_alias)
    found = read_all(within=streams, using=store_alias)
    assert [e.stream for e in found] == [f"game-{mine.pk}"]


def test_lock_club_creation_is_taken_inside_a_transaction_only(store_alias: str) -> None:
    from django.db import transaction

    with transaction.atomic(using=store_alias):
        sql.lock_club_creation(store_alias)
        sql.lock_club_creation(store_alias)  # taken again by its holder: no wait
    with pytest.raises(RuntimeError, match="open one first"):
        sql.lock_club_creation(store_alias)


def test_lock_player_names_is_taken_inside_a_transaction_only(store_alias: str) -> None:
    from django.db import transaction

    with transaction.atomic(using=store_alias):
        sql.lock_player_names(7, store_alias)
        sql.lock_player_names(7, store_alias)  # taken again by its holder: no wait
    with pytest.raises(RuntimeError, match="open one first"):
        sql.lock_player_names(7, store_alias)


def test_account_notices_are_read_after_a_position_in_order_and_for_their_login_only(
    store_alias: str,
) -> None:
    user, _, _ = _seated(store_alias)
    other = User.objects.db_manager(store_alias).create_user("bob")
    game = _game(store_alias)
    assert sql.last_account_position(user.pk, store_alias) == (0, 0)
    made = [
        AccountNotice.objects.using(store_alias).create(
            user=who, game=game, seat=seat, sequence=seq, kind="turn"
        )
        for who, seat, seq in [(user, 1, 1), (other, 0, 2), (user, 1, 3), (user, 1, 4)]
    ]
    rows = sql.account_notices_after(user.pk, 0, 0, 10, store_alias)
    assert [(game_id, seat, seq, kind) for _, _, game_id, seat, seq, kind in rows] == [
        (game.pk, 1, 1, "turn"),
        (game.pk, 1, 3, "turn"),
        (game.pk, 1, 4, "turn"),
    ]
    assert [row for _, row, *_ in rows] == [made[0].pk, made[2].pk, made[3].pk]
    first = rows[0][:2]
    assert [r[4] for r in sql.account_notices_after(user.pk, *first, 1, store_alias)] == [3]
    assert sql.last_account_position(user.pk, store_alias) == rows[-1][:2]


def test_a_row_update_and_account_notices_are_written_along_an_append_in_its_transaction(
    store_alias: str,
) -> None:
    user, _, _ = _seated(store_alias)
    game = _game(store_alias)
    assert sql.account_notices_along([]) is None
    game.players = ["not", "written"]
    along = [
        sql.update_along(
            game, {"sequence": 1, "deadlines": {"1": "soon"}}, {"last_event": LAST_ID}, store_alias
        ),
        sql.account_notices_along(
            [(user.pk, game.pk, 1, 5, "turn"), (user.pk, game.pk, 1, 5, "finished")]
        ),
    ]
    event = NewEvent("move", {"type": "move"})
    (stored,) = store.append(
        game.stream, [event], expected_sequence=0, using=store_alias, along=[a for a in along if a]
    ).events
    row = Game.objects.using(store_alias).get(pk=game.pk)
    assert (row.sequence, row.deadlines, row.last_event, row.players) == (
        1,
        {"1": "soon"},
        stored.position.id,
        [],
    )
    rows = list(
        AccountNotice.objects.using(store_alias)
        .order_by("id")
        .values_list("user_id", "game_id", "seat", "sequence", "kind", "tx")
    )
    assert [row[:5] for row in rows] == [
        (user.pk, game.pk, 1, 5, "turn"),
        (user.pk, game.pk, 1, 5, "finished"),
    ]
    # PostgreSQL: the append's transaction (the column's default), as its event's; SQLite: 0.
    postgres = connections[store_alias].vendor == "postgresql"
    assert all(row[5] == (stored.position.tx if postgres else 0) for row in rows)


def test_a_prepared_game_row_survives_a_column_added_under_it(store_alias: str) -> None:
    """A migration (another process) adds a column while processes run: their prepared
    statements must go on (PostgreSQL refuses a prepared ``SELECT *`` whose result's
    shape changed; psycopg forgets its prepared statements only after DDL on its own
    connection)."""
    game = _game(store_alias)
    for _ in range(6):  # past psycopg's prepare_threshold: prepared on this connection
        assert sql.game_row(game.pk, store_alias) is not None
    if connections[store_alias].vendor != "postgresql":
        return  # SQLite: one process's connection, nothing prepared across schema changes
    settings = connections[store_alias].settings_dict
    other = psycopg.connect(
        host=settings["HOST"] or "127.0.0.1",
        port=int(settings["PORT"] or 5432),
        dbname=settings["NAME"],
        user=settings["USER"],
        password=settings.get("PASSWORD") or None,
        autocommit=True,
    )
    try:
        other.execute("ALTER TABLE tournaments_game ADD COLUMN parlour_added integer")
        found = sql.game_row(game.pk, store_alias)
        assert found is not None and found.pk == game.pk
    finally:
        other.execute("ALTER TABLE tournaments_game DROP COLUMN IF EXISTS parlour_added")
        other.close()
