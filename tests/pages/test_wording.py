"""The organiser's pages in the organiser's words (issue 20): names, not numbers; card
symbols, not codes; seats numbered from 1 for people."""

from __future__ import annotations

import re

import pytest
from django.utils.html import strip_tags

from tests.factories import PageWorld, bot_tournament
from tournaments.models import Table

pytestmark = pytest.mark.django_db

#: A card as the engine writes it (``QH``, ``10S``): never what a page says.
CARD_CODE = re.compile(r"\b(?:10|[2-9JQKA])[SHDC]\b")


@pytest.mark.parametrize("game", ["give_away", "old_maid", "bhabhi", "give_and_take"])
def test_the_pages_of_a_finished_night_say_no_card_code_and_number_seats_from_one(
    world: PageWorld, game: str
) -> None:
    assert CARD_CODE.findall("played QH, then 10S") == ["QH", "10S"]  # the check itself
    tournament = bot_tournament(world, game, players=3)
    org = world.client(world.organiser)
    table = Table.objects.filter(round__tournament=tournament).first()
    assert table is not None
    for url in (
        "/",
        f"/tournaments/{tournament.pk}/",
        f"/tournaments/{tournament.pk}/manage",
        f"/tournaments/{tournament.pk}/projector",
        f"/tables/{table.pk}/",
    ):
        page = org.get(url).content.decode()
        text = strip_tags(re.sub(r"<(script|style)\b.*?</\1>", "", page, flags=re.S))
        assert not CARD_CODE.findall(text), (url, CARD_CODE.findall(text))
        assert not re.search(r'<ol class="seating" start="0"', page), url
