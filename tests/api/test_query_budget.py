"""What one request of a seated player costs the database: a budget of SQL statements.

These guard the action path's cost (docs/benchmarks.md, "HTTP load"): every
statement is a round trip to the database on the same cores, and the load
figures depend on how few there are.  They count statements, not time.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.api.conftest import Api
from tests.factories import ClubWorld, club_world, seat_of_name, tournament_game
from tournaments.models import Game
from tournaments.play import state
from tournaments.services import series

pytestmark = pytest.mark.django_db(transaction=True)


def waited_name(world: ClubWorld, game: Game) -> str:
    game.refresh_from_db()
    seat = game.waiting_for[0]
    return next(n for n in ("alice", "bob", "carol") if seat_of_name(world, game, n) == seat)


def statements(call: Any) -> tuple[Any, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        result = call()
    return result, [q["sql"] for q in captured.captured_queries]


def test_a_seated_players_view_of_their_game_costs_four_statements(api: Api) -> None:
    world = club_world()
    _, game = tournament_game(world)
    name = waited_name(world, game)
    api.get(f"/api/v1/games/{game.pk}", token=world.tokens[name])  # the token's last use noted
    (status, body, _), sql = statements(
        lambda: api.get(f"/api/v1/games/{game.pk}", token=world.tokens[name])
    )
    assert status == 200 and body["role"] == "seat"
    # The token with its user, the game row, the caller's seat, the table's seats (issue 22:
    # which seats a bot plays, shown in the view).  The stream is not read: this process
    # has folded up to the event the row names (issue 24).
    assert len(sql) <= 4, "\n".join(sql)


def test_an_action_costs_five_statements_its_writes_one_on_postgresql(
    api: Api,
) -> None:
    world = club_world()
    _, game = tournament_game(world)
    name = waited_name(world, game)
    api.get(f"/api/v1/games/{game.pk}", token=world.tokens[name])
    game.refresh_from_db()
    (status, body, _), sql = statements(
        lambda: api.post(
            f"/api/v1/games/{game.pk}/actions",
            {"action": {"type": "draw", "index": 0}, "expected_sequence": game.sequence},
            token=world.tokens[name],
            headers={"Idempotency-Key": "budget-1"},
        )
    )
    assert status == 200, body
    # The draw, and the server's shuffle of the drawer's fan when two or more cards are left.
    assert body["sequence"] == game.sequence + (2 if len(body["view"]["hand"]) >= 2 else 1)
    # Token, game row, seat (the stream is not read: this process has folded up to the
    # event the row names; the idempotency key is looked up only for a command refused,
    # issue 24); the move's writes: the store's conditional INSERT, the projection's
    # UPDATE, the account feed's INSERT (issue 22: the seat now waited for is told); after
    # them, the table's seats (bots, timeouts), which the answer's view uses too (issue 22:
    # which seats a bot plays).  The view comes from the state the command folded.
    writes = [q for q in sql if "tournaments_game SET" in q]
    assert len(writes) == 1, "\n".join(sql)
    if connection.vendor == "postgresql":
        # The three writes as one statement in autocommit mode: no BEGIN, no COMMIT, no
        # savepoint (issue 24: five round trips where there were nine).
        assert len(sql) <= 5, "\n".join(sql)
        (write,) = writes
        assert write.startswith("WITH appended AS (INSERT INTO events_event"), write
        assert "INSERT INTO tournaments_accountnotice" in write, write
    else:
        # SQLite: BEGIN, the INSERT, the UPDATE, the notice's INSERT, COMMIT.
        assert len(sql) <= 9, "\n".join(sql)
    # The projection's UPDATE writes what a move changes, not what the deal set (the
    # context, the players' names, the options: JSON encoded and sent again, issue 24).
    (update,) = writes
    assert '"sequence" = ' in update and '"waiting_for" = ' in update, update
    assert not any(f'"{name}" = ' in update for name in ("context", "players", "options")), update


def test_a_move_that_ends_a_deal_and_deals_the_next_costs_20_statements_and_no_savepoint(
    api: Api,
) -> None:
    """A deal's last move also runs the series hook and deals the next game, in its own
    transaction.  The hook and the deal take no savepoints of their own (issue 24: they
    were two statements each), nor the move's append (a lost race ends the move's
    transaction, issue 24), nor the appends of the next game's commitment and deal (their
    streams are written only with the table's row locked, or made with the game's row)."""
    world = club_world()
    _, game = tournament_game(world, names=("alice", "bob"), deals=3)
    ending: list[str] | None = None
    for number in range(200):
        name = waited_name(world, game)
        token = world.tokens[name]
        _, view, _ = api.get(f"/api/v1/games/{game.pk}", token=token)
        action = next(a for a in view["legal_actions"] if a["type"] != "arrange")
        move = {"action": action, "expected_sequence": view["sequence"]}
        key = {"Idempotency-Key": f"end-{number}"}
        (status, body, _), sql = statements(
            partial(api.post, f"/api/v1/games/{game.pk}/actions", move, token=token, headers=key)
        )
        assert status == 200, body
        if body["view"]["status"] == "over":
            assert body["view"]["next_game_id"] is not None  # the hook dealt the next
            ending = sql
            break
    assert ending is not None, "the deal did not end in 200 moves"
    assert not [q for q in ending if "SAVEPOINT" in q], "\n".join(ending)
    # The reads of a move (above), BEGIN; its append with its projection and account
    # notices (one statement on PostgreSQL); the hook's reads and locks (on PostgreSQL the
    # tournament's advisory lock; the tournament and round in one statement, both shared
    # with the other tables' hooks; the table's row with the series' running totals;
    # whether a later game is dealt already; the seats with their players' client seeds
    # and logins), the next seed's commitment (its read, its append), the table's one
    # UPDATE (the series' totals and the next commitment, before the deal), the new row,
    # its deal's append with its projection and account notices (one statement on
    # PostgreSQL);
    # COMMIT; after the commit, the seats for each of the two games, the round (is it
    # over?), and for the answer's view the round (revealed?).  Not the new players'
    # logins (read with the seats), nor the finished game's deal for its seed, nor the
    # next game's id for the answer: this process dealt both (issue 24).
    limit = 20 if connection.vendor == "postgresql" else 24
    assert len(ending) <= limit, "\n".join(ending)
    deal = [q for q in ending if q.startswith("SELECT") and "stream = 'game-" in q]
    assert deal == [], "\n".join(ending)
    table_updates = [q for q in ending if q.startswith("UPDATE tournaments_table")]
    assert len(table_updates) == 1, "\n".join(ending)
    # A process that did not deal them reads them: the same answer.
    _, seen, _ = api.get(f"/api/v1/games/{game.pk}", token=token)
    state._deals.clear()
    series._next_deals.clear()
    _, read, _ = api.get(f"/api/v1/games/{game.pk}", token=token)
    assert read["next_game_id"] == seen["next_game_id"] == body["view"]["next_game_id"]
    assert read["seed"] == seen["seed"] and read["seed"], read
