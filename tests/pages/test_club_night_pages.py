"""Issue 20's pages: the first run, the club's people, the sign-up link, password change,
log out, players entering themselves, and a desk that strands nobody."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.factories import PageWorld as World
from tournaments import services
from tournaments.models import CheckIn, Club, Player, Registration, Round, TableSeat

pytestmark = pytest.mark.django_db

PASSWORD = "a long club night"


def test_an_empty_install_shows_the_first_run_page_which_logs_the_organiser_in() -> None:
    client = Client()
    assert "Set up your club" in client.get("/").content.decode()
    form = client.get("/welcome")
    assert form.status_code == 200 and "Create the club" in form.content.decode()
    answer = client.post(
        "/welcome",
        {
            "club_name": "Hearts Club",
            "username": "olga",
            "email": "",
            "password": PASSWORD,
            "password_again": PASSWORD,
        },
    )
    club = Club.objects.get(name="Hearts Club")
    assert answer["Location"] == f"/clubs/{club.slug}/people"
    people = client.get(answer["Location"]).content.decode()
    assert "Hearts Club is ready and you organise it." in people
    assert "Set up your club" not in client.get("/").content.decode()
    again = Client().get("/welcome", follow=True).content.decode()
    assert "This install is set up already" in again


def test_the_first_run_form_shows_the_refusals_on_their_fields() -> None:
    answer = Client().post(
        "/welcome",
        {"club_name": "X", "username": "olga", "password": "abc", "password_again": "abd"},
    )
    assert "The two passwords differ" in answer.content.decode()
    assert not Club.objects.exists()


def test_an_organiser_creates_a_login_and_sees_the_password_once(world: World) -> None:
    org = world.client(world.organiser)
    url = f"/clubs/{world.club.slug}/people"
    assert "Make a sign-up link" in org.get(url).content.decode()
    page = org.post(f"{url}/new", {"name": "Bo", "username": "bo", "password": ""}).content.decode()
    password = re.search(r"data-password>([^<]+)<", page)
    assert password is not None and "shown only this once" in page
    bo = User.objects.get(username="bo")
    assert bo.check_password(password.group(1))
    assert Player.objects.get(club=world.club, name="Bo").user == bo
    assert "data-password" not in org.get(url).content.decode()
    taken = org.post(f"{url}/new", {"name": "Bob", "username": "bo"}).content.decode()
    assert "is taken" in taken


def test_only_organisers_see_the_club_people_page(world: World) -> None:
    assert world.client(world.person).get(f"/clubs/{world.club.slug}/people").status_code == 403


def test_the_sign_up_link_lets_a_person_join_until_it_is_turned_off(world: World) -> None:
    org = world.client(world.organiser)
    people = f"/clubs/{world.club.slug}/people"
    org.post(f"/clubs/{world.club.slug}/sign-up-link/renew")
    world.club.refresh_from_db()
    link = f"/join/{world.club.signup_token}"
    assert link in org.get(people).content.decode()
    guest = Client()
    assert f"Join {world.club.name}" in guest.get(link).content.decode()
    joined = guest.post(
        link,
        {"name": "Cy", "username": "cy", "password": PASSWORD, "password_again": PASSWORD},
        follow=True,
    ).content.decode()
    assert "Welcome to Test Club, Cy." in joined and "Log out" in joined
    org.post(f"/clubs/{world.club.slug}/sign-up-link/off")
    closed = Client().get(link)
    assert closed.status_code == 404 and "does not work" in closed.content.decode()


def test_an_organiser_adds_another_organiser_from_the_clubs_logins(world: World) -> None:
    org = world.client(world.organiser)
    answer = org.post(
        f"/clubs/{world.club.slug}/people/organisers", {"user": world.person.pk}, follow=True
    )
    assert "ann now organises Test Club too." in answer.content.decode()
    assert services.is_organiser(world.person, world.club)


def test_everyone_changes_their_password_and_log_out_lands_home(world: World) -> None:
    ann = world.client(world.person)
    form = ann.get("/accounts/password/")
    assert form.status_code == 200 and "Change your password" in form.content.decode()
    done = ann.post(
        "/accounts/password/",
        {
            "old_password": "ann-secret",
            "new_password1": PASSWORD,
            "new_password2": PASSWORD,
        },
        follow=True,
    )
    assert "Your password is changed." in done.content.decode()
    world.person.refresh_from_db()
    assert world.person.check_password(PASSWORD)
    out = ann.post("/accounts/logout/")
    assert out["Location"] == "/"


def _night(world: World, bots: int = 2) -> object:
    night = services.create_tournament(
        world.club,
        "Club Night",
        "give_away",
        2,
        series={"kind": "first_to", "target": 1},
        table_min=2,
        table_max=3,
    )
    for bot in world.bots[:bots]:
        services.register(night, bot)
    return night


def test_a_player_registers_checks_in_and_withdraws_from_the_tournament_page(world: World) -> None:
    night = _night(world)
    ann = world.client(world.person)
    url = f"/tournaments/{night.pk}/"  # type: ignore[attr-defined]
    assert "Register for Club Night" in ann.get(url).content.decode()
    ann.post(f"{url}me/register")
    assert Registration.objects.filter(tournament=night, player=world.player).exists()
    page = ann.get(url).content.decode()
    assert "Check in for round 1" in page
    checked = ann.post(f"{url}me/check-in", follow=True).content.decode()
    assert "You are checked in for round 1." in checked
    assert CheckIn.objects.filter(tournament=night, player=world.player).exists()
    gone = ann.post(f"{url}me/withdraw", follow=True).content.decode()
    assert "You have withdrawn from Club Night." in gone
    assert not Registration.objects.filter(tournament=night, player=world.player).exists()
    stranger = User.objects.create_user("zed", password=PASSWORD)
    refused = Client()
    refused.force_login(stranger)
    answer = refused.post(f"{url}me/register", follow=True).content.decode()
    assert "Your login plays for no one in Test Club" in answer


def test_seating_asks_first_when_it_would_leave_registered_people_out(world: World) -> None:
    night = _night(world)
    services.register(night, world.player)
    org = world.client(world.organiser)
    url = f"/tournaments/{night.pk}/manage"  # type: ignore[attr-defined]
    box = re.search(r'<input[^>]*name="auto_check_in"[^>]*>', org.get(url).content.decode())
    assert box is not None and "checked" in box.group(0)
    asked = org.post(f"{url}/start-round", {}, follow=True).content.decode()
    assert "These registered players are not checked in for round 1:" in asked
    assert "Ann" in asked and "Check them in and seat round 1" in asked
    assert not Round.objects.filter(tournament=night).exists()
    org.post(f"{url}/start-round", {"confirm": "1", "auto_check_in": "on"})
    round_ = Round.objects.get(tournament=night)
    assert TableSeat.objects.filter(table__round=round_, player=world.player).exists()


def test_seating_without_them_then_a_late_check_in_is_seated_with_one_action(
    world: World,
) -> None:
    night = _night(world)
    services.register(night, world.player)
    org = world.client(world.organiser)
    url = f"/tournaments/{night.pk}/manage"  # type: ignore[attr-defined]
    org.post(f"{url}/start-round", {"confirm": "1"})
    round_ = Round.objects.get(tournament=night)
    assert not TableSeat.objects.filter(table__round=round_, player=world.player).exists()
    told = org.post(f"{url}/check-in", {"player": world.player.pk}, follow=True).content.decode()
    assert "Ann is checked in for round 1 but not seated: press Seat Ann" in told
    assert ">Seat Ann</button>" in told
    seated = org.post(f"{url}/seat-late", {"player": world.player.pk}, follow=True)
    assert "Ann is seated at table 1 of round 1." in seated.content.decode()
    assert TableSeat.objects.filter(table__round=round_, player=world.player).exists()
