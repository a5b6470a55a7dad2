"""A player's name through the API: a word mixing lookalike alphabets is a 422 naming the
field, and nothing is stored."""

from __future__ import annotations

import pytest

from tests.api.conftest import Api
from tests.factories import ClubWorld
from tournaments.models import Player

pytestmark = pytest.mark.django_db


def test_a_name_mixing_latin_and_cyrillic_in_a_word_is_a_422(world: ClubWorld, api: Api) -> None:
    body = {"club": world.club.pk, "name": "Ив\N{LATIN SMALL LETTER A}н"}
    status, problem, _ = api.post("/api/v1/players", body, token=world.tokens["org"])
    assert status == 422 and problem["type"] == "/api/v1/problems/refused"
    assert problem["field"] == "name" and '(Latin: "a")' in problem["detail"]
    assert not Player.objects.filter(club=world.club, name=body["name"]).exists()


def test_a_name_of_lookalike_letters_beside_a_player_s_is_a_422(world: ClubWorld, api: Api) -> None:
    # "Аlice" would be mixed; "АВЕ" beside "ABE" is in one alphabet, and reads the same.
    body = {"club": world.club.pk, "name": "ABE"}
    assert api.post("/api/v1/players", body, token=world.tokens["org"])[0] == 201
    alike = {"club": world.club.pk, "name": "АВЕ"}
    status, problem, _ = api.post("/api/v1/players", alike, token=world.tokens["org"])
    assert status == 422 and problem["field"] == "name" and "already" in problem["detail"]
