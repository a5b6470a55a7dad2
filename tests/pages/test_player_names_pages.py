"""The desk refuses a new player whose name mixes lookalike alphabets, in the reader's
language, and registers no one."""

from __future__ import annotations

import pytest
from django.conf import settings

from tests.factories import PageWorld
from tournaments import services
from tournaments.models import Player

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("en", "mixes alphabets whose letters look alike (Latin: &quot;a&quot;)"),
        ("ru", "смешаны алфавиты с похожими буквами (латинские: &quot;a&quot;)"),
    ],
)
def test_the_desk_refuses_a_name_mixing_alphabets_in_a_word(
    world: PageWorld, language: str, said: str
) -> None:
    client = world.client(world.organiser)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    made = services.create_tournament(world.club, "Весна", "old_maid", 2)
    answer = client.post(
        f"/tournaments/{made.pk}/manage/add-player",
        {"name": "Ив\N{LATIN SMALL LETTER A}н"},
        follow=True,
    )
    page = answer.content.decode()
    assert said in page, page[-3000:]
    assert not Player.objects.filter(club=world.club, name__startswith="Ив").exists()
