"""Club ratings: openskill Plackett-Luce updates from table placings."""

from __future__ import annotations

import pytest
from openskill.models import PlackettLuce

from tournaments.ratings import Rating, leaderboard, update, update_round


def test_a_newcomer_starts_at_openskill_defaults_and_displays_1000() -> None:
    rating = Rating()
    assert rating.mu == 25.0 and rating.sigma == pytest.approx(25 / 3)
    assert rating.ordinal == pytest.approx(0.0)
    assert rating.display == 1000


def test_the_winner_rises_and_the_last_falls() -> None:
    after = update({}, [["a"], ["b"], ["c"]])
    assert after["a"].mu > 25 > after["c"].mu
    assert after["a"].mu > after["b"].mu > after["c"].mu
    assert all(r.sigma < 25 / 3 for r in after.values())
    assert after["a"].display > 1000


def test_players_sharing_a_place_are_treated_alike() -> None:
    after = update({}, [["a", "b"], ["c"]])
    assert after["a"] == after["b"]
    assert after["a"].mu > after["c"].mu


def test_a_table_where_everyone_ties_leaves_equal_players_equal() -> None:
    after = update({}, [["a", "b", "c"]])
    assert after["a"].mu == pytest.approx(25.0)
    assert after["a"] == after["b"] == after["c"]


def test_beating_a_stronger_player_gains_more_than_beating_a_weaker_one() -> None:
    strong, weak = Rating(mu=35, sigma=3), Rating(mu=15, sigma=3)
    over_strong = update({"x": Rating(), "s": strong}, [["x"], ["s"]])["x"].mu
    over_weak = update({"x": Rating(), "w": weak}, [["x"], ["w"]])["x"].mu
    assert over_strong > over_weak > 25


def test_update_matches_openskill_plackett_luce_directly() -> None:
    model = PlackettLuce()
    start = {"a": Rating(30, 5), "b": Rating(20, 6)}
    teams = [[model.rating(mu=30, sigma=5)], [model.rating(mu=20, sigma=6)], [model.rating()]]
    expected = model.rate(teams, ranks=[0, 1, 1])
    after = update(start, [["a"], ["b", "c"]])
    for player, (rated,) in zip("abc", expected, strict=True):
        assert after[player].mu == pytest.approx(rated.mu)
        assert after[player].sigma == pytest.approx(rated.sigma)


def test_update_keeps_other_players_and_leaves_the_input_alone() -> None:
    start = {"a": Rating(), "z": Rating(mu=40, sigma=2)}
    after = update(start, [["a"], ["b"]])
    assert after["z"] == Rating(mu=40, sigma=2)
    assert start == {"a": Rating(), "z": Rating(mu=40, sigma=2)}


def test_a_round_updates_every_table() -> None:
    after = update_round({}, [[["a"], ["b"]], [["c"], ["d"]]])
    assert after["a"] == after["c"] and after["b"] == after["d"]


def test_bad_placings_are_refused() -> None:
    with pytest.raises(ValueError):
        update({}, [["a"]])
    with pytest.raises(ValueError):
        update({}, [["a"], ["a"]])
    with pytest.raises(ValueError):
        update({}, [["a"], [], ["b"]])


def test_the_leaderboard_orders_by_ordinal() -> None:
    ratings = {"sure": Rating(mu=28, sigma=1), "lucky": Rating(mu=32, sigma=6), "new": Rating()}
    assert [p for p, _ in leaderboard(ratings)] == ["sure", "lucky", "new"]
