"""Taking a drop back (a mis-click at the desk): allowed until play goes on without the
player, and then the registration is as if never dropped."""

from __future__ import annotations

import random

import pytest

from tests import factories
from tests.tournaments_django.test_services import seated_ids
from tournaments import services
from tournaments.models import CheckIn, Club, Player, Registration, Round, TableSeat, Tournament
from tournaments.services import ServiceError
from tournaments.standings import compute_standings, live_standings

pytestmark = pytest.mark.django_db


def _seating(round_: Round) -> list[tuple[int, int, int]]:
    return sorted(
        TableSeat.objects.filter(table__round=round_).values_list("table__number", "seat", "player")
    )


def _after_round_one(bots: int, rounds: int = 3) -> tuple[Club, list[Player], Tournament]:
    """A new club's tournament of ``bots`` bots over ``rounds`` rounds, round 1 played."""
    club = factories.club()
    players = factories.bots(club, bots)
    t = factories.tournament(club, players, rounds=rounds)
    factories.play_round(t, rng=random.Random(1))
    return club, players, t


def _in_round(round_: Round, player_id: int) -> bool:
    round_.refresh_from_db()
    return player_id in seated_ids(round_) or player_id in round_.byes


def test_a_drop_taken_back_before_the_next_round_leaves_no_trace_and_they_play_on() -> None:
    club, players, t = _after_round_one(7)
    gone = players[3]
    services.drop(t, gone)
    assert services.check_take_back_drop(t, gone).registration.dropped_after == 1
    back = services.take_back_drop(t, gone)
    assert (back.reseated, back.left_out) == (None, None)
    assert Registration.objects.get(tournament=t, player=gone).dropped_after is None
    line = next(s for s in live_standings(t) if s.player == str(gone.pk))
    assert not line.dropped and line.played == 1
    assert compute_standings(t) == live_standings(t)
    second = factories.play_round(t, rng=random.Random(2))
    assert _in_round(second, gone.pk)


def test_a_drop_taken_back_seats_the_seated_next_round_again_with_them_in_it() -> None:
    club, players, t = _after_round_one(7)
    second = services.start_round(t, auto_check_in=True, rng=random.Random(2))
    gone = players[3]
    assert _in_round(second, gone.pk)
    services.drop(t, gone)  # seats round 2 again without them
    assert not _in_round(second, gone.pk)
    back = services.take_back_drop(t, gone)
    assert (back.reseated, back.left_out) == (2, None)
    assert _in_round(second, gone.pk)
    assert len(seated_ids(second)) + len(second.byes) == 7
    services.begin_round(second)


def test_a_late_entry_from_a_later_round_is_brought_back_without_seating_the_next_again() -> None:
    club, players, t = _after_round_one(6)
    (late,) = factories.bots(club, 1, prefix="Late")
    services.register(t, late, from_round=3)
    services.drop(t, late)
    second = services.start_round(t, auto_check_in=True, rng=random.Random(2))
    before = _seating(second)
    back = services.take_back_drop(t, late)
    assert (back.reseated, back.left_out) == (None, None)
    assert _seating(second) == before and not _in_round(second, late.pk)


def test_a_person_not_checked_in_for_the_seated_next_round_is_said_to_be_left_out() -> None:
    club, players, t = _after_round_one(6)
    (ann,) = factories.people(club, ["Ann"])
    services.register(t, ann)  # from round 2: a late entry, then dropped by a mis-click
    services.drop(t, ann)
    second = services.start_round(t, rng=random.Random(2))  # bots only: Ann not checked in
    before = _seating(second)
    asked = services.check_take_back_drop(t, ann)
    back = services.take_back_drop(t, ann)
    assert (asked.reseated, asked.left_out) == (back.reseated, back.left_out)
    assert back.reseated is None
    assert back.left_out == (
        "Ann is not checked in for round 2, which stays seated without them: check them in,"
        " then seat them from the desk"
    )
    assert _seating(second) == before and not _in_round(second, ann.pk)
    # What it says to do works: she is checked in, then seated without moving anyone.
    services.check_in(t, ann, 2)
    assert [p.pk for p in services.late_players(second)] == [ann.pk]
    services.seat_late(second, ann)
    assert _in_round(second, ann.pk)


def test_a_person_marked_absent_for_the_seated_next_round_is_said_to_be_left_out() -> None:
    club, players, t = _after_round_one(6)
    (ann,) = factories.people(club, ["Ann"])
    services.register(t, ann)
    services.mark_absent(t, ann)
    services.drop(t, ann)
    second = services.start_round(t, auto_check_in=True, rng=random.Random(2))
    back = services.take_back_drop(t, ann)
    assert back.reseated is None and back.left_out is not None
    assert back.left_out.startswith("Ann is marked absent for round 2")
    assert not _in_round(second, ann.pk)


def test_a_seated_next_round_whose_seating_is_fixed_stays_as_it_is_and_says_why() -> None:
    # A player of the round set a client seed after its decks were committed: seating it
    # again would let the server choose among decks (services/seeds.py), so it stays.
    club, players, t = _after_round_one(6)
    login = factories.user("ann-seed")
    ann = factories.person(club, "Ann", login)
    services.register(t, ann)
    services.check_in(t, ann)
    gone = players[3]
    services.drop(t, gone)
    second = services.start_round(t, auto_check_in=True, rng=random.Random(2))
    services.set_client_seed(login, "Ann's own seed")
    before = _seating(second)
    back = services.take_back_drop(t, gone)
    assert back.reseated is None and back.left_out is not None
    # Said first, whatever else keeps them out: no check-in or late seat would bring them
    # in (the late seat of a fixed round is refused), so it says when they play again.
    assert back.left_out == (
        "Bot 03 is not seated in round 2: its seating is fixed by a client seed set after"
        " it was seated (docs/fairness.md), so it is played as seated; they play again"
        " from round 3"
    )
    assert _seating(second) == before
    assert Registration.objects.get(tournament=t, player=gone).dropped_after is None


def test_a_drop_is_not_taken_back_once_a_later_round_has_begun_and_nothing_changes() -> None:
    club, players, t = _after_round_one(7)
    gone = players[3]
    services.drop(t, gone)
    second = factories.begin_round(t, rng=random.Random(2))
    for refuse in (services.check_take_back_drop, services.take_back_drop):
        with pytest.raises(ServiceError) as refused:
            refuse(t, gone)
        assert refused.value.message == (
            "round 2 has begun since Bot 03 dropped out (after round 1), so their drop stands"
        )
        assert refused.value.field == "player"
    assert Registration.objects.get(tournament=t, player=gone).dropped_after == 1
    assert not _in_round(second, gone.pk)


def test_a_drop_is_not_taken_back_once_the_tournament_is_finished() -> None:
    club, players, t = _after_round_one(6, rounds=2)
    services.drop(t, players[0])
    factories.play_round(t, rng=random.Random(2))
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    with pytest.raises(ServiceError, match="^Test Night is finished: the drop of Bot 00 stands$"):
        services.take_back_drop(t, players[0])
    assert Registration.objects.get(tournament=t, player=players[0]).dropped_after == 1
    assert next(s for s in live_standings(t) if s.player == str(players[0].pk)).dropped


def test_only_a_drop_is_taken_back_not_a_player_still_in_or_never_registered() -> None:
    club = factories.club()
    players = factories.bots(club, 6)
    t = factories.tournament(club, players[:5], rounds=2)
    factories.play_round(t, rng=random.Random(1))
    with pytest.raises(ServiceError) as refused:
        services.take_back_drop(t, players[0])
    assert refused.value.message == (
        "Bot 00 has not dropped out of Test Night: there is no drop to take back"
    )
    with pytest.raises(ServiceError, match="^Bot 05 is not registered in Test Night$"):
        services.take_back_drop(t, players[5])
    assert not Registration.objects.filter(tournament=t, dropped_after__isnull=False).exists()
    assert not CheckIn.objects.filter(tournament=t, player=players[5]).exists()
