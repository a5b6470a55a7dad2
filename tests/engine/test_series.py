"""Series at one table: dealer rotation, when a series ends, shared places."""

from __future__ import annotations

import pytest

from engine.series import SeriesFormat, SeriesKind, is_over, next_dealer, placings, scores


def test_the_next_dealer_is_the_left_neighbour() -> None:
    assert [next_dealer(d, 4) for d in range(4)] == [1, 2, 3, 0]


def test_first_to_three_ends_on_the_third_win_and_draws_advance_nobody() -> None:
    fmt = SeriesFormat("first_to", 3)
    results = [{"winner": 1}, {"winner": None, "deadlock": True}, {"winner": 1}, {"winner": 2}]
    assert not is_over(fmt, results, 3)
    results.append({"winner": 1})
    assert is_over(fmt, results, 3)
    assert placings(fmt, results, 3) == [[1], [2], [0]]


def test_losses_over_the_agreed_deals_fewer_rank_higher_and_ties_share() -> None:
    fmt = SeriesFormat("losses", 4)
    results = [{"loser": 0}, {"loser": 2}, {"loser": 0}]
    assert not is_over(fmt, results, 3)
    results.append({"loser": 2})
    assert is_over(fmt, results, 3)
    assert placings(fmt, results, 3) == [[1], [0, 2]]


def test_place_points_default_to_n_minus_one_down_to_zero_and_shared_places_split() -> None:
    fmt = SeriesFormat("place_points", 2)
    results = [{"places": [[2], [0, 1]]}, {"places": [[0], [1], [2]]}]
    assert scores(fmt, results, 3) == [0.5 + 2, 0.5 + 1, 2 + 0]
    assert placings(fmt, results, 3) == [[0], [2], [1]]


def test_a_custom_points_table_is_used() -> None:
    fmt = SeriesFormat("place_points", 1, points=(5, 2, 0))
    assert scores(fmt, [{"places": [[1], [2], [0]]}], 3) == [0, 5, 2]


def test_a_series_format_round_trips_through_json() -> None:
    fmt = SeriesFormat("place_points", 3, points=(3.0, 1.0, 0.0))
    assert SeriesFormat.from_json(fmt.to_json()) == fmt


def test_first_to_has_no_hidden_limit_on_the_number_of_deals() -> None:
    fmt = SeriesFormat("first_to", 3)
    draws = [{"winner": None, "deadlock": True}] * 500 + [{"winner": 0}, {"winner": 1}]
    assert not is_over(fmt, draws, 3)
    assert is_over(fmt, draws + [{"winner": 0}, {"winner": 0}], 3)


def test_an_explicit_deal_limit_ends_the_series_and_places_it_by_round_wins() -> None:
    fmt = SeriesFormat("first_to", 3, deal_limit=4)
    results = [{"winner": 1}, {"winner": None, "deadlock": True}, {"winner": 2}]
    assert not is_over(fmt, results, 3)
    results.append({"winner": 1})
    assert is_over(fmt, results, 3)
    assert placings(fmt, results, 3) == [[1], [2], [0]]
    assert SeriesFormat.from_json(fmt.to_json()) == fmt
    assert fmt.to_json() == {"kind": "first_to", "target": 3, "deal_limit": 4}


@pytest.mark.parametrize(
    ("kind", "target", "limit"), [("first_to", 3, 2), ("first_to", 3, 0), ("losses", 3, 5)]
)
def test_a_deal_limit_is_refused_below_the_target_and_outside_first_to(
    kind: SeriesKind, target: int, limit: int
) -> None:
    with pytest.raises(ValueError, match="deal limit"):
        SeriesFormat(kind, target, deal_limit=limit)


@pytest.mark.parametrize("points", [[float("inf"), 0.0], [float("nan"), 0.0], [2e6, 0.0]])
def test_place_points_that_could_not_be_kept_as_running_totals_are_refused(
    points: list[float],
) -> None:
    """The table keeps the totals as JSON, which has no infinity (sums of huge points
    reach it): such a series would refuse every deal's end (found by review)."""
    with pytest.raises(ValueError, match="place points"):
        SeriesFormat.from_json({"kind": "place_points", "target": 3, "points": points})
    assert SeriesFormat.from_json({"kind": "place_points", "target": 3, "points": [1e6, -1e6]})
