"""The OpenAPI schema's own parts: problem responses, who may call what, and the games.

drf-spectacular makes the schema from the serializers and views; this module adds
what it cannot know:

* every operation documents its problem responses (:class:`ProblemAutoSchema`);
* security per operation as it is: an operation that answers 401 without
  credentials does not list anonymous access (``{}``) — a view method says so with
  :func:`signed_in_only`, and tests/api/test_schema.py calls every operation
  anonymously to hold the schema to it;
* the ``RateLimit-Policy`` and ``RateLimit`` headers on every response
  (:func:`rate_headers`);
* the games, typed (:func:`game_shapes`, a postprocessing hook): each game's
  actions, views, moves and results as its engine module declares them
  (:mod:`engine.shapes`), so nothing is written twice. ``GameView``, ``GameEvent``
  and ``TournamentStreamEvent`` become a ``oneOf`` with a discriminator on ``game``
  (one member per game), a game's actions and moves a ``oneOf`` on ``type``, an
  event's payload a ``oneOf`` on ``type`` (``dealt`` or that game's ``move``).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any, Literal, TypeVar

from drf_spectacular.openapi import AutoSchema

from engine.contract import Game
from engine.registry import all_games
from engine.shapes import CARD, COUNT, SEAT, Shape, list_of, nullable, one_of_values, record
from tournaments.api.problems import PROBLEM_CONTENT_TYPE

F = TypeVar("F", bound=Callable[..., Any])

#: Where components live in the schema.
REF = "#/components/schemas/"


def signed_in_only(method: F) -> F:
    """Mark a view method that answers 401 without credentials (no anonymous access)."""
    method.signed_in_only = True  # type: ignore[attr-defined]
    return method


class ProblemAutoSchema(AutoSchema):
    """drf-spectacular's schema, plus a ``default`` problem response on every operation
    and the anonymous access only where there is one.

    Any status an operation does not list (400, 401, 403, 404, 405, 409, 413,
    415, 422, 429, 500) is a problem document (``application/problem+json``).
    """

    def _get_response_bodies(
        self, direction: Literal["request", "response"] = "response"
    ) -> dict[str, Any]:
        from tournaments.api.serializers import ProblemSerializer

        responses: dict[str, Any] = super()._get_response_bodies(direction)
        if "default" not in responses:
            # drf-spectacular leaves this method unannotated.
            problem = self._get_response_for_code(  # type: ignore[no-untyped-call]
                ProblemSerializer, "default", (PROBLEM_CONTENT_TYPE,), direction
            )
            problem["description"] = "A problem document (RFC 9457): see /api/v1/problems."
            responses["default"] = problem
        return responses

    def get_auth(self) -> list[dict[str, Any]]:
        auths: list[dict[str, Any]] = super().get_auth()
        handler = getattr(self.view, self.method.lower(), None)
        if getattr(handler, "signed_in_only", False):
            return [a for a in auths if a]  # no {}: credentials are required
        return auths


# -- the games -------------------------------------------------------------------------------------


def pascal(name: str) -> str:
    """``give_away`` → ``GiveAway`` (component names)."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def ref(name: str) -> Shape:
    return {"$ref": REF + name}


def union(names: list[str], on: str, values: list[str], description: str = "") -> Shape:
    """A ``oneOf`` of components told apart by their ``on`` member (``values[i]`` names
    ``names[i]``)."""
    shape: Shape = {
        "oneOf": [ref(n) for n in names],
        "discriminator": {
            "propertyName": on,
            "mapping": {v: REF + n for v, n in zip(values, names, strict=True)},
        },
    }
    return shape | ({"description": description} if description else {})


#: An action whose game declares no shapes (a plug-in): an object with a ``type``.
FREE_ACTION: Shape = {
    "type": "object",
    "properties": {"type": {"type": "string"}},
    "required": ["type"],
    "additionalProperties": True,
}


def _with(base: Shape, properties: dict[str, Shape], required: list[str]) -> Shape:
    """``base`` (an object component) with ``properties`` added or replaced."""
    shape = copy.deepcopy(base)
    shape.pop("description", None)
    shape.setdefault("properties", {}).update(properties)
    shape["required"] = sorted({*shape.get("required", []), *required})
    return shape


def _game_components(game: Game[Any], common: dict[str, Shape]) -> dict[str, Shape]:
    """The components of one game: its actions, moves, view, event and stream event."""
    name = pascal(game.id)
    out: dict[str, Shape] = {}
    sent = {k: a for k, a in game.actions.items() if a.sent}
    recorded = {k: a for k, a in game.actions.items() if a.recorded}
    if sent:
        kinds = [
            ("Action", sent, f"What a seat of {game.name} may send (engine/games/{game.id}.py)."),
            ("Move", recorded, f"A move's action in {game.name}, as you may see it."),
        ]
        for suffix, actions, description in kinds:
            for kind, action in actions.items():
                shape = action.request_shape if suffix == "Action" else action.move_shape
                out[f"{name}{pascal(kind)}{suffix}"] = shape(kind)
            out[f"{name}Action" if suffix == "Action" else f"{name}MoveAction"] = union(
                [f"{name}{pascal(k)}{suffix}" for k in actions], "type", list(actions), description
            )
    else:
        out[f"{name}Action"] = out[f"{name}MoveAction"] = FREE_ACTION
    out[f"{name}MovePayload"] = record(
        {
            "type": one_of_values("move"),
            "v": COUNT,
            "seat": SEAT,
            "action": ref(f"{name}MoveAction"),
            "chance": {"type": "boolean", "description": "No seat chose it (a server draw)."},
            "redacted": {
                "type": "array",
                "items": {"type": "string"},
                "description": "The action's fields hidden from you while the game runs.",
            },
        },
        optional=["redacted"],
    )
    result_shape = game.result_shape or {"type": "object", "additionalProperties": True}
    table = {key: copy.deepcopy(shape) for key, shape in game.view_shape.items()}
    game_id: Shape = one_of_values(game.id) | {"description": "The engine id."}
    out[f"{name}View"] = _with(
        common["GameView"],
        {
            "game": game_id,
            **table,
            "legal_actions": list_of(ref(f"{name}Action"))
            | {"description": "What your seat may send now (empty for spectators)."},
            "result": nullable(copy.deepcopy(result_shape))
            | {"description": "The result (RECORD.md's shape) once over; null before."},
            "deck": list_of(CARD) | {"description": "Once revealed: the deck."},
        },
        [k for k in table if k not in game.view_optional],
    ) | {"description": f"A game of {game.name} as you may see it."}
    payload = union(
        ["DealtPayload", f"{name}MovePayload"],
        "type",
        ["dealt", "move"],
        "The engine's event: the deal, or a move (RECORD.md's move shape).",
    )
    out[f"{name}Event"] = _with(common["GameEvent"], {"game": game_id, "payload": payload}, [])
    out[f"{name}TournamentStreamEvent"] = _with(
        common["TournamentStreamEvent"], {"game": game_id, "payload": payload}, []
    )
    return out


#: The deal as a viewer sees it (RECORD.md; ``deck`` once the game is revealed).
DEALT_PAYLOAD: Shape = record(
    {
        "type": one_of_values("dealt"),
        "v": COUNT,
        "game": {"type": "string", "description": "The engine id."},
        "seats": COUNT,
        "dealer": SEAT,
        "options": {"type": "object", "additionalProperties": True},
        "deck": list_of(CARD) | {"description": "Once revealed: the deck in dealing order."},
        "table": {
            "type": "object",
            "additionalProperties": True,
            "description": "The table it was dealt at (players, clock, tournament context).",
        },
        "shuffle": {
            "type": "object",
            "additionalProperties": True,
            "description": "How the deck was shuffled: algorithm and commitment"
            " (docs/fairness.md); the seed once revealed.",
        },
    },
    optional=["deck", "table", "shuffle"],
)


def game_shapes(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: type the games from the engine's declarations."""
    schemas: dict[str, Shape] = result.setdefault("components", {}).setdefault("schemas", {})
    wrappers = ("GameView", "GameEvent", "TournamentStreamEvent")
    if not all(w in schemas for w in wrappers):
        return result  # a partial schema (one path): nothing of the games in it
    common = {w: schemas[w] for w in wrappers}
    games = all_games()
    schemas["DealtPayload"] = DEALT_PAYLOAD
    for game in games:
        schemas.update(_game_components(game, common))
    ids = [g.id for g in games]
    names = [pascal(i) for i in ids]
    schemas["GameView"] = union(
        [f"{n}View" for n in names], "game", ids, "A game as you may see it, by its game."
    )
    schemas["GameEvent"] = union(
        [f"{n}Event" for n in names],
        "game",
        ids,
        "One event of a game, redacted for you while it runs, by its game.",
    )
    schemas["TournamentStreamEvent"] = union(
        [f"{n}TournamentStreamEvent" for n in names],
        "game",
        ids,
        "The data of one tournament stream event: the game's event as its events endpoint"
        " shows it to you, with game_id and the store's global position (the SSE id).",
    )
    action = schemas.get("ActionRequest", {}).get("properties", {}).get("action")
    if action is not None:
        # The body does not name its game (the URL does): any game's action, each game's
        # own union told apart by "type".
        described = action.get("description", "")
        schemas["ActionRequest"]["properties"]["action"] = {
            "anyOf": [ref(f"{n}Action") for n in names],
            "description": described,
        }
    return result


#: The rate headers every answer carries (tournaments/api/throttling.py).
RATE_HEADERS: dict[str, Shape] = {
    "RateLimit-Policy": {
        "description": "Each request rate that applies (IETF draft-ietf-httpapi-ratelimit-headers):"
        " name, quota q and window w in seconds, e.g. '\"token\";q=600;w=60'.",
        "schema": {"type": "string"},
    },
    "RateLimit": {
        "description": "Where you stand on each: remaining requests r and seconds t until its"
        " window resets, e.g. '\"token\";r=598;t=37'.",
        "schema": {"type": "string"},
    },
}


def rate_headers(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: the rate headers on every response."""
    for operations in result.get("paths", {}).values():
        for operation in operations.values():
            for response in operation.get("responses", {}).values():
                response.setdefault("headers", {}).update(copy.deepcopy(RATE_HEADERS))
    return result
