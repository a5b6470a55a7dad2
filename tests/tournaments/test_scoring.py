"""Tournament points per table and the standings with their tiebreaks."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.series import SeriesFormat, placings
from tournaments.scoring import (
    BYE_POINTS,
    RoundResult,
    TableResult,
    standings,
    table_points,
)

F = Fraction


def _table(*groups: str) -> TableResult:
    """A table from groups written as strings of one-letter ids: ``_table("a", "bc", "d")``."""
    return TableResult(tuple(tuple(group) for group in groups))


# -- points of one table ---------------------------------------------------------------------


def test_a_table_of_three_scores_one_half_and_nothing() -> None:
    assert table_points([["a"], ["b"], ["c"]]) == {"a": 1, "b": F(1, 2), "c": 0}


def test_a_table_of_five_scores_in_quarters() -> None:
    points = table_points([["a"], ["b"], ["c"], ["d"], ["e"]])
    assert points == {"a": 1, "b": F(3, 4), "c": F(1, 2), "d": F(1, 4), "e": 0}


def test_players_sharing_a_place_share_its_average_points() -> None:
    assert table_points([["a", "b"], ["c"]]) == {"a": F(3, 4), "b": F(3, 4), "c": 0}
    third = F(1, 3)  # places 2-4 of 4 average 3: (4 - 3) / 3
    assert table_points([["a"], ["b", "c", "d"]]) == {"a": 1, "b": third, "c": third, "d": third}
    assert table_points([["a", "b", "c"]]) == {"a": F(1, 2), "b": F(1, 2), "c": F(1, 2)}


@settings(max_examples=200)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=8).filter(lambda g: sum(g) >= 2))
def test_every_table_size_hands_out_half_a_point_per_player_on_average(groups: list[int]) -> None:
    players = iter(f"p{i}" for i in range(sum(groups)))
    points = table_points([[next(players) for _ in range(g)] for g in groups])
    assert sum(points.values()) == F(sum(groups), 2)
    assert all(0 <= p <= 1 for p in points.values())
    values = [points[f"p{i}"] for i in range(sum(groups))]
    assert values == sorted(values, reverse=True)


def test_a_table_needs_two_players() -> None:
    with pytest.raises(ValueError):
        table_points([["a"]])
    with pytest.raises(ValueError):
        TableResult((("a",), ("a",)))


def test_a_table_result_maps_series_seats_to_players() -> None:
    fmt = SeriesFormat("losses", 3)
    deals = [{"loser": 2}, {"loser": 2}, {"loser": 0}]
    result = TableResult.from_seats(("ann", "bob", "cy"), placings(fmt, deals, 3))
    assert result.placings == (("bob",), ("ann",), ("cy",))


# -- standings ----------------------------------------------------------------------------------


def test_standings_order_by_points_with_byes_scoring_half() -> None:
    rounds = [RoundResult((_table("a", "b", "c"),), byes=("d",))]
    table = standings(rounds)
    assert [(s.player, s.points) for s in table] == [
        ("a", F(1)),
        ("b", F(1, 2)),
        ("d", BYE_POINTS),
        ("c", F(0)),
    ]
    # b and d both have ½; b's opponents average ½, d met nobody (0).
    assert [s.rank for s in table] == [1, 2, 3, 4]
    assert table[2].byes == 1 and table[2].played == 0 and table[2].opponents_points == 0


def test_equal_points_are_split_by_opponents_average_points() -> None:
    rounds = [
        RoundResult((_table("a", "b"), _table("c", "d"), _table("e", "f"))),
        RoundResult((_table("c", "a"), _table("e", "b"), _table("d", "f"))),
    ]
    table = {s.player: s for s in standings(rounds)}
    assert table["c"].points == table["e"].points == 2
    # c met d (1 point) and a (1): average 1; e met f (0) and b (0): average 0.
    assert table["c"].opponents_points == 1 and table["e"].opponents_points == 0
    assert (table["c"].rank, table["e"].rank) == (1, 2)


def test_players_tied_on_points_and_opponents_are_split_head_to_head() -> None:
    rounds = [
        RoundResult((_table("f", "b"), _table("e", "c"), _table("a", "d"))),
        RoundResult((_table("b", "a"), _table("d", "c"), _table("e", "f"))),
    ]
    table = {s.player: s for s in standings(rounds)}
    # a and b both have 1 point and opponents averaging 1; b beat a when they met.
    assert (table["a"].points, table["a"].opponents_points) == (F(1), F(1))
    assert (table["b"].points, table["b"].opponents_points) == (F(1), F(1))
    assert (table["b"].head_to_head, table["a"].head_to_head) == (1, -1)
    assert (table["b"].rank, table["a"].rank) == (3, 4)


def test_then_fewer_last_places_rank_higher_and_full_ties_share_a_rank() -> None:
    rounds = [
        RoundResult((_table("e", "f", "b"), _table("c", "d", "a"))),
        RoundResult((_table("e", "d", "b"), _table("a", "f", "c"))),
    ]
    table = standings(rounds)
    # d, f, a and c: 1 point, opponents 1, head-to-head 0 each; a and c were last once.
    assert [(s.player, s.rank, s.last_places) for s in table[1:5]] == [
        ("d", 2, 0),
        ("f", 2, 0),
        ("a", 4, 1),
        ("c", 4, 1),
    ]
    assert all(s.head_to_head == 0 and s.opponents_points == 1 for s in table[1:5])


def test_players_equal_on_every_tiebreak_share_a_rank_listed_by_id() -> None:
    rounds = [RoundResult((_table("ab", "cd"),))]
    table = standings(rounds)
    assert [s.player for s in table] == ["a", "b", "c", "d"]
    assert [s.rank for s in table] == [1, 1, 3, 3]


def test_a_dropped_player_keeps_their_results_and_is_marked() -> None:
    rounds = [
        RoundResult((_table("a", "b", "c"),)),
        RoundResult((_table("b", "c"),)),
    ]
    table = {s.player: s for s in standings(rounds, dropped={"a"})}
    assert table["a"].dropped and table["a"].points == 1 and table["a"].played == 1
    assert not table["b"].dropped
    # a's point still counts for the opponents b and c met in round 1.
    assert table["c"].opponents_points == F(1 + F(3, 2) + F(3, 2), 3)


def test_a_registered_player_without_results_stands_on_zero() -> None:
    table = standings([RoundResult((_table("a", "b"),))], players=["a", "b", "late"])
    assert [(s.player, s.points, s.played) for s in table][-1] == ("late", F(0), 0)


def test_standings_survive_json() -> None:
    line = standings([RoundResult((_table("a", "b", "c"),))])[1].to_json()
    assert line["player"] == "b" and line["points"] == 0.5 and line["rank"] == 2


def test_a_player_in_two_places_of_one_round_is_refused() -> None:
    with pytest.raises(ValueError):
        RoundResult((_table("a", "b"),), byes=("a",))


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 30), st.integers(1, 5))
def test_standings_points_are_the_sum_of_table_points_and_byes(
    seed: int, n: int, rounds_played: int
) -> None:
    rng = random.Random(seed)
    players = [f"p{i}" for i in range(n)]
    rounds = []
    expected: dict[str, Fraction] = {p: F(0) for p in players}
    for _ in range(rounds_played):
        order = list(players)
        rng.shuffle(order)
        tables, byes = [], tuple(order[: rng.randrange(0, 2)])
        rest = order[len(byes) :]
        while len(rest) >= 2:
            size = min(len(rest), rng.randrange(2, 9))
            if len(rest) - size == 1:
                size -= 1 if size > 2 else -1
            seated, rest = rest[:size], rest[size:]
            groups: list[list[str]] = []
            for player in seated:
                if groups and rng.random() < 0.3:
                    groups[-1].append(player)
                else:
                    groups.append([player])
            tables.append(TableResult(tuple(tuple(g) for g in groups)))
            for player, points in table_points(groups).items():
                expected[player] += points
        byes += tuple(rest)
        for player in byes:
            expected[player] += BYE_POINTS
        rounds.append(RoundResult(tuple(tables), byes))
    table = standings(rounds, players)
    assert {s.player: s.points for s in table} == expected
    assert [s.points for s in table] == sorted(expected.values(), reverse=True)
    assert all(a.rank <= b.rank for a, b in zip(table, table[1:], strict=False))
    assert table[0].rank == 1
