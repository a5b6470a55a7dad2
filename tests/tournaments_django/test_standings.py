"""Standings and club ratings as projections of the games' events."""

from __future__ import annotations

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


def test_a_ratings_request_reads_no_game_once_the_finished_tables_are_folded() -> None:
    # The public player page and GET /ratings read and folded every game of the club's
    # tournaments on every request (found by trying: slower with every club night).
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tournaments.services import queries

    club = factories.club()
    robots = factories.bots(club, 6)
    t = factories.tournament(club, robots, rounds=2, table_max=3, table_preferred=3)
    factories.play_round(t, rng=random.Random(1))
    first = club_ratings(club, "bhabhi")
    with CaptureQueriesContext(connection) as read:
        assert club_ratings(club, "bhabhi") == first
        history = queries.rating_history(robots[0])
    assert not [q for q in read.captured_queries if "tournaments_game" in q["sql"]], [
        q["sql"] for q in read.captured_queries
    ]
    assert len(read.captured_queries) <= 4  # the tables' count, the player's games' kinds
    assert [len(h["points"]) for h in history] == [1]
    # A table that finishes is a new fold, the same as folding the events again.
    factories.play_round(t, rng=random.Random(2))
    assert club_ratings(club, "bhabhi") == club_ratings(club, "bhabhi", from_events=True)
    assert club_ratings(club, "bhabhi") != first
    assert [len(h["points"]) for h in queries.rating_history(robots[0])] == [2]
