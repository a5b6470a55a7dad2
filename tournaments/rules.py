"""The rules pages: which template tells a game's rules in a language.

A game's rules are prose, written whole in each language (``templates/rules/<language>/
<game id>.html``) rather than cut into catalog phrases: a page is read, reviewed and kept
true as one text, and the conventions it must state are marked in it by section ids
(tests/pages/test_rules_pages.py).  A game without a page in the request's language falls
back to the default language's page, then to English; a game without any page has none,
and the pages that name it show no link (docs/engine.md, "How to add a game").
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.utils.functional import Promise
from django.utils.translation import get_language, pgettext_lazy

from engine.registry import all_games, game_ids
from tournaments.services import queries

#: The title of each game's rules, as its seed names it (the glossary's names in Russian); a
#: game not listed is titled by its name.
TITLES: dict[str, Promise] = {
    "give_away": pgettext_lazy("rules page title", "Give Away: shared foundations"),
    "old_maid": pgettext_lazy("rules page title", "Old Maid"),
    "bhabhi": pgettext_lazy("rules page title", "Bhabhi (Getaway)"),
    "give_and_take": pgettext_lazy("rules page title", "Give & Take"),
}


@dataclass(frozen=True)
class RulesPage:
    """A game that has a rules page, as the index and the other pages list it."""

    id: str
    name: str
    min_seats: int
    max_seats: int


def _language_code(code: str | None) -> str:
    return (code or settings.LANGUAGE_CODE).split("-")[0].lower()


def rules_template(game_id: str, language: str | None = None) -> str | None:
    """The template of ``game_id``'s rules in ``language`` (the request's), or ``None``."""
    if game_id not in game_ids():
        return None
    wanted = (_language_code(language or get_language()), _language_code(None), "en")
    for code in dict.fromkeys(wanted):
        name = f"rules/{code}/{game_id}.html"
        try:
            get_template(name)
        except TemplateDoesNotExist:
            continue
        return name
    return None


def rules_pages() -> list[RulesPage]:
    """Every registered game that has a rules page, in the registry's order."""
    return [
        RulesPage(g.id, str(TITLES.get(g.id) or queries.game_name(g.id)), g.min_seats, g.max_seats)
        for g in all_games()
        if rules_template(g.id) is not None
    ]
