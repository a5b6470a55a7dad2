"""The served schema says what the API does: who may call each operation, and each game's
actions, views and events as the engine declares them (tournaments/api/schema.py).

The security of every operation is checked against the server itself: each is called
without credentials on real objects, and an operation answers 401 exactly when its
schema does not list anonymous access (``{}``).  The games' components are checked to be
the engine's declarations (engine/shapes.py), not a second copy, and real views and
events of every game are validated against the schema's ``oneOf``s (exactly one member
each, the game's).
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from jsonschema import Draft7Validator

from engine.registry import all_games, get_game
from tests.api.conftest import Api
from tests.engine.test_shapes import json_schema
from tests.factories import ClubWorld, tournament_game
from tournaments import play as service
from tournaments.api.schema import pascal
from tournaments.models import ApiToken

pytestmark = pytest.mark.django_db

SCHEMA = "/api/v1/schema?format=json"

#: Operations reached only with a body that must parse first; checked with ``{}``.
METHODS = ("get", "post", "put", "patch", "delete")

#: Schema operations whose anonymous answer is not about credentials: a stream answers
#: 200 and streams (to anyone who may see it), so it is not opened here.
STREAMS = {"/api/v1/games/{game_id}/stream", "/api/v1/tournaments/{tournament_id}/stream"}


def schema(api: Api) -> dict[str, Any]:
    status, body, _ = api.get(SCHEMA)
    assert status == 200
    found: dict[str, Any] = body
    return found


def filled(path: str, ids: dict[str, int | str]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: str(ids[m.group(1)]), path)


def test_an_operation_lists_anonymous_access_exactly_when_it_answers_without_credentials(
    world: ClubWorld, api: Api
) -> None:
    tournament, game = tournament_game(world)
    table = game.table_id
    assert table is not None
    token = ApiToken.objects.filter(user=world.users["alice"]).first()
    assert token is not None
    ids: dict[str, int | str] = {
        "club_id": world.club.pk,
        "game_id": game.pk,
        "player_id": world.players["alice"].pk,
        "token_id": token.pk,
        "user_id": world.users["alice"].pk,
        "tournament_id": tournament.pk,
        "number": 1,
        "table_id": table,
        "slug": "conflict",
    }
    wrong = []
    for path, operations in schema(api)["paths"].items():
        if path in STREAMS:
            continue
        for method in METHODS:
            if method not in operations:
                continue
            anonymous_listed = {} in operations[method].get("security", [{}])
            body = None if method in ("get", "delete") else {}
            status, answer, _ = api.call(method, filled(path, ids), body)
            if (status == 401) == anonymous_listed:
                wrong.append((method.upper(), path, status, anonymous_listed, answer))
    assert wrong == []


def test_every_query_parameter_and_body_field_of_the_schema_is_named_in_the_api_docs(
    api: Api,
) -> None:
    """A client reads docs/api.md as well as the schema: what the API takes is in both
    (found by trying, 2026-12-08: ``from_round``, a registration's late entry, was in
    neither's words)."""
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    served = schema(api)
    components = served["components"]["schemas"]
    taken: set[tuple[str, str]] = set()
    for path, operations in served["paths"].items():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "query":
                    taken.add((path, parameter["name"]))
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            ref = (body or {}).get("schema", {}).get("$ref", "")
            if ref:
                for name in components[ref.rsplit("/", 1)[-1]].get("properties", {}):
                    taken.add((path, name))
    unnamed = sorted(
        (path, name)
        for path, name in taken
        if not re.search(r"[`\"?&]" + re.escape(name) + r"[`\"=]", docs)
    )
    assert unnamed == []


def test_a_registration_s_from_round_is_described_in_the_schema(api: Api) -> None:
    components = schema(api)["components"]["schemas"]
    for name in ("RegisterRequest", "Registration"):
        described = components[name]["properties"]["from_round"].get("description", "")
        assert "round" in described, (name, described)


def test_the_games_components_are_the_engines_declarations(api: Api) -> None:
    components = schema(api)["components"]["schemas"]
    games = all_games()
    view = components["GameView"]
    assert view["discriminator"]["propertyName"] == "game"
    assert sorted(view["discriminator"]["mapping"]) == [g.id for g in games]
    for game in games:
        name = pascal(game.id)
        sent = [k for k, a in game.actions.items() if a.sent]
        actions = components[f"{name}Action"]
        assert sorted(actions["discriminator"]["mapping"]) == sorted(sent)
        for kind in sent:
            declared = game.actions[kind].request_shape(kind)
            assert components[f"{name}{pascal(kind)}Action"] == declared
        shown = components[f"{name}View"]
        assert shown["properties"]["legal_actions"]["items"] == {
            "$ref": f"#/components/schemas/{name}Action"
        }
        for key, shape in game.view_shape.items():
            assert shown["properties"][key] == shape, (game.id, key)
            assert (key in shown["required"]) == (key not in game.view_optional)
        event = components[f"{name}Event"]
        assert event["properties"]["payload"]["discriminator"]["mapping"] == {
            "dealt": "#/components/schemas/DealtPayload",
            "move": f"#/components/schemas/{name}MovePayload",
        }


class SchemaCheck:
    """Validates answers against a component of the served schema (refs resolved)."""

    def __init__(self, served: dict[str, Any]) -> None:
        self.components = json_schema(served["components"]["schemas"])

    def errors(self, component: str, value: Any) -> list[str]:
        shape = {"$ref": f"#/components/schemas/{component}", "components": {}}
        shape["components"] = {"schemas": self.components}
        validator = Draft7Validator(shape)
        return [e.message for e in validator.iter_errors(value)]

    def matching_members(self, union: str, value: Any) -> list[str]:
        """The members of the ``oneOf`` component ``union`` that ``value`` fits."""
        members = [m["$ref"].rsplit("/", 1)[1] for m in self.components[union]["oneOf"]]
        return [m for m in members if not self.errors(m, value)]


@pytest.mark.parametrize("game_id", ["give_away", "old_maid", "bhabhi", "give_and_take"])
def test_every_view_and_event_of_a_played_game_fits_exactly_its_games_schema(
    world: ClubWorld, api: Api, game_id: str
) -> None:
    names = ("alice", "bob", "carol")
    _, game = tournament_game(world, game_id, names)
    check = SchemaCheck(schema(api))
    engine = get_game(game_id)
    rng = random.Random(0)
    name = pascal(game_id)
    steps = 0
    while True:
        game.refresh_from_db()
        for who in (None, *names):
            token = world.tokens[who] if who else None
            _, view, _ = api.get(f"/api/v1/games/{game.pk}", token=token)
            assert check.matching_members("GameView", view) == [f"{name}View"], check.errors(
                f"{name}View", view
            )
        if game.is_over or steps > 400:
            break
        seat = rng.choice(game.waiting_for or game.to_act)
        action = rng.choice(engine.legal_actions(service.load_state(game), seat))
        service.submit_action(game, seat, action, expected_sequence=game.sequence)
        steps += 1
    assert game.is_over
    for who in (None, *names):
        token = world.tokens[who] if who else None
        _, page, _ = api.get(f"/api/v1/games/{game.pk}/events?limit=500", token=token)
        for event in page["results"]:
            assert check.matching_members("GameEvent", event) == [f"{name}Event"], check.errors(
                f"{name}Event", event
            )


def test_a_game_without_shapes_is_in_the_schema_with_free_form_actions(api: Api) -> None:
    """A plug-in game that declares no shapes (the toy game of tests/toy_game) still has
    its view in the ``oneOf``: the common keys, its actions objects with a ``type``."""
    from engine.registry import register, unregister
    from tests.toy_game.last_card import GAME as TOY

    register(TOY)
    try:
        components = schema(api)["components"]["schemas"]
    finally:
        unregister(TOY.id)
    assert "last_card" in components["GameView"]["discriminator"]["mapping"]
    assert components["LastCardAction"]["required"] == ["type"]
    view = components["LastCardView"]["properties"]
    assert view["game"]["enum"] == ["last_card"] and "sitting" in view
