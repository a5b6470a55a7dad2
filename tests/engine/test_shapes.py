"""Each game's declared JSON shapes (engine/shapes.py) are what its views, actions, moves and
results really are: the API's schema is generated from them (tournaments/api/schema.py), so
a shape that lied would make a generated client wrong.

Random games of every game at every seat count are played; at every step every viewer's
table view, every seat's legal actions, every move as each viewer sees it and the result
are checked against the game's declarations (with jsonschema).
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from jsonschema import Draft7Validator

from engine.contract import Game
from engine.play import new_deal, play_random
from engine.registry import all_games
from engine.shapes import Shape, record

GAMES = all_games()
CASES = [(g.id, n) for g in GAMES for n in range(g.min_seats, g.max_seats + 1)]
SEEDS = range(3)


def json_schema(shape: Any) -> Any:
    """An OpenAPI 3.0 shape as plain JSON Schema (``nullable`` as a ``null`` type)."""
    if isinstance(shape, list):
        return [json_schema(s) for s in shape]
    if not isinstance(shape, dict):
        return shape
    out = {k: json_schema(v) for k, v in shape.items() if k != "nullable"}
    if not shape.get("nullable"):
        return out
    if "type" not in out:  # a nullable reference or untyped value
        return {"anyOf": [out, {"type": "null"}]}
    out["type"] = [shape["type"], "null"]
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def check(shape: Shape, value: Any, what: str) -> None:
    errors = [e.message for e in Draft7Validator(json_schema(shape)).iter_errors(value)]
    assert not errors, f"{what}: {errors[:3]} in {value!r}"


def view_shape(game: Game[Any]) -> Shape:
    shape = record(game.view_shape, optional=sorted(game.view_optional))
    shape["additionalProperties"] = False  # every key of a view is declared
    return shape


def test_every_game_declares_its_actions_view_and_result() -> None:
    for game in GAMES:
        assert game.actions and game.view_shape and game.result_shape, game.id
        assert game.view_optional <= set(game.view_shape), game.id
        # What a seat may say is read from the declarations, not written a second time.
        assert dict(game.requests) == {
            kind: frozenset(a.fields) for kind, a in game.actions.items() if a.sent
        }
        for kind, action in game.actions.items():
            assert action.secret <= set(action.fields) | set(action.filled), (game.id, kind)


@pytest.mark.parametrize(("game_id", "seats"), CASES)
def test_views_actions_moves_and_results_have_their_declared_shapes(
    game_id: str, seats: int
) -> None:
    game = next(g for g in GAMES if g.id == game_id)
    viewers: list[int | None] = [None, *range(seats)]
    for seed in SEEDS:
        rng = random.Random(seed)
        events = play_random(game, new_deal(game, seats, rng), rng).events
        state: Any = None
        for event in events:
            before, state = state, game.evolve(state, event)
            for viewer in viewers:
                check(view_shape(game), game.table_view(state, viewer), f"view of {viewer}")
                shown = game.event_view(event, before, state, viewer)
                if shown["type"] != "move":
                    continue
                declared = game.actions[shown["action"]["type"]]
                assert declared.recorded
                assert set(shown.get("redacted", [])) <= declared.secret
                check(declared.move_shape(shown["action"]["type"]), shown["action"], "move")
            for seat in game.to_act(state):
                for action in game.legal_actions(state, seat):
                    declared = game.actions[action["type"]]
                    assert declared.sent
                    check(declared.request_shape(action["type"]), action, "legal action")
        result = game.outcome(state)
        assert result is not None and game.result_shape is not None
        check(game.result_shape, result, "result")
