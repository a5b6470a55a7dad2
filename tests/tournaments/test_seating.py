"""Seating a round: table sizes, byes, the repeat-avoiding search, seat order, constraints."""

from __future__ import annotations

import hashlib
import hmac
import random
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.registry import all_games, get_game
from tournaments.scoring import RoundResult, TableResult, standings
from tournaments.seating import (
    MODES,
    Constraints,
    History,
    Mode,
    Seating,
    SeatingError,
    duplicate_seed,
    order_table,
    repeats_in,
    seat_round,
    table_sizes,
)

PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: Iteration-bound searches in tests: the time limit is far, so results depend on the seed only.
FAR = 60.0


def _players(n: int) -> list[str]:
    return [f"p{i:03d}" for i in range(n)]


# -- table sizes --------------------------------------------------------------------------


def test_seven_players_for_bhabhi_sit_at_one_table_without_a_preference() -> None:
    bhabhi = get_game("bhabhi")
    assert table_sizes(7, bhabhi.min_seats, bhabhi.max_seats) == ([7], 0)


def test_seven_players_for_bhabhi_split_four_and_three_when_four_is_preferred() -> None:
    assert table_sizes(7, 3, 8, preferred=4) == ([4, 3], 0)


def test_forty_players_at_preferred_four_make_ten_tables_of_four() -> None:
    assert table_sizes(40, 2, 6, preferred=4) == ([4] * 10, 0)


def test_a_preferred_size_picks_the_tables_whose_average_is_closest() -> None:
    # 10 players, 3-5 seats, preferred 4: 2 tables average 5 (1 off), 3 tables 3⅓ (⅔ off).
    assert table_sizes(10, 3, 5, preferred=4) == ([4, 3, 3], 0)
    # 6 players, 2-6 seats, preferred 4: 1 table of 6 (2 off), 2 of 3 (1 off), 3 of 2 (2 off).
    assert table_sizes(6, 2, 6, preferred=4) == ([3, 3], 0)


def test_a_preference_tie_goes_to_fewer_tables() -> None:
    # 12 players, 4-6 seats, preferred 5: 2 tables of 6 and 3 of 4 are both 1 off.
    assert table_sizes(12, 4, 6, preferred=5) == ([6, 6], 0)


def test_players_sit_out_only_when_no_legal_split_exists() -> None:
    # Tables of 4-5 cannot take 7 players (4+3 or 5+2): two sit out and five play.
    assert table_sizes(7, 4, 5) == ([5], 2)
    assert table_sizes(8, 4, 5) == ([4, 4], 0)


def test_fewer_players_than_the_smallest_table_cannot_be_seated() -> None:
    with pytest.raises(SeatingError):
        table_sizes(2, 3, 8)


def test_a_preferred_size_outside_the_game_range_is_refused() -> None:
    with pytest.raises(ValueError):
        table_sizes(10, 3, 8, preferred=9)


def test_every_registered_game_seats_any_field_from_its_minimum_without_byes() -> None:
    for game in all_games():
        for n in range(game.min_seats, 200):
            sizes, byes = table_sizes(n, game.min_seats, game.max_seats)
            assert byes == 0 and sum(sizes) == n


@st.composite
def _ranges(draw: st.DrawFn) -> tuple[int, int, int | None]:
    low = draw(st.integers(2, 6))
    high = draw(st.integers(low, 9))
    preferred = draw(st.none() | st.integers(low, high))
    return low, high, preferred


@PROPERTY
@given(_ranges(), st.integers(0, 300))
def test_table_sizes_are_legal_even_and_leave_the_fewest_byes(
    seats: tuple[int, int, int | None], extra: int
) -> None:
    low, high, preferred = seats
    n = low + extra
    sizes, byes = table_sizes(n, low, high, preferred)
    assert sum(sizes) + byes == n
    assert all(low <= s <= high for s in sizes)
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)

    def splits(m: int) -> list[int]:
        return [t for t in range(1, m + 1) if t * low <= m <= t * high]

    assert all(not splits(n - b) for b in range(byes))
    options = splits(n - byes)
    if preferred is None:
        assert len(sizes) == min(options)
    else:
        best = min(abs(Fraction(n - byes, t) - preferred) for t in options)
        assert abs(Fraction(n - byes, len(sizes)) - preferred) == best


# -- seat_round properties ---------------------------------------------------------------------


@st.composite
def _rounds(draw: st.DrawFn) -> tuple[list[str], int, int, int | None, Mode, int, int]:
    low, high, preferred = draw(_ranges())
    n = draw(st.integers(low, 60))
    mode = draw(st.sampled_from(MODES))
    earlier = draw(st.integers(0, 3))
    seed = draw(st.integers(0, 2**32))
    return _players(n), low, high, preferred, mode, earlier, seed


@PROPERTY
@given(_rounds())
def test_every_checked_in_player_is_seated_once_at_a_legal_table_or_has_a_bye(
    case: tuple[list[str], int, int, int | None, Mode, int, int],
) -> None:
    players, low, high, preferred, mode, earlier, seed = case
    rng = random.Random(seed)
    history = History()
    for _ in range(earlier):
        history.record(seat_round(players, low, high, preferred=preferred, rng=rng))
    ranking = list(players)
    rng.shuffle(ranking)
    seating = seat_round(
        players,
        low,
        high,
        preferred=preferred,
        history=history,
        standings=ranking,
        mode=mode,
        rng=rng,
        max_iterations=3000,
        time_limit=FAR,
    )
    everyone = seating.seated() + list(seating.byes)
    assert sorted(everyone) == sorted(players)
    sizes, byes = table_sizes(len(players), low, high, preferred)
    assert sorted(len(t) for t in seating.tables) == sorted(sizes)
    assert len(seating.byes) == byes
    assert all(low <= len(t) <= high for t in seating.tables)
    assert all(0 <= d < len(t) for d, t in zip(seating.dealers, seating.tables, strict=True))


@PROPERTY
@given(st.integers(9, 40), st.integers(0, 2**32), st.data())
def test_fixed_tables_and_kept_apart_pairs_are_respected(
    n: int, seed: int, data: st.DataObject
) -> None:
    players = _players(n)
    tables = len(table_sizes(n, 3, 4, 4)[0])
    fixed_players = data.draw(st.lists(st.sampled_from(players), max_size=3, unique=True))
    fixed = {p: data.draw(st.integers(0, tables - 1)) for p in fixed_players}
    # At most one fixed player per table so no table is over-full.
    fixed = {p: t for t, p in {t: p for p, t in fixed.items()}.items()}
    free = [p for p in players if p not in fixed]
    pairs = data.draw(
        st.lists(st.tuples(st.sampled_from(free), st.sampled_from(free)), max_size=4).filter(
            lambda ps: all(a != b for a, b in ps)
        )
    )
    constraints = Constraints(fixed=fixed, apart=tuple(pairs))
    seating = seat_round(
        players,
        3,
        4,
        preferred=4,
        mode="mixing",
        constraints=constraints,
        rng=random.Random(seed),
        max_iterations=20_000,
        time_limit=FAR,
    )
    assert constraints.violations(seating) == []
    for player, table in fixed.items():
        assert player in seating.tables[table]


# -- fewer repeats than random seating ----------------------------------------------------------


def _seven_rounds(n: int, mode: Mode, seed: int) -> History:
    """7 rounds of ``n`` players at 4-player tables, placings at random, round 1 random."""
    rng = random.Random(seed)
    players = _players(n)
    history = History()
    results: list[RoundResult] = []
    for number in range(7):
        ranking = [s.player for s in standings(results, players)]
        seating = seat_round(
            players,
            2,
            6,
            preferred=4,
            history=history,
            standings=ranking,
            mode="random" if number == 0 else mode,
            rng=rng,
            time_limit=FAR,
        )
        history.record(seating)
        finished = []
        for table in seating.tables:
            order = list(table)
            rng.shuffle(order)
            finished.append(TableResult(tuple((p,) for p in order)))
        results.append(RoundResult(tuple(finished), seating.byes))
    return history


def test_seven_rounds_of_forty_repeat_far_fewer_pairs_than_random_seating() -> None:
    random_repeats = [_seven_rounds(40, "random", seed).repeats() for seed in range(3)]
    mixing_repeats = [_seven_rounds(40, "mixing", seed).repeats() for seed in range(3)]
    swiss_repeats = [_seven_rounds(40, "swiss", seed).repeats() for seed in range(3)]
    print(
        f"\nrepeated pairs, 7 rounds of 40 players at tables of 4 (3 seeds): "
        f"random {random_repeats}, mixing {mixing_repeats}, swiss {swiss_repeats}"
    )
    assert min(random_repeats) >= 40
    assert sum(mixing_repeats) * 10 <= sum(random_repeats)
    assert sum(swiss_repeats) * 4 <= sum(random_repeats)


def test_a_mixing_round_with_an_easy_history_repeats_no_pair() -> None:
    players = _players(40)
    rng = random.Random(5)
    history = History()
    for _ in range(4):
        seating = seat_round(players, 2, 6, preferred=4, history=history, rng=rng)
        assert repeats_in(seating, history) == 0
        history.record(seating)


# -- Swiss, byes -------------------------------------------------------------------------------


def test_a_swiss_round_without_history_seats_the_standings_in_order() -> None:
    players = _players(12)
    ranking = list(reversed(players))
    seating = seat_round(players, 2, 6, preferred=4, standings=ranking, mode="swiss")
    assert [set(t) for t in seating.tables] == [
        set(ranking[0:4]),
        set(ranking[4:8]),
        set(ranking[8:12]),
    ]


def test_a_swiss_round_needs_standings() -> None:
    with pytest.raises(ValueError):
        seat_round(_players(8), 2, 6, mode="swiss")


def test_the_lowest_player_in_the_standings_gets_the_bye() -> None:
    players = _players(7)
    seating = seat_round(players, 4, 5, standings=players, mode="swiss")
    assert seating.byes == ("p006", "p005")


def test_nobody_gets_a_second_bye_while_someone_has_had_none() -> None:
    players = _players(7)
    history = History()
    rng = random.Random(3)
    for _ in range(3):
        seating = seat_round(players, 4, 5, history=history, standings=players, rng=rng)
        history.record(seating)
    assert sorted(history.byes[p] for p in players) == [0, 1, 1, 1, 1, 1, 1]
    assert history.byes["p000"] == 0  # the leader sat out last


def test_round_one_byes_are_drawn_at_random() -> None:
    players = _players(7)
    drawn = {seat_round(players, 4, 5, rng=random.Random(s)).byes for s in range(20)}
    assert len(drawn) > 5


def test_a_player_fixed_to_a_table_is_not_given_a_bye() -> None:
    players = _players(7)
    fixed = Constraints(fixed={"p006": 0, "p005": 0})
    seating = seat_round(players, 4, 5, standings=players, constraints=fixed)
    assert "p006" in seating.tables[0] and "p005" in seating.tables[0]
    assert set(seating.byes) == {"p004", "p003"}


# -- dealer and seat order ----------------------------------------------------------------------


def test_the_member_who_dealt_least_deals_first_at_seat_zero() -> None:
    history = History()
    history.record(Seating(tables=(("a", "b", "c"),), dealers=(0,)))
    history.record(Seating(tables=(("b", "a", "c"),), dealers=(0,)))
    table, dealer = order_table(["a", "b", "c"], history, random.Random(1))
    assert dealer == 0 and table[0] == "c"


def test_seat_order_puts_each_player_where_they_sat_least() -> None:
    history = History()
    history.record(Seating(tables=(("d", "a", "b", "c"),), dealers=(0,)))
    history.record(Seating(tables=(("e", "a", "b", "c"),), dealers=(0,)))
    history.record(Seating(tables=(("a", "y"), ("b", "z"), ("c", "w")), dealers=(0, 0, 0)))
    for seed in range(10):
        table, dealer = order_table(["a", "b", "c", "x"], history, random.Random(seed))
        assert dealer == 0 and table[0] == "x"  # a, b and c have dealt, x has not
        assert table[1] != "a" and table[2] != "b" and table[3] != "c"


def test_over_seven_rounds_first_deals_and_seats_are_spread_evenly() -> None:
    players = _players(40)
    rng = random.Random(11)
    history = History()
    for number in range(7):
        mode: Mode = "random" if number == 0 else "mixing"
        seating = seat_round(
            players, 2, 6, preferred=4, history=history, mode=mode, rng=rng, time_limit=FAR
        )
        history.record(seating)
    dealt = [history.dealt(p) for p in players]
    # 70 first deals among 40 players: everyone deals once or twice, nearly.
    assert min(dealt) >= 1 and max(dealt) <= 3
    assert max(max(history.seats[p].values()) for p in players) <= 3


# -- the organiser's hand ---------------------------------------------------------------------


def _small() -> Seating:
    return Seating(tables=(("a", "b", "c"), ("d", "e", "f")), dealers=(0, 0), byes=("g",))


def test_a_manual_swap_exchanges_two_seats() -> None:
    swapped = Constraints().swap(_small(), "a", "e")
    assert swapped.tables == (("e", "b", "c"), ("d", "a", "f"))
    assert swapped.dealers == (0, 0)


def test_a_manual_swap_can_give_a_seated_player_the_bye() -> None:
    swapped = Constraints().swap(_small(), "g", "b")
    assert swapped.tables[0] == ("a", "g", "c") and swapped.byes == ("b",)


def test_a_manual_swap_that_brings_kept_apart_players_together_is_refused() -> None:
    with pytest.raises(SeatingError, match="kept apart"):
        Constraints(apart=(("a", "d"),)).swap(_small(), "b", "d")


def test_a_manual_swap_that_moves_a_fixed_player_is_refused() -> None:
    with pytest.raises(SeatingError, match="fixed"):
        Constraints(fixed={"a": 0}).swap(_small(), "a", "d")


def test_a_manual_swap_of_a_player_not_in_the_round_is_refused() -> None:
    with pytest.raises(SeatingError, match="not in this round"):
        Constraints().swap(_small(), "a", "zed")


def test_a_fixed_table_that_does_not_exist_is_refused() -> None:
    with pytest.raises(SeatingError, match="table 4"):
        seat_round(_players(8), 2, 6, preferred=4, constraints=Constraints(fixed={"p001": 3}))


def test_an_over_full_fixed_table_is_refused() -> None:
    fixed = {p: 0 for p in _players(5)}
    with pytest.raises(SeatingError, match="more players are fixed"):
        seat_round(_players(8), 2, 6, preferred=4, constraints=Constraints(fixed=fixed))


def test_players_that_cannot_be_kept_apart_are_reported() -> None:
    with pytest.raises(SeatingError, match="kept apart"):
        seat_round(_players(3), 3, 8, constraints=Constraints(apart=(("p000", "p001"),)))


def test_constraints_on_players_not_checked_in_are_ignored() -> None:
    constraints = Constraints(fixed={"absent": 5}, apart=(("absent", "p000"),))
    seating = seat_round(_players(6), 2, 6, preferred=3, constraints=constraints)
    assert sorted(seating.seated()) == _players(6)


# -- records -----------------------------------------------------------------------------------


def test_a_seating_survives_json() -> None:
    seating = _small()
    assert Seating.from_json(seating.to_json()) == seating


def test_a_seating_listing_a_player_twice_is_refused() -> None:
    with pytest.raises(ValueError):
        Seating(tables=(("a", "b"), ("b", "c")), dealers=(0, 0))


def test_history_counts_shared_tables_seats_and_byes() -> None:
    history = History.from_seatings([_small(), _small()])
    assert history.met("b", "a") == 2 and history.met("a", "d") == 0
    assert history.repeats() == 6
    assert history.dealt("a") == 2 and history.seats["c"][2] == 2
    assert history.byes["g"] == 2


# -- duplicate deals -----------------------------------------------------------------------------


def test_duplicate_seed_is_hmac_sha256_of_seats_and_game_number() -> None:
    expected = hmac.new(b"round", b"4:2", hashlib.sha256).digest()
    assert duplicate_seed(b"round", 4, 2) == expected


def test_duplicate_seeds_differ_by_seats_game_and_round() -> None:
    seeds = {duplicate_seed(r, s, g) for r in (b"r1", b"r2") for s in (3, 4, 5) for g in range(3)}
    assert len(seeds) == 2 * 3 * 3
