"""The organiser's management commands, and the demo."""

from __future__ import annotations

import io
import random
import re

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.core.management.base import CommandError

from tests import factories
from tournaments import services
from tournaments.models import (
    CheckIn,
    Club,
    Game,
    Player,
    Registration,
    Round,
    TableSeat,
    Tournament,
)

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_an_organiser_runs_a_night_from_the_command_line() -> None:
    club = factories.club()
    out = run(
        "create_tournament",
        "Friday",
        "--club",
        club.slug,
        "--game",
        "bhabhi",
        "--rounds",
        "2",
        "--series",
        "losses:1",
        "--table-preferred",
        "3",
        "--seating",
        "swiss",
    )
    t = Tournament.objects.get()
    assert out.startswith(f"created tournament {t.pk}: Friday (bhabhi, 2 rounds, series losses:1")
    assert (t.seating_mode, t.table_preferred, t.series) == (
        "swiss",
        3,
        {"kind": "losses", "target": 1},
    )

    run("register", str(t.pk), "Ann", "Bo", "--create")
    out = run("register", "Friday", "R1", "R2", "R3", "R4", "--create", "--bot", "heuristic")
    assert "registered R1 (bot heuristic) in Friday from round 1" in out
    assert Registration.objects.filter(tournament=t).count() == 6

    out = run("check_in", str(t.pk), "ann", "Bo")
    assert out.strip() == "checked in for round 1 of Friday: Ann, Bo"

    out = run("start_round", str(t.pk), "--no-begin", "--apart", "Ann,Bo")
    round_ = Round.objects.get()
    assert round_.status == Round.Status.SEATED and "seated, not begun" in out
    tables = {s.player.name: s.table_id for s in TableSeat.objects.select_related("player")}
    assert tables["Ann"] != tables["Bo"]
    assert "Table 1 (3 seats; waiting): 0* " in out

    partner = next(n for n, table in tables.items() if table == tables["Bo"] and n != "Bo")
    run("start_round", str(t.pk), "--no-begin", "--swap", f"Ann,{partner}")
    after = {s.player.name: s.table_id for s in TableSeat.objects.select_related("player")}
    assert after["Ann"] == tables["Bo"] and after[partner] == tables["Ann"]

    out = run("start_round", str(t.pk))
    round_.refresh_from_db()
    assert round_.status == Round.Status.PLAYING and Game.objects.count() == 2
    assert "Round 1: playing" in out

    out = run("show_seating", str(t.pk), "--standings")
    assert "Round 1: playing" in out and "Standings:" in out and "Table 2" in out

    with pytest.raises(CommandError, match="round 1 is being played: Ann can drop out once it"):
        run("drop", str(t.pk), "Ann")
    with pytest.raises(CommandError, match="round 2 cannot start: round 1 still has"):
        run("start_round", str(t.pk))


def test_commands_say_what_is_wrong() -> None:
    club = factories.club()
    with pytest.raises(CommandError, match="there is no club 'nope'"):
        run("create_tournament", "X", "--club", "nope", "--game", "bhabhi", "--rounds", "1")
    with pytest.raises(CommandError, match="--series 'losses': expected KIND:TARGET"):
        run(
            "create_tournament", "X", "--club", club.slug, "--game", "bhabhi", "--rounds", "1",
            "--series", "losses",
        )  # fmt: skip
    with pytest.raises(CommandError, match='there is no game "chess"'):
        run("create_tournament", "X", "--club", club.slug, "--game", "chess", "--rounds", "1")
    with pytest.raises(CommandError, match='no tournament is called "Nothing"'):
        run("show_seating", "Nothing")
    t = factories.tournament(club, [])
    with pytest.raises(CommandError, match='Test Club has no player "Ghost"'):
        run("register", str(t.pk), "Ghost")
    with pytest.raises(CommandError, match="--fix 'Ann': write PLAYER=TABLE"):
        run("start_round", str(t.pk), "--fix", "Ann")


def test_play_bots_plays_a_bot_tournament_to_the_end() -> None:
    club = factories.club()
    t = factories.tournament(club, factories.bots(club, 6), rounds=2)
    out = run("play_bots", "--tournament", str(t.pk), "--next-rounds")
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED
    assert "it is finished, 0 game(s) waiting for a person" in out
    out = run("show_seating", str(t.pk), "--round", "1", "--standings")
    assert "Round 1: finished" in out and "placings" in out


def test_play_bots_without_a_tournament_plays_every_running_game() -> None:
    club = factories.club()
    t = factories.tournament(club, factories.bots(club, 4), rounds=1)
    services.begin_round(services.start_round(t, rng=random.Random(1)))
    out = run("play_bots")
    moves = re.fullmatch(r"(\d+) bot moves; no bot can move now\n", out)
    assert moves is not None and int(moves[1]) > 0
    assert not Game.objects.filter(status=Game.Status.RUNNING).exists()
    t.refresh_from_db()
    assert t.status == Tournament.Status.FINISHED


def test_check_in_all_and_drop_from_the_command_line() -> None:
    club = factories.club()
    people = factories.people(club, ["Ann", "Bo", "Cy"])
    t = factories.tournament(club, people, rounds=2)
    run("check_in", str(t.pk), "--all")
    assert CheckIn.objects.filter(tournament=t, round_number=1).count() == 3
    # Before round 1 a drop is refused: it is a withdrawal (services.check_drop).
    with pytest.raises(CommandError, match="no round of Test Night has begun: withdraw Cy"):
        run("drop", str(t.pk), "Cy")
    played = factories.tournament(club, factories.bots(club, 3), rounds=2, name="Played")
    factories.play_round(played, rng=random.Random(1))
    out = run("drop", str(played.pk), "Bot 02")
    assert out.strip() == (
        "Bot 02 dropped out of Played after round 1; their results stay in the standings"
    )


def test_load_demo_sets_up_the_demo_club_once() -> None:
    out = run("load_demo")
    assert "Organiser login: organiser / password organiser" in out
    assert "ann / password ann, bo / password bo" in out
    club = Club.objects.get(slug="parlour-demo")
    organiser = User.objects.get(username="organiser")
    assert organiser.is_staff and organiser.check_password("organiser")
    assert services.is_organiser(organiser, club)
    assert User.objects.get(username="ann").check_password("ann")
    assert Player.objects.filter(club=club, bot_level="").count() == 8
    assert Player.objects.filter(club=club).exclude(bot_level="").count() == 12
    running = Tournament.objects.get(name="Demo Bhabhi Night")
    assert running.status == Tournament.Status.RUNNING
    assert running.series == {"kind": "losses", "target": 3} and running.rounds == 3
    first = Round.objects.get(tournament=running)
    assert first.status == Round.Status.PLAYING
    assert Game.objects.filter(table__round=first).count() == 3
    assert Tournament.objects.get(name="Demo Old Maid Afternoon").status == "finished"
    assert Tournament.objects.get(name="Demo Give Away Friday").status == "registration"

    counts = [m.objects.count() for m in (User, Club, Player, Tournament, Round, Game)]
    again = run("load_demo")
    assert "Demo already loaded: nothing changed" in again
    assert [m.objects.count() for m in (User, Club, Player, Tournament, Round, Game)] == counts
