"""No-shows and forfeits, withdrawing a registration, deleting a tournament (issue 20)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from django.contrib.auth.models import User

from tests import factories
from tournaments import services
from tournaments.models import CheckIn, Forfeit, Registration, Table, TableSeat, Tournament
from tournaments.standings import compute_standings, live_standings

pytestmark = pytest.mark.django_db


def test_a_forfeited_series_counts_as_last_place_and_is_marked_and_can_be_lifted() -> None:
    club = factories.club()
    robots = factories.bots(club, 6)
    t = factories.tournament(club, robots, rounds=1, table_max=3, table_preferred=3)
    factories.play_round(t, rng=random.Random(2))
    before = {s.player: s for s in compute_standings(t)}
    winner = next(s.player for s in compute_standings(t) if s.rank == 1)
    organiser = User.objects.create_user("org", password="x")
    row = services.forfeit(t, int(winner), 1, by=organiser)
    assert (row.cause, row.by, row.forfeited) == ("organiser", organiser, True)
    after = {s.player: s for s in compute_standings(t)}
    assert after[winner].points == 0 and after[winner].forfeits == 1
    assert before[winner].points > 0 and before[winner].forfeits == 0
    assert compute_standings(t) == live_standings(t)
    with pytest.raises(services.ServiceError, match="already forfeited"):
        services.forfeit(t, int(winner), 1)
    services.unforfeit(t, int(winner), 1, by=organiser)
    assert {s.player: s for s in compute_standings(t)} == before
    # Both decisions are kept: the audit of who decided what.
    assert list(Forfeit.objects.values_list("forfeited", flat=True)) == [True, False]


def test_only_a_seat_in_a_begun_round_can_be_forfeited() -> None:
    club = factories.club()
    robots = factories.bots(club, 4)
    t = factories.tournament(club, robots, rounds=2)
    with pytest.raises(services.ServiceError, match="has not begun"):
        services.forfeit(t, robots[0], 1)
    factories.play_round(t, rng=random.Random(1))
    stranger = factories.bots(club, 1, prefix="Late")[0]
    with pytest.raises(services.ServiceError, match="had no seat"):
        services.forfeit(t, stranger, 1)


def test_a_whole_table_forfeiting_shares_the_last_place() -> None:
    club = factories.club()
    robots = factories.bots(club, 3)
    t = factories.tournament(club, robots, rounds=1, table_max=3)
    factories.play_round(t, rng=random.Random(1))
    for bot in robots:
        services.forfeit(t, bot, 1)
    lines = compute_standings(t)
    assert [(s.rank, s.points, s.forfeits) for s in lines] == [(1, Fraction(1, 2), 1)] * 3


def test_the_clock_handing_a_seat_to_a_bot_forfeits_it_when_the_tournament_says_so() -> None:
    from tournaments.services.forfeits import record_timeout_forfeit

    club = factories.club()
    robots = factories.bots(club, 4)
    t = factories.tournament(club, robots, rounds=1, timeouts_to_bot=2)
    assert t.timeout_forfeits is True  # the default
    services.begin_round(services.start_round(t, auto_check_in=True, rng=random.Random(3)))
    seat = TableSeat.objects.select_related("table__round__tournament").first()
    assert seat is not None
    made = record_timeout_forfeit(seat)
    assert made is not None and made.cause == Forfeit.Cause.TIMEOUT and made.by is None
    assert record_timeout_forfeit(seat) is None  # once per series
    off = factories.tournament(club, robots, rounds=1, timeout_forfeits=False)
    services.begin_round(services.start_round(off, auto_check_in=True, rng=random.Random(3)))
    other = TableSeat.objects.select_related("table__round__tournament").filter(
        table__round__tournament=off
    )[0]
    assert record_timeout_forfeit(other) is None


def test_withdrawing_before_round_one_leaves_no_trace_in_the_standings() -> None:
    club = factories.club()
    robots = factories.bots(club, 5)
    ann = factories.people(club, ["Ann"])[0]
    t = factories.tournament(club, [*robots, ann], rounds=2, table_max=3, table_preferred=3)
    services.start_round(t, auto_check_in=True, rng=random.Random(1))
    assert services.withdraw(t, ann) is None
    assert not Registration.objects.filter(tournament=t, player=ann).exists()
    assert not CheckIn.objects.filter(tournament=t, player=ann).exists()
    assert not TableSeat.objects.filter(table__round__tournament=t, player=ann).exists()
    assert str(ann.pk) not in {s.player for s in compute_standings(t)}


def test_withdrawing_after_round_one_began_is_a_drop() -> None:
    club = factories.club()
    robots = factories.bots(club, 4)
    t = factories.tournament(club, robots, rounds=2)
    factories.play_round(t, rng=random.Random(1))
    registration = services.withdraw(t, robots[0])
    assert registration is not None and registration.dropped_after == 1
    assert next(s for s in compute_standings(t) if s.player == str(robots[0].pk)).dropped


def test_a_tournament_is_deleted_only_before_it_starts() -> None:
    club = factories.club()
    robots = factories.bots(club, 4)
    t = factories.tournament(club, robots, rounds=2)
    services.delete_tournament(t)
    assert not Tournament.objects.filter(pk=t.pk).exists()
    started = factories.tournament(club, robots, rounds=2)
    services.start_round(started, auto_check_in=True, rng=random.Random(1))
    with pytest.raises(services.ServiceError, match="cannot be deleted"):
        services.delete_tournament(started)
    assert Table.objects.filter(round__tournament=started).exists()


def test_the_no_show_rule_is_a_setting_that_changes_before_the_start_only() -> None:
    club = factories.club()
    t = factories.tournament(club, factories.bots(club, 4), rounds=1)
    services.update_tournament(t, timeout_forfeits=False)
    t.refresh_from_db()
    assert t.timeout_forfeits is False
    services.start_round(t, auto_check_in=True, rng=random.Random(1))
    with pytest.raises(services.ServiceError, match="only its name"):
        services.update_tournament(t, timeout_forfeits=True)


def test_a_player_marked_absent_is_not_seated_even_by_an_automatic_check_in() -> None:
    club = factories.club()
    robots = factories.bots(club, 3)
    ann = factories.people(club, ["Ann"])[0]
    t = factories.tournament(club, [*robots, ann], rounds=2, table_max=4)
    services.check_in(t, ann)
    absence = services.mark_absent(t, ann)
    assert absence.round_number == 1
    # Not among those the seating's confirmation offers to check in (it offered her, and
    # then seated without her: found by trying).
    from tournaments.services.rounds import unchecked_players

    assert ann not in unchecked_players(t)
    assert not CheckIn.objects.filter(tournament=t, player=ann).exists()
    first = services.start_round(t, auto_check_in=True, rng=random.Random(1))
    assert not TableSeat.objects.filter(table__round=first, player=ann).exists()
    assert ann.pk not in first.byes
    services.begin_round(first)
    from tournaments.management.commands.play_bots import run_all_bots

    run_all_bots(t)
    # Round 2 counts her again; checking in lifts a round's absence.
    services.mark_absent(t, ann)
    services.check_in(t, ann)
    second = services.start_round(t, rng=random.Random(2))
    assert TableSeat.objects.filter(table__round=second, player=ann).exists()


def test_marking_a_seated_player_absent_seats_the_round_again_without_them() -> None:
    club = factories.club()
    robots = factories.bots(club, 3)
    ann = factories.people(club, ["Ann"])[0]
    t = factories.tournament(club, [*robots, ann], rounds=1, table_max=4)
    round_ = services.start_round(t, auto_check_in=True, rng=random.Random(1))
    assert TableSeat.objects.filter(table__round=round_, player=ann).exists()
    services.mark_absent(t, ann)
    assert not TableSeat.objects.filter(table__round=round_, player=ann).exists()
    assert TableSeat.objects.filter(table__round=round_).count() == 3


def test_a_timeout_forfeit_recorded_after_its_table_finished_rates_the_table_again() -> None:
    # The timeout that hands a seat to a bot may end the series: the table is rated in that
    # transaction before the forfeit is recorded, which must then count.
    from tournaments.services.forfeits import record_timeout_forfeit
    from tournaments.standings import club_ratings

    club = factories.club()
    robots = factories.bots(club, 3)
    t = factories.tournament(club, robots, rounds=1, table_max=3, timeouts_to_bot=2)
    factories.play_round(t, rng=random.Random(1))
    table = Table.objects.get(round__tournament=t)
    best = TableSeat.objects.select_related("table__round__tournament").get(
        table=table, seat=table.placings[0][0]
    )
    before = club_ratings(club, "bhabhi")
    assert record_timeout_forfeit(best) is not None
    after = club_ratings(club, "bhabhi")
    assert after == club_ratings(club, "bhabhi", from_events=True) != before
    assert min(after.values(), key=lambda r: r.ordinal) == after[str(best.player_id)]


def test_registering_a_player_who_dropped_out_says_so_not_that_they_are_registered() -> None:
    # "Eve is already registered" answered an organiser trying to take back a drop
    # (found by trying): the entry is there, dropped; it says how a drop is taken back,
    # or that it stands once the next round has begun.
    club = factories.club()
    robots = factories.bots(club, 4)
    t = factories.tournament(club, robots, rounds=3, table_max=4)
    factories.play_round(t, rng=random.Random(1))
    services.drop(t, robots[0])
    with pytest.raises(services.ServiceError, match="after round 1: bring them back into"):
        services.register(t, robots[0])
    factories.begin_round(t, rng=random.Random(2))
    with pytest.raises(services.ServiceError, match="round 2 has begun since: their drop stands"):
        services.register(t, robots[0])


@pytest.mark.parametrize("begun", [False, True])
def test_withdrawing_or_dropping_a_player_never_registered_says_plainly_they_are_not(
    begun: bool,
) -> None:
    # "Late 1 is not registered in Test Night: register them first" answered a withdrawal
    # or a drop of a player who never entered (found by review): registering them is no way
    # to withdraw them, so the refusal says only that they are not registered.
    club = factories.club()
    robots = factories.bots(club, 4)
    t = factories.tournament(club, robots, rounds=2)
    if begun:
        factories.play_round(t, rng=random.Random(1))
    stranger = factories.bots(club, 1, prefix="Late")[0]
    refusals = (
        services.withdraw,
        services.check_withdrawal,
        services.unregister,
        services.drop,
        services.check_drop,
    )
    for refused in refusals:
        with pytest.raises(services.ServiceError) as caught:
            refused(t, stranger)
        assert caught.value.message == f"{stranger.name} is not registered in {t.name}", refused
        assert caught.value.field == "player"
    assert not Registration.objects.filter(tournament=t, player=stranger).exists()
    # Checking in still says what to do first: there, registering is the way on.
    with pytest.raises(services.ServiceError, match="not registered in .*: register them first"):
        services.check_in(t, stranger)
