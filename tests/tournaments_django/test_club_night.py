"""Issue 20, from nothing to a club: the first run, logins made by organisers, the sign-up
link, organisers added; players withdrawing; nobody stranded by check-in and seating."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from engine.series import SeriesFormat
from tests import factories
from tournaments import services
from tournaments.models import CheckIn, Club, Player, Registration, Round, TableSeat
from tournaments.services import ServiceError

pytestmark = pytest.mark.django_db

PASSWORD = "a long club night"


def test_the_first_run_makes_the_club_and_its_organiser_and_only_once() -> None:
    assert services.needs_first_run()
    club, user = services.first_run("Hearts Club", "olga", PASSWORD, email="o@example.org")
    assert list(club.organisers.all()) == [user] and user.check_password(PASSWORD)
    assert not services.needs_first_run()
    with pytest.raises(ServiceError, match="set up already"):
        services.first_run("Second", "ivan", PASSWORD)
    assert Club.objects.count() == 1 and not User.objects.filter(username="ivan").exists()


def test_a_superuser_means_the_install_needs_no_first_run() -> None:
    User.objects.create_superuser("root", password=PASSWORD)
    assert not services.needs_first_run()


def test_the_first_run_refuses_a_weak_password_and_creates_nothing() -> None:
    with pytest.raises(ServiceError) as refused:
        services.first_run("Hearts Club", "olga", "123")
    assert refused.value.field == "password"
    assert not Club.objects.exists() and not User.objects.exists()


def test_create_club_makes_a_new_organiser_or_promotes_an_existing_login() -> None:
    call_command("create_club", "Hearts Club", "--organiser", "olga", "--password", PASSWORD)
    club = Club.objects.get(name="Hearts Club")
    olga = User.objects.get(username="olga")
    assert olga.check_password(PASSWORD) and services.is_organiser(olga, club)
    call_command("create_club", "Spades Club", "--organiser", "olga")
    assert services.is_organiser(olga, Club.objects.get(name="Spades Club"))
    with pytest.raises(CommandError, match="exists already"):
        call_command("create_club", "Hearts Club", "--organiser", "ivan", "--password", PASSWORD)
    assert not User.objects.filter(username="ivan").exists()


def test_an_organiser_creates_a_login_with_a_generated_password_to_hand_out() -> None:
    club = factories.club()
    player, password = services.add_player_with_login(club, "Ann", "ann")
    assert player.user is not None and player.user.check_password(password)
    assert len(password) >= 12
    chosen, same = services.add_player_with_login(club, "Bo", "bo", password=PASSWORD)
    assert same == PASSWORD and chosen.user is not None and chosen.user.check_password(PASSWORD)
    with pytest.raises(ServiceError, match="is taken"):
        services.add_player_with_login(club, "Another Ann", "ANN")
    assert not Player.objects.filter(name="Another Ann").exists()


def test_a_user_name_made_meanwhile_in_another_club_is_said_to_be_taken_not_a_500(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two clubs' organisers giving one user name at the same moment: the look-up of each
    sees none (the other has not committed; the names' lock is per club), and the second
    insert met the unique user name as an IntegrityError, a 500 (found by review).  The
    look-up is made to miss here as it does in that race."""
    from django.db.models import QuerySet

    club, other = factories.club("Hearts"), factories.club("Spades")
    services.add_player_with_login(other, "Zoe", "zoe", password=PASSWORD)
    exists = QuerySet.exists

    def missed(self: QuerySet[Any]) -> bool:
        return False if self.model is User else exists(self)

    monkeypatch.setattr(QuerySet, "exists", missed)
    with pytest.raises(ServiceError, match='the user name "zoe" is taken'):
        services.add_player_with_login(club, "Zed", "zoe", password=PASSWORD)
    monkeypatch.setattr(QuerySet, "exists", exists)
    assert not Player.objects.filter(club=club).exists()
    assert User.objects.filter(username="zoe").count() == 1


def test_the_sign_up_link_makes_a_login_and_player_until_it_is_renewed_or_off() -> None:
    club = factories.club()
    token = services.renew_signup_link(club)
    assert services.club_of_signup_link(token) == club
    ann = services.sign_up(token, "Ann", "ann", PASSWORD)
    assert ann.club == club and ann.user is not None and ann.user.check_password(PASSWORD)
    with pytest.raises(ServiceError, match='already has a player called "Ann"'):
        services.sign_up(token, "Ann", "ann2", PASSWORD)
    newer = services.renew_signup_link(club)
    assert newer != token
    with pytest.raises(ServiceError, match="off or has been renewed"):
        services.sign_up(token, "Bo", "bo", PASSWORD)
    services.close_signup_link(club)
    assert services.club_of_signup_link(newer) is None
    with pytest.raises(ServiceError, match="off or has been renewed"):
        services.sign_up(newer, "Bo", "bo", PASSWORD)
    assert not User.objects.filter(username="bo").exists()


def test_only_a_login_of_the_club_can_be_made_its_organiser() -> None:
    club = factories.club()
    ann, _ = services.add_player_with_login(club, "Ann", "ann")
    assert ann.user is not None
    services.add_organiser(club, ann.user)
    assert services.is_organiser(ann.user, club)
    stranger = User.objects.create_user("stranger", password=PASSWORD)
    with pytest.raises(ServiceError, match="plays for no one"):
        services.add_organiser(club, stranger)
    assert not services.is_organiser(stranger, club)


def test_withdrawing_before_round_1_removes_the_registration_and_after_it_drops() -> None:
    club = factories.club()
    bots = factories.bots(club, 4)
    (ann,) = factories.people(club, ["Ann"])
    night = factories.tournament(
        club,
        [*bots, ann],
        game="give_away",
        rounds=2,
        series=SeriesFormat("first_to", 1),
        table_min=2,
        table_max=3,
    )
    services.check_in(night, ann)
    assert services.withdraw(night, ann) is None
    assert not Registration.objects.filter(tournament=night, player=ann).exists()
    assert not CheckIn.objects.filter(tournament=night, player=ann).exists()
    services.register(night, ann)
    factories.play_round(night, auto_check_in=False)  # Ann is not checked in: the bots play
    kept = services.withdraw(night, ann)
    assert kept is not None and kept.dropped_after == 1


def test_withdrawing_from_a_seated_round_1_seats_it_again_without_them() -> None:
    club = factories.club()
    bots = factories.bots(club, 4)
    (ann,) = factories.people(club, ["Ann"])
    night = factories.tournament(
        club,
        [*bots, ann],
        game="give_away",
        rounds=2,
        series=SeriesFormat("first_to", 1),
        table_min=2,
        table_max=3,
    )
    round_ = services.start_round(night, auto_check_in=True)
    services.withdraw(night, ann)
    assert not TableSeat.objects.filter(table__round=round_, player=ann).exists()
    assert ann.pk not in Round.objects.get(pk=round_.pk).byes


def _night(people: list[str], bots: int = 2, **settings: object) -> tuple:
    club = factories.club()
    persons = factories.people(club, people)
    machines = factories.bots(club, bots)
    options = {"table_min": 2, "table_max": 3, **settings}
    night = factories.tournament(
        club,
        [*machines, *persons],
        game="give_away",
        rounds=2,
        series=SeriesFormat("first_to", 1),
        **options,
    )
    return night, persons, machines


def test_the_players_seating_would_leave_out_are_listed() -> None:
    night, (ann, bo), _ = _night(["Ann", "Bo"])
    assert services.unchecked_players(night) == [ann, bo]
    services.check_in(night, ann)
    assert services.unchecked_players(night) == [bo]


def test_a_late_check_in_takes_an_empty_seat_without_moving_anyone() -> None:
    night, (ann, bo), bots = _night(["Ann", "Bo"])
    round_ = services.start_round(night)  # only the two bots: one table of 2
    before = {ts.player_id: ts.table_id for ts in TableSeat.objects.filter(table__round=round_)}
    services.check_in(night, ann)
    assert services.late_players(round_) == [ann]
    assert services.seat_late(round_, ann) == {"Ann": 1}
    after = {ts.player_id: ts.table_id for ts in TableSeat.objects.filter(table__round=round_)}
    assert {p: after[p] for p in before} == before and ann.pk in after
    assert services.late_players(round_) == []
    with pytest.raises(ServiceError, match="not waiting for a seat"):
        services.seat_late(round_, bo)
    # A second click of Seat for Ann: she is seated (it said to check her in first).
    with pytest.raises(ServiceError, match="Ann is seated already, at table 1 of round 1"):
        services.seat_late(round_, ann)
    # One not registered is told so (it said to check them in, which is refused too).
    stranger = services.add_player(night.club, "Stranger")
    with pytest.raises(ServiceError, match="Stranger is not registered in"):
        services.seat_late(round_, stranger)


def test_late_players_enough_for_a_table_get_a_new_one() -> None:
    night, people, bots = _night(["Ann", "Bo", "Cy"], bots=3)
    round_ = services.start_round(night)  # the three bots fill one table of 3
    for who in people[:2]:
        services.check_in(night, who)
    where = services.seat_late(round_)
    assert where == {"Ann": 2, "Bo": 2}
    assert sorted(
        len(t)
        for t in [TableSeat.objects.filter(table__round=round_, table__number=n) for n in (1, 2)]
    ) == [2, 3]
    services.begin_round(round_)


def test_a_late_player_with_no_room_and_no_partner_gets_a_bye_and_a_bye_makes_a_table() -> None:
    night, (ann, bo), bots = _night(["Ann", "Bo"], bots=3)
    round_ = services.start_round(night)
    services.check_in(night, ann)
    assert services.seat_late(round_) == {"Ann": None}
    round_.refresh_from_db()
    assert round_.byes == [ann.pk]
    services.check_in(night, bo)
    assert services.seat_late(round_) == {"Bo": 2}
    round_.refresh_from_db()
    assert round_.byes == []
    assert TableSeat.objects.filter(table__round=round_, table__number=2).count() == 2


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Ann", "ann"),
        ("Аня", "аня"),
        ("Ann", " ANN "),
        ("Zoë", "Zoe\u0308"),
        ("Ann", "Ann\u200b"),
        ("Ann", "Ann\ufe0f"),
        ("Ann Lee", "Ann  Lee"),
        ("Ann Lee", "Ann\tLee"),
        ("ann", "\u202eann"),  # a bidirectional override: kept, it turned the name around
    ],
)
def test_a_player_whose_name_differs_only_in_case_or_spelling_of_a_letter_is_refused(
    first: str, second: str
) -> None:
    # "ann" beside "Ann" made two players an organiser could not tell apart on a list,
    # and the drop command took the first of them (found by trying).
    club = factories.club()
    services.add_player(club, first)
    with pytest.raises(ServiceError, match="already has a player called"):
        services.add_player(club, second)
    assert Player.objects.filter(club=club).count() == 1


@pytest.mark.parametrize(
    "name", ["\u200b", " \u200b\u200d ", "\u2060", "\t", "\u3164", "\u2800", "\ufe0f", "\u0301"]
)
def test_a_name_with_nothing_that_shows_is_no_name(name: str) -> None:
    # A tournament named "\u200b" was made, and listed with a name no one could see.
    club = factories.club()
    with pytest.raises(ServiceError, match="needs a name"):
        services.add_player(club, name)
    with pytest.raises(ServiceError, match="needs a name"):
        services.create_tournament(club, name, "bhabhi", 1)
    with pytest.raises(ServiceError, match="needs a name"):
        services.create_club(name)


def test_the_admin_s_player_form_takes_names_as_the_services_do() -> None:
    # The admin saved names without the services' rule (found by review).
    from tournaments.admin import PlayerForm

    club = factories.club()
    ann = services.add_player(club, "Ann")
    taken = PlayerForm(data={"club": club.pk, "name": "ann\u200b", "bot_level": ""})
    assert not taken.is_valid() and "already has a player called" in str(taken.errors["name"])
    blank = PlayerForm(data={"club": club.pk, "name": "\u3164", "bot_level": ""})
    assert not blank.is_valid() and "needs a name" in str(blank.errors["name"])
    renamed = PlayerForm(data={"club": club.pk, "name": "ANN", "bot_level": ""}, instance=ann)
    assert renamed.is_valid(), renamed.errors  # a player may change their own name's case
