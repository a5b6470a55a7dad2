"""The live demo (tournaments/demo.py): a demo bot tournament is always being played."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from tournaments.demo import keep_demo_live
from tournaments.management.commands.play_bots import play_tournament, run_all_bots
from tournaments.models import Game, Round, Tournament
from tournaments.services import begin_round, start_round
from tournaments.workers import tasks

pytestmark = pytest.mark.django_db


def play_to_round(tournament: Tournament, number: int) -> None:
    """Play rounds until round ``number`` is being played (not finished)."""
    while True:
        last = Round.objects.filter(tournament=tournament).order_by("number").last()
        assert last is not None
        if last.number == number:
            return
        run_all_bots(tournament)
        begin_round(start_round(tournament, auto_check_in=True))


def test_without_the_demo_club_nothing_is_started() -> None:
    assert keep_demo_live() is None
    assert not Tournament.objects.exists()


def test_the_next_demo_begins_when_the_running_one_reaches_its_second_to_last_round() -> None:
    call_command("load_demo", stdout=io.StringIO())
    night = Tournament.objects.get(name="Demo Bhabhi Night")
    assert keep_demo_live() is None  # round 1 of 3 is playing: not yet
    play_to_round(night, night.rounds - 1)
    night.refresh_from_db()
    assert night.status == Tournament.Status.RUNNING  # two rounds still to play
    following = keep_demo_live()
    assert following is not None
    assert following.name == "Demo live 1: Bhabhi / Getaway" and following.game == "bhabhi"
    assert following.status == Tournament.Status.RUNNING
    first = Round.objects.get(tournament=following)
    assert first.status == Round.Status.PLAYING
    assert Game.objects.filter(table__round=first, status=Game.Status.RUNNING).exists()
    assert keep_demo_live() is None  # the new one is in its first round


def test_the_demo_tournaments_take_the_four_games_in_turn() -> None:
    call_command("load_demo", stdout=io.StringIO())
    play_tournament(Tournament.objects.get(name="Demo Bhabhi Night"), next_rounds=True)
    kinds = []
    for _ in range(4):
        tournament_id = tasks.keep_demo_live()  # the task beat runs
        assert tournament_id is not None
        tournament = Tournament.objects.get(pk=tournament_id)
        kinds.append(tournament.game)
        play_tournament(tournament, next_rounds=True)
        tournament.refresh_from_db()
        assert tournament.status == Tournament.Status.FINISHED
    assert kinds == ["bhabhi", "old_maid", "give_away", "give_and_take"]
