"""The proof of issue 7: a whole bot tournament through the game service and the event store.

23 Bhabhi bots, 4 rounds, each table a series of 2 deals counted in losses.
Every game is an event stream; the tables' series, the standings and the club
ratings are checked against what the events say, and again after every game
row was deleted and rebuilt from the events alone.
"""

from __future__ import annotations

import random
import time
from collections import Counter, defaultdict
from fractions import Fraction

import pytest

from engine import series as series_rules
from engine.registry import get_game
from engine.series import SeriesFormat
from events import store
from tests import factories
from tournaments import play as game_service
from tournaments.models import Game, Round, Table, TableSeat, Tournament
from tournaments.scoring import table_points
from tournaments.seating import table_sizes
from tournaments.standings import club_ratings, compute_standings, live_standings

pytestmark = pytest.mark.django_db

PLAYERS = 23
ROUNDS = 4
SERIES = SeriesFormat("losses", 2)


def test_a_23_player_bhabhi_bot_tournament_is_played_and_scored_from_its_events() -> None:
    started = time.perf_counter()
    club = factories.club()
    bots = factories.bots(club, PLAYERS)
    t = factories.tournament(club, bots, rounds=ROUNDS, series=SERIES, table_preferred=4)

    for number in range(1, ROUNDS + 1):
        round_ = factories.play_round(t, rng=random.Random(number))
        assert round_.number == number and round_.status == Round.Status.FINISHED
        seats = TableSeat.objects.filter(table__round=round_)
        seated = [s.player_id for s in seats]
        # Every checked-in player at exactly one table, tables as table_sizes says.
        assert sorted(seated) == sorted(p.pk for p in bots) and round_.byes == []
        sizes = sorted(Counter(s.table_id for s in seats).values(), reverse=True)
        assert sizes == table_sizes(PLAYERS, 3, 8, 4)[0] == [4, 4, 4, 4, 4, 3]
    played = time.perf_counter() - started
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED

    games = list(Game.objects.filter(table__round__tournament=t))
    tables = list(Table.objects.filter(round__tournament=t))
    assert len(tables) == 6 * ROUNDS and len(games) == 2 * len(tables)
    assert all(g.is_over for g in games)
    assert all(table.status == Table.Status.FINISHED for table in tables)

    # Every game is its event stream: the fold gives the stored result, bots made the moves.
    for game in games:
        events = store.read_stream(game.stream)
        assert events[0].type == "dealt" and events[0].payload["table"]["context"] == game.context
        engine = get_game("bhabhi")
        assert engine.outcome(engine.fold(e.payload for e in events)) == game.result
        assert {e.cause_kind for e in events[1:]} <= {"bot", "system"}

    # Each table's series: two games, the deal passing left, placings from the results.
    for table in tables:
        series = sorted((g for g in games if g.table_id == table.pk), key=lambda g: g.pk)
        assert [g.number_in_series for g in series] == [1, 2]
        assert series[0].dealer == table.first_dealer
        assert series[1].dealer == series_rules.next_dealer(series[0].dealer, series[0].seats)
        results = [g.result for g in series]
        assert series_rules.is_over(SERIES, results, series[0].seats)
        assert table.placings == series_rules.placings(SERIES, results, series[0].seats)
        players = [s.player_id for s in TableSeat.objects.filter(table=table).order_by("seat")]
        assert [c["player"] for c in series[0].context["seats"]] == players

    # The standings add up the table points of the series results.
    expected: dict[str, Fraction] = defaultdict(Fraction)
    for table in tables:
        order = [str(s.player_id) for s in TableSeat.objects.filter(table=table).order_by("seat")]
        groups = [[order[seat] for seat in group] for group in table.placings or []]
        for player, points in table_points(groups).items():
            expected[player] += points
    live = live_standings(t)
    assert {s.player: s.points for s in live} == expected
    assert all(s.played == ROUNDS and s.byes == 0 and not s.dropped for s in live)
    assert sum(s.points for s in live) == Fraction(PLAYERS * ROUNDS, 2)
    assert [s.rank for s in live] == sorted(s.rank for s in live) and live[0].rank == 1
    assert compute_standings(t) == live
    assert compute_standings(t, from_events=False) == live
    ratings = club_ratings(club, "bhabhi")
    assert set(ratings) == {str(p.pk) for p in bots}

    # Rebuilt from the events alone: delete every game row, rebuild, compare.
    Game.objects.all().delete()
    assert game_service.rebuild_projections() == len(games)
    rebuilt = {g.pk: g for g in Game.objects.filter(table__round__tournament=t)}
    assert {g.pk: (g.table_id, g.number_in_series, g.result) for g in games} == {
        pk: (g.table_id, g.number_in_series, g.result) for pk, g in rebuilt.items()
    }
    assert compute_standings(t, from_events=False) == live
    assert compute_standings(t) == live
    assert club_ratings(club, "bhabhi") == ratings
    print(f"\n23-player bot tournament: {len(games)} games played in {played:.1f}s")


#: A series of each kind, long enough for several deals (Give Away's may be drawn).
KINDS = [
    ("old_maid", {"kind": "losses", "target": 5}),
    ("give_away", {"kind": "first_to", "target": 3}),
    ("give_and_take", {"kind": "place_points", "target": 3}),
]


@pytest.mark.parametrize("kind,series", KINDS, ids=[k for k, _ in KINDS])
def test_a_game_s_end_reads_none_of_the_series_earlier_games_and_keeps_its_totals(
    kind: str, series: dict[str, object]
) -> None:
    """The series hook keeps the series' running totals on the table's row: reading every
    earlier game at each deal's end made a deal's end cost grow with the series
    (docs/benchmarks.md, issue 24).  The totals, and the placings from them, are what the
    games' results say."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    night, _ = factories.table_tournament(kind, bots=["random", "random", "random"], series=series)
    with CaptureQueriesContext(connection) as captured:
        factories.play_round(night)
    table = Table.objects.get(round__tournament=night)
    games = list(Game.objects.filter(table=table).order_by("number_in_series"))
    assert len(games) >= 3
    series_reads = [
        q["sql"]
        for q in captured.captured_queries
        if "FROM tournaments_game WHERE table_id = " in q["sql"].replace('"', "")
        and "LIMIT" not in q["sql"]
    ]
    assert series_reads == []
    fmt = SeriesFormat.from_json(night.series)
    results = [g.result for g in games]
    assert table.status == Table.Status.FINISHED
    assert table.series_deals == len(games) == games[-1].number_in_series
    assert table.series_scores == series_rules.scores(fmt, results, 3)
    assert table.placings == series_rules.placings(fmt, results, 3)


def test_the_migration_counts_the_games_tables_have_ended() -> None:
    """Tables made before the running totals get the totals of the games they ended."""
    import importlib
    from types import SimpleNamespace

    from django.apps import apps
    from django.db import connection

    migration = importlib.import_module("tournaments.migrations.0014_table_series_totals")
    night, _ = factories.table_tournament(
        "old_maid", bots=["random", "random"], series={"kind": "losses", "target": 3}
    )
    factories.play_round(night)
    table = Table.objects.get(round__tournament=night)
    kept = (table.series_deals, table.series_scores)
    assert kept[0] == 3
    Table.objects.filter(pk=table.pk).update(series_deals=0, series_scores=[])
    migration.count_ended_games(apps, SimpleNamespace(connection=connection))
    table.refresh_from_db()
    assert (table.series_deals, table.series_scores) == kept


def test_a_table_whose_totals_fell_behind_its_games_recounts_them_and_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """During an upgrade, a Parlour from before the running totals, still running beside
    the migrated database, ends games as it always did: it deals the next game and counts
    nothing.  The series must go on (it stalled: the next game's end found itself not the
    next to count, 2026-12-06, a club night upgraded under `make run`), its totals
    recounted from the games, and end with the placings the games' results say."""
    from tournaments.services import series as series_service

    night, _ = factories.table_tournament(
        "old_maid", bots=["random", "random", "random"], series={"kind": "losses", "target": 5}
    )
    counted = series_service.game_over

    def as_the_older_version_for_games_2_and_3(game: Game) -> None:
        before = Table.objects.values_list("series_deals", "series_scores").get(pk=game.table_id)
        counted(game)
        if game.number_in_series in (2, 3):  # dealt the next game, counted nothing
            Table.objects.filter(pk=game.table_id).update(
                series_deals=before[0], series_scores=before[1]
            )

    monkeypatch.setattr(series_service, "game_over", as_the_older_version_for_games_2_and_3)
    factories.play_round(night)
    table = Table.objects.get(round__tournament=night)
    games = list(Game.objects.filter(table=table).order_by("number_in_series"))
    fmt = SeriesFormat.from_json(night.series)
    results = [g.result for g in games]
    assert [g.number_in_series for g in games] == [1, 2, 3, 4, 5]
    assert table.status == Table.Status.FINISHED
    assert table.series_deals == 5
    assert table.series_scores == series_rules.scores(fmt, results, 3)
    assert table.placings == series_rules.placings(fmt, results, 3)


def test_the_hook_called_again_for_a_game_whose_next_is_dealt_does_nothing_while_totals_lag(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Called twice for the same game the hook changes nothing, even for a game an older
    version ended (it dealt the next game and counted nothing): it dealt that next game
    a second time (found by review)."""
    from tournaments.services import series as series_service

    night, _ = factories.table_tournament(
        "old_maid", bots=["random", "random"], series={"kind": "losses", "target": 4}
    )
    counted = series_service.game_over
    ended: list[Game] = []

    def as_the_older_version_for_game_2(game: Game) -> None:
        before = Table.objects.values_list("series_deals", "series_scores").get(pk=game.table_id)
        counted(game)
        if game.number_in_series == 2:
            Table.objects.filter(pk=game.table_id).update(
                series_deals=before[0], series_scores=before[1]
            )
            ended.append(game)

    monkeypatch.setattr(series_service, "game_over", as_the_older_version_for_game_2)
    factories.play_round(night)
    table = Table.objects.get(round__tournament=night)
    numbers = list(Game.objects.filter(table=table).values_list("number_in_series", flat=True))
    Table.objects.filter(pk=table.pk).update(series_deals=1, status=Table.Status.PLAYING)
    series_service.game_over(Game.objects.get(pk=ended[0].pk))
    again = list(Game.objects.filter(table=table).values_list("number_in_series", flat=True))
    assert sorted(again) == sorted(numbers) == [1, 2, 3, 4]
