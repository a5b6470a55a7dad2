"""Games through the API: who sees what, acting, conflicts, idempotent retries, records."""

from __future__ import annotations

import random
from typing import Any

import pytest

from engine.registry import get_game
from tests.api.conftest import Api, strings, timeless
from tests.factories import ClubWorld, seat_of_name, tournament_game
from tests.service.play import play
from tournaments import play as service
from tournaments.models import Game

pytestmark = pytest.mark.django_db


def name_at(world: ClubWorld, game: Game, seat: int) -> str:
    player = game.context["seats"][seat]["player"]
    return next(n for n, p in world.players.items() if p.pk == player)


def drawer(world: ClubWorld, game: Game) -> tuple[int, str]:
    """The seat an Old Maid game waits for and the name of its player."""
    game.refresh_from_db()
    seat = game.waiting_for[0]
    return seat, name_at(world, game, seat)


def act(
    api: Api,
    world: ClubWorld,
    game: Game,
    name: str,
    action: dict[str, Any],
    *,
    sequence: int | None = None,
    key: str = "k-1",
    **extra: Any,
) -> tuple[int, Any, Any]:
    game.refresh_from_db()
    body = {"action": action, "expected_sequence": game.sequence if sequence is None else sequence}
    body.update(extra)
    return api.post(
        f"/api/v1/games/{game.pk}/actions",
        body,
        token=world.tokens[name],
        headers={"Idempotency-Key": key},
    )


def is_problem(body: Any, status: int, slug: str) -> bool:
    return (
        isinstance(body, dict)
        and body.get("status") == status
        and body.get("type") == f"/api/v1/problems/{slug}"
        and isinstance(body.get("title"), str)
        and isinstance(body.get("detail"), str)
        and "field" in body
    )


# -- seeing ----------------------------------------------------------------------------------------


def test_a_seated_player_sees_their_own_hand_and_legal_actions(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    seat = seat_of_name(world, game, "alice")
    status, view, _ = api.get(f"/api/v1/games/{game.pk}", token=world.tokens["alice"])
    assert status == 200
    hidden = service.game_view(game, "organiser")  # the spectator's view has no hand
    assert view["role"] == "seat" and view["seat"] == seat and "viewer" not in view
    assert view["hand"] == service.game_view(game, seat)["hand"]
    assert "hand" not in hidden
    assert view["legal_actions"], "a seat holding cards may always rearrange its fan"
    assert [s["name"] for s in view["sitting"]] == game.players
    assert view["sitting"][seat]["player"] == world.players["alice"].pk


def test_the_public_watches_a_tournament_game_as_a_spectator(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    status, view, _ = api.get(f"/api/v1/games/{game.pk}")
    assert status == 200
    assert view["role"] == "spectator" and view["seat"] is None
    assert view["legal_actions"] == [] and "hand" not in view
    assert "deck" not in view and "seed" not in view and "hidden" not in view


def test_another_player_with_a_token_sees_only_the_spectators_view(
    world: ClubWorld, api: Api
) -> None:
    _, game = tournament_game(world)
    status, view, _ = api.get(f"/api/v1/games/{game.pk}", token=world.tokens["dave"])
    assert status == 200 and view["role"] == "spectator" and "hand" not in view


def test_the_organiser_sees_what_a_spectator_sees(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    status, view, _ = api.get(f"/api/v1/games/{game.pk}", token=world.tokens["org"])
    assert status == 200 and view["role"] == "organiser" and "hand" not in view
    assert view["legal_actions"] == []


def standalone(world: ClubWorld, names: tuple[str, ...] = ("alice", "bob")) -> Game:
    """A game outside any tournament whose seats are the named players."""
    seats = [
        {"player": world.players[n].pk, "name": world.players[n].name, "bot": None} for n in names
    ]
    return service.create_game(
        "old_maid", len(names), players=[s["name"] for s in seats], context={"seats": seats}
    )


def test_a_finished_games_view_names_the_tables_next_deal_until_the_series_ends(
    world: ClubWorld, api: Api
) -> None:
    _, first = tournament_game(world, deals=2, names=("alice", "bob"))
    token = world.tokens["alice"]
    assert api.get(f"/api/v1/games/{first.pk}", token=token)[1]["next_game_id"] is None
    play(first)
    second = Game.objects.get(table=first.table, number_in_series=2)
    for who in (token, None):  # the seat and the public see the same link
        status, view, _ = api.get(f"/api/v1/games/{first.pk}", token=who)
        assert status == 200 and view["status"] == "over"
        assert view["next_game_id"] == second.pk
    assert api.get(f"/api/v1/games/{second.pk}", token=token)[1]["next_game_id"] is None
    play(second)
    status, view, _ = api.get(f"/api/v1/games/{second.pk}", token=token)
    assert view["status"] == "over" and view["next_game_id"] is None  # the series' last deal
    assert api.get(f"/api/v1/games/{standalone(world).pk}", token=token)[1]["next_game_id"] is None


def test_a_running_game_outside_tournaments_is_404_for_everyone_but_its_players(
    world: ClubWorld, api: Api
) -> None:
    game = standalone(world)
    for token in (None, world.tokens["carol"], world.tokens["org"]):
        status, body, _ = api.get(f"/api/v1/games/{game.pk}", token=token)
        assert status == 404 and is_problem(body, 404, "not-found")
        assert api.get(f"/api/v1/games/{game.pk}/events", token=token)[0] == 404
        assert api.get(f"/api/v1/games/{game.pk}/stream?timeout=0.1", token=token)[0] == 404
    # The very answer a game that does not exist gets: nothing tells them apart.
    missing = api.get("/api/v1/games/999999")[1]
    hidden = api.get(f"/api/v1/games/{game.pk}")[1]
    assert missing["detail"].replace("999999", "N") == hidden["detail"].replace(str(game.pk), "N")
    assert api.get(f"/api/v1/games/{game.pk}", token=world.tokens["alice"])[0] == 200
    ids = [g["id"] for g in api.get("/api/v1/games", token=world.tokens["carol"])[1]["results"]]
    assert game.pk not in ids


def test_a_finished_game_is_public_with_its_deck_and_seed(world: ClubWorld, api: Api) -> None:
    game = play(standalone(world), random.Random(3))
    status, view, _ = api.get(f"/api/v1/games/{game.pk}")
    assert status == 200 and view["status"] == "over"
    assert view["deck"] and view["seed"] == game.seed and view["hidden"] is not None
    status, listed, _ = api.get("/api/v1/games?status=over")
    assert game.pk in [g["id"] for g in listed["results"]]


def test_the_game_list_filters_and_paginates(world: ClubWorld, api: Api) -> None:
    tournament, game = tournament_game(world)
    status, body, _ = api.get(f"/api/v1/games?tournament={tournament.pk}&status=running")
    assert status == 200 and [g["id"] for g in body["results"]] == [game.pk]
    assert body["results"][0]["seed"] is None and body["results"][0]["tournament"] == tournament.pk
    mine = api.get("/api/v1/games?mine=true", token=world.tokens["alice"])[1]
    assert [g["id"] for g in mine["results"]] == [game.pk]
    assert api.get("/api/v1/games?mine=true", token=world.tokens["dave"])[1]["count"] == 0
    assert api.get("/api/v1/games?mine=true")[0] == 401
    assert api.get("/api/v1/games?status=nope")[0] == 400
    page = api.get("/api/v1/games?limit=1&offset=0")[1]
    assert set(page) == {"count", "next", "previous", "results"}


# -- acting ----------------------------------------------------------------------------------------


def test_the_drawer_draws_by_position_and_gets_the_new_view(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    seat, name = drawer(world, game)
    before = game.sequence
    status, body, response = act(api, world, game, name, {"type": "draw", "index": 0})
    assert status == 200, body
    assert body["replayed"] is False and body["sequence"] > before
    assert body["view"]["seat"] == seat and body["view"]["sequence"] >= body["sequence"]
    assert response["Idempotency-Replayed"] == "false"
    event = service.game_events(game, seat, from_sequence=before + 1)[0]
    assert event["payload"]["action"]["index"] == 0
    assert event["cause"] == {"kind": "player", "id": str(world.players[name].pk)}


def test_an_old_maid_draw_that_names_a_card_is_refused(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    _, name = drawer(world, game)
    state = service.load_state(game)
    offered = state.hands[state.offerer]
    wrong = next(c for c in get_game("old_maid").deck if c != offered[0])
    # The right card and a wrong one are refused alike: nothing to learn by probing.
    for card in (offered[0], wrong):
        status, body, _ = act(api, world, game, name, {"type": "draw", "index": 0, "card": card})
        assert status == 422 and is_problem(body, 422, "illegal-action")
        assert body["field"] == "action.card" and "position" in body["detail"]
    game.refresh_from_db()
    assert game.sequence == 1, "nothing was stored"


def test_an_illegal_action_is_422_with_the_engines_reason(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    _, name = drawer(world, game)
    status, body, _ = act(api, world, game, name, {"type": "draw", "index": 99})
    assert status == 422 and is_problem(body, 422, "illegal-action")
    assert body["field"] == "action.index" and "choose a position" in body["detail"]
    status, body, _ = act(api, world, game, name, {"type": "fly"}, key="k-2")
    assert status == 422 and body["field"] == "action.type"


def test_a_stale_sequence_is_a_409_conflict_with_the_current_sequence(
    world: ClubWorld, api: Api
) -> None:
    _, game = tournament_game(world)
    _, name = drawer(world, game)
    status, body, _ = act(api, world, game, name, {"type": "draw", "index": 0}, key="first")
    assert status == 200
    current = body["sequence"]
    # Another client, still at sequence 1, acts for its seat.
    other = next(n for n in ("alice", "bob", "carol") if n != name)
    status, body, _ = act(api, world, game, other, {"type": "shuffle"}, sequence=1, key="stale")
    assert status == 409 and is_problem(body, 409, "conflict")
    assert body["current_sequence"] == current and body["expected_sequence"] == 1
    assert body["field"] == "expected_sequence"


def test_a_retry_with_the_same_idempotency_key_returns_the_first_outcome(
    world: ClubWorld, api: Api
) -> None:
    _, game = tournament_game(world)
    _, name = drawer(world, game)
    action = {"type": "draw", "index": 1}
    first = act(api, world, game, name, action, sequence=1, key="retry-me")
    again = act(api, world, game, name, action, sequence=1, key="retry-me")
    assert first[0] == again[0] == 200
    assert first[1]["replayed"] is False and again[1]["replayed"] is True
    assert first[1]["sequence"] == again[1]["sequence"]
    assert again[2]["Idempotency-Replayed"] == "true"
    game.refresh_from_db()
    assert game.sequence == first[1]["sequence"], "the retry stored nothing"
    other = act(api, world, game, name, {"type": "draw", "index": 0}, sequence=1, key="retry-me")
    assert other[0] == 422 and is_problem(other[1], 422, "idempotency-key-reused")
    assert other[1]["field"] == "Idempotency-Key"


def test_a_replay_after_the_game_moved_on_repeats_the_first_answer_view_and_all(
    world: ClubWorld, api: Api
) -> None:
    _, game = tournament_game(world)
    seat, name = drawer(world, game)
    before = game.sequence
    action = {"type": "draw", "index": 1}
    first = act(api, world, game, name, action, sequence=before, key="late-retry")
    assert first[0] == 200 and first[1]["replayed"] is False
    # The game moves on: the other seats rearrange their fans.
    engine = get_game("old_maid")
    for other in range(3):
        game.refresh_from_db()
        if other == seat or game.is_over:
            continue
        mine = engine.legal_actions(service.load_state(game), other)
        arrange = next(a for a in mine if a["type"] == "arrange")
        service.submit_action(game, other, arrange, expected_sequence=game.sequence)
    game.refresh_from_db()
    assert game.sequence > first[1]["sequence"]
    again = act(api, world, game, name, action, sequence=before, key="late-retry")
    assert again[0] == 200 and again[1]["replayed"] is True
    # The original sequence with the view as it was then, not the game as it is now
    # (its clock, server_time and remaining_ms, is read as the replay is answered).
    assert again[1]["sequence"] == first[1]["sequence"]
    assert timeless(again[1]["view"]) == timeless(first[1]["view"])
    assert again[1]["view"]["sequence"] == first[1]["view"]["sequence"] < game.sequence


def test_idempotency_keys_of_two_players_never_collide(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    seat, name = drawer(world, game)
    other = next(n for n in ("alice", "bob", "carol") if n != name)
    assert act(api, world, game, other, {"type": "shuffle"}, sequence=1, key="same")[0] == 200
    game.refresh_from_db()
    status, _, _ = act(api, world, game, name, {"type": "draw", "index": 0}, key="same")
    assert status == 200


def test_the_idempotency_key_is_required(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    _, name = drawer(world, game)
    status, body, _ = api.post(
        f"/api/v1/games/{game.pk}/actions",
        {"action": {"type": "draw", "index": 0}, "expected_sequence": 1},
        token=world.tokens[name],
    )
    assert status == 400 and is_problem(body, 400, "invalid")
    assert body["field"] == "Idempotency-Key"


def test_a_second_players_token_cannot_act_for_another_seat(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    seat, name = drawer(world, game)
    other = next(n for n in ("alice", "bob", "carol") if n != name)
    status, body, _ = act(api, world, game, other, {"type": "draw", "index": 0}, seat=seat)
    assert status == 403 and is_problem(body, 403, "forbidden") and body["field"] == "seat"
    # Without naming the seat, the action is the caller's own seat's: not the drawer's turn.
    status, body, _ = act(api, world, game, other, {"type": "draw", "index": 0}, key="k-2")
    assert status == 422 and body["field"] == "seat"
    # A player of the club who holds no seat cannot act at all.
    status, body, _ = act(api, world, game, "dave", {"type": "draw", "index": 0}, key="k-3")
    assert status == 403 and body["field"] == "seat"
    # Nor can an organiser, nor anyone without a token.
    assert act(api, world, game, "org", {"type": "draw", "index": 0}, key="k-4")[0] == 403
    game.refresh_from_db()
    status, body, _ = api.post(
        f"/api/v1/games/{game.pk}/actions",
        {"action": {"type": "draw", "index": 0}, "expected_sequence": game.sequence},
        headers={"Idempotency-Key": "anon"},
    )
    assert status == 401 and is_problem(body, 401, "unauthenticated")
    game.refresh_from_db()
    assert game.sequence == 1


def test_a_second_players_token_cannot_read_another_seats_hand(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    alice = seat_of_name(world, game, "alice")
    bob_view = api.get(f"/api/v1/games/{game.pk}", token=world.tokens["bob"])[1]
    alice_hand = service.game_view(game, alice)["hand"]
    assert bob_view["seat"] != alice and bob_view["hand"] != alice_hand
    assert not set(alice_hand) & strings(bob_view)
    # There is no way to ask for another seat's view.
    status, view, _ = api.get(f"/api/v1/games/{game.pk}?seat={alice}", token=world.tokens["bob"])
    assert status == 200 and view["seat"] == bob_view["seat"]


def test_a_body_without_an_action_object_is_400_naming_the_field(
    world: ClubWorld, api: Api
) -> None:
    _, game = tournament_game(world)
    _, name = drawer(world, game)
    cases = [
        ({"expected_sequence": 1}, "action"),
        ({"action": {"type": "draw", "index": 0}}, "expected_sequence"),
        ({"action": {"index": 0}, "expected_sequence": 1}, "action"),
        ({"action": {"type": "draw"}, "expected_sequence": -1}, "expected_sequence"),
    ]
    for body, field in cases:
        status, problem, _ = api.post(
            f"/api/v1/games/{game.pk}/actions",
            body,
            token=world.tokens[name],
            headers={"Idempotency-Key": "x"},
        )
        assert status == 400 and is_problem(problem, 400, "invalid"), problem
        assert problem["field"] == field and problem["errors"][0]["field"] == field


# -- events and records ----------------------------------------------------------------------------


def test_events_are_redacted_for_others_while_running_and_whole_after(
    world: ClubWorld, api: Api
) -> None:
    _, game = tournament_game(world)
    seat, name = drawer(world, game)
    act(api, world, game, name, {"type": "draw", "index": 0})
    drawn = [
        e for e in service.game_events(game, seat) if e["payload"].get("action", {}).get("type")
    ]
    assert drawn[0]["payload"]["action"]["card"]
    own = api.get(f"/api/v1/games/{game.pk}/events?after=1", token=world.tokens[name])[1]
    assert own["results"][0]["payload"]["action"]["card"] == drawn[0]["payload"]["action"]["card"]
    for token in (None, world.tokens["org"], world.tokens["dave"]):
        shown = api.get(f"/api/v1/games/{game.pk}/events", token=token)[1]["results"]
        assert "deck" not in shown[0]["payload"] and "seed" not in shown[0]["payload"]["shuffle"]
        assert "card" not in shown[1]["payload"]["action"]
        assert shown[1]["payload"]["redacted"] == ["card"]
    play(game, random.Random(1))
    whole = api.get(f"/api/v1/games/{game.pk}/events?limit=500")[1]["results"]
    assert whole[0]["payload"]["deck"] and whole[1]["payload"]["action"]["card"]
    assert whole[0]["payload"]["shuffle"]["seed"] == game.seed


def test_events_paginate_and_start_after_a_sequence(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    play(game, random.Random(2), moves=6)
    game.refresh_from_db()
    page = api.get(f"/api/v1/games/{game.pk}/events?after=2&limit=2")[1]
    assert page["count"] == game.sequence - 2
    assert [e["sequence"] for e in page["results"]] == [3, 4] and page["next"]
    assert api.get(f"/api/v1/games/{game.pk}/events?after=x")[0] == 400


def test_a_record_is_shown_after_the_end_and_verifies(world: ClubWorld, api: Api) -> None:
    _, game = tournament_game(world)
    status, body, _ = api.get(f"/api/v1/games/{game.pk}/record")
    assert status == 409 and is_problem(body, 409, "game-not-over")
    play(game, random.Random(4))
    status, record, _ = api.get(f"/api/v1/games/{game.pk}/record")
    assert status == 200 and record["shuffle"]["seed"] == game.seed
    status, checked, _ = api.post("/api/v1/records/verify", record)
    assert status == 200 and checked["valid"] and checked["shuffle_verified"]
    assert checked["result"] == game.result and checked["move_count"] == len(record["moves"])


def test_a_tampered_record_is_422_naming_the_move(world: ClubWorld, api: Api) -> None:
    game = play(standalone(world), random.Random(5))
    record = service.export_record(game)
    draws = [i for i, m in enumerate(record["moves"]) if m["action"]["type"] == "draw"]
    record["moves"][draws[0]]["action"]["index"] = 50
    status, body, _ = api.post("/api/v1/records/verify", record)
    assert status == 422 and is_problem(body, 422, "invalid-record")
    assert body["move_index"] == draws[0]
    record = service.export_record(game)
    record["shuffle"]["seed"] = "00" * 32
    status, body, _ = api.post("/api/v1/records/verify", record)
    assert status == 422 and body["field"] == "shuffle"
    status, body, _ = api.post("/api/v1/records/verify", [1, 2])
    assert status == 400
    status, body, _ = api.post("/api/v1/records/verify", {"format": "x"})
    assert status == 422 and body["field"]


def _as_bool(move: dict[str, Any]) -> dict[str, Any]:
    """``move`` by the same seat (0 or 1) said as false or true: one to Python, none to JSON."""
    return move | {"seat": bool(move["seat"])}


@pytest.mark.parametrize(
    ("change", "field", "words", "move_index"),
    [
        (lambda r: {"shuffle": "x"}, "shuffle", 'shuffle must be an object, not "x"', None),
        (lambda r: {"players": [1, 2]}, "players", "each name in players is text, not 1", None),
        (
            lambda r: {"shuffle": r["shuffle"] | {"seed": 1234}},
            "shuffle",
            "shuffle.seed is the revealed seed in hexadecimal",
            None,
        ),
        (
            lambda r: {"shuffle": r["shuffle"] | {"commitment": None}},
            "shuffle",
            "shuffle.commitment is a SHA-256 in hexadecimal (64 digits), not null",
            None,
        ),
        (lambda r: {"game": ["old_maid"]}, "game", 'unknown game ["old_maid"]', None),
        (
            lambda r: {"seats": 2.0},
            "seats",
            "a whole number (a JSON number such as 3), not 2.0",
            None,
        ),
        (lambda r: {"dealer": bool(r["dealer"])}, "dealer", "the dealer must be a seat", None),
        (lambda r: {"options": []}, "options", "options must be an object", None),
        (lambda r: {"deck": "".join(r["deck"])}, "deck", "deck must be a list", None),
        (
            lambda r: {"moves": [_as_bool(r["moves"][0]), *r["moves"][1:]]},
            "seat",
            "move 0: there is no seat ",
            0,
        ),
        (
            lambda r: {"result": r["result"] | {"loser": bool(r["result"]["loser"])}},
            "result",
            "not the stated result {",
            "the end",
        ),
    ],
)
def test_a_record_with_a_field_of_the_wrong_json_type_is_invalid_naming_the_field(
    world: ClubWorld, api: Api, change: Any, field: str, words: str, move_index: Any
) -> None:
    # "shuffle": "x" and "players": [1, 2] were verified as valid, and imported (found by
    # trying): every field RECORD.md defines is checked for its JSON type, and a bad one is
    # refused like any record that does not hold, by verify and import alike.
    game = play(standalone(world), random.Random(5))
    record = service.export_record(game)
    assert record["seats"] == 2 and record["shuffle"]["seed"]
    bad = record | change(record)
    status, body, _ = api.post("/api/v1/records/verify", bad)
    assert status == 422 and is_problem(body, 422, "invalid-record"), body
    assert body["field"] == field and words in body["detail"], body
    # A result is checked after the last move: its index is the moves' count.
    end = len(record["moves"])
    assert body["move_index"] == (end if move_index == "the end" else move_index), body
    games = Game.objects.count()
    status, imported, _ = api.post("/api/v1/records", bad, token=world.tokens["org"])
    assert status == 422 and is_problem(imported, 422, "invalid-record"), imported
    assert imported["field"] == field and imported["detail"] == body["detail"]
    assert Game.objects.count() == games
    assert api.post("/api/v1/records/verify", record)[1]["valid"] is True


def test_a_records_refusal_quotes_what_was_sent_as_json(world: ClubWorld, api: Api) -> None:
    # It quoted Python: unknown game 'poker', missing ['2C'] (found by trying).
    record = service.export_record(play(standalone(world), random.Random(5)))
    status, body, _ = api.post("/api/v1/records/verify", record | {"game": "poker"})
    assert status == 422 and body["field"] == "game"
    assert body["detail"] == (
        'unknown game "poker"; known: "bhabhi", "give_and_take", "give_away", "old_maid"'
    )
    first, second = record["deck"][:2]
    doubled = record | {"deck": [second, *record["deck"][1:]]}
    status, body, _ = api.post("/api/v1/records/verify", doubled)
    assert status == 422 and body["field"] == "deck"
    assert f'(missing ["{first}"], doubled ["{second}"], not in this game [])' in body["detail"]
    status, body, _ = api.post("/api/v1/records/verify", record | {"tags": ["x"]})
    assert status == 422 and body["field"] == "tags" and body["detail"] == 'unknown key(s) "tags"'


def test_organisers_import_records_and_others_may_not(world: ClubWorld, api: Api) -> None:
    game = play(standalone(world), random.Random(6))
    record = service.export_record(game)
    assert api.post("/api/v1/records", record)[0] == 401
    assert api.post("/api/v1/records", record, token=world.tokens["alice"])[0] == 403
    status, body, response = api.post("/api/v1/records", record, token=world.tokens["org"])
    assert status == 201 and body["status"] == "over" and body["result"] == game.result
    assert response["Location"] == f"/api/v1/games/{body['id']}"
    imported = Game.objects.get(pk=body["id"])
    assert service.export_record(imported)["moves"] == record["moves"]
    # A record that stops before the end would be a running game no one sits at, seen by
    # no one (a 201 whose Location was a 404, found by trying): refused, nothing stored.
    cut = {k: v for k, v in record.items() if k != "result"} | {"moves": record["moves"][:5]}
    games = Game.objects.count()
    status, problem, _ = api.post("/api/v1/records", cut, token=world.tokens["org"])
    assert status == 422 and problem["field"] == "result", problem
    assert "over" in problem["detail"] and Game.objects.count() == games
    assert api.post("/api/v1/records/verify", cut)[1]["valid"] is True  # verifying it still works


def test_every_game_can_be_played_to_the_end_through_the_api(world: ClubWorld, api: Api) -> None:
    rng = random.Random(7)
    for kind, names in [
        ("give_away", ("alice", "bob", "carol")),
        ("bhabhi", ("alice", "bob", "carol")),
        ("give_and_take", ("alice", "bob")),
    ]:
        _, game = tournament_game(world, kind, names)
        engine = get_game(kind)
        for _ in range(3000):
            game.refresh_from_db()
            if game.is_over:
                break
            seat = rng.choice(game.waiting_for or game.to_act)
            name = name_at(world, game, seat)
            view = api.get(f"/api/v1/games/{game.pk}", token=world.tokens[name])[1]
            assert view["legal_actions"] == engine.legal_actions(service.load_state(game), seat)
            action = rng.choice(view["legal_actions"])
            status, body, _ = act(api, world, game, name, action, key=f"{kind}-{game.sequence}")
            assert status == 200, body
        game.refresh_from_db()
        assert game.is_over, kind
