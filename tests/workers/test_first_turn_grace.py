"""The first turn of a game gets the tournament's time to arrive on the clock."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from engine.registry import get_game
from events import store
from tournaments import play
from tournaments.play.projection import rebuild_projections


def _first_deadline(game: Any) -> timedelta:
    seat = game.waiting_for[0]
    return datetime.fromisoformat(game.deadlines[str(seat)]) - game.created_at


@pytest.mark.django_db
def test_the_deals_clocks_get_the_grace_and_later_turns_do_not() -> None:
    game = play.create_game("give_away", 2, dealer=0, turn_seconds=30, first_turn_grace=20)
    assert _first_deadline(game) == timedelta(seconds=50)
    # The next turn's clock is the plain turn.
    engine = get_game("give_away")
    seat = game.waiting_for[0]
    state = play.load_state(game)
    action = engine.legal_actions(state, seat)[0]
    result = play.submit_action(game.pk, seat, action, expected_sequence=game.sequence)
    game.refresh_from_db()
    if game.waiting_for:
        last = result.sequence
        due = datetime.fromisoformat(game.deadlines[str(game.waiting_for[0])])
        recorded = store.read_stream(game.stream)[last - 1].recorded_at
        assert due - recorded == timedelta(seconds=30)
    # The grace is in the deal's event: the projection rebuilt from the events keeps it.
    game2 = play.create_game("give_away", 2, dealer=0, turn_seconds=30, first_turn_grace=20)
    rebuild_projections()
    game2.refresh_from_db()
    assert _first_deadline(game2) == timedelta(seconds=50)


@pytest.mark.django_db
def test_without_a_clock_or_a_grace_nothing_changes() -> None:
    game = play.create_game("give_away", 2, dealer=0, turn_seconds=30)
    assert _first_deadline(game) == timedelta(seconds=30)
    untimed = play.create_game("give_away", 2, dealer=0, first_turn_grace=20)
    assert untimed.deadlines == {}
