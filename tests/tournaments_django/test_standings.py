"""Standings and club ratings as projections of the games' events."""

from __future__ import annotations

import io
import random

import pytest

from engine.series import SeriesFormat
from tests import factories
from tournaments import services
from tournaments.management.commands.play_bots import run_all_bots
from tournaments.models import Table, TableSeat, Tournament
from tournaments.ratings import Rating, update
from tournaments.standings import (
    club_ratings,
    compute_standings,
    live_standings,
    rating_leaderboard,
    series_results,
)

pytestmark = pytest.mark.django_db


def test_standings_mid_round_count_the_finished_tables_only() -> None:
    club = factories.club()
    robots = factories.bots(club, 6)
    humans = factories.people(club, ["Ann", "Bo", "Cy"])
    t = factories.tournament(club, [*robots, *humans], table_max=3, table_preferred=3)
    services.begin_round(services.start_round(t, auto_check_in=True, rng=random.Random(4)))
    run_all_bots(t)
    finished = Table.objects.filter(status=Table.Status.FINISHED)
    assert 1 <= finished.count() < 3
    lines = {s.player: s for s in compute_standings(t)}
    played = {
        str(p)
        for p in TableSeat.objects.filter(table__in=finished).values_list("player_id", flat=True)
    }
    assert {p for p, s in lines.items() if s.played == 1} == played
    assert len(lines) == 9 and compute_standings(t) == live_standings(t)
    running = [s for s in series_results(t) if not s.over]
    assert running and all(s.placings is None and s.finished_at is None for s in running)


def test_swiss_rounds_are_seated_from_the_standings() -> None:
    club = factories.club()
    t = factories.tournament(
        club, factories.bots(club, 8), rounds=3, table_preferred=4, seating_mode="swiss"
    )
    for number in range(1, 4):
        factories.play_round(t, rng=random.Random(number))
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    assert compute_standings(t) == live_standings(t)


def test_club_ratings_replay_every_finished_table_of_the_game_in_order() -> None:
    club = factories.club()
    robots = factories.bots(club, 7)
    first = factories.tournament(club, robots[:5], rounds=2)
    for number in (1, 2):
        factories.play_round(first, rng=random.Random(number))
    second = services.create_tournament(
        club, "Second", "bhabhi", 1, series=SeriesFormat("losses", 1)
    )
    for player in robots[2:]:
        services.register(second, player)
    factories.play_round(second, rng=random.Random(3))
    other = services.create_tournament(
        club, "Old Maid", "old_maid", 1, series=SeriesFormat("losses", 1)
    )
    for player in robots[:3]:
        services.register(other, player)
    factories.play_round(other, rng=random.Random(4))

    tables = sorted(
        (s for s in series_results([first, second]) if s.over),
        key=lambda s: (s.finished_at, s.table),
    )
    expected: dict[str, Rating] = {}
    for result in tables:
        expected = update(expected, [list(g) for g in result.table_result().placings])
    ratings = club_ratings(club, "bhabhi")
    assert ratings == expected and set(ratings) == {str(p.pk) for p in robots}
    assert club_ratings(club, "bhabhi", from_events=True) == ratings
    assert set(club_ratings(club, "old_maid")) == {str(p.pk) for p in robots[:3]}
    board = rating_leaderboard(club, "bhabhi")
    assert [p.pk for p, _ in board] == [
        int(p) for p, _ in sorted(ratings.items(), key=lambda i: (-i[1].ordinal, int(i[0])))
    ]
    assert club_ratings(factories.club("Empty"), "bhabhi") == {}


def test_a_ratings_request_reads_the_same_rows_however_many_tables_have_finished() -> None:
    # The public player page and GET /ratings read and folded every game of the club's
    # tournaments (found by trying: slower with every club night), then a fold kept per
    # set of finished tables, refolded after each; now each table rates its players as
    # it finishes, and a request reads its rows.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tournaments.services import queries

    club = factories.club()
    robots = factories.bots(club, 6)
    t = factories.tournament(club, robots, rounds=3, table_max=3, table_preferred=3)
    statements = []
    for number in (1, 2, 3):
        factories.play_round(t, rng=random.Random(number))
        with CaptureQueriesContext(connection) as read:
            board = rating_leaderboard(club, "bhabhi")
            history = queries.rating_history(robots[0])
        statements.append(len(read.captured_queries))
        assert not [q for q in read.captured_queries if "tournaments_game" in q["sql"]]
        assert [len(h["points"]) for h in history] == [number]
        assert {str(p.pk): r for p, r in board} == club_ratings(club, "bhabhi", from_events=True)
    assert statements == [2, 2, 2]


def test_tables_finished_before_the_ratings_were_kept_are_rated_in_the_order_they_finished() -> (
    None
):
    # An upgrade: the migration rates the tables finished before it, and
    # ``manage.py rate_tables`` those an older version finished while it ran.
    import importlib

    from django.apps import apps
    from django.core.management import call_command

    from tournaments.models import PlayerRating, RatingStep
    from tournaments.services import queries

    club = factories.club()
    robots = factories.bots(club, 6)
    t = factories.tournament(club, robots, rounds=2, table_max=3, table_preferred=3)
    for number in (1, 2):
        factories.play_round(t, rng=random.Random(number))
    services.forfeit(t, robots[0], 1)  # rated as the standings count it
    kept = club_ratings(club, "bhabhi")
    assert kept == club_ratings(club, "bhabhi", from_events=True)
    history = queries.rating_history(robots[0])
    migration = importlib.import_module("tournaments.migrations.0016_ratings_kept")
    for rate in (
        lambda: migration.rate_finished_tables(apps, None),
        lambda: call_command("rate_tables", stdout=io.StringIO()),
    ):
        RatingStep.objects.all().delete()
        PlayerRating.objects.all().delete()
        rate()
        assert club_ratings(club, "bhabhi") == kept
        assert queries.rating_history(robots[0]) == history
    out = io.StringIO()
    call_command("rate_tables", stdout=out)  # rated already: nothing done twice
    assert " 0 " in out.getvalue() and club_ratings(club, "bhabhi") == kept


def test_a_forfeited_series_is_rated_as_the_standings_count_it_and_again_when_lifted() -> None:
    # A no-show gained rating on a bot's play: the ratings read the raw placings, where the
    # standings put a forfeited series last (found by trying).
    from tournaments.models import Table
    from tournaments.services import queries

    club = factories.club()
    robots = factories.bots(club, 3)
    t = factories.tournament(club, robots, rounds=2, table_max=3, table_preferred=3)
    round_ = factories.begin_round(t, rng=random.Random(1))
    table = Table.objects.get(round=round_)
    placed = {}
    run_all_bots(t)
    table.refresh_from_db()
    first_seat = table.placings[0][0]
    best = TableSeat.objects.get(table=table, seat=first_seat).player
    services.forfeit(t, best, 1)  # decided after the table finished: the ratings made again
    placed["forfeited"] = club_ratings(club, "bhabhi")
    assert placed["forfeited"] == club_ratings(club, "bhabhi", from_events=True)
    assert (
        min(placed["forfeited"].values(), key=lambda r: r.ordinal)
        == placed["forfeited"][str(best.pk)]
    )
    # The player's page counts the table as the standings do (it showed the raw points).
    _, _, points = queries.round_points(t)
    (row,) = queries.player_table_results(best)
    assert row["forfeited"] and row["place"] == 3 and row["points"] == points[str(best.pk)][1] == 0
    # So do the tournament's page and its desk (they listed the raw placings).
    from django.contrib.auth.models import AnonymousUser

    (line,) = queries.rounds_overview(t, AnonymousUser())[0]["tables"]
    last = line["placings"][-1]
    assert last["players"] == [best] and last["place"] == 3 and last["forfeited"]
    assert not any(p["forfeited"] for p in line["placings"][:-1])
    steps = queries.rating_history(best)[0]["points"]
    assert [s["rating"] for s in steps] == [placed["forfeited"][str(best.pk)].display]
    services.unforfeit(t, best, 1)  # lifted: the series counts as played
    placed["lifted"] = club_ratings(club, "bhabhi")
    assert placed["lifted"] == club_ratings(club, "bhabhi", from_events=True)
    assert max(placed["lifted"].values(), key=lambda r: r.ordinal) == placed["lifted"][str(best.pk)]
    # A forfeit decided while the table plays is read when it finishes.
    factories.begin_round(t, rng=random.Random(2))
    services.forfeit(t, best, 2)
    run_all_bots(t)
    assert Table.objects.filter(round__tournament=t, status="finished").count() == 2
    assert club_ratings(club, "bhabhi") == club_ratings(club, "bhabhi", from_events=True)
