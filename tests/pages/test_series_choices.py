"""The tournament form offers and accepts only the series each game allows (issue 20), from
the engine's metadata alone, and states each game's defaults as the other pages do."""

from __future__ import annotations

import re

import pytest
from django.utils.html import escape

from engine.registry import all_games
from tests.factories import PageWorld
from tournaments import services
from tournaments.forms import TournamentForm, games_of_series
from tournaments.models import Club, Tournament
from tournaments.services.tournaments import SERIES_KIND_WORDS, series_kinds
from tournaments.web.common import series_text

pytestmark = pytest.mark.django_db


def _create(world: PageWorld, **changes: object) -> str:
    data = {
        "club": world.club.pk,
        "name": "Wrong series",
        "game": "old_maid",
        "rounds": 1,
        "series_kind": "first_to",
        "series_target": 3,
        "seating_mode": "mixing",
    }
    data.update(changes)
    answer = world.client(world.organiser).post("/tournaments/new", data)
    assert answer.status_code == 200
    return answer.content.decode()


def test_each_series_option_names_the_games_the_engine_allows_it_for() -> None:
    page = TournamentForm(clubs=Club.objects.none())["series_kind"].as_widget()
    offered = dict(re.findall(r'<option value="(\w+)" data-games="([\w ]+)"', page))
    expected = {
        kind: " ".join(g.id for g in all_games() if kind in series_kinds(g.id))
        for kind in SERIES_KIND_WORDS
    }
    assert offered == {kind: games for kind, games in expected.items() if games}
    assert set(games_of_series()["losses"]) == {"old_maid", "bhabhi"}
    assert 'data-series-of="id_game"' in page


def test_the_form_page_loads_the_script_that_hides_the_series_a_game_does_not_allow(
    world: PageWorld,
) -> None:
    page = world.client(world.organiser).get("/tournaments/new").content.decode()
    assert "/static/parlour/series.js" in page


def test_a_series_the_game_does_not_allow_is_refused_in_words_without_javascript(
    world: PageWorld,
) -> None:
    page = _create(world)
    assert (
        "Old Maid is played as N deals, fewest losses, not first to N round wins: choose that"
        " series, or leave the series empty for the game&#x27;s usual one." in page
    )
    assert "{&quot;kind&quot;" not in page and '{"kind"' not in page  # no JSON for organisers
    assert not Tournament.objects.exists()


def test_a_series_the_game_allows_is_accepted(world: PageWorld) -> None:
    for game in all_games():
        (kind,) = series_kinds(game.id)
        world.client(world.organiser).post(
            "/tournaments/new",
            {
                "club": world.club.pk,
                "name": f"Right {game.id}",
                "game": game.id,
                "rounds": 1,
                "series_kind": kind,
                "series_target": 2,
                "seating_mode": "mixing",
            },
        )
        made = Tournament.objects.get(name=f"Right {game.id}")
        assert made.series == {"kind": kind, "target": 2}


def test_the_defaults_the_form_states_are_the_ones_the_other_pages_state(
    world: PageWorld,
) -> None:
    form = world.client(world.organiser).get("/tournaments/new").content.decode()
    home = world.client(world.organiser).get("/").content.decode()
    for game in all_games():
        words = series_text(game.default_series.to_json())
        line = f"{game.name}: tables of {game.min_seats}–{game.max_seats}, {words}"
        assert escape(line) in form
    bhabhi = next(g for g in all_games() if g.id == "bhabhi")
    said = series_text(bhabhi.default_series.to_json())
    assert said == f"{bhabhi.default_series.target} deals, fewest losses"
    assert said in home


def test_the_edit_form_keeps_the_tournaments_own_first_turn_grace(world: PageWorld) -> None:
    made = services.create_tournament(
        world.club, "No grace", "bhabhi", 1, first_turn_grace=0, turn_seconds=30
    )
    org = world.client(world.organiser)
    page = org.get(f"/tournaments/{made.pk}/edit").content.decode()
    assert re.search(r'name="first_turn_grace"[^>]*value="0"', page)
    assert re.search(r'<option value="losses" selected data-games="[^"]*bhabhi', page)
