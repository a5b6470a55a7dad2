"""A game's context (``Game.context``), read once a row: :meth:`GameContext.of`."""

from __future__ import annotations

import copy

from tournaments.models import Game
from tournaments.play.context import ContextSeat, GameContext, table_id_of


def dealt(context: object) -> Game:
    return Game(kind="old_maid", seats=2, dealer=0, context=context)


def test_a_rows_context_is_parsed_once_and_again_when_the_row_gets_another() -> None:
    game = dealt({"tournament": 3, "table": 9, "seats": [{"player": 5, "name": "Ann"}]})
    first = GameContext.of(game)
    assert first.tournament == 3 and first.seats == (ContextSeat(5, "Ann", None),)
    assert GameContext.of(game) is first
    assert GameContext.of(copy.copy(game)) is first  # a copy of the row shares its context
    game.context = {"tournament": 4, "seats": []}
    again = GameContext.of(game)
    assert again.tournament == 4 and again.seats == () and table_id_of(game) is None


def test_a_context_that_is_not_an_object_reads_as_empty() -> None:
    for context in (None, [], "x", 7):
        assert GameContext.of(dealt(context)) == GameContext()
