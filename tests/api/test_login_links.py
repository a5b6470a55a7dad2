"""A player's login cannot change while they hold a seat in play, and every change is logged.

Issue 17's attack: an organiser relinked a seated player's login to their own in the
admin, and their token got ``role: seat``, the seat's hand and its actions.
"""

from __future__ import annotations

import pytest
from django.test import Client

from tests.api.conftest import Api
from tests.factories import ClubWorld, seat_of_name, tournament_game
from tournaments import services
from tournaments.models import Game, LoginLinkChange, Player, SeatedLoginChange

pytestmark = pytest.mark.django_db


def admin_client(world: ClubWorld) -> Client:
    world.organiser.is_staff = True
    world.organiser.save()
    client = Client()
    client.force_login(world.organiser)
    return client


def player_form(player: Player, user_id: int | str) -> dict[str, object]:
    return {"club": player.club_id, "name": player.name, "user": user_id, "bot_level": ""}


def assert_organiser_sees_and_cannot_act(world: ClubWorld, api: Api, game: Game) -> None:
    """The organiser sees ``game`` as its organiser (no hand), and a move of Alice's seat
    sent with the organiser's token is refused (403)."""
    status, view, _ = api.get(f"/api/v1/games/{game.pk}", token=world.tokens["org"])
    assert status == 200 and view["role"] == "organiser" and "hand" not in view
    status, alices, _ = api.get(f"/api/v1/games/{game.pk}", token=world.tokens["alice"])
    assert alices["seat"] == seat_of_name(world, game, "alice")
    status, problem, _ = api.post(
        f"/api/v1/games/{game.pk}/actions",
        {"expected_sequence": game.sequence, "action": alices["legal_actions"][0]},
        token=world.tokens["org"],
        headers={"Idempotency-Key": f"org-{game.pk}-{game.sequence}"},
    )
    assert status == 403, problem


def test_relinking_a_seated_players_login_to_the_organiser_in_the_admin_is_refused(
    world: ClubWorld, api: Api
) -> None:
    _, game = tournament_game(world)
    alice = world.players["alice"]
    page = admin_client(world).post(
        f"/admin/tournaments/player/{alice.pk}/change/", player_form(alice, world.organiser.pk)
    )
    assert page.status_code == 200
    assert "Alice holds a seat at" in page.content.decode()
    alice.refresh_from_db()
    assert alice.user_id == world.users["alice"].pk
    assert_organiser_sees_and_cannot_act(world, api, game)
    assert not LoginLinkChange.objects.filter(new_user=world.organiser).exists()


def test_the_club_inline_cannot_relink_a_seated_player_either(world: ClubWorld) -> None:
    # The inline is editable for a superuser (organisers see it read only).
    world.organiser.is_superuser = True
    world.organiser.save()
    tournament_game(world)
    players = list(world.club.players.order_by("id"))
    form: dict[str, object] = {
        "name": world.club.name,
        "slug": world.club.slug,
        "organisers": [world.organiser.pk],
        "players-TOTAL_FORMS": len(players),
        "players-INITIAL_FORMS": len(players),
        "players-MIN_NUM_FORMS": 0,
        "players-MAX_NUM_FORMS": 1000,
    }
    for i, player in enumerate(players):
        user = world.organiser.pk if player.name == "Alice" else (player.user_id or "")
        form |= {
            f"players-{i}-id": player.pk,
            f"players-{i}-club": world.club.pk,
            f"players-{i}-name": player.name,
            f"players-{i}-user": user,
            f"players-{i}-bot_level": player.bot_level,
        }
    page = admin_client(world).post(f"/admin/tournaments/club/{world.club.pk}/change/", form)
    assert page.status_code == 200 and "Alice holds a seat at" in page.content.decode()
    assert Player.objects.get(pk=world.players["alice"].pk).user_id == world.users["alice"].pk


def test_the_model_refuses_a_seated_players_new_login_whatever_path_saves_it(
    world: ClubWorld,
) -> None:
    tournament_game(world)
    alice = Player.objects.get(pk=world.players["alice"].pk)
    alice.user = world.organiser
    with pytest.raises(SeatedLoginChange):
        alice.save()


def test_the_api_refuses_a_seated_players_new_login_with_a_problem(
    world: ClubWorld, api: Api
) -> None:
    tournament_game(world)
    alice = world.players["alice"]
    status, problem, _ = api.call(
        "PATCH",
        f"/api/v1/players/{alice.pk}",
        {"username": world.organiser.username},
        token=world.tokens["org"],
    )
    assert status == 422 and "Alice holds a seat at" in problem["detail"]
    assert Player.objects.get(pk=alice.pk).user_id == world.users["alice"].pk


def test_an_unseated_players_login_changes_and_the_club_reads_the_log(
    world: ClubWorld, api: Api
) -> None:
    dave = world.players["dave"]
    status, player, _ = api.call(
        "PATCH",
        f"/api/v1/players/{dave.pk}",
        {"username": world.users["eve"].username},
        token=world.tokens["org"],
    )
    assert status == 200 and player["online"] is True
    assert Player.objects.get(pk=dave.pk).user_id == world.users["eve"].pk
    status, page, _ = api.get(
        f"/api/v1/clubs/{world.club.pk}/login-changes", token=world.tokens["org"]
    )
    assert status == 200
    newest = page["results"][0]
    assert (newest["name"], newest["old_username"], newest["new_username"]) == (
        "Dave",
        world.users["dave"].username,
        world.users["eve"].username,
    )
    assert newest["changed_by_username"] == world.organiser.username
    # The players' first logins are in the log too (add_player), oldest last.
    assert {row["name"] for row in page["results"]} == {"Alice", "Bob", "Carol", "Dave"}


def test_only_the_clubs_organisers_change_logins_or_read_the_log(
    world: ClubWorld, api: Api
) -> None:
    dave = world.players["dave"]
    status, _, _ = api.call(
        "PATCH", f"/api/v1/players/{dave.pk}", {"username": None}, token=world.tokens["eve"]
    )
    assert status == 403
    status, _, _ = api.get(
        f"/api/v1/clubs/{world.club.pk}/login-changes", token=world.tokens["alice"]
    )
    assert status == 403
    assert Player.objects.get(pk=dave.pk).user_id == world.users["dave"].pk


def test_a_login_change_in_the_admin_is_logged_with_who_made_it(world: ClubWorld) -> None:
    dave = world.players["dave"]
    client = admin_client(world)
    done = client.post(f"/admin/tournaments/player/{dave.pk}/change/", player_form(dave, ""))
    assert done.status_code == 302
    assert Player.objects.get(pk=dave.pk).user_id is None
    change = LoginLinkChange.objects.filter(player=dave).first()
    assert change is not None
    assert (change.old_username, change.new_username, change.changed_by) == (
        world.users["dave"].username,
        "",
        world.organiser,
    )
    listing = client.get("/admin/tournaments/loginlinkchange/")
    assert listing.status_code == 200 and "Dave" in listing.content.decode()


def test_a_player_relinks_once_their_table_has_finished(world: ClubWorld) -> None:
    tournament_game(world)
    alice = world.players["alice"]
    with pytest.raises(services.ServiceError):
        services.link_login(alice, world.organiser, by=world.organiser)
    for seat in alice.table_seats.select_related("table"):
        seat.table.status = seat.table.Status.FINISHED
        seat.table.save()
    services.link_login(alice, world.users["eve"], by=world.organiser)
    assert Player.objects.get(pk=alice.pk).user_id == world.users["eve"].pk


def test_a_new_player_added_in_the_admin_with_a_login_is_logged_and_a_taken_login_refused(
    world: ClubWorld,
) -> None:
    client = admin_client(world)
    add = {"club": world.club.pk, "name": "Eve", "user": world.users["eve"].pk, "bot_level": ""}
    assert client.post("/admin/tournaments/player/add/", add).status_code == 302
    eve = Player.objects.get(name="Eve")
    assert eve.user_id == world.users["eve"].pk
    logged = LoginLinkChange.objects.get(player=eve)
    assert (logged.old_username, logged.changed_by) == ("", world.organiser)
    again = client.post("/admin/tournaments/player/add/", add | {"name": "Eve Again"})
    assert again.status_code == 200 and "already plays in this club" in again.content.decode()
    assert not Player.objects.filter(name="Eve Again").exists()


def test_an_organiser_cannot_seat_their_own_player_in_a_running_game_through_the_admin(
    world: ClubWorld, api: Api
) -> None:
    """The other way in: leave the logins alone and move the organiser's own player into the
    seat (the seat's change form, the round's "seat again" action)."""
    from tournaments.models import Round, TableSeat

    _, game = tournament_game(world)
    own = services.add_player(world.club, "Olga", user=world.organiser)
    seat = TableSeat.objects.get(table=game.table, player=world.players["alice"])
    client = admin_client(world)
    # A begun round's seats are read only in the admin: the posted player is not taken.
    client.post(f"/admin/tournaments/tableseat/{seat.pk}/change/", {"player": own.pk})
    seat.refresh_from_db()
    assert seat.player_id == world.players["alice"].pk
    round_ = Round.objects.get(tables=game.table)
    page = client.post(
        "/admin/tournaments/round/",
        {"_selected_action": [round_.pk], "action": "reseat_rounds", "index": 0},
        follow=True,
    )
    assert page.status_code == 200
    assert "has begun (playing): its seating cannot change" in page.content.decode()
    seats = list(TableSeat.objects.filter(table=game.table).values_list("player_id", flat=True))
    assert own.pk not in seats and world.players["alice"].pk in seats
    # The organiser still sees the game as its organiser, never as a seat, and cannot act.
    assert_organiser_sees_and_cannot_act(world, api, game)
