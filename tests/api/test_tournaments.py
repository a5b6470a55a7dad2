"""Clubs, players, tournaments, rounds, tables, standings and ratings through the API."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests import factories
from tests.api.conftest import Api
from tests.factories import ClubWorld, club_world
from tests.service.play import play
from tournaments import services
from tournaments.models import CheckIn, Game, Registration, Round, Tournament

pytestmark = pytest.mark.django_db


def create(api: Api, world: ClubWorld, **fields: Any) -> tuple[int, Any]:
    body = {"club": world.club.pk, "name": "Friday night", "game": "old_maid", "rounds": 2}
    body.update(fields)
    status, data, _ = api.post("/api/v1/tournaments", body, token=world.tokens["org"])
    return status, data


def test_clubs_and_players_are_public(world: ClubWorld, api: Api) -> None:
    clubs = api.get("/api/v1/clubs")[1]
    assert [c["slug"] for c in clubs["results"]] == ["parlour-club"]
    assert api.get(f"/api/v1/clubs/{world.club.pk}")[1]["name"] == "Parlour Club"
    assert api.get("/api/v1/clubs/999999")[0] == 404
    players = api.get(f"/api/v1/players?club={world.club.pk}")[1]
    assert [p["name"] for p in players["results"]] == ["Alice", "Bob", "Carol", "Dave"]
    assert all(p["online"] and p["bot"] is None for p in players["results"])
    assert "user" not in players["results"][0], "logins are not published"
    alice = world.players["alice"]
    assert api.get(f"/api/v1/players/{alice.pk}")[1]["name"] == "Alice"
    assert api.get("/api/v1/players?club=abc")[0] == 400


def test_organisers_add_players_and_others_may_not(world: ClubWorld, api: Api) -> None:
    body = {"club": world.club.pk, "name": "Robot", "bot": "random"}
    assert api.post("/api/v1/players", body)[0] == 401
    status, problem, _ = api.post("/api/v1/players", body, token=world.tokens["alice"])
    assert status == 403 and problem["type"] == "/api/v1/problems/forbidden"
    status, player, _ = api.post("/api/v1/players", body, token=world.tokens["org"])
    assert status == 201 and player["bot"] == "random" and "is_bot" not in player
    status, problem, _ = api.post("/api/v1/players", body, token=world.tokens["org"])
    assert status == 422 and problem["field"] == "name" and "already" in problem["detail"]
    eve = {"club": world.club.pk, "name": "Eve", "username": world.users["eve"].username}
    status, player, _ = api.post("/api/v1/players", eve, token=world.tokens["org"])
    assert status == 201 and player["online"]
    ghost = {"club": world.club.pk, "name": "Ghost", "username": "nobody-at-all"}
    status, problem, _ = api.post("/api/v1/players", ghost, token=world.tokens["org"])
    assert status == 422 and problem["field"] == "username"


def test_organisers_create_tournaments_of_their_club_only(world: ClubWorld, api: Api) -> None:
    status, tournament = create(api, world, table_min=3, table_max=4, turn_seconds=60)
    assert status == 201 and tournament["status"] == "registration"
    assert tournament["series"] == {"kind": "losses", "target": 5} or tournament["series"]["kind"]
    assert tournament["table_min"] == 3 and tournament["turn_seconds"] == 60
    assert api.get(f"/api/v1/tournaments/{tournament['id']}")[1] == tournament
    body = {"club": world.club.pk, "name": "Mine", "game": "old_maid", "rounds": 1}
    assert api.post("/api/v1/tournaments", body)[0] == 401
    assert api.post("/api/v1/tournaments", body, token=world.tokens["alice"])[0] == 403
    other = club_world("other-club")
    status, problem, _ = api.post(
        "/api/v1/tournaments", {**body, "club": other.club.pk}, token=world.tokens["org"]
    )
    assert status == 403 and "Parlour Club" in problem["detail"]


def test_the_rules_refuse_a_tournament_with_a_422_naming_the_field(
    world: ClubWorld, api: Api
) -> None:
    status, problem = create(api, world, table_min=2, table_max=9)
    assert status == 422 and problem["type"] == "/api/v1/problems/refused"
    assert problem["field"] == "table_max" and "2 to 6" in problem["detail"]
    status, problem = create(api, world, club=999999)
    assert status == 422 and problem["field"] == "club"


def test_tournaments_list_filters_by_club_and_status(world: ClubWorld, api: Api) -> None:
    create(api, world)
    assert api.get(f"/api/v1/tournaments?club={world.club.pk}")[1]["count"] == 1
    assert api.get("/api/v1/tournaments?status=running")[1]["count"] == 0
    assert api.get("/api/v1/tournaments?status=bogus")[0] == 400


def test_a_club_night_through_the_api(world: ClubWorld, api: Api) -> None:
    """Register, check in, seat, swap, begin, play, standings, ratings: the organiser's night."""
    status, tournament = create(api, world, rounds=1, table_min=2, table_max=2)
    tid = tournament["id"]
    base = f"/api/v1/tournaments/{tid}"
    # Players register themselves; nobody registers someone else but an organiser.
    for name in ("alice", "bob"):
        status, entry, _ = api.post(
            f"{base}/registrations", {"player": world.players[name].pk}, token=world.tokens[name]
        )
        assert status == 201 and entry["name"] == name.title()
    status, problem, _ = api.post(
        f"{base}/registrations", {"player": world.players["carol"].pk}, token=world.tokens["bob"]
    )
    assert status == 403 and problem["field"] == "player"
    for name in ("carol", "dave"):
        status, _, _ = api.post(
            f"{base}/registrations", {"player": world.players[name].pk}, token=world.tokens["org"]
        )
        assert status == 201
    status, problem, _ = api.post(
        f"{base}/registrations", {"player": world.players["alice"].pk}, token=world.tokens["org"]
    )
    assert status == 422 and "already registered" in problem["detail"]
    assert api.get(f"{base}/registrations")[1]["count"] == 4
    # Check in: three of four; the fourth does not come (a drop before round 1 is refused:
    # withdrawing is what takes an entry back then).
    for name in ("alice", "bob", "carol"):
        status, checked, _ = api.post(
            f"{base}/checkins", {"player": world.players[name].pk}, token=world.tokens[name]
        )
        assert status == 201 and checked["round"] == 1
    status, problem, _ = api.post(
        f"{base}/drops", {"player": world.players["dave"].pk}, token=world.tokens["dave"]
    )
    assert status == 422 and "withdraw Dave instead" in problem["detail"]
    assert api.get(f"{base}/checkins?round=1")[1]["count"] == 3
    # Only the organiser seats a round; tables of 2 seat four players... three: one bye.
    assert api.post(f"{base}/rounds", {}, token=world.tokens["alice"])[0] == 403
    status, round_, response = api.post(f"{base}/rounds", {}, token=world.tokens["org"])
    assert status == 201 and round_["status"] == "seated"
    assert response["Location"] == f"{base}/rounds/1"
    seated = [s["player"] for t in round_["tables"] for s in t["sitting"]]
    assert len(seated) == 2 and len(round_["byes"]) == 1
    bye, first = round_["byes"][0], seated[0]
    status, swapped, _ = api.post(
        f"{base}/rounds/1/swaps", {"players": [bye, first]}, token=world.tokens["org"]
    )
    assert status == 200 and swapped["byes"] == [first]
    assert api.post(f"{base}/rounds/1/swaps", {"players": [1]}, token=world.tokens["org"])[0] == 400
    # Refusals say what to do with the API, not "reseat" (no endpoint has that name).
    dave = world.players["dave"].pk
    status, problem, _ = api.post(
        f"{base}/rounds/1/swaps", {"players": [dave, first]}, token=world.tokens["org"]
    )
    assert status == 422 and "swap two players of the round" in problem["detail"]
    assert "reseat" not in problem["detail"]
    status, begun, _ = api.post(f"{base}/rounds/1/begin", token=world.tokens["org"])
    assert status == 200 and begun["status"] == "playing"
    assert api.post(f"{base}/rounds/1/begin", token=world.tokens["org"])[0] == 422
    assert api.get(f"{base}/rounds/9")[0] == 404
    listed = api.get(f"{base}/rounds")[1]
    assert listed["count"] == 1 and listed["results"][0]["tables"][0]["status"] == "playing"
    # The table and its series.
    table_id = begun["tables"][0]["id"]
    table = api.get(f"/api/v1/tables/{table_id}")[1]
    assert table["tournament"] == tid and table["round"] == 1 and len(table["games"]) == 1
    # What a round's tables say of it, the table says too (docs/api.md: `sitting`, and
    # `next_commitment`, where a client reads the next deal's commitment).
    (summary,) = [
        t
        for t in api.get(f"/api/v1/tournaments/{tid}/rounds/1")[1]["tables"]
        if t["id"] == table_id
    ]
    assert {k: table[k] for k in summary} == summary and "seats" not in table
    # Play the table's series to its end (through the service: the API acts elsewhere).
    rng = random.Random(8)
    for _ in range(50):
        running = Game.objects.filter(table_id=table_id, status="running").first()
        if running is None:
            break
        play(running, rng)
    table = api.get(f"/api/v1/tables/{table_id}")[1]
    assert table["status"] == "finished" and table["placings"]
    assert all(g["status"] == "over" and g["seed"] for g in table["games"])
    standings = api.get(f"{base}/standings")[1]["results"]
    assert [s["rank"] for s in standings][0] == 1 and {s["points"] for s in standings} >= {"1/2"}
    by_player = {s["player"]: s for s in standings}
    assert not by_player[world.players["dave"].pk]["dropped"]
    assert by_player[first]["bye_count"] == 1
    assert api.get(f"{base}")[1]["status"] == "finished"
    ratings = api.get(f"/api/v1/ratings?club={world.club.pk}&game=old_maid")[1]["results"]
    assert len(ratings) == 2 and ratings[0]["rank"] == 1
    assert ratings[0]["display"] > ratings[1]["display"]
    assert api.get("/api/v1/ratings?game=old_maid")[0] == 400
    assert api.get(f"/api/v1/ratings?club={world.club.pk}&game=chess")[0] == 400
    assert api.get("/api/v1/ratings?club=999999&game=old_maid")[0] == 404
    assert Tournament.objects.get(pk=tid).status == "finished"
    assert Registration.objects.filter(tournament_id=tid).count() == 4
    assert CheckIn.objects.filter(tournament_id=tid).count() == 3
    assert Round.objects.get(tournament_id=tid).status == "finished"


def test_a_registration_names_the_round_it_enters_from_as_the_docs_say(
    world: ClubWorld, api: Api
) -> None:
    """docs/api.md, "Running a tournament": ``from_round``, the next round not begun when
    left out, up to the last round; another is refused naming it and registers nobody."""
    status, tournament = create(api, world, rounds=3)
    base = f"/api/v1/tournaments/{tournament['id']}"
    org = world.tokens["org"]

    def register(name: str, **body: Any) -> tuple[int, Any]:
        sent = {"player": world.players[name].pk, **body}
        status, answer, _ = api.post(f"{base}/registrations", sent, token=org)
        return status, answer

    assert register("alice")[1]["from_round"] == 1
    assert register("bob", from_round=None)[1]["from_round"] == 1
    status, late = register("carol", from_round=3)
    assert status == 201 and late["from_round"] == 3
    status, problem, _ = api.post(
        f"{base}/checkins", {"player": world.players["carol"].pk}, token=org
    )
    assert status == 422 and "from round 3" in problem["detail"]
    for sent, status, field in (
        (4, 422, "from_round"),
        (0, 400, "from_round"),
        ("2", 400, "from_round"),
    ):
        found, problem = register("dave", from_round=sent)
        assert (found, problem["field"]) == (status, field), sent
    assert Registration.objects.filter(tournament_id=tournament["id"]).count() == 3


def test_a_drop_before_round_1_is_refused_as_the_desk_refuses_it(
    world: ClubWorld, api: Api
) -> None:
    """The API's drop follows the service's one rule (services.check_drop): before round 1
    has begun it is refused, saying to withdraw instead, and changes nothing (it recorded
    "dropped after round 0", a line in the standings the desk never makes: found by trying)."""
    status, tournament = create(api, world, rounds=2, table_min=2, table_max=2)
    base = f"/api/v1/tournaments/{tournament['id']}"
    for name in ("alice", "bob", "carol"):
        services.register(Tournament.objects.get(pk=tournament["id"]), world.players[name])
    carol = {"player": world.players["carol"].pk}
    for token in (world.tokens["carol"], world.tokens["org"]):
        status, problem, _ = api.post(f"{base}/drops", carol, token=token)
        assert status == 422 and problem["type"] == "/api/v1/problems/refused"
        assert problem["field"] == "player" and "withdraw Carol instead" in problem["detail"]
    assert not Registration.objects.filter(dropped_after__isnull=False).exists()
    assert api.post(f"{base}/rounds", {"auto_check_in": True}, token=world.tokens["org"])[0] == 201
    # Seated but not begun is still before round 1.
    assert api.post(f"{base}/drops", carol, token=world.tokens["org"])[0] == 422
    assert not any(s["dropped"] for s in api.get(f"{base}/standings")[1]["results"])
    # Once round 1 is over, the same drop is taken.
    assert api.post(f"{base}/rounds/1/begin", token=world.tokens["org"])[0] == 200
    rng = random.Random(3)
    while running := Game.objects.filter(
        table__round__tournament_id=tournament["id"], status="running"
    ).first():
        play(running, rng)
    status, dropped, _ = api.post(f"{base}/drops", carol, token=world.tokens["carol"])
    assert status == 200 and dropped["dropped_after"] == 1


def test_dropping_or_withdrawing_a_player_never_registered_says_they_are_not_registered(
    world: ClubWorld, api: Api
) -> None:
    """A player of the club who never entered: the drop and the withdrawal are refused
    saying so, not "register them first" (found by review), and change nothing.  The
    withdrawal's URL names the registration, and there is none: a 404."""
    status, tournament = create(api, world, rounds=2, table_min=2, table_max=2)
    base = f"/api/v1/tournaments/{tournament['id']}"
    for name in ("alice", "bob"):
        services.register(Tournament.objects.get(pk=tournament["id"]), world.players[name])
    dave = world.players["dave"].pk
    status, problem, _ = api.post(f"{base}/drops", {"player": dave}, token=world.tokens["org"])
    assert status == 422 and problem["type"] == "/api/v1/problems/refused", problem
    assert problem["field"] == "player"
    assert problem["detail"] == f"Dave is not registered in {tournament['name']}", problem
    status, problem, _ = api.delete(f"{base}/registrations/{dave}", token=world.tokens["org"])
    assert status == 404 and problem["type"] == "/api/v1/problems/not-found", problem
    assert problem["detail"] == f"Dave is not registered in {tournament['name']}", problem
    assert not Registration.objects.filter(player_id=dave).exists()


def test_a_player_withdraws_before_round_1_and_drops_out_after_it(
    world: ClubWorld, api: Api
) -> None:
    """``DELETE …/registrations/{player}`` is the API's withdrawal (a drop before round 1
    is refused, saying to withdraw, and a client with a token had no way to: found by
    trying): before round 1 has begun the registration goes, and a seated round 1 is
    seated again without the player; once it has begun it is refused and changes nothing,
    as the player drops out instead."""
    status, tournament = create(api, world, rounds=2, table_min=2, table_max=3)
    base = f"/api/v1/tournaments/{tournament['id']}"
    for name in ("alice", "bob", "carol", "dave"):
        services.register(Tournament.objects.get(pk=tournament["id"]), world.players[name])
    carol, dave = world.players["carol"].pk, world.players["dave"].pk
    # Only the player or an organiser: another player is refused and nothing changes.
    status, problem, _ = api.delete(f"{base}/registrations/{carol}", token=world.tokens["bob"])
    assert status == 403, problem
    assert api.delete(f"{base}/registrations/{carol}", token=world.tokens["carol"])[0] == 204
    assert api.post(f"{base}/rounds", {"auto_check_in": True}, token=world.tokens["org"])[0] == 201
    seated = {s["player"] for t in api.get(f"{base}/rounds/1")[1]["tables"] for s in t["sitting"]}
    assert dave in seated and carol not in seated
    # Seated but not begun: still a withdrawal, and round 1 is seated again without them.
    assert api.delete(f"{base}/registrations/{dave}", token=world.tokens["org"])[0] == 204
    seated = {s["player"] for t in api.get(f"{base}/rounds/1")[1]["tables"] for s in t["sitting"]}
    assert seated == {world.players[n].pk for n in ("alice", "bob")}
    status, problem, _ = api.delete(f"{base}/registrations/{dave}", token=world.tokens["org"])
    assert status == 404, problem  # not registered now: no such registration
    assert api.delete(f"{base}/registrations/999999", token=world.tokens["org"])[0] == 404
    players = {r["player"] for r in api.get(f"{base}/registrations")[1]["results"]}
    assert players == seated
    # Once round 1 has begun a registration is not taken back: the player drops out.
    assert api.post(f"{base}/rounds/1/begin", token=world.tokens["org"])[0] == 200
    bob = world.players["bob"].pk
    status, problem, _ = api.delete(f"{base}/registrations/{bob}", token=world.tokens["bob"])
    assert status == 422 and problem["field"] == "player" and "drop" in problem["detail"]
    assert Registration.objects.filter(player_id=bob, dropped_after__isnull=True).exists()


def test_an_organiser_changes_a_tournament_s_settings_and_after_seating_its_name_only(
    world: ClubWorld, api: Api
) -> None:
    """``PATCH /tournaments/{id}``: the API had no way to change a tournament, and the page
    none to rename one once a round was seated, which the service allows (found by trying)."""
    status, tournament = create(api, world, rounds=2, table_min=2, table_max=2)
    path = f"/api/v1/tournaments/{tournament['id']}"
    org = world.tokens["org"]
    assert api.patch(path, {"name": "Renamed"})[0] == 401
    assert api.patch(path, {"name": "Renamed"}, token=world.tokens["alice"])[0] == 403
    status, changed, _ = api.patch(path, {"rounds": 3, "turn_seconds": 45}, token=org)
    assert status == 200 and (changed["rounds"], changed["turn_seconds"]) == (3, 45)
    assert changed["name"] == tournament["name"] and changed["table_max"] == 2  # kept
    status, problem, _ = api.patch(path, {"club": 2}, token=org)
    assert status == 400 and problem["field"] == "club"
    for name in ("alice", "bob"):
        services.register(Tournament.objects.get(pk=tournament["id"]), world.players[name])
    assert api.post(f"{path}/rounds", {"auto_check_in": True}, token=org)[0] == 201
    status, problem, _ = api.patch(path, {"rounds": 4}, token=org)
    assert status == 422 and problem["field"] == "rounds", problem
    status, renamed, _ = api.patch(path, {"name": "  Friday, renamed "}, token=org)
    assert status == 200 and renamed["name"] == "Friday, renamed" and renamed["rounds"] == 3
    assert api.get(path)[1] == renamed


def test_patching_the_game_takes_the_new_game_s_own_sizes_and_series(
    world: ClubWorld, api: Api
) -> None:
    # A Bhabhi tournament on its defaults, changed to Old Maid, was refused: the old game's
    # table sizes were kept as if chosen (found by review).
    t = services.create_tournament(world.club, "Defaults", "bhabhi", 2)
    path = f"/api/v1/tournaments/{t.pk}"
    status, changed, _ = api.patch(path, {"game": "old_maid"}, token=world.tokens["org"])
    assert status == 200, changed
    fresh = api.post(
        "/api/v1/tournaments",
        {"club": world.club.pk, "name": "Fresh", "game": "old_maid", "rounds": 2},
        token=world.tokens["org"],
    )[1]
    keys = ("table_min", "table_max", "table_preferred", "series")
    assert {k: changed[k] for k in keys} == {k: fresh[k] for k in keys}


def test_a_page_of_the_rating_board_ranks_its_players_as_the_whole_board_does(
    world: ClubWorld, api: Api
) -> None:
    # A page is read from the board's query (the whole board was read and paged in Python):
    # its ranks go on from the pages before it.
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    club = world.club
    robots = factories.bots(club, 6)
    t = factories.tournament(club, robots, rounds=1, table_max=3, table_preferred=3)
    factories.play_round(t)
    path = f"/api/v1/ratings?club={club.pk}&game=bhabhi"
    whole = api.get(path)[1]["results"]
    assert [r["rank"] for r in whole] == [1, 2, 3, 4, 5, 6]
    with CaptureQueriesContext(connection) as read:
        page = api.get(f"{path}&limit=2&offset=2")[1]["results"]
    assert page == whole[2:4]
    board = [q["sql"] for q in read.captured_queries if "tournaments_playerrating" in q["sql"]]
    assert any("LIMIT 2" in q for q in board), board


def test_the_standings_say_how_many_series_a_player_forfeited(world: ClubWorld, api: Api) -> None:
    """A player first at a table had the last place's points with no word why: the pages
    and the CSV said forfeit, the API nothing (found by trying)."""
    from tournaments.management.commands.play_bots import run_all_bots

    club = world.club
    robots = factories.bots(club, 3)
    t = factories.tournament(club, robots, rounds=1, table_max=3)
    factories.play_round(t)
    run_all_bots(t)
    services.forfeit(t, robots[0], 1)
    lines = {s["player"]: s for s in api.get(f"/api/v1/tournaments/{t.pk}/standings")[1]["results"]}
    assert lines[robots[0].pk]["forfeit_count"] == 1
    assert [lines[r.pk]["forfeit_count"] for r in robots[1:]] == [0, 0]


def test_a_round_s_tables_name_the_seats_whose_series_is_forfeited(
    world: ClubWorld, api: Api
) -> None:
    """A table's placings are the play's, and a forfeited series is placed last in the
    standings all the same: a client reading the tables could not tell which seats the
    standings placed otherwise (found by trying)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from tournaments.management.commands.play_bots import run_all_bots

    club = world.club
    robots = factories.bots(club, 3)
    t = factories.tournament(club, robots, rounds=1, table_max=3)
    factories.play_round(t)
    run_all_bots(t)
    rounds = f"/api/v1/tournaments/{t.pk}/rounds"
    table = api.get(rounds)[1]["results"][0]["tables"][0]
    assert table["forfeited"] == []
    seat = next(s["seat"] for s in table["sitting"] if s["player"] == robots[0].pk)
    services.forfeit(t, robots[0], 1)
    with CaptureQueriesContext(connection) as read:
        listed = api.get(rounds)[1]["results"][0]["tables"][0]
    # The tournament's forfeits read once for the page, not once for each table.
    assert len([q for q in read.captured_queries if "tournaments_forfeit" in q["sql"]]) == 1
    for shown in (
        listed,
        api.get(f"{rounds}/1")[1]["tables"][0],
        api.get(f"/api/v1/tables/{table['id']}")[1],
    ):
        assert shown["forfeited"] == [seat]
        assert shown["placings"] == table["placings"]  # the play's, unchanged
    services.unforfeit(t, robots[0], 1)
    assert api.get(f"/api/v1/tables/{table['id']}")[1]["forfeited"] == []


def test_start_round_takes_the_organisers_constraints(world: ClubWorld, api: Api) -> None:
    status, tournament = create(api, world, rounds=1, table_min=2, table_max=2)
    base = f"/api/v1/tournaments/{tournament['id']}"
    for name in ("alice", "bob", "carol", "dave"):
        api.post(
            f"{base}/registrations", {"player": world.players[name].pk}, token=world.tokens["org"]
        )
    alice, bob = world.players["alice"].pk, world.players["bob"].pk
    status, round_, _ = api.post(
        f"{base}/rounds",
        {"auto_check_in": True, "fixed": [{"player": alice, "table": 2}], "apart": [[alice, bob]]},
        token=world.tokens["org"],
    )
    assert status == 201
    tables = [[s["player"] for s in t["sitting"]] for t in round_["tables"]]
    assert alice in tables[1] and bob not in tables[1]
    status, problem, _ = api.post(f"{base}/rounds", {"apart": [[alice]]}, token=world.tokens["org"])
    assert status == 400 and problem["field"].startswith("apart")


def test_players_of_another_club_cannot_be_registered(world: ClubWorld, api: Api) -> None:
    status, tournament = create(api, world)
    other = club_world("elsewhere")
    status, problem, _ = api.post(
        f"/api/v1/tournaments/{tournament['id']}/registrations",
        {"player": other.players["alice"].pk},
        token=world.tokens["org"],
    )
    assert status == 422 and problem["field"] == "player"
    assert api.get("/api/v1/tournaments/999999/registrations")[0] == 404


def test_a_give_away_deal_limit_is_set_explicitly_and_shown_in_the_api(
    world: ClubWorld, api: Api
) -> None:
    status, plain = create(api, world, game="give_away")
    off = {"kind": "first_to", "target": 3, "points": None, "deal_limit": None}
    assert status == 201 and plain["series"] == off
    series = {"kind": "first_to", "target": 3, "deal_limit": 20}
    status, limited = create(api, world, game="give_away", name="Bounded", series=series)
    assert status == 201 and limited["series"] == series | {"points": None}
    assert api.get(f"/api/v1/tournaments/{limited['id']}")[1]["series"] == limited["series"]
    # A table says its series as its tournament does: every key, null where there is none
    # (a table's left "deal_limit" out: found by trying).
    for tournament, shown in ((plain, off), (limited, limited["series"])):
        players = [world.players[n] for n in ("alice", "bob")]
        made = Tournament.objects.get(pk=tournament["id"])
        for player in players:
            services.register(made, player)
        round_ = services.start_round(made, auto_check_in=True)
        table = round_.tables.get()
        assert api.get(f"/api/v1/tables/{table.pk}")[1]["series"] == shown


@pytest.mark.parametrize(
    ("game", "series"),
    [
        ("give_away", {"kind": "first_to", "target": 3, "deal_limit": 2}),
        ("old_maid", {"kind": "losses", "target": 3, "deal_limit": 10}),
    ],
)
def test_a_deal_limit_below_the_target_or_outside_first_to_is_refused(
    world: ClubWorld, api: Api, game: str, series: dict[str, Any]
) -> None:
    status, problem = create(api, world, game=game, series=series)
    assert status == 422 and problem["field"] == "series" and "deal limit" in problem["detail"]
    assert not Tournament.objects.exists()


@pytest.mark.parametrize(
    "series",
    [
        {"kind": "losses", "target": 100_000},
        {"kind": "first_to", "target": 3, "deal_limit": 5000},
    ],
)
def test_a_series_beyond_the_form_s_bounds_is_refused_by_the_api_too(
    world: ClubWorld, api: Api, series: dict[str, Any]
) -> None:
    """The API took a series of 100,000 deals a table, where the page stops at a thousand
    (engine.series.MAX_TARGET, MAX_DEAL_LIMIT: one set of bounds; found by trying).  The
    refusal quotes what was sent as JSON, not as Python."""
    game = "give_away" if series["kind"] == "first_to" else "bhabhi"
    status, problem = create(api, world, game=game, series=series)
    assert status == 422 and problem["field"] == "series", problem
    assert "1000" in problem["detail"] and "'kind'" not in problem["detail"], problem
    assert not Tournament.objects.exists()


@pytest.mark.parametrize(
    ("field", "most"),
    [
        ("rounds", 100),
        ("turn_seconds", 86_400),
        ("timeouts_to_bot", 100),
        ("first_turn_grace", 600),
    ],
)
def test_the_page_and_the_api_take_a_tournament_within_the_same_bounds(
    world: ClubWorld, api: Api, field: str, most: int
) -> None:
    from tournaments.forms import TournamentForm

    # The form once took 50 rounds and an hour a turn where the API took 100 and a day.
    form_field = TournamentForm.base_fields[field]
    assert getattr(form_field, "max_value", None) == most
    assert create(api, world, name=f"Most {field}", **{field: most})[0] == 201
    status, problem = create(api, world, name=f"Beyond {field}", **{field: most + 1})
    assert status == 400 and problem["field"] == field, problem
    # The service asks the bound itself (the desk and the command line call it too).
    with pytest.raises(services.ServiceError, match=f"{field} is a whole number from"):
        services.create_tournament(
            world.club, "Direct", "old_maid", **{"rounds": 1, field: most + 1}
        )


def test_an_organiser_takes_back_a_drop_until_the_next_round_begins_and_nobody_else_may(
    world: ClubWorld, api: Api
) -> None:
    """``DELETE …/drops/{player}`` undoes a drop (a mis-click at the desk), organisers only;
    every refusal is a problem that changes nothing."""
    bots = factories.bots(world.club, 4)
    t = factories.tournament(world.club, bots, rounds=3)
    factories.play_round(t, rng=random.Random(1))
    gone, still = bots[0], bots[1]
    services.drop(t, gone)
    base = f"/api/v1/tournaments/{t.pk}"
    path = f"{base}/drops/{gone.pk}"
    status, problem, _ = api.delete(path)
    assert status == 401 and problem["type"] == "/api/v1/problems/unauthenticated"
    status, problem, _ = api.delete(path, token=world.tokens["alice"])
    assert status == 403 and problem["type"] == "/api/v1/problems/forbidden"
    org = world.tokens["org"]
    assert api.delete(f"{base}/drops/999999", token=org)[0] == 404
    assert api.delete(f"/api/v1/tournaments/999999/drops/{gone.pk}", token=org)[0] == 404
    # The URL names a drop, and there is none: a 404 saying why.
    status, problem, _ = api.delete(f"{base}/drops/{still.pk}", token=org)
    assert status == 404 and problem["type"] == "/api/v1/problems/not-found"
    assert (
        problem["detail"]
        == f"{still.name} has not dropped out of {t.name}: there is no drop to take back"
    )
    status, problem, _ = api.delete(
        f"{base}/drops/{still.pk}", token=org, headers={"Accept-Language": "ru"}
    )
    assert status == 404 and "отменять нечего" in problem["detail"]
    outsider = factories.bots(world.club, 1, prefix="Outsider")[0]
    status, problem, _ = api.delete(f"{base}/drops/{outsider.pk}", token=org)
    assert status == 404 and problem["detail"] == f"{outsider.name} is not registered in {t.name}"
    assert Registration.objects.get(player=gone).dropped_after == 1
    assert Registration.objects.get(player=still).dropped_after is None
    status, back, _ = api.delete(path, token=org)
    assert status == 200 and (back["player"], back["dropped_after"]) == (gone.pk, None)
    lines = api.get(f"{base}/standings")[1]["results"]
    assert not next(line for line in lines if line["player"] == gone.pk)["dropped"]
    # Dropped again, and round 2 begun without them: the drop stands.
    services.drop(t, gone)
    factories.begin_round(t, rng=random.Random(2))
    status, problem, _ = api.delete(path, token=org)
    assert status == 422 and problem["field"] == "player"
    assert "round 2 has begun since" in problem["detail"]
    assert Registration.objects.get(player=gone).dropped_after == 1
