"""Forced moves are played for people: a whole Give Away match needs no click, unless a
player turns it off for themselves."""

from __future__ import annotations

import pytest

from engine.record import import_record
from engine.registry import get_game
from engine.series import SeriesFormat, scores
from tests.factories import begin_round, events, running_game, seat_of, table_tournament
from tournaments import play as service
from tournaments import services
from tournaments.models import Game, Round
from tournaments.workers.autoplay import FORCED_CAUSE_ID

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_give_away_match_between_two_people_plays_to_its_end_with_no_request(
    eager: None,
) -> None:
    night, _ = table_tournament(
        "give_away", people=2, bots=[], series={"kind": "first_to", "target": 3}
    )
    round_ = begin_round(night)
    round_.refresh_from_db()
    assert round_.status == Round.Status.FINISHED, "every move of the match was played for them"
    games = list(Game.objects.filter(table__round=round_).order_by("number_in_series"))
    assert games and all(g.is_over for g in games)
    results = [g.result for g in games]
    assert max(scores(SeriesFormat("first_to", 3), results, 2)) == 3
    for game in games:
        moves = [e for e in events(game) if e.type == "move"]
        assert all((e.cause_kind, e.cause_id) == ("seat", FORCED_CAUSE_ID) for e in moves)
    # The record is what it would be had the players clicked: it replays and checks.
    record = service.export_record(games[-1])
    assert all("cause" not in m for m in record["moves"])
    replayed = import_record(record)
    assert get_game("give_away").outcome(get_game("give_away").fold(replayed)) == games[-1].result


def test_turning_forced_moves_off_makes_that_player_click(eager: None) -> None:
    night, players = table_tournament(
        "give_away", people=2, bots=[], series={"kind": "first_to", "target": 1}
    )
    clicker = players["person 0"]
    assert clicker.user is not None
    services.set_play_forced_moves(clicker.user, False)
    begin_round(night)
    game = running_game(night)
    seat = seat_of(game, clicker).seat
    assert game.waiting_for == [seat], "the other player's moves were played, this one waits"
    assert all(e.payload["seat"] != seat for e in events(game) if e.type == "move")
    clicked = 0
    while not game.is_over and clicked < 500:
        assert game.waiting_for == [seat]
        (action,) = service.game_view(game, seat)["legal_actions"][:1]
        service.submit_action(game.pk, seat, action, expected_sequence=game.sequence)
        clicked += 1
        game = (
            running_game(night)
            if Game.objects.filter(
                table__round__tournament=night, status=Game.Status.RUNNING
            ).exists()
            else Game.objects.get(pk=game.pk)
        )
    assert clicked >= 1
    mine = [e for e in events(game) if e.type == "move" and e.payload["seat"] == seat]
    assert mine and all((e.cause_kind, e.cause_id) == ("seat", str(seat)) for e in mine)
