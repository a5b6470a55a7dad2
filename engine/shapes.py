"""The JSON shapes a game declares: of its actions, its table view and its result.

A game module says here, once, what its JSON looks like (:attr:`Game.actions`,
:attr:`Game.view_shape`, :attr:`Game.result_shape` in :mod:`engine.contract`).  The
rules use the action declarations directly (the fields a seat may send are
:attr:`Game.requests`, derived from them); the API's schema is generated from all three
(tournaments/api/schema.py), so a client generated from it knows each game's hands,
piles and actions without anything written twice.  The conformance tests check every
view, legal action, move and result of played games against these shapes
(tests/engine/test_shapes.py).

Shapes are JSON Schema objects as OpenAPI 3.0 writes them (``nullable``), plain dicts:
the engine stays free of any web or schema library.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

Shape = dict[str, Any]

#: A card code: rank then suit (engine/cards.py).
CARD: Shape = {
    "type": "string",
    "pattern": "^[2-9TJQKA][SHDC]$",
    "description": "A card: rank (2-9, T, J, Q, K, A) then suit (S, H, D, C); 'TS' is the"
    " ten of spades.",
}
#: A suit letter.
SUIT: Shape = {"type": "string", "enum": ["S", "H", "D", "C"]}
#: A seat's index, 0 first.
SEAT: Shape = {"type": "integer", "minimum": 0}
#: How many of something.
COUNT: Shape = {"type": "integer", "minimum": 0}
BOOLEAN: Shape = {"type": "boolean"}
INTEGER: Shape = {"type": "integer"}


def described(shape: Shape, description: str) -> Shape:
    """``shape`` with words for a reader."""
    return shape | {"description": description}


def nullable(shape: Shape) -> Shape:
    """``shape`` or ``null`` (an enum lists ``null`` too: OpenAPI 3.0's ``nullable`` does not
    widen an ``enum``)."""
    if "enum" in shape:
        return shape | {"nullable": True, "enum": [*shape["enum"], None]}
    return shape | {"nullable": True}


def one_of_values(*values: Any) -> Shape:
    """One of ``values`` (strings or integers, all of one type)."""
    kind = "integer" if all(isinstance(v, int) for v in values) else "string"
    return {"type": kind, "enum": list(values)}


def list_of(item: Shape, *, length: int | None = None) -> Shape:
    """A list of ``item`` (of exactly ``length`` items when given)."""
    shape: Shape = {"type": "array", "items": item}
    if length is not None:
        shape |= {"minItems": length, "maxItems": length}
    return shape


def record(properties: Mapping[str, Shape], *, optional: Sequence[str] = ()) -> Shape:
    """An object with ``properties``, every one present unless named in ``optional``."""
    shape: Shape = {"type": "object", "properties": dict(properties)}
    required = [k for k in properties if k not in optional]
    if required:
        shape["required"] = required
    return shape


#: Groups of seats, best first or in the order they went out (a group shares a place).
SEAT_GROUPS: Shape = list_of(list_of(SEAT))


@dataclass(frozen=True)
class ActionShape:
    """One action type of a game: its fields, who may send it and what is recorded.

    ``fields``: what a seat sends besides ``type`` (every one required).
    ``filled``: what the server adds before deciding (an Old Maid draw's card), recorded
    in the move but never sent by a seat.  ``sent``: whether a seat may send it (a chance
    move the server alone makes is not).  ``recorded``: whether it appears in moves (a
    request the server turns into another action, Old Maid's shuffle, is not).
    ``secret``: the recorded fields that may be hidden from other viewers while the game
    runs (:meth:`Game.secret_fields` says when; a move then lists them under
    ``redacted``).
    """

    fields: Mapping[str, Shape] = field(default_factory=dict)
    filled: Mapping[str, Shape] = field(default_factory=dict)
    sent: bool = True
    recorded: bool = True
    secret: frozenset[str] = frozenset()
    description: str = ""

    def request_shape(self, kind: str) -> Shape:
        """What a seat sends: ``type`` and every field, nothing else."""
        shape = record({"type": one_of_values(kind), **self.fields})
        shape["additionalProperties"] = False
        return shape | ({"description": self.description} if self.description else {})

    def move_shape(self, kind: str) -> Shape:
        """The action as a move records it, as a viewer sees it (secret fields may be gone)."""
        shape = record(
            {"type": one_of_values(kind), **self.fields, **self.filled},
            optional=sorted(self.secret),
        )
        shape["additionalProperties"] = False
        return shape | ({"description": self.description} if self.description else {})
