"""Notices: every page a logged-in player has open learns from /me/notices that one of their
games has started or waits for them; the first turn's grace shows on the clock."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.factories import ONE_DEAL, PAGE_SEATS, PageWorld, begin_round, bot_tournament, tournament
from tournaments.models import Game

pytestmark = pytest.mark.django_db


def test_a_player_s_notices_list_their_running_game_with_its_play_page_and_their_turn(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    game = make_person_game("bhabhi")
    answer = world.client(world.person).get("/me/notices")
    assert answer.status_code == 200
    [shown] = answer.json()["games"]
    assert shown["game_id"] == game.pk
    assert shown["play_url"] == f"/games/{game.pk}/play"
    assert shown["my_turn"] is True  # the bots have played up to Ann
    assert shown["game_name"] == "Bhabhi / Getaway"
    assert shown["sequence"] == game.sequence
    assert shown["deadline"] == game.deadlines[str(shown["seat"])]


def test_notices_are_for_the_logged_in_player_only(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    make_person_game("old_maid")
    stranger = world.client().get("/me/notices")
    assert stranger.status_code == 401 and stranger.json()["games"] == []
    assert world.client(world.person).post("/me/notices").status_code == 405
    # The organiser sits at no table: nothing to tell them.
    assert world.client(world.organiser).get("/me/notices").json()["games"] == []


def test_a_finished_game_is_no_longer_told(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    game = make_person_game("give_away")
    Game.objects.filter(pk=game.pk).update(status=Game.Status.OVER)
    assert world.client(world.person).get("/me/notices").json()["games"] == []


def test_the_notices_cost_the_same_whatever_else_the_store_holds(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    make_person_game("bhabhi")
    client = world.client(world.person)
    client.get("/me/notices")  # the session, warmed

    def queries() -> int:
        with CaptureQueriesContext(connection) as seen:
            assert client.get("/me/notices").status_code == 200
        return len(seen.captured_queries)

    before = queries()
    for _ in range(3):  # other people's tournaments, played to their end, and a running one
        bot_tournament(world, "bhabhi")
    bot_tournament(world, "old_maid", play=False)
    assert queries() == before


def test_every_page_of_a_logged_in_person_holds_the_notices_and_a_stranger_s_none(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    game = make_person_game("bhabhi")
    for path in ["/", "/me/", f"/games/{game.pk}/", f"/games/{game.pk}/play"]:
        page = world.client(world.person).get(path).content.decode()
        assert 'data-notices-url="/me/notices"' in page, path
        assert "parlour/notices.js" in page and "data-notify-toggle" in page, path
    play = world.client(world.person).get(f"/games/{game.pk}/play").content.decode()
    assert f'data-play-game="{game.pk}"' in play
    anonymous = world.client().get("/").content.decode()
    assert "data-notices-url" not in anonymous and "notices.js" not in anonymous


def test_the_first_turn_s_clock_holds_the_tournament_s_grace_and_says_so(
    world: PageWorld,
) -> None:
    """A fresh deal waiting for Ann: her clock runs the turn plus the grace to arrive."""
    for attempt in range(40):  # the deal decides who acts first: deal until it is Ann
        made = tournament(
            world.club,
            [world.player, *world.bots[: PAGE_SEATS["bhabhi"] - 1]],
            rounds=1,
            name=f"Grace {attempt}",
            series=ONE_DEAL["bhabhi"],
            table_max=PAGE_SEATS["bhabhi"],
            turn_seconds=30,
            first_turn_grace=20,
        )
        begin_round(made)
        game = Game.objects.get(table__round__tournament=made)
        [shown] = [
            g
            for g in world.client(world.person).get("/me/notices").json()["games"]
            if g["game_id"] == game.pk
        ]
        if shown["my_turn"] and game.sequence == 1:
            break
        Game.objects.filter(pk=game.pk).update(status=Game.Status.OVER)  # out of the way
    else:
        raise AssertionError("forty deals and Ann never acted first")
    left = datetime.fromisoformat(shown["deadline"]) - timezone.now()
    assert timedelta(seconds=40) < left <= timedelta(seconds=50)
    page = world.client(world.person).get(f"/games/{game.pk}/play").content.decode()
    assert f'data-deadline="{shown["deadline"]}"' in page
    assert "30 seconds a turn and 20 seconds more to arrive" in page
