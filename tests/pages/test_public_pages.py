"""The public pages through Django's test client: home, tournament, table, game, replay, player."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.factories import PageWorld, bot_tournament
from tournaments.models import Game, Table, Tournament
from tournaments.play import game_view

pytestmark = pytest.mark.django_db


def test_home_lists_running_coming_and_finished_tournaments_and_health_answers(
    world: PageWorld,
) -> None:
    finished = bot_tournament(world, "old_maid", players=3)
    running = bot_tournament(world, "bhabhi", players=3, play=False)
    coming = services_create(world, "Friday Give Away")
    client = world.client()
    page = client.get("/").content.decode()
    for t in (finished, running, coming):
        assert t.name in page
    assert "Playing now" in page and "Coming up" in page and "Finished" in page
    # The running tournament's live table is on the page, with its stream to follow.
    game = Game.objects.get(table__round__tournament=running)
    assert f'data-game-id="{game.pk}"' in page
    stream = reverse("api:tournament-stream", args=[running.pk])
    assert f'data-stream-url="{stream}?last_event_id=' in page
    fragment = client.get("/?fragment=1").content.decode()
    assert f'data-game-id="{game.pk}"' in fragment and "<html" not in fragment
    assert client.get("/healthz").json() == {"status": "ok"}


def services_create(world: PageWorld, name: str) -> Tournament:
    from tournaments import services

    return services.create_tournament(world.club, name, "give_away", 2)


def test_the_tournament_page_shows_rounds_seatings_points_per_round_and_a_chart(
    world: PageWorld,
) -> None:
    tournament = bot_tournament(world, "give_away", players=4, rounds=2)
    client = world.client()
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert 'id="standings"' in page
    assert ">R1</th>" in page
    assert "<svg" in page and "Standings over the rounds" in page
    for bot in world.bots[:4]:
        assert bot.name in page
    # Points: a table of 4 hands out 1 + 2/3 + 1/3 + 0 (or shares of them) = 2.
    cells = re.findall(r'<td class="num"><strong>([0-9.]+)</strong></td>', page)
    assert len(cells) == 4
    assert abs(sum(float(c) for c in cells) - 2.0) < 0.02
    table = Table.objects.get(round__tournament=tournament)
    assert reverse("table", args=[table.pk]) in page
    assert "Replay the last game" in page
    fragment = client.get(f"/tournaments/{tournament.pk}/?fragment=1").content.decode()
    assert 'id="standings"' in fragment and "<html" not in fragment
    assert client.get("/tournaments/999999/").status_code == 404


def test_a_running_tournament_page_follows_the_tournament_stream(world: PageWorld) -> None:
    tournament = bot_tournament(world, "bhabhi", players=3, play=False)
    page = world.client().get(f"/tournaments/{tournament.pk}/").content.decode()
    assert reverse("api:tournament-stream", args=[tournament.pk]) in page
    assert "Watch live" in page
    assert "appears when round 1 has finished" in page


def test_a_spectator_sees_the_live_table_without_any_hidden_card(world: PageWorld) -> None:
    tournament = bot_tournament(world, "bhabhi", players=3, play=False)
    game = Game.objects.get(table__round__tournament=tournament)
    page = world.client().get(f"/tables/{game.table_id}/").content.decode()
    assert f'data-game-id="{game.pk}"' in page
    assert reverse("api:game-stream", args=[game.pk]) + f"?last_event_id={game.sequence}" in page
    shown = set(re.findall(r'data-card="(\w\w)"', page))
    hands = game_view(game, "organiser")  # a spectator's view
    assert "hand" not in hands
    full = {c for s in range(game.seats) for c in game_view(game, s)["hand"]}
    assert not shown & full, "a card in someone's hand is shown to a spectator"
    game_page = world.client().get(f"/games/{game.pk}/").content.decode()
    assert f'data-game-id="{game.pk}"' in game_page and "live" in game_page


def test_a_finished_game_page_shows_every_card_and_links_its_replay(world: PageWorld) -> None:
    tournament = bot_tournament(world, "bhabhi", players=3)
    game = Game.objects.filter(table__round__tournament=tournament).last()
    assert game is not None and game.is_over
    page = world.client().get(f"/games/{game.pk}/").content.decode()
    assert reverse("game-replay", args=[game.pk]) in page
    assert "Game over" in page


def _long_game(world: PageWorld, least: int = 8) -> Game:
    """A finished Bhabhi game of at least ``least`` moves (a hand taken early ends one sooner)."""
    for _ in range(10):
        tournament = bot_tournament(world, "bhabhi", players=3)
        game = Game.objects.filter(table__round__tournament=tournament).last()
        assert game is not None and game.is_over
        if game.sequence - 1 >= least:
            return game
    raise AssertionError(f"ten Bhabhi games of fewer than {least} moves")


def test_the_replay_shows_any_move_with_every_card_and_lists_every_move(world: PageWorld) -> None:
    game = _long_game(world)
    total = game.sequence - 1
    client = world.client()
    deal = client.get(f"/games/{game.pk}/replay?move=0").content.decode()
    board = deal.split('id="replay-board"')[1].split("Every move")[0]
    assert len(re.findall(r'data-card="\w\w"', board)) == 52
    assert 'aria-label="ace of spades"' in board
    assert len(re.findall(r'<li id="move-\d+"', deal)) == total + 1
    assert f'data-total="{total}"' in deal
    middle = client.get(f"/games/{game.pk}/replay?move=5").content.decode()
    assert "Move 5 of" in middle and 'id="move-5" aria-current="step"' in middle
    fragment = client.get(f"/games/{game.pk}/replay?move=5&fragment=1").content.decode()
    assert "Move 5 of" in fragment and "<html" not in fragment
    # Out of range and nonsense moves are clamped to the game.
    assert f"Move {total} of" in client.get(f"/games/{game.pk}/replay?move=99999").content.decode()
    assert "The deal" in client.get(f"/games/{game.pk}/replay?move=-3").content.decode()
    assert f"Move {total} of" in client.get(f"/games/{game.pk}/replay?move=x").content.decode()


def test_the_replay_of_a_running_game_is_refused_until_it_ends(world: PageWorld) -> None:
    tournament = bot_tournament(world, "bhabhi", players=3, play=False)
    game = Game.objects.get(table__round__tournament=tournament)
    answer = world.client().get(f"/games/{game.pk}/replay")
    assert answer.status_code == 409
    assert "still being played" in answer.content.decode()


def test_the_player_page_shows_results_games_and_rating_history(world: PageWorld) -> None:
    bot_tournament(world, "give_away", players=3)
    bot_tournament(world, "give_away", players=3)
    bot = world.bots[0]
    page = world.client().get(f"/players/{bot.pk}/").content.decode()
    assert bot.name in page
    assert page.count('class="chart rating"') == 1
    assert "after 2 tables" in page
    assert page.count("replay</a>") >= 2
    assert world.client().get("/players/999999/").status_code == 404


def test_a_finished_game_stream_ends_with_an_end_event(world: PageWorld) -> None:
    tournament = bot_tournament(world, "give_away", players=2)
    game = Game.objects.filter(table__round__tournament=tournament).last()
    assert game is not None
    answer = world.client().get(
        reverse("api:game-stream", args=[game.pk]), HTTP_ACCEPT="text/event-stream"
    )
    assert answer.status_code == 200
    body = b"".join(answer.streaming_content).decode()  # type: ignore[attr-defined]
    assert "event: end" in body
