"""Words on the table for people: seats numbered from 1, every abbreviation explained, long
names cut with the whole name on hover."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.factories import PageWorld, bot_tournament
from tournaments.models import Game, Table

pytestmark = pytest.mark.django_db


def test_seats_are_numbered_from_1_for_people(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    game = make_person_game("bhabhi")
    for path in [f"/games/{game.pk}/", f"/games/{game.pk}/play", f"/tables/{game.table_id}/"]:
        page = world.client(world.person).get(path).content.decode()
        numbers = [int(n) for n in re.findall(r'aria-label="Seat (\d+):', page)]
        assert sorted(set(numbers)) == [1, 2, 3], path
    mine = world.client(world.person).get("/me/").content.decode()
    seat = next(s for s, p in enumerate(game.context["seats"]) if p["player"] == world.player.pk)
    assert f"seat {seat + 1}" in mine


def test_every_abbreviation_on_the_pages_is_explained(world: PageWorld) -> None:
    tournament = bot_tournament(world, "bhabhi", players=3, rounds=2)
    table = Table.objects.filter(round__tournament=tournament).first()
    game = Game.objects.filter(table=table).first()
    assert table is not None and game is not None
    client = world.client()
    for path in [
        f"/tournaments/{tournament.pk}/",
        f"/tables/{table.pk}/",
        f"/games/{game.pk}/",
        f"/games/{game.pk}/replay",
    ]:
        page = client.get(path).content.decode()
        abbrs = re.findall(r"<abbr([^>]*)>([^<]*)</abbr>", page)
        for attributes, text in abbrs:
            assert re.search(r'title="[^"]{3,}"', attributes), (path, text)
        told = {text for _, text in abbrs}
        # The short forms the pages use, each told in an <abbr title> where it is used.
        if re.search(r">Opp\.<", page):
            assert "Opp." in told, path
        if re.search(r">R\d+</th>", page):
            assert "R1" in told, path
        if 'class="chip"' in page:
            assert "D" in told, path


def test_a_long_name_is_cut_in_a_seat_and_a_standings_row_with_the_whole_name_on_hover(
    world: PageWorld, make_person_game: Callable[..., Game]
) -> None:
    world.player.name = "Maximiliana" * 7
    world.player.save()
    game = make_person_game("bhabhi")
    name = world.player.name
    play = world.client(world.person).get(f"/games/{game.pk}/play").content.decode()
    assert f'<span class="name long-name" title="{name}">' in play
    spectator = world.client().get(f"/games/{game.pk}/").content.decode()
    assert f'<span class="name long-name" title="{name}">' in spectator
    standings = world.client().get(f"/tournaments/{game.context['tournament']}/")
    assert re.search(rf'class="long-name"[^>]*title="{name}"', standings.content.decode())
