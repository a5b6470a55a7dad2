"""Who may do what: organisers manage their own club, players act for themselves only."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import RequestFactory

from tests import factories
from tests.api.conftest import Api
from tests.factories import ClubWorld, club_world, seat_of_name, tournament_game
from tournaments import services
from tournaments.api import problems
from tournaments.models import TableSeat, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def seated(world: ClubWorld) -> tuple[ClubWorld, Tournament, int]:
    """A tournament of the world's club with round 1 seated (not begun), and a stranger club."""
    tournament = services.create_tournament(
        world.club, "Seated", "old_maid", 2, table_min=2, table_max=2
    )
    for name in ("alice", "bob", "carol", "dave"):
        services.register(tournament, world.players[name])
    services.start_round(tournament, auto_check_in=True)
    return world, tournament, 1


def organiser_only(world: ClubWorld, tournament: Tournament) -> list[tuple[str, str, Any]]:
    base = f"/api/v1/tournaments/{tournament.pk}"
    alice, bob = world.players["alice"].pk, world.players["bob"].pk
    return [
        (
            "post",
            "/api/v1/tournaments",
            {"club": world.club.pk, "name": "X", "game": "old_maid", "rounds": 1},
        ),
        ("post", "/api/v1/players", {"club": world.club.pk, "name": "Zed"}),
        ("post", f"{base}/rounds", {}),
        ("post", f"{base}/rounds/1/begin", None),
        ("post", f"{base}/rounds/1/swaps", {"players": [alice, bob]}),
    ]


def test_organiser_actions_need_a_login_then_the_clubs_organiser(
    seated: tuple[ClubWorld, Tournament, int], api: Api
) -> None:
    world, tournament, _ = seated
    stranger = club_world("stranger-club")
    for method, path, body in organiser_only(world, tournament):
        status, problem, _ = getattr(api, method)(path, body)
        assert status == 401 and problem["type"] == "/api/v1/problems/unauthenticated", path
        for token in (world.tokens["alice"], stranger.tokens["org"]):
            status, problem, _ = getattr(api, method)(path, body, token=token)
            assert status == 403 and problem["type"] == "/api/v1/problems/forbidden", path
    # Nothing changed.
    assert Tournament.objects.filter(club=world.club).count() == 1
    assert TableSeat.objects.filter(table__round__tournament=tournament).count() == 4


def test_players_register_check_in_and_drop_themselves_only(world: ClubWorld, api: Api) -> None:
    tournament = services.create_tournament(world.club, "Open", "old_maid", 2)
    base = f"/api/v1/tournaments/{tournament.pk}"
    services.register(tournament, world.players["carol"])
    bob = {"player": world.players["bob"].pk}
    carol = {"player": world.players["carol"].pk}
    for path, body in (
        (f"{base}/registrations", bob),
        (f"{base}/checkins", carol),
        (f"{base}/drops", carol),
    ):
        assert api.post(path, body)[0] == 401
        status, problem, _ = api.post(path, body, token=world.tokens["alice"])
        assert status == 403 and problem["field"] == "player"
    assert api.post(f"{base}/checkins", carol, token=world.tokens["carol"])[0] == 201
    # The organiser may ask: past the permissions, the rule answers (no round has begun, so
    # it is a withdrawal; test_tournaments.py drops after round 1).
    status, problem, _ = api.post(f"{base}/drops", carol, token=world.tokens["org"])
    assert status == 422 and "withdraw Carol instead" in problem["detail"]


def test_a_superuser_organises_every_club(world: ClubWorld, api: Api) -> None:
    from django.contrib.auth.models import User

    from tournaments.api.authentication import create_token

    root = User.objects.create_superuser("root-api", password="x")
    _, key = create_token(root)
    status, tournament, _ = api.post(
        "/api/v1/tournaments",
        {"club": world.club.pk, "name": "By root", "game": "bhabhi", "rounds": 1},
        token=key,
    )
    assert status == 201 and tournament["game"] == "bhabhi"
    assert api.get("/api/v1/me", token=key)[1]["superuser"] is True


def test_a_player_hands_their_seat_to_a_bot_and_takes_it_back(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    seat = seat_of_name(world, game, "alice")
    path = f"/api/v1/games/{game.pk}/autoplay"
    assert api.post(path)[0] == 401
    assert api.post(path, token=world.tokens["dave"])[0] == 403
    status, view, _ = api.post(path, token=world.tokens["alice"])
    assert status == 200 and view["seat"] == seat
    row = TableSeat.objects.get(table_id=game.table_id, seat=seat)
    assert row.autoplay
    status, _, _ = api.delete(path, token=world.tokens["alice"])
    row.refresh_from_db()
    assert status == 200 and not row.autoplay
    # Bob cannot hand Alice's seat over: he has his own seat only.
    api.post(path, token=world.tokens["bob"])
    row.refresh_from_db()
    assert not row.autoplay


def test_a_seat_is_not_handed_to_a_bot_once_its_table_s_series_is_over(
    world: ClubWorld, api: Api
) -> None:
    """Found by trying (2026-12-07): a finished game's seat was handed over, and its view
    then showed a bot at a table whose series had ended."""
    from tournaments.models import Table

    _, game = tournament_game(world)
    Table.objects.filter(pk=game.table_id).update(status=Table.Status.FINISHED)
    path = f"/api/v1/games/{game.pk}/autoplay"
    status, problem, _ = api.post(path, token=world.tokens["alice"])
    assert status == 422 and problem["field"] == "seat" and "over" in problem["detail"]
    assert not TableSeat.objects.filter(table_id=game.table_id, autoplay=True).exists()


def test_autoplay_of_a_finished_game_is_refused_and_leaves_the_tables_live_game_alone(
    world: ClubWorld, api: Api
) -> None:
    """Found by trying (2026-12-08): a finished game's autoplay handed the seat over (or took
    it back) in the game its table plays now, another game than the one the URL names."""
    from tests.service.play import play
    from tournaments.models import Game

    _, first = tournament_game(world, deals=2, names=("alice", "bob"))
    play(first)
    second = Game.objects.get(table=first.table, number_in_series=2)
    seat = seat_of_name(world, first, "alice")
    row = TableSeat.objects.get(table_id=first.table_id, seat=seat)
    path = f"/api/v1/games/{first.pk}/autoplay"
    before = Game.objects.get(pk=second.pk).sequence
    status, problem, _ = api.post(path, token=world.tokens["alice"])
    assert status == 409 and problem["type"] == "/api/v1/problems/game-over"
    assert f"game {first.pk} is over" in problem["detail"] and problem["instance"] == path
    row.refresh_from_db()
    assert not row.autoplay
    # Taking back is refused alike: the seat handed over in the live game stays a bot's.
    TableSeat.objects.filter(pk=row.pk).update(autoplay=True, timeouts_in_a_row=2)
    status, problem, _ = api.delete(path, token=world.tokens["alice"])
    assert status == 409 and problem["type"] == "/api/v1/problems/game-over"
    row.refresh_from_db()
    assert row.autoplay and row.timeouts_in_a_row == 2
    assert Game.objects.get(pk=second.pk).sequence == before


def test_autoplay_refuses_a_body_it_does_not_take(world: ClubWorld, api: Api) -> None:
    """Autoplay takes no body (the URL and the sign-in name the seat): one sent is refused as
    any endpoint refuses a field it does not take (found by trying, 2026-12-08: a body was
    ignored, so ``{"seat": 1}`` acted on the caller's own seat without a word)."""
    _, game = tournament_game(world)
    path = f"/api/v1/games/{game.pk}/autoplay"
    for method in ("POST", "DELETE"):
        status, problem, _ = api.call(method, path, {"seat": 1}, token=world.tokens["alice"])
        assert status == 400 and problem["type"] == "/api/v1/problems/invalid", method
        assert problem["field"] == "seat" and "takes no body" in problem["detail"]
        for sent in ([1], "x", 5):
            status, problem, _ = api.call(method, path, sent, token=world.tokens["alice"])
            assert status == 400 and problem["field"] is None, (method, sent)
    assert not TableSeat.objects.filter(table_id=game.table_id, autoplay=True).exists()
    # No body, or an empty object, is what it takes.
    assert api.post(path, {}, token=world.tokens["alice"])[0] == 200
    assert api.delete(path, token=world.tokens["alice"])[0] == 200


def test_beginning_a_round_and_renewing_the_sign_up_link_refuse_a_body(
    world: ClubWorld, api: Api
) -> None:
    """The other endpoints that take no body refuse one as autoplay does (a body was
    ignored: found by a helper), and change nothing; none, or ``{}``, is taken."""
    from tournaments.models import Club, Round

    round_ = services.start_round(
        factories.tournament(
            world.club,
            [world.players[n] for n in ("alice", "bob")],
            game="old_maid",
            table_min=2,
            table_max=2,
        ),
        auto_check_in=True,
    )
    begin = f"/api/v1/tournaments/{round_.tournament_id}/rounds/{round_.number}/begin"
    link = f"/api/v1/clubs/{world.club.pk}/sign-up-link"
    for path in (begin, link):
        status, problem, _ = api.post(path, {"round": 2}, token=world.tokens["org"])
        assert status == 400 and problem["field"] == "round", (path, problem)
        assert "takes no body" in problem["detail"]
    assert Round.objects.get(pk=round_.pk).status == Round.Status.SEATED
    assert not Club.objects.get(pk=world.club.pk).signup_token
    assert api.post(begin, {}, token=world.tokens["org"])[0] == 200
    assert api.post(link, token=world.tokens["org"])[0] == 201


def test_autoplay_is_for_tournament_seats_only(world: ClubWorld, api: Api) -> None:
    from tournaments import play as service

    seats = [{"player": world.players[n].pk, "name": n, "bot": None} for n in ("alice", "bob")]
    game = service.create_game("old_maid", 2, context={"seats": seats})
    status, problem, _ = api.post(f"/api/v1/games/{game.pk}/autoplay", token=world.tokens["alice"])
    assert status == 422 and problem["field"] == "seat"


def test_tables_rounds_and_tournaments_that_do_not_exist_are_404(
    world: ClubWorld, api: Api
) -> None:
    for path in (
        "/api/v1/tables/999999",
        "/api/v1/tournaments/999999",
        "/api/v1/tournaments/999999/rounds",
        "/api/v1/tournaments/999999/rounds/1",
        "/api/v1/tournaments/999999/standings",
        "/api/v1/tournaments/999999/stream?timeout=0.1",
        "/api/v1/players/999999",
        "/api/v1/problems/no-such-problem",
        "/api/v1/games/999999/record",
    ):
        status, problem, _ = api.get(path)
        assert status == 404 and problem["type"] == "/api/v1/problems/not-found", path


def test_djangos_handlers_answer_problems_under_api_only(db: Any) -> None:
    factory = RequestFactory()
    api_request, page = factory.get("/api/v1/x"), factory.get("/page")
    for handler, status in (
        (lambda r: problems.handler400(r, None), 400),
        (lambda r: problems.handler403(r, None), 403),
        (lambda r: problems.handler404(r, None), 404),
        (problems.handler500, 500),
    ):
        answer = handler(api_request)
        assert answer.status_code == status
        assert answer["Content-Type"] == "application/problem+json"
        assert "problem" not in handler(page)["Content-Type"]
