"""Numbers and pages are checked strictly and alike everywhere: a bad one is a 400 problem
naming it, and changes nothing — never silently replaced by a default.

In a query, a number is ASCII digits within its bounds (``limit`` 1-500, ``offset``,
``after`` and ids 0 or more); in a JSON body, a number is a JSON number (``"7"``,
``7.0`` and ``true`` are not ``7``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import Api
from tests.api.test_games import act, drawer
from tests.api.test_tokens import basic
from tests.factories import ClubWorld, tournament_game

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("limit=-1", "limit"),
        ("limit=x", "limit"),
        ("limit=0", "limit"),
        ("limit=501", "limit"),
        ("limit=2.5", "limit"),
        ("limit=%2B5", "limit"),  # "+5"
        ("offset=-5", "offset"),
        ("offset=x", "offset"),
        ("offset=%D9%A3", "offset"),  # "٣", a decimal digit to Python, not to us
        ("status=bogus", "status"),
        ("tournament=-1", "tournament"),
        ("tournament=1e3", "tournament"),
    ],
)
def test_a_bad_number_or_page_in_a_query_is_a_400_naming_it(
    world: ClubWorld, api: Api, query: str, field: str
) -> None:
    status, problem, _ = api.get(f"/api/v1/games?{query}")
    assert status == 400 and problem["type"].endswith("/invalid"), problem
    assert problem["field"] == field and problem["errors"][0]["field"] == field


@pytest.mark.parametrize(
    "path", ["/api/v1/clubs", "/api/v1/players", "/api/v1/tournaments", "/api/v1/games"]
)
def test_every_list_pages_alike_and_refuses_a_bad_page(
    world: ClubWorld, api: Api, path: str
) -> None:
    tournament_game(world)
    status, page, _ = api.get(f"{path}?limit=1&offset=0")
    assert status == 200 and len(page["results"]) <= 1 and "count" in page
    for query in ("limit=-1", "offset=-5", "limit=x"):
        status, problem, _ = api.get(f"{path}?{query}")
        assert status == 400 and problem["field"] == query.split("=")[0], (path, problem)


def test_the_events_after_is_checked_like_the_long_polls(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    for bad in ("-1", "x", "%C2%B2"):
        status, problem, _ = api.get(f"/api/v1/games/{game.pk}/events?after={bad}")
        assert status == 400 and problem["field"] == "after"
        assert "a sequence (0 or more)" in problem["detail"]


@pytest.mark.parametrize("shape", [str, float, lambda n: True, lambda n: [n]])
def test_an_expected_sequence_that_is_not_a_json_number_is_a_400_and_changes_nothing(
    world: ClubWorld, api: Api, shape: Any
) -> None:
    _, game = tournament_game(world)
    _, name = drawer(world, game)
    before = game.sequence
    sent = shape(before)  # "7", 7.0, true, [7]: the right sequence, but not a number
    status, problem, _ = act(api, world, game, name, {"type": "draw", "index": 0}, sequence=sent)
    assert status == 400 and problem["field"] == "expected_sequence", problem
    game.refresh_from_db()
    assert game.sequence == before


def test_a_string_sequence_says_to_send_a_number(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    _, name = drawer(world, game)
    status, problem, _ = act(
        api, world, game, name, {"type": "draw", "index": 0}, sequence=str(game.sequence)
    )
    assert status == 400 and problem["field"] == "expected_sequence"
    assert f'not "{game.sequence}"' in problem["detail"] and "JSON number" in problem["detail"]
    # The same value as a number is taken.
    status, body, _ = act(api, world, game, name, {"type": "draw", "index": 0})
    assert status == 200, body


def test_a_refusal_quotes_what_was_sent_as_json_never_as_python(world: ClubWorld, api: Api) -> None:
    # docs/api.md promises JSON: a client in any language reads "x" as what it sent, where
    # Python's 'x' (or 5.0 for the 5 it sent) reads as something else.
    org = world.tokens["org"]
    _, game = tournament_game(world)
    for query, quoted in (("status=bogus", '"bogus"'), ("limit=-1", '"-1"'), ("after=x", '"x"')):
        path = "/api/v1/games?" if "after" not in query else f"/api/v1/games/{game.pk}/events?"
        status, problem, _ = api.get(path + query)
        assert status == 400 and f"not {quoted}" in problem["detail"], (query, problem)
    status, problem, _ = api.post(
        f"/api/v1/clubs/{world.club.pk}/players", {"name": "Alice", "username": "alice2"}, token=org
    )
    assert status in (400, 422) and 'called "Alice"' in problem["detail"], problem
    body = {"club": world.club.pk, "name": "Points", "game": "give_and_take", "rounds": 1}
    series = {"kind": "place_points", "target": 2, "points": [5, 3]}
    status, problem, _ = api.post("/api/v1/tournaments", body | {"series": series}, token=org)
    assert status in (400, 422) and "[5, 3]" in problem["detail"], problem
    assert "5.0" not in problem["detail"]


@pytest.mark.parametrize(
    ("path", "body", "unknown"),
    [
        (
            "/api/v1/tournaments",
            {"name": "Typo", "game": "bhabhi", "rounds": 1, "turn_second": 60},
            "turn_second",
        ),
        (
            "/api/v1/tournaments",
            {
                "name": "Typo",
                "game": "old_maid",
                "rounds": 1,
                "series": {"kind": "losses", "target": 2, "deal_limt": 5},
            },
            "deal_limt",
        ),
        ("/api/v1/players", {"name": "Typo Bot", "bots": "heuristic"}, "bots"),
        ("/api/v1/tokens", {"nmae": "laptop"}, "nmae"),
    ],
)
def test_a_body_field_the_endpoint_does_not_take_is_a_400_naming_it(
    world: ClubWorld, api: Api, path: str, body: dict[str, Any], unknown: str
) -> None:
    # Found by trying: each was a 201 that left the field out (a tournament without a clock,
    # a person where a bot was asked for).
    from tournaments.models import ApiToken, Player, Tournament

    if path != "/api/v1/tokens":
        body = body | {"club": world.club.pk}
    before = (Tournament.objects.count(), Player.objects.count(), ApiToken.objects.count())
    auth = (
        {"headers": basic(world.users["org"].username)}
        if path == "/api/v1/tokens"
        else {"token": world.tokens["org"]}
    )
    status, problem, _ = api.post(path, body, **auth)
    assert status == 400 and unknown in str(problem["errors"]), problem
    assert "no such field" in str(problem), problem
    after = (Tournament.objects.count(), Player.objects.count(), ApiToken.objects.count())
    assert after == before


def test_a_move_with_a_field_an_action_body_does_not_take_is_a_400_and_changes_nothing(
    world: ClubWorld, api: Api
) -> None:
    _, game = tournament_game(world)
    _, name = drawer(world, game)
    before = game.sequence
    status, problem, _ = act(api, world, game, name, {"type": "draw", "index": 0}, seet=0)
    assert status == 400 and problem["field"] == "seet", problem
    game.refresh_from_db()
    assert game.sequence == before


def test_a_bad_series_is_refused_as_sent_and_in_the_readers_language(
    world: ClubWorld, api: Api
) -> None:
    # A review's catch: the series' own reason stayed English under Accept-Language: ru,
    # and its place points were quoted as the serializer made them ([5.0, 3.0]).
    body = {"club": world.club.pk, "name": "Series", "game": "give_away", "rounds": 1}
    series = {"kind": "first_to", "target": 3, "deal_limit": 2, "points": [5, 3]}
    status, problem, _ = api.post(
        "/api/v1/tournaments", body | {"series": series}, token=world.tokens["org"]
    )
    assert status == 422 and '"points": [5, 3]' in problem["detail"], problem
    assert "at least the target 3, not 2" in problem["detail"]
    status, russian, _ = api.post(
        "/api/v1/tournaments",
        body | {"series": series},
        token=world.tokens["org"],
        headers={"Accept-Language": "ru"},
    )
    reason = russian["detail"].split("(", 1)[1].split(")", 1)[0]
    assert status == 422 and "target" not in reason and "не меньше" in reason, russian
    # A series the game cannot score names the game in the reader's language too.
    status, wrong, _ = api.post(
        "/api/v1/tournaments",
        body | {"game": "old_maid", "series": {"kind": "first_to", "target": 2}},
        token=world.tokens["org"],
        headers={"Accept-Language": "ru"},
    )
    assert status == 422 and "Old Maid" not in wrong["detail"], wrong
    assert "Старая дева" in wrong["detail"], wrong
