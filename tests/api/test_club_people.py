"""What an organiser's client needs to run a club (issue 20): a player with a new login, the
club's organisers, its sign-up link — through the pages' use cases, refusals as problems
that change nothing; a superuser creates a club with its first organiser."""

from __future__ import annotations

import pytest
from django.contrib.auth import authenticate
from django.contrib.auth.models import User
from django.test import Client

from tests.api.conftest import Api
from tests.factories import ClubWorld, create_token
from tournaments.models import Club, Player

pytestmark = pytest.mark.django_db

PASSWORD = "a long club night"


def test_an_organiser_creates_a_player_with_a_login_and_gets_the_password_once(
    world: ClubWorld, api: Api
) -> None:
    url = f"/api/v1/clubs/{world.club.pk}/players"
    status, made, response = api.post(
        url, {"name": "Zara", "username": "zara"}, token=world.tokens["org"]
    )
    assert status == 201, made
    player = Player.objects.get(pk=made["id"])
    assert response["Location"] == f"/api/v1/players/{player.pk}"
    assert (made["name"], made["username"], made["club"]) == ("Zara", "zara", world.club.pk)
    assert authenticate(username="zara", password=made["password"]) == player.user
    status, chosen, _ = api.post(
        url, {"name": "Yann", "username": "yann", "password": PASSWORD}, token=world.tokens["org"]
    )
    assert status == 201 and chosen["password"] is None
    assert authenticate(username="yann", password=PASSWORD) is not None


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"name": "Alice", "username": "alice2"}, "name", "already has a player called"),
        ({"name": "Zed", "username": "org-parlour-club"}, "username", "is taken"),
        ({"name": "Zed", "username": "zed", "password": "abc"}, "password", "too short"),
        ({"name": "Zed", "username": "no spaces"}, "username", "cannot be a user name"),
        ({"name": "Zed"}, "username", "required"),
    ],
)
def test_a_refused_player_is_a_problem_and_leaves_no_login_behind(
    world: ClubWorld, api: Api, body: dict[str, str], field: str, words: str
) -> None:
    logins, players = User.objects.count(), Player.objects.count()
    status, problem, response = api.post(
        f"/api/v1/clubs/{world.club.pk}/players", body, token=world.tokens["org"]
    )
    assert status in (400, 422), problem
    assert response["Content-Type"] == "application/problem+json"
    assert words in str(problem) and field in str(problem)
    assert (User.objects.count(), Player.objects.count()) == (logins, players)


def test_only_the_clubs_organisers_manage_its_people(world: ClubWorld, api: Api) -> None:
    club = world.club.pk
    for path, body in [
        (f"/api/v1/clubs/{club}/players", {"name": "Zed", "username": "zed"}),
        (f"/api/v1/clubs/{club}/organisers", {"username": "alice-parlour-club"}),
        (f"/api/v1/clubs/{club}/sign-up-link", None),
    ]:
        assert api.post(path, body)[0] == 401
        status, problem, _ = api.post(path, body, token=world.tokens["alice"])
        assert status == 403 and "only the organisers of Parlour Club" in problem["detail"]
    assert api.get(f"/api/v1/clubs/{club}/organisers", token=world.tokens["alice"])[0] == 403
    assert api.get(f"/api/v1/clubs/{club + 1000}/organisers", token=world.tokens["org"])[0] == 404
    assert not User.objects.filter(username="zed").exists()
    assert list(world.club.organisers.all()) == [world.organiser]


def test_an_organiser_adds_and_removes_organisers_and_the_last_one_stays(
    world: ClubWorld, api: Api
) -> None:
    url = f"/api/v1/clubs/{world.club.pk}/organisers"
    org = world.tokens["org"]
    alice = world.users["alice"]
    status, organisers, _ = api.post(url, {"username": alice.username}, token=org)
    assert status == 201
    assert {o["username"] for o in organisers} == {alice.username, world.organiser.username}
    status, problem, _ = api.post(url, {"username": world.users["eve"].username}, token=org)
    assert status == 422 and problem["field"] == "user" and "plays for no one" in problem["detail"]
    status, problem, _ = api.post(url, {"username": "nobody"}, token=org)
    assert status == 422 and problem["field"] == "username"
    assert api.delete(f"{url}/{alice.pk}", token=org)[0] == 204
    status, problem, _ = api.delete(f"{url}/{world.organiser.pk}", token=org)
    assert status == 422 and "the only organiser of Parlour Club" in problem["detail"]
    assert api.delete(f"{url}/{alice.pk}", token=org)[0] == 404
    assert api.get(url, token=org)[1] == [
        {"id": world.organiser.pk, "username": world.organiser.username}
    ]


def test_the_sign_up_link_is_made_renewed_and_turned_off_and_lets_a_person_join(
    world: ClubWorld, api: Api
) -> None:
    url = f"/api/v1/clubs/{world.club.pk}/sign-up-link"
    org = world.tokens["org"]
    assert api.get(url, token=org)[1] == {"on": False, "url": None}
    status, first, _ = api.post(url, token=org)
    assert status == 201 and first["on"] and "/join/" in first["url"]
    status, second, _ = api.post(url, token=org)
    assert second["url"] != first["url"] and api.get(url, token=org)[1] == second
    path = second["url"].split("testserver", 1)[1]
    assert Client().get(first["url"].split("testserver", 1)[1]).status_code == 404
    joined = Client().post(
        path, {"name": "Kim", "username": "kim", "password": PASSWORD, "password_again": PASSWORD}
    )
    assert joined.status_code == 302 and Player.objects.filter(club=world.club, name="Kim").exists()
    assert api.delete(url, token=org)[0] == 204
    assert api.get(url, token=org)[1] == {"on": False, "url": None}
    assert Client().get(path).status_code == 404


def test_a_superuser_creates_a_club_with_its_first_organiser(world: ClubWorld, api: Api) -> None:
    admin = User.objects.create_superuser("root", password=PASSWORD)
    token = create_token(admin, "tests")[1]
    body = {"name": "Spades Club", "organiser": "sam", "password": PASSWORD}
    status, problem, _ = api.post("/api/v1/clubs", body, token=world.tokens["org"])
    assert status == 403 and "superuser" in problem["detail"]
    assert not Club.objects.filter(name="Spades Club").exists()
    status, club, response = api.post("/api/v1/clubs", body, token=token)
    assert status == 201, club
    made = Club.objects.get(pk=club["id"])
    assert response["Location"] == f"/api/v1/clubs/{made.pk}"
    assert [u.username for u in made.organisers.all()] == ["sam"]
    assert authenticate(username="sam", password=PASSWORD) is not None
    status, problem, _ = api.post("/api/v1/clubs", body, token=token)
    assert status == 422 and problem["field"] == "slug"
    status, problem, _ = api.post(
        "/api/v1/clubs", {"name": "Hearts", "organiser": "hal"}, token=token
    )
    assert status == 422 and problem["field"] == "password"
    assert not User.objects.filter(username="hal").exists()
    assert not Club.objects.filter(name="Hearts").exists()
