"""Russian that agrees (found by a Russian-speaking organiser and player): counts in their
plural forms, no «(а)» that guesses a player's gender, a game's name where its case cannot
change, the organiser's own words for what the organiser does."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation
from django.utils.translation import ngettext, pgettext

from tests.factories import PageWorld
from tournaments import services

CATALOG = Path(settings.BASE_DIR) / "locale" / "ru" / "LC_MESSAGES" / "django.po"


def _translations(plurals: bool = True) -> str:
    """Every msgstr of the Russian catalog, one per line (wrapped lines joined); without
    ``plurals``, only those of entries with no plural forms."""
    text = CATALOG.read_text()
    text = re.sub(r'"\n"', "", text)
    which = r"(?:\[\d\])?" if plurals else ""
    return "\n".join(re.findall(rf'^msgstr{which} "(.*)"$', text, flags=re.M))


def test_no_translation_guesses_a_gender_or_declines_a_game_name_it_cannot() -> None:
    said = _translations()
    # «отмечен(а)», «сам(а)»: neutral wording instead; «пометка «выбыл»» is a man's.
    assert not re.findall(r"\w+\((?:а|ла|на)\)", said)
    assert "«выбыл»" not in said
    # «в «Старая дева» играют»: a name in quotes keeps its nominative after «игра».
    assert not re.findall(r"(?:^|[^а-яё])(?:в|во|у|о) «%\(\w+\)s»", said)
    # «столы на 2–4 игроков»: a count after a range agrees with nothing; «от … до …» does.
    # (An entry with plural forms agrees with its upper bound.)
    assert not re.findall(r"%\(\w+\)s–%\(\w+\)s игроков", _translations(plurals=False))


def test_counts_agree_with_their_number() -> None:
    with translation.override("ru"):
        said = {
            n: ngettext("%(timeouts)s timeout in a row", "%(timeouts)s timeouts in a row", n)
            % {"timeouts": n}
            for n in (1, 2, 5, 22)
        }
    assert said == {
        1: "время истекло 1 раз подряд",
        2: "время истекло 2 раза подряд",
        5: "время истекло 5 раз подряд",
        22: "время истекло 22 раза подряд",
    }


@pytest.mark.django_db
def test_the_organiser_s_words_are_the_organiser_s(world: PageWorld) -> None:
    with translation.override("ru"):
        assert pgettext("organiser withdraws a player", "Withdraw") == "Снять с турнира"
    org = world.client(world.organiser)
    headers = {"HTTP_ACCEPT_LANGUAGE": "ru"}
    form = org.get("/tournaments/new", **headers).content.decode()  # type: ignore[arg-type]
    assert re.search(r"<label[^>]*>Название", form), "the tournament's name is «Название»"
    t = services.create_tournament(world.club, "Весна", "old_maid", 2, table_min=2, table_max=4)
    services.register(t, world.player)
    desk = org.get(f"/tournaments/{t.pk}/manage", **headers).content.decode()  # type: ignore[arg-type]
    assert "Снять с турнира" in desk and "Сняться с турнира" not in desk
    assert "за столом от 2 до 4 игроков" in desk
