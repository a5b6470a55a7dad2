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
    # The next turn's clock is the plain turn.  The deal's seat keeps the deal's clock
    # for its whole turn, however many moves it makes (Give Away lets it go on), so
    # play that turn out and look at the first clock a later event started.
    engine = get_game("give_away")
    first = game.waiting_for[0]
    while game.status == game.Status.RUNNING and game.waiting_for == [first]:
        state = play.load_state(game)
        action = engine.legal_actions(state, first)[0]
        result = play.submit_action(game.pk, first, action, expected_sequence=game.sequence)
        game.refresh_from_db()
    if game.waiting_for:
        seat = game.waiting_for[0]
        due = datetime.fromisoformat(game.deadlines[str(seat)])
        recorded = store.read_stream(game.stream)[result.sequence - 1].recorded_at
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
